//! What the user of the command line can do about an error, in this edge's words: its
//! flags, its commands and the files it reads. Domain errors carry a [`Topic`] instead of
//! advice that names flags or commands (an MCP caller has neither); this is where the
//! CLI's words for each topic live (the MCP server has its own, in `crate::mcp::tools`).

use crate::error::{CountTopic, Error, Origin, Setting, StoreTopic, Topic};

/// The hint the command line shows for `err`: its words for the error's topic, else the
/// domain's own hint. Every CLI renderer of an error (stderr, `--json`, `check`'s
/// per-brief errors) takes the hint from here.
pub fn for_cli(err: &Error) -> Option<String> {
    err.topic()
        .and_then(|topic| hint(topic, err.hint.as_deref()))
        .or_else(|| err.hint.as_deref().map(str::to_string))
}

/// Where a setting is given on the command line.
pub fn setting_words(setting: Setting) -> &'static str {
    match setting {
        Setting::CcrStore => "--store or BRIEF_CCR_PATH",
        Setting::Ledger => "--ledger or BRIEF_LEDGER",
        Setting::AlignState => "--state",
    }
}

/// The CLI's hint for `topic`; `domain` is the hint the domain gave in words true at every
/// edge, which some topics complete.
fn hint(topic: &Topic, domain: Option<&str>) -> Option<String> {
    Some(match topic {
        Topic::NoModel { wire } => format!(
            "pass --model NAME, or set `model: {{ provider: {wire}, name: NAME }}` in brief.yaml"
        ),
        Topic::NoApiKey { wire } => format!(
            "export {}=...; keys are read only from the environment",
            wire.key_var()
        ),
        Topic::BadBaseUrl { wire, from } => match from {
            Origin::Environment => format!(
                "fix {} or pass --base-url https://host/path",
                wire.base_url_var()
            ),
            Origin::Brief => {
                "fix `model.base_url` in brief.yaml or pass --base-url https://host/path".into()
            }
            _ => format!(
                "pass an http(s) base URL, e.g. {} (or fix {})",
                wire.default_base_url(),
                wire.base_url_var()
            ),
        },
        Topic::Unreachable { wire } => format!(
            "check --base-url or {} and the network",
            wire.base_url_var()
        ),
        Topic::IdleTimeout { after } => format!(
            "nothing was written; allow a silent server longer than {} with --timeout or {}",
            crate::clock::format_duration(*after),
            crate::provider::TIMEOUT_VAR
        ),
        Topic::MissingVars { names } => {
            let flags: Vec<String> = names.iter().map(|n| format!("--var {n}=VALUE")).collect();
            format!("pass {}", flags.join(" "))
        }
        Topic::NoBrief { exists: false } => {
            "name a directory that holds a brief.yaml, or create one with `brief init DIR`".into()
        }
        Topic::NoBrief { exists: true } => "create one with `brief init DIR`".into(),
        Topic::NoSession => "make one with `brief session new DIR --brief BRIEF`".into(),
        Topic::SessionFull => {
            "start a new session for this agent (`brief session new`); nothing was appended".into()
        }
        Topic::PurgeBoth { ids: [a, b] } => format!("purge both: --ids {a},{b}"),
        Topic::NotPending => "`brief session status DIR` lists the pending operations".into(),
        Topic::Setting(setting) => match domain {
            Some(domain) => format!("{domain}; set it with {}", setting_words(*setting)),
            None => format!("set {}", setting_words(*setting)),
        },
        Topic::Store(topic) => store_hint(topic),
        Topic::Count(CountTopic::NotRegular) => {
            "brief count counts regular files and stdin (`-`)".into()
        }
        Topic::Count(CountTopic::NotUtf8) => {
            "brief count counts text: convert it to UTF-8 first (e.g. with iconv)".into()
        }
        Topic::NotCompressible { brief } => format!(
            "{}; `brief stats {}` lists them",
            domain.unwrap_or("compress an identity, instruction or sample item"),
            brief.display()
        ),
        Topic::BadCompressor { dir } => format!(
            "fix it (`brief check {0}`, `brief lock {0}`), or leave out --compressor to use the bundled one",
            dir.display()
        ),
        Topic::BadDigest => format!("{} (see README, `brief digest`)", domain?),
        Topic::RuleFile => {
            "run without --write to see the compacted text; nothing was written".into()
        }
        Topic::StoreFull => "free space, or run `brief ccr gc` to drop expired originals".into(),
        Topic::NoFrameworkTools => "this session was made without --framework-tools".into(),
        Topic::EntryTooLarge => "store the text in the CCR store (`brief ccr put`) and append a reference to it; nothing was appended".into(),
        Topic::InvalidEnvelope => "check it with `brief envelope validate FILE`".into(),
        Topic::SessionSettingsTooLarge => {
            "pass fewer or shorter --var values; nothing was written".into()
        }
        Topic::OpenCall { call } => {
            format!("append the result of {call} first (`brief session append DIR --tool-result {call} ...`)")
        }
        Topic::TurnUnanswered {
            session,
            call,
            subagent: true,
        } => format!(
            "brief session subagent {} {call} (or --run-subagents next time)",
            session.display()
        ),
        Topic::TurnUnanswered { session, call, .. } => format!(
            "brief session append {} --tool-result {call} --text ...",
            session.display()
        ),
        Topic::RenderUnanswered { session, call } => format!(
            "answer it first: `brief session append {} --tool-result {call} --text ...` (`--format text` shows the session as it is)",
            session.display()
        ),
        Topic::NoEntry => "`brief session log DIR` lists every entry".into(),
        Topic::NotATurn => "operations checked with `brief session gate` resume there".into(),
        Topic::TurnAnswerKept { session } => format!(
            "the model's answer is kept; run `brief session turn {}` again to finish this turn",
            session.display()
        ),
        // Only an MCP tool call names a base URL of its own.
        Topic::BaseUrlNotAllowed { .. } => return None,
    })
}

