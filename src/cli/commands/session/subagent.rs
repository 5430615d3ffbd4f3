//! `brief session subagent`: run one of the framework's sub-agents for a tool call.

use std::path::PathBuf;

use serde::Serialize;

use super::compact::ModelArgs;
use super::shown;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::session::budget::thousands;
use crate::session::subagent::{DelegateReport, SubagentOutcome, SubagentRequest};
use crate::session::turn::PendingCall;

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

pub fn run(args: SubagentArgs, ui: &Ui) -> Result<Outcome> {
    let session = super::open(&args.dir, ui)?;
    let request = SubagentRequest {
        model: args.model.choice()?,
        vars: super::vars(args.vars),
        estimate: args.estimate,
    };
    let json = args.json;
    let outcome = session.run_subagent(&args.tool_call_id, &request, &mut |m| {
        if !json {
            ui.info(&shown(m))
        }
    });
    super::notices(&session, ui);
    match outcome? {
        SubagentOutcome::Blocked(gate) => {
            ui.outln(&super::one_line_json(&gate.answer())?)?;
            if !json {
                ui.info(&format!(
                    "{} blocked: the sub-agent's ~{} tokens do not fit in {}; purge or compact, then run this again",
                    gate.operation_id,
                    thousands(gate.estimated_result_tokens),
                    thousands(gate.available_operation_tokens)
                ));
            }
            Ok(Outcome::Failed)
        }
        SubagentOutcome::Waiting(delegate, calls) => {
            let summary = format!(
                "{}: the delegated task waits for {} tool call{} in {} (turn {} of at most {})",
                args.tool_call_id,
                calls.len(),
                if calls.len() == 1 { "" } else { "s" },
                delegate.session.display(),
                delegate.turns,
                delegate.turn_cap
            );
            let waiting = Waiting {
                summary,
                call: &args.tool_call_id,
                delegate: &delegate,
                tool_calls: &calls,
            };
            output::print(ui, Form::json_if(json), &waiting)
        }
        SubagentOutcome::Done(report) => {
            let summary = format!(
                "{} {} ({}): appended {} ({} tokens{}); {} model call{}",
                report.call,
                report.name,
                report.outcome,
                report.result_id,
                thousands(report.tokens),
                if report.over_budget {
                    ", over the budget: the next model call waits for a purge or compaction"
                } else {
                    ""
                },
                report.model_calls,
                if report.model_calls == 1 { "" } else { "s" }
            );
            if json {
                crate::cli::output::json(ui, "ok", &summary, &*report)?;
            } else {
                ui.outln(&report.result_id)?;
                ui.info(&shown(&summary));
            }
            Ok(Outcome::Ok)
        }
    }
}

/// A delegated task waiting for the tool calls its child session handed back.
#[derive(Serialize)]
struct Waiting<'a> {
    #[serde(skip)]
    summary: String,
    call: &'a str,
    delegate: &'a DelegateReport,
    tool_calls: &'a [PendingCall],
}

impl Report for Waiting<'_> {
    fn status(&self) -> &str {
        "waiting"
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        for call in self.tool_calls {
            ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
        }
        ui.info(&shown(&format!(
            "{}; answer them with `brief session append {} --tool-result ID ...`, then run this again",
            self.summary,
            self.delegate.session.display()
        )));
        Ok(())
    }
}
