//! The MCP tools: their names, descriptions and input schemas in one fixed order, and what
//! each does — a call into the same library operation the matching CLI command uses. A
//! tool answers that operation's typed report as a [`Reply`], rendered by
//! [`crate::document`] like `--json` on the command line, so both edges give the same bytes.
//!
//! The order never changes between calls or runs: a client puts the tool list near the
//! start of its prompt, and a list that reorders itself breaks that prompt's cache.
//! Arguments are checked here; a bad one is a [`ToolError`] with a message the model can
//! act on, never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::brief::Brief;
use crate::ccr;
use crate::document::Document;
use crate::prompt::composition::{Request, composition};
use crate::prompt::render::Format;

/// What the operator who started the server decided: the provider settings of the tools
/// that call a model (`brief mcp`'s flags), including the base URLs a tool call may name,
/// and the directory relative paths are resolved against (`--root`). Tool arguments come
/// from the client, which may be a model following injected text: they never widen these.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub provider: crate::provider::Overrides,
    /// `brief mcp --root DIR`, by default the directory the server was started in (a
    /// desktop client may start it in `/`).
    pub root: PathBuf,
    /// The ledger sinks the tools' model calls record through, for the server's life;
    /// whoever started the server settles them when it stops.
    pub sinks: crate::cache::ledger::Sinks,
}

/// What a tool runs with.
pub type Context = Options;

impl Options {
    /// `path` made absolute against the root, so every error names the path it tried.
    pub fn path(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        }
    }

    /// The operator's provider settings with the caller's provider and model, when named.
    pub fn caller_provider(
        &self,
        provider: Option<&str>,
        model: Option<String>,
    ) -> Result<crate::provider::Overrides, ToolError> {
        let kind = provider
            .map(str::parse)
            .transpose()
            .map_err(|e: String| ToolError(format!("bad arguments: provider: {e}")))?;
        let mut provider = self.provider.clone();
        provider.wire = kind.or(provider.wire);
        provider.model = model.or(provider.model);
        Ok(provider)
    }
}

/// A tool call that could not be done, with the reason in words.
#[derive(Debug)]
pub struct ToolError(pub String);

impl From<crate::error::Error> for ToolError {
    fn from(err: crate::error::Error) -> Self {
        let hint = hint(&err).or(err.hint.as_deref().and_then(for_a_model));
        let mut message = err.message;
        for detail in err.details {
            message.push_str("\n  ");
            message.push_str(&detail);
        }
        if let Some(hint) = hint {
            message.push_str("\nhint: ");
            message.push_str(&hint);
        }
        ToolError(message)
    }
}

