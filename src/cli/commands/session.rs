//! `brief session`: an agent's runtime context in three tiers (seed 000), driven from a
//! shell. Each subcommand is argument parsing, one call into [`crate::session::api`] (the
//! calls the MCP session tools make too) and the human form of its answer.

mod append;
mod budget;
mod compact;
mod pending;
mod run;
mod settings;
mod subagent;
mod turn;
mod view;

use std::collections::BTreeMap;
use std::path::Path;

use clap::Subcommand;

use serde::Serialize;

use crate::cli::output::{Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::limits::SESSION_ENTRY;
use crate::session::api::Note;
use crate::session::{GateReport, Notice};

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
    Run(run::RunArgs),
    Resume(pending::ResumeArgs),
    Cancel(pending::CancelArgs),
    Digest(settings::DigestArgs),
    Model(settings::ModelArgs),
}

pub fn run(args: Args, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
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
        SessionCommand::Compact(args) => compact::run(args, ui, sinks),
        SessionCommand::Turn(args) => turn::run(args, ui, sinks),
        SessionCommand::Subagent(args) => subagent::run(args, ui, sinks),
        SessionCommand::Run(args) => run::run(args, ui, sinks),
        SessionCommand::Resume(args) => pending::resume(args, ui, sinks),
        SessionCommand::Cancel(args) => pending::cancel(args, ui),
        SessionCommand::Digest(args) => settings::digest(args, ui),
        SessionCommand::Model(args) => settings::model(args, ui),
    }
}

/// Where a session operation's notes go: warnings to stderr, and progress too when
/// `progress` (a command whose `--json` keeps stderr for warnings says no).
fn listen(ui: &Ui, progress: bool) -> impl FnMut(Note<'_>) + '_ {
    move |note| match note {
        Note::Warning(text) => ui.warn(text),
        Note::Notice(notice) => ui.warn(&notice_words(notice)),
        Note::Progress(text) if progress => ui.info(&shown(text)),
        Note::Progress(_) => {}
    }
}

/// A session's notice in the command line's words: the ones about a value given with a
/// flag name the flag.
fn notice_words(notice: &Notice) -> String {
    match notice {
        Notice::UnusedVar { name } => format!("--var {name} is not used by any volatile item"),
        Notice::UserNotSent { op } => format!(
            "finished {op} first, whose answer had arrived before an interruption; the new --user message was not sent: run the command again"
        ),
        Notice::LengthCapped { asked, cap, op } => format!(
            "--max-tokens {asked} is over the {cap} the gate checked for {op}; the answer is capped at {cap}"
        ),
        Notice::Text(text) => text.clone(),
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

/// A gate decision as `gate`, `turn` and `subagent` print it: the seed's object on one line
/// in every form (the MCP tools return the same object), and for people what it means and
/// what to run next, on stderr.
struct GateShown<'a> {
    report: &'a GateReport,
    explanation: String,
}

impl Serialize for GateShown<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.report.answer().serialize(serializer)
    }
}

impl Report for GateShown<'_> {
    fn status(&self) -> &str {
        if self.report.allowed {
            "ok"
        } else {
            "context_budget_exceeded"
        }
    }

    fn summary(&self) -> String {
        self.explanation.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        self.json(ui)?;
        ui.info(&self.explanation);
        Ok(())
    }

    fn json(&self, ui: &Ui) -> Result<()> {
        ui.outln(&one_line_json(self)?)
    }

    fn outcome(&self) -> Outcome {
        if self.report.allowed {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}
