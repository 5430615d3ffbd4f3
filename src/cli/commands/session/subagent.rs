//! `brief session subagent`: run one of the framework's sub-agents for a tool call.
//! Arguments, [`api::subagent`] and the human forms of its three answers.

use std::path::PathBuf;

use super::compact::ModelArgs;
use super::{GateShown, shown};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::api;
use crate::session::budget::thousands;
use crate::session::subagent::{SubagentOutcome, SubagentReport, SubagentRequest, SubagentWaiting};

/// Run the sub-agent a tool call asks for (fetch_url, web_search_agent, delegate_task) and
/// append its result envelope as the call's result
///
/// The sub-agent is gated first (kind subagent, high-volume; the estimate is --estimate,
/// else 2000, or the one the turn already let through): a blocked one prints the
/// `context_budget_exceeded` object and exits 1, and running this again after a purge or
/// compaction resumes it. It runs in isolation with a bundled brief of its own and answers
/// with a result envelope (checked against schemas/subagent-envelope.schema.json, one
/// retry with the violations), appended whole. `fetch_url` reaches public addresses only
/// unless BRIEF_FETCH_ALLOW_PRIVATE=1; `web_search_agent` needs BRIEF_SEARCH_URL (a
/// SearxNG-compatible JSON API); `delegate_task` runs a child session under
/// DIR/subagents/TOOL_CALL_ID/ whose own tool calls are printed like a turn's (answer them
/// there, then run this again). Each model call is recorded in the ledger (`command:
/// subagent`).
#[derive(Debug, clap::Args)]
pub struct SubagentArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The sub-agent's tool call (tool_call_N)
    pub tool_call_id: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The gate's estimate of the result envelope in tokens [default: 2000]
    #[arg(long, value_name = "N")]
    pub estimate: Option<u64>,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Print {"status", "summary", "call", "name", "operation_id", "result_id", "outcome",
    /// "tokens", "over_budget", "model_calls", "envelope", "delegate"?}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: SubagentArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let request = SubagentRequest {
        model: args.model.choice(sinks)?,
        vars: super::vars(args.vars),
        estimate: args.estimate,
    };
    let form = Form::json_if(args.json);
    let mut notes = super::listen(ui, !args.json);
    match api::subagent(&args.dir, &args.tool_call_id, &request, &mut notes)? {
        SubagentOutcome::Blocked(gate) => {
            let explanation = format!(
                "{} blocked: the sub-agent's ~{} tokens do not fit in {}; purge or compact, then run this again",
                gate.operation_id,
                thousands(gate.estimated_result_tokens),
                thousands(gate.available_operation_tokens)
            );
            output::print(
                ui,
                form,
                &GateShown {
                    report: &gate,
                    explanation,
                },
            )
        }
        SubagentOutcome::Waiting(waiting) => output::print(ui, form, &waiting),
        SubagentOutcome::Done(report) => output::print(ui, form, &*report),
    }
}

/// The document is the one the MCP `subagent` tool returns too; the human form is the
/// result's id, and the summary on stderr.
impl Report for SubagentReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.result_id)?;
        ui.info(&shown(&Document::summary(self)));
        Ok(())
    }
}

/// The child's tool calls, one JSON line each, as a turn hands out its own.
impl Report for SubagentWaiting {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        for call in &self.tool_calls {
            ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
        }
        ui.info(&shown(&format!(
            "{}; answer them with `brief session append {} --tool-result ID ...`, then run this again",
            Document::summary(self),
            self.delegate.session.display()
        )));
        Ok(())
    }
}