/// What an MCP caller can do about an error, in this edge's words: its tool arguments,
/// and the server's operator for what only the operator decides (flags, environment).
fn hint(err: &crate::error::Error) -> Option<String> {
    use crate::error::{Origin, Setting, Topic};
    Some(match err.topic()? {
        Topic::NoModel { wire } => format!(
            "name `model` (and `provider`) in the tool call; or the server's operator names \
             a model when starting it, or sets `model: {{ provider: {wire}, name: NAME }}` in \
             the session brief's brief.yaml"
        ),
        Topic::NoApiKey { wire } => format!(
            "the server's operator sets {} in the server's environment (the MCP client's \
             configuration); keys are read only from the environment",
            wire.key_var()
        ),
        Topic::BadBaseUrl {
            from: Origin::Caller,
            ..
        } => "give `base_url` as an http(s) URL, or leave it out to use the server's".into(),
        Topic::BadBaseUrl { wire, from } => format!(
            "the server's operator fixes {}",
            match from {
                Origin::Brief => "`model.base_url` in the session brief's brief.yaml".into(),
                Origin::Environment =>
                    format!("{} in the server's environment", wire.base_url_var()),
                _ => "the base URL the server was started with".to_string(),
            }
        ),
        Topic::BaseUrlNotAllowed { url } => format!(
            "leave `base_url` out to use the server's configured provider; the server's \
             operator can allow this one by starting it with `brief mcp --allow-base-url {url}`"
        ),
        Topic::Unreachable { wire } => format!(
            "the server's configured provider did not answer; its operator checks the base \
             URL the server was given (or its {}) and the network",
            wire.base_url_var()
        ),
        Topic::IdleTimeout { after } => format!(
            "nothing was written; the server's operator can allow a silent provider longer \
             than {} ({} in the server's environment)",
            crate::clock::format_duration(*after),
            crate::provider::TIMEOUT_VAR
        ),
        Topic::MissingVars { names } => {
            let fields: Vec<String> = names.iter().map(|n| format!("\"{n}\": \"…\"")).collect();
            format!("give a value for each in `vars`: {{{}}}", fields.join(", "))
        }
        Topic::NoBrief { .. } => {
            "name a brief directory (one that holds brief.yaml), as a path the server can read"
                .into()
        }
        Topic::NoSession => {
            "name a session directory (one `brief session new` made), as a path the server \
             can read"
                .into()
        }
        Topic::SessionFull => {
            "the session is full: its operator starts a new one for this agent; nothing was \
             appended"
                .into()
        }
        Topic::PurgeBoth { ids: [a, b] } => format!("purge both: \"ids\": [\"{a}\", \"{b}\"]"),
        Topic::NotPending => "`session_status` lists the pending operations".into(),
        Topic::NotCompressible { .. } | Topic::BadDigest | Topic::RuleFile => {
            err.hint.as_deref()?.to_string()
        }
        Topic::BadCompressor { .. } => "the server uses the bundled compressor brief".into(),
        Topic::StoreFull => {
            "the CCR store's disk is full: its operator frees space or collects expired \
             originals; nothing was stored"
                .into()
        }
        Topic::NoFrameworkTools => {
            "this session was made without the framework's tools: its operator makes a new \
             session with them to have its sub-agents run"
                .into()
        }
        Topic::EntryTooLarge => {
            "store the text with the `ccr_put` tool and use its reference instead; nothing \
             was appended"
                .into()
        }
        // The session's domain says it in words true at every edge; the rest are steps of
        // the command line's own (append, turn, render), which no tool offers.
        Topic::InvalidEnvelope
        | Topic::SessionSettingsTooLarge
        | Topic::OpenCall { .. }
        | Topic::TurnUnanswered { .. }
        | Topic::RenderUnanswered { .. }
        | Topic::NoEntry
        | Topic::NotATurn
        | Topic::TurnAnswerKept { .. } => return None,
        // The versions and proposals of a brief, and `brief count`'s inputs, are the
        // operator's, through the command line.
        Topic::Store(_) | Topic::Count(_) => return None,
        Topic::Setting(setting) => {
            let place = match setting {
                Setting::CcrStore => "BRIEF_CCR_PATH in the server's environment",
                Setting::Ledger => "BRIEF_LEDGER in the server's environment",
                Setting::AlignState => "the server's configuration",
            };
            match err.hint.as_deref() {
                Some(domain) => format!("{domain}; the server's operator sets it with {place}"),
                None => format!("the server's operator sets {place}"),
            }
        }
    })
}

/// A hint written for the command line, in words a model calling a tool can act on when
/// no topic of the error says more: a command line is left out (the model has no shell).
fn for_a_model(hint: &str) -> Option<String> {
    let cli = hint.contains("`brief ")
        || hint.contains("brief session")
        || hint.split_whitespace().any(|w| w.starts_with("--"));
    (!cli).then(|| hint.to_string())
}

pub struct Spec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

/// Every tool, in the order `tools/list` gives them.
pub fn specs() -> Vec<Spec> {
    let mut specs = vec![
        Spec {
            name: "retrieve",
            description: "Get back the original that a CCR marker's hash stands for. Answers \
                with the original, or says it expired (with the strategy it was stored by) \
                or was never stored. Hashes are 24 hex characters or the full 64, any case.",
            schema: super::schema::load("retrieve", include_str!("schemas/retrieve.json")),
        },
        Spec {
            name: "compose",
            description: "Compose a brief (a directory with brief.yaml) into its system \
                prompt, or into a request body (OpenAI chat, OpenAI Responses, Anthropic or \
                Gemini); reports the stable prefix hash, and the token counts when \
                `tokens` is true.",
            schema: super::schema::with_enum(
                super::schema::load("compose", include_str!("schemas/compose.json")),
                "format",
                Format::ALL.map(Format::as_str),
            ),
        },
        Spec {
            name: "guard",
            description: "Check that every fact of an original text (prices, numbers and \
                number words, dates, URLs, e-mail addresses, placeholders, code, \
                identifiers) survives in a rewrite, that no value lost its binding and no \
                constraint flipped (changed), and that every instruction of the original \
                has a counterpart (dropped_instructions); status is clean, review (findings \
                to look at, none sure enough to block) or flagged, as \
                `brief guard --json` prints it, with the share of instructions kept and the \
                size ratio in coverage.",
            schema: super::schema::load("guard", include_str!("schemas/guard.json")),
        },
    ];
    specs.extend(super::session_tools::specs());
    specs.extend(super::work_tools::specs());
    specs.extend(super::session_tools::loop_specs());
    specs
}

