//! `brief session`: an agent's runtime context in three tiers (seed 000), driven from a
//! shell. Each subcommand is argument parsing plus one call into `crate::session`.

mod append;
mod budget;
mod compact;
mod subagent;
mod turn;
mod view;

use std::collections::BTreeMap;
use std::path::Path;

use clap::Subcommand;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::limits::SESSION_ENTRY;
use crate::session::Session;

/// Run an agent's context as a session: Tier 1 from a brief, Tier 2 an append-only memory
/// with visible ids, Tier 3 rebuilt on every render; a budget gate before every operation
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: SessionCommand,
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    New(append::NewArgs),
    Append(append::AppendArgs),
    Render(view::RenderArgs),
    Status(view::StatusArgs),
    Log(view::LogArgs),
    Show(view::ShowArgs),
    Gate(budget::GateArgs),
    Purge(budget::PurgeArgs),
    Tools(view::ToolsArgs),
    Compact(compact::CompactArgs),
    Turn(turn::TurnArgs),
    Subagent(subagent::SubagentArgs),
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    match args.command {
        SessionCommand::New(args) => append::new(args, ui),
        SessionCommand::Append(args) => append::run(args, ui),
        SessionCommand::Render(args) => view::render(args, ui),
        SessionCommand::Status(args) => view::status(args, ui),
        SessionCommand::Log(args) => view::log(args, ui),
        SessionCommand::Show(args) => view::show(args, ui),
        SessionCommand::Gate(args) => budget::gate(args, ui),
        SessionCommand::Purge(args) => budget::purge(args, ui),
        SessionCommand::Tools(args) => view::tools(args, ui),
        SessionCommand::Compact(args) => compact::run(args, ui),
        SessionCommand::Turn(args) => turn::run(args, ui),
        SessionCommand::Subagent(args) => subagent::run(args, ui),
    }
}

/// Opens a session and shows the brief's warnings.
fn open(dir: &Path, ui: &Ui) -> Result<Session> {
    let session = Session::open(dir)?;
    for warning in &session.brief.warnings {
        ui.warn(&warning.to_string());
    }
    Ok(session)
}

/// Prints what the session noticed on the way (a torn line cut off, …).
fn notices(session: &Session, ui: &Ui) {
    for notice in session.notices.borrow_mut().drain(..) {
        ui.warn(&notice);
    }
}

/// Text a model, a client or a session file gave, as a terminal may show it: the one
/// sanitiser ([`crate::text::sanitize`]) removes escape sequences and control characters
/// and marks bidirectional controls. The log keeps the text as it came; `--json` output
/// is exact data.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    crate::text::sanitize::for_terminal(text)
}

fn vars(pairs: Vec<(String, String)>) -> BTreeMap<String, String> {
    pairs.into_iter().collect()
}

/// `-` reads stdin (once per command, at most the session entry limit); anything else is
/// the text itself.
fn text_arg(value: String) -> Result<String> {
    if value != "-" {
        return Ok(value);
    }
    input::read_text(Path::new("-"), SESSION_ENTRY)
}

/// A file's text (`-`: stdin): a regular file of UTF-8 within the session entry limit.
pub(super) fn file_text(path: &Path) -> Result<String> {
    input::read_text(path, SESSION_ENTRY)
}

/// The gate's answers on one line, their keys in the order of the contract (status first).
fn one_line_json(value: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("cannot render JSON: {e}")).with_source(e))
}