/// The commands that act on an item's versions and on pending proposals.
fn store_hint(topic: &StoreTopic) -> String {
    match topic {
        StoreTopic::History { brief, item } => {
            format!("see `brief history {} {item}`", brief.display())
        }
        StoreTopic::NoVersions { brief, item } => format!(
            "version the current body with `brief record {} {item}`",
            brief.display()
        ),
        StoreTopic::ToolFile => {
            "edit the tool file and run `brief lock`; git keeps its history".into()
        }
        StoreTopic::UnknownProposal { brief } => format!(
            "list pending proposals with `brief proposals {}`",
            brief.display()
        ),
        StoreTopic::UnreadableProposal => {
            "proposals are written only by `brief compress`; discard this one with `brief discard`"
                .into()
        }
        StoreTopic::Discard { brief, id } => {
            format!("discard it with `brief discard {} {id}`", brief.display())
        }
        StoreTopic::Orphan { brief, id } => format!(
            "discard it: brief discard {} {id}",
            crate::cli::ui::shell_quote(&brief.display().to_string())
        ),
        StoreTopic::Stale { brief, id, item } => format!(
            "discard it with `brief discard {dir} {id}` and run `brief compress {dir} {item}` again",
            dir = brief.display()
        ),
        StoreTopic::Flagged { brief, id } => format!(
            "review it (`brief review {dir} {id}`); accept it anyway with `brief accept {dir} {id} --allow-flags`, or discard it",
            dir = brief.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The hints the compress, digest, compact and CCR errors gave before they carried a
    /// topic stay the CLI's; the MCP server's words for them name no flag or command.
    #[test]
    fn domain_topics_keep_the_cli_words_and_give_mcp_its_own() {
        let cases = [
            (
                Error::input("x")
                    .with_hint("compress an identity, instruction or sample item")
                    .with_topic(Topic::NotCompressible {
                        brief: PathBuf::from("b"),
                    }),
                "compress an identity, instruction or sample item; `brief stats b` lists them",
            ),
            (
                Error::input("x").with_topic(Topic::BadCompressor {
                    dir: PathBuf::from("c"),
                }),
                "fix it (`brief check c`, `brief lock c`), or leave out --compressor to use the bundled one",
            ),
            (
                Error::input("x")
                    .with_hint("a digest is a YAML mapping")
                    .with_topic(Topic::BadDigest),
                "a digest is a YAML mapping (see README, `brief digest`)",
            ),
            (
                Error::input("x")
                    .with_hint("nothing was written")
                    .with_topic(Topic::RuleFile),
                "run without --write to see the compacted text; nothing was written",
            ),
            (
                Error::input("x").with_topic(Topic::StoreFull),
                "free space, or run `brief ccr gc` to drop expired originals",
            ),
        ];
        for (err, cli) in cases {
            assert_eq!(for_cli(&err).as_deref(), Some(cli));
            let mcp = crate::mcp::tools::ToolError::from(err).0;
            assert!(
                !mcp.contains("--") && !mcp.contains("`brief "),
                "the MCP words name a flag or command: {mcp}"
            );
        }
    }
}