/// A tool's answer: the document once, as the structured content (the object the matching
/// command prints with `--json`, key for key), and a short text form of it (its status and
/// summary) for a client that shows text only. The document is not repeated as text: a
/// composed prompt would be sent twice (issue 38).
#[derive(Debug)]
pub struct Reply {
    pub text: String,
    pub value: Value,
}

impl Reply {
    /// The answer of a typed report: the document the CLI renders, as a value.
    pub fn of<D: Document + ?Sized>(document: &D) -> Result<Reply, ToolError> {
        let status = document.status();
        let summary = document.summary();
        let value = serde_json::to_value(crate::document::Envelope {
            status,
            summary: &summary,
            body: document,
        })
        .map_err(|e| ToolError(format!("cannot render the answer: {e}")))?;
        Ok(Reply {
            text: format!("{status}: {summary}"),
            value,
        })
    }
}

/// Runs one tool. `Err` is a tool error (bad arguments or a failure the caller can fix).
pub fn call(ctx: &Context, name: &str, arguments: Value) -> Result<Reply, ToolError> {
    match name {
        "retrieve" => retrieve(args(arguments)?),
        "compose" => compose_tool(ctx, args(arguments)?),
        "guard" => guard(args(arguments)?),
        "compress" | "digest" | "ccr_put" => super::work_tools::call(ctx, name, arguments),
        other => super::session_tools::call(ctx, other, arguments),
    }
}

/// Reads a tool's arguments into its typed form; unknown or missing fields are named.
pub fn args<T: for<'de> Deserialize<'de>>(arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        Value::Object(serde_json::Map::new())
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| ToolError(format!("bad arguments: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RetrieveArgs {
    hash: String,
}

/// `brief ccr get --json`'s document, from the store `brief ccr get` uses by default.
fn retrieve(a: RetrieveArgs) -> Result<Reply, ToolError> {
    let path = ccr::path::resolve(None)?;
    Reply::of(&ccr::retrieve(&path, &a.hash)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ComposeArgs {
    brief: PathBuf,
    #[serde(default)]
    vars: BTreeMap<String, String>,
    #[serde(default)]
    format: Option<String>,
    /// Count the prompt's tokens (`tokens` in the document): only when asked, as counting
    /// costs more than composing.
    #[serde(default)]
    tokens: bool,
}

/// `brief compose --json`'s document (its `body` is the bytes `brief compose` prints), in
/// the format asked for; `tokens` only when asked for.
fn compose_tool(ctx: &Context, a: ComposeArgs) -> Result<Reply, ToolError> {
    let name = a.format.as_deref().unwrap_or("text");
    let format = Format::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        ToolError(format!(
            "bad arguments: format `{name}` is not one of {}",
            names.join(", ")
        ))
    })?;
    let brief = Brief::load(&ctx.path(&a.brief))?;
    let composition = composition(&Request {
        brief: &brief,
        vars: &a.vars,
        format,
        compact: true,
        cache_key: false,
        digest: None,
        store: None,
    })?
    .counting_tokens(a.tokens);
    Reply::of(&composition)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardArgs {
    original: String,
    proposal: String,
}

/// `brief guard --json`'s document; the texts are named as the command's files would be.
fn guard(a: GuardArgs) -> Result<Reply, ToolError> {
    let report = crate::guard::compare(
        Path::new("original"),
        &a.original,
        Path::new("proposal"),
        &a.proposal,
    )?;
    Reply::of(&crate::guard::ReportJson::from(&report))
}
