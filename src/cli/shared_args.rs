//! Arguments that several subcommands share, defined once so that their names, parsing and
//! help text cannot drift apart: `--var KEY=VALUE` and the provider flags of every command
//! that calls a model.

use std::path::PathBuf;

use crate::brief::Brief;
use crate::cache::ledger::{Destination, Format};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::provider::{Overrides, Settings};
use crate::wire::Wire;

/// Parses `KEY=VALUE` for `--var`.
pub fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("expected KEY=VALUE, got `{s}`")),
    }
}

/// The `--var` values as a map; a name given twice is warned about (the last value wins),
/// since a repeated `--var` is almost always a typo in a script.
pub fn var_map(
    vars: &[(String, String)],
    ui: &crate::cli::ui::Ui,
) -> std::collections::BTreeMap<String, String> {
    let mut map = std::collections::BTreeMap::new();
    for (key, value) in vars {
        if let Some(old) = map.insert(key.clone(), value.clone())
            && old != *value
        {
            ui.warn(&format!(
                "--var {key} is given twice; the last value (`{value}`) wins"
            ));
        }
    }
    map
}

/// Refuses a `--price-*` value that is not a price (negative, infinite, NaN, or past the
/// cap a brief's `pricing` has: the proxy writes its prices into the ledger's rows, and a
/// reader skips a row whose price is out of that range).
pub fn check_prices(prices: &[(&str, Option<f64>)]) -> Result<()> {
    use crate::brief::MAX_PRICE_PER_MTOK;
    for (flag, value) in prices {
        if value.is_some_and(|v| !v.is_finite() || !(0.0..=MAX_PRICE_PER_MTOK).contains(&v)) {
            return Err(crate::error::Error::input(format!(
                "{flag} must be a price of zero or more, at most {MAX_PRICE_PER_MTOK}"
            )));
        }
    }
    Ok(())
}

pub fn parse_kind(text: &str) -> Result<Wire, String> {
    text.parse()
}

/// Which pending proposal `brief review` and `brief accept` act on; flattened into both.
#[derive(Debug, clap::Args)]
pub struct ProposalArgs {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal: its id, or its item's name when that item has one pending proposal
    /// (see `brief proposals`)
    #[arg(value_name = "ID|ITEM", required_unless_present = "latest")]
    pub id: Option<String>,
    /// The newest pending proposal (of ITEM, when one is named)
    #[arg(long)]
    pub latest: bool,
}

impl ProposalArgs {
    /// The proposal's id, from the id, the item's name or --latest.
    pub fn pick(&self) -> Result<String> {
        crate::store::pick::proposal_id(&self.brief, self.id.as_deref(), self.latest)
    }
}

/// Which provider, model and server a model call goes to; flattened into every command
/// that calls a model. Unset flags fall back to the environment, then the brief's `model:`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProviderArgs {
    /// `openai` (Chat Completions, any OpenAI-compatible server), `responses` (OpenAI
    /// Responses), `anthropic` or `gemini` [default: the brief's, else openai]
    #[arg(long, value_name = "NAME", value_parser = parse_kind)]
    pub provider: Option<Wire>,
    /// The model [default: the brief's `model.name`]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL [default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, the brief's, the official one]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Give up when the server sends nothing for this long (an idle timeout: a slow but
    /// live stream is never cut off), e.g. `90s`, `1500ms`, `2m` [default: $BRIEF_TIMEOUT, else 120s]
    #[arg(long, value_name = "DURATION", value_parser = crate::clock::parse_timeout)]
    pub timeout: Option<std::time::Duration>,
}

impl ProviderArgs {
    /// The flags as overrides of the provider settings.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            wire: self.provider,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            timeout: self.timeout,
            ..Overrides::default()
        }
    }

    /// The settings of a call made for `brief`: these flags over the environment over the
    /// brief's `model:` (whose provider was checked when the brief was loaded).
    pub fn settings(&self, brief: &Brief) -> Result<Settings> {
        Settings::resolve(self.overrides(), brief.manifest.model.as_ref())
    }
}

fn parse_format(text: &str) -> Result<Format, String> {
    text.parse()
}

/// Where a command's ledger rows go (or which ledger `usage` reads): flattened into every
/// command with `--ledger`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LedgerArgs {
    /// The ledger: a JSON-lines file, or a ClickHouse table
    /// (clickhouse://[user@]host:8123/database.table) [default: $BRIEF_LEDGER, else
    /// usage.jsonl in the user's state directory]
    #[arg(long, value_name = "PATH|URL")]
    pub ledger: Option<PathBuf>,
    /// How to read --ledger: jsonl, or clickhouse (needed for an http(s):// URL)
    /// [default: $BRIEF_LEDGER_FORMAT, else by its shape]
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub ledger_format: Option<Format>,
}

impl LedgerArgs {
    /// The destination the flags (else the environment) name.
    pub fn destination(&self) -> Result<Destination> {
        Destination::resolve(
            self.ledger.as_deref().map(|p| p.as_os_str()),
            self.ledger_format,
        )
    }

    /// The destination of a command that runs until stopped and writes rows as they come
    /// (the proxy); when that is the default file and it does not exist yet, says at once
    /// (on stderr) where the rows will go.
    pub fn destination_for_writing(&self, ui: &Ui) -> Result<Destination> {
        let destination = self.destination()?;
        if let Some(path) = crate::cache::ledger::new_default_file(self.flag()) {
            ui.info(&first_write_message(&path, "from the first call on"));
        }
        Ok(destination)
    }

    /// For a command that may write a row (a model call): once it is done, says where the
    /// default ledger is when this command created it (on stderr, once: the next command
    /// finds the file). Said when the value is dropped, so every way out of the command
    /// says it, and a command refused before any call says nothing.
    pub fn first_write_notice<'a>(&self, ui: &'a Ui) -> FirstWriteNotice<'a> {
        FirstWriteNotice {
            ui,
            path: crate::cache::ledger::new_default_file(self.flag()),
        }
    }

    fn flag(&self) -> Option<&std::ffi::OsStr> {
        self.ledger.as_deref().map(|p| p.as_os_str())
    }
}

/// See [`LedgerArgs::first_write_notice`].
pub struct FirstWriteNotice<'a> {
    ui: &'a Ui,
    path: Option<PathBuf>,
}

impl Drop for FirstWriteNotice<'_> {
    fn drop(&mut self) {
        if let Some(path) = &self.path
            && path.is_file()
        {
            self.ui.info(&first_write_message(path, "created now"));
        }
    }
}

fn first_write_message(path: &std::path::Path, when: &str) -> String {
    format!(
        "recording model calls in the usage ledger {} ({when}; `brief usage` reads it; --ledger or BRIEF_LEDGER choose another)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        provider: ProviderArgs,
    }

    #[test]
    fn provider_names_parse_in_any_case_and_unknown_ones_are_refused() {
        let cli = Cli::try_parse_from(["x", "--provider", "Anthropic"]).unwrap();
        assert_eq!(cli.provider.provider, Some(Wire::Anthropic));
        let err = Cli::try_parse_from(["x", "--provider", "gemni"]).unwrap_err();
        assert!(err.to_string().contains("unknown provider"), "{err}");
    }

    #[test]
    fn vars_need_a_key() {
        assert_eq!(parse_var("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert!(parse_var("=x").is_err());
        assert!(parse_var("x").is_err());
    }
}
