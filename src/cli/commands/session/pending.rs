//! `brief session resume` and `brief session cancel`: a pending operation run once it
//! fits, or closed. Arguments, [`api::resume`] / [`api::cancel`] and the human forms.

use std::path::PathBuf;
use std::time::Duration;

use super::compact::ModelArgs;
use super::shown;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::api;
use crate::session::pending::{CancelReport, ResumeReport, ResumeRequest};
use crate::session::tool_exec::ToolExec;

/// Run an operation the gate blocked (op_N) once a purge or compaction made room
///
/// A blocked model call is the turn it was; a blocked tool call or sub-agent (answered in
/// the conversation with the `context_budget_exceeded` object) becomes a new call of the
/// same tool and arguments: a sub-agent runs here, a brief's tool runs by --tool-exec or
/// is printed as a JSON line for you to run and answer. Still too big: the object again,
/// exit 1.
#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The pending operation (op_N)
    pub operation_id: String,
    /// A new estimate in tokens, replacing the operation's own
    #[arg(long, value_name = "N")]
    pub estimate: Option<u64>,
    /// Run a brief's tool with this shell command (as `session run --tool-exec`)
    #[arg(long, value_name = "CMD")]
    pub tool_exec: Option<String>,
    /// Seconds a --tool-exec call may take [default: 120]
    #[arg(long, value_name = "SECS", requires = "tool_exec", value_parser = clap::value_parser!(u64).range(1..))]
    pub tool_timeout: Option<u64>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Print {"status", "summary", "operation_id", "kind", "outcome", "gate", "call"?,
    /// "result_id"?, "tool"?, "subagent"?, "waiting"?, "turn"?}
    #[arg(long)]
    pub json: bool,
}

/// Close an operation the gate blocked (op_N): it is no longer pending and will not run
#[derive(Debug, clap::Args)]
pub struct CancelArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The pending operation (op_N)
    pub operation_id: String,
    /// Print {"status", "summary", "operation_id", "kind", "call", "result_id"}
    #[arg(long)]
    pub json: bool,
}

pub fn resume(args: ResumeArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let request = ResumeRequest {
        model: args.model.choice(sinks)?,
        vars: super::vars(args.vars),
        estimate: args.estimate,
        tool_exec: args
            .tool_exec
            .map(|cmd| ToolExec::new(cmd, args.tool_timeout.map(Duration::from_secs)))
            .transpose()?,
        max_tokens: None,
    };
    let mut notes = super::listen(ui, !args.json);
    let report = api::resume(&args.dir, &args.operation_id, &request, &mut notes)?;
    output::print(ui, Form::json_if(args.json), &report)
}

pub fn cancel(args: CancelArgs, ui: &Ui) -> Result<Outcome> {
    let mut notes = super::listen(ui, !args.json);
    let report = api::cancel(&args.dir, &args.operation_id, &mut notes)?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for ResumeReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        match self.outcome {
            "blocked" => ui.outln(&super::one_line_json(&self.gate.answer())?)?,
            "handed_out" => {
                if let Some(call) = &self.call {
                    ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
                }
            }
            "waiting" => {
                for call in self.waiting.iter().flat_map(|w| &w.tool_calls) {
                    ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
                }
            }
            "turn" => {
                if let Some(turn) = &self.turn
                    && !turn.text.is_empty()
                {
                    ui.outln(shown(&turn.text).trim_end_matches('\n'))?;
                }
            }
            _ => {
                if let Some(id) = &self.result_id {
                    ui.outln(id)?;
                }
            }
        }
        ui.info(&shown(&Document::summary(self)));
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        if self.outcome == "blocked" {
            Outcome::Failed
        } else {
            Outcome::Ok
        }
    }
}

output::summary_report!(CancelReport);
