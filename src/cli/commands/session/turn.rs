//! `brief session turn`: one orchestrator step. Arguments, [`api::turn`] and the human
//! forms of its three answers.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::session::GateReport;
use crate::session::api;
use crate::session::budget::thousands;
use crate::session::turn::{PendingCall, TurnOutcome, TurnReport, TurnRequest};

use super::compact::ModelArgs;
use super::{GateShown, shown};

/// Run one orchestrator step: gate the model call, render, call the model (streamed),
/// record the call, append the answer and its tool calls with visible ids
///
/// The framework's own tools (`purge`, `compact_context`, with --framework-tools) are run
/// here and their results appended. Every other tool call is printed on stdout as one JSON
/// line `{"id", "call_id", "name", "arguments"}`, after the answer's text, for the caller
/// to run and answer with `brief session append DIR --tool-result ID`. The gate's
/// estimate is the answer's length cap (--max-tokens); a blocked call prints the
/// `context_budget_exceeded` object and exits 1, and `--resume op_N` retries it after a
/// purge or compaction. A failed call, a cut stream or a malformed tool call appends
/// nothing (exit 3). A turn interrupted after its answer arrived is finished by running
/// it again. The call is recorded in the ledger (`command: session`).
#[derive(Debug, clap::Args)]
pub struct TurnArgs {
    /// The session directory
    pub dir: PathBuf,
    /// A user message to send with this turn (or - for stdin)
    #[arg(long, value_name = "TEXT", conflicts_with = "resume")]
    pub user: Option<String>,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// The answer's length cap, also the gate's estimate [default: the session's reserved_completion_tokens]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
    /// Retry the model call the gate blocked as op_N, once memory was reduced; or hand out
    /// the tool call the gate held back as op_N
    #[arg(long, value_name = "OP_ID")]
    pub resume: Option<String>,
    /// The gate's estimate for a tool call whose tool item declares no `result_estimate`
    /// [default: 1000]
    #[arg(long, value_name = "N")]
    pub tool_estimate: Option<u64>,
    /// The gate's estimate for a sub-agent's envelope [default: learned from this
    /// session's envelopes of that kind, else 2000]
    #[arg(long, value_name = "N")]
    pub subagent_estimate: Option<u64>,
    /// Run the framework's sub-agents (fetch_url, web_search_agent, delegate_task) in the
    /// turn and append their result envelopes, instead of handing their calls back
    #[arg(long)]
    pub run_subagents: bool,
    /// Print {"status", "summary", "operation_id", "user_id", "appended_ids", "text",
    /// "tool_calls", "framework", "model", "finish_reason", "usage", …}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: TurnArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let user = args.user.map(super::text_arg).transpose()?;
    if user.as_deref().is_some_and(|u| u.trim().is_empty()) {
        return Err(Error::input("--user is empty"));
    }
    let request = TurnRequest {
        user,
        vars: super::vars(args.vars),
        resume: args.resume,
        max_tokens: args.max_tokens,
        model: args.model.choice(sinks)?,
        tool_estimate: args.tool_estimate,
        subagent_estimate: args.subagent_estimate,
        run_subagents: args.run_subagents,
        ledger_command: None,
    };
    let form = Form::json_if(args.json);
    let mut notes = super::listen(ui, !args.json);
    let dir = args.dir.display().to_string();
    match api::turn(&args.dir, &request, &mut notes)? {
        TurnOutcome::Blocked(gate) => output::print(
            ui,
            form,
            &GateShown {
                explanation: blocked_line(&gate, gate.call.as_deref(), &dir),
                report: &gate,
            },
        ),
        TurnOutcome::Released(call) => output::print(ui, form, &Released(&call)),
        TurnOutcome::Done(report) => output::print(
            ui,
            form,
            &TurnShown {
                report: &report,
                dir: &dir,
            },
        ),
    }
}

/// A tool call the gate had held back that fits now: its JSON line in every form.
#[derive(Serialize)]
#[serde(transparent)]
struct Released<'a>(&'a PendingCall);

impl Report for Released<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{}: {} fits now; run it and append its result",
            self.0.operation_id, self.0.id
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        self.json(ui)?;
        ui.info(&self.summary());
        Ok(())
    }

    fn json(&self, ui: &Ui) -> Result<()> {
        ui.outln(&serde_json::to_string(self.0).unwrap_or_default())
    }
}

/// A finished turn; its human form names the session directory in what to run next.
#[derive(Serialize)]
#[serde(transparent)]
struct TurnShown<'a> {
    report: &'a TurnReport,
    #[serde(skip)]
    dir: &'a str,
}

impl Report for TurnShown<'_> {
    fn status(&self) -> &str {
        Document::status(self.report)
    }

    fn summary(&self) -> String {
        Document::summary(self.report)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let (report, dir) = (self.report, self.dir);
        // The model's text as a terminal may show it; the log keeps it as it came.
        if !report.text.is_empty() {
            ui.outln(shown(&report.text).trim_end_matches('\n'))?;
        }
        for call in &report.tool_calls {
            ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
        }
        for run in &report.subagents {
            for call in &run.tool_calls {
                ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
            }
            let done = match (&run.result_id, &run.delegate) {
                (Some(id), _) => format!("appended {id}"),
                (None, Some(d)) => format!(
                    "its own tool calls above wait in {}; answer them there, then `brief session subagent {dir} {}`",
                    d.session.display(),
                    run.id
                ),
                (None, None) => String::new(),
            };
            ui.info(&shown(&format!(
                "{} {} ({}): {done}",
                run.id, run.name, run.outcome
            )));
        }
        for held in &report.blocked {
            ui.outln(&super::one_line_json(&held.gate.answer())?)?;
            ui.info(&format!(
                "{} blocked: {} (`{}`) ~{} tokens do not fit in {}; the model reads why in its result; purge or compact, then `brief session resume {dir} {}`",
                held.operation_id,
                held.id,
                shown(&held.name),
                thousands(held.gate.estimated_result_tokens),
                thousands(held.gate.available_operation_tokens),
                held.operation_id
            ));
        }
        for run in &report.framework {
            ui.info(&shown(&format!(
                "{} {} ({}): {}",
                run.id, run.name, run.outcome, run.text
            )));
            if let Some(compact) = &run.compact {
                for fact in &compact.forgotten {
                    ui.info(&shown(&format!(
                        "  forgotten {}: {}",
                        fact.kind.name(),
                        fact.value
                    )));
                }
            }
        }
        ui.info(&shown(&Document::summary(report)));
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        if self.report.blocked.is_empty() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}

fn blocked_line(gate: &GateReport, call: Option<&str>, dir: &str) -> String {
    let what = call.map(|c| format!(" ({c})")).unwrap_or_default();
    let why = match gate.reason {
        Some("over_budget") => format!(
            "the context ({} tokens) is over the budget: a result was appended past it",
            thousands(gate.current_context_tokens)
        ),
        Some("critical_high_volume") => "high-volume operations are blocked from 95%".into(),
        _ => format!(
            "~{} tokens do not fit in {}",
            thousands(gate.estimated_result_tokens),
            thousands(gate.available_operation_tokens)
        ),
    };
    format!(
        "{}{what} blocked: {why}; purge or compact, then `brief session turn {dir} --resume {}`",
        gate.operation_id, gate.operation_id
    )
}
