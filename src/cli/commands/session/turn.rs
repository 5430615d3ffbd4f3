//! `brief session turn`: one orchestrator step over `Session::turn`.

use std::path::PathBuf;

use crate::cli::output::{self, Outcome};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::session::budget::thousands;
use crate::session::turn::{TurnOutcome, TurnReport, TurnRequest};

use super::compact::ModelArgs;
use super::shown;

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
    /// [default: 1000; a sub-agent's: 2000]
    #[arg(long, value_name = "N")]
    pub tool_estimate: Option<u64>,
    /// Run the framework's sub-agents (fetch_url, web_search_agent, delegate_task) in the
    /// turn and append their result envelopes, instead of handing their calls back
    #[arg(long)]
    pub run_subagents: bool,
    /// Print {"status", "summary", "operation_id", "user_id", "appended_ids", "text",
    /// "tool_calls", "framework", "model", "finish_reason", "usage", …}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: TurnArgs, ui: &Ui) -> Result<Outcome> {
    let session = super::open(&args.dir, ui)?;
    let request = TurnRequest {
        user: args.user.map(super::text_arg).transpose()?,
        vars: super::vars(args.vars),
        resume: args.resume,
        max_tokens: args.max_tokens,
        model: args.model.choice()?,
        tool_estimate: args.tool_estimate,
        run_subagents: args.run_subagents,
        ledger_command: None,
    };
    let json = args.json;
    let outcome = session.turn(&request, &mut |m| {
        if !json {
            ui.info(&shown(m))
        }
    });
    super::notices(&session, ui);
    match outcome? {
        TurnOutcome::Blocked(gate) => {
            ui.outln(&super::one_line_json(&gate.answer())?)?;
            if !json {
                ui.info(&blocked_line(
                    &gate,
                    gate.call.as_deref(),
                    &args.dir.display().to_string(),
                ));
            }
            Ok(Outcome::Failed)
        }
        TurnOutcome::Released(call) => {
            ui.outln(&serde_json::to_string(&call).unwrap_or_default())?;
            if !json {
                ui.info(&format!(
                    "{}: {} fits now; run it and append its result",
                    call.operation_id, call.id
                ));
            }
            Ok(Outcome::Ok)
        }
        TurnOutcome::Done(report) => {
            let summary = summary(&report);
            let outcome = if report.blocked.is_empty() {
                Outcome::Ok
            } else {
                Outcome::Failed
            };
            if json {
                let status = if report.blocked.is_empty() {
                    "ok"
                } else {
                    "context_budget_exceeded"
                };
                output::json(ui, status, &summary, &report)?;
                return Ok(outcome);
            }
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
                        "its own tool calls above wait in {}; answer them there, then `brief session subagent {} {}`",
                        d.session.display(),
                        args.dir.display(),
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
                    "{} blocked: {} (`{}`) ~{} tokens do not fit in {}; purge or compact, then `brief session turn {} --resume {}`",
                    held.operation_id,
                    held.id,
                    shown(&held.name),
                    thousands(held.gate.estimated_result_tokens),
                    thousands(held.gate.available_operation_tokens),
                    args.dir.display(),
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
            ui.info(&shown(&summary));
            Ok(outcome)
        }
    }
}

fn blocked_line(gate: &crate::session::GateReport, call: Option<&str>, dir: &str) -> String {
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

fn summary(r: &TurnReport) -> String {
    let mut ids = Vec::new();
    if let Some(user) = &r.user_id {
        ids.push(user.clone());
    }
    ids.extend(r.appended_ids.iter().cloned());
    let usage = match &r.usage {
        Some(u) => format!(
            "{} input tokens ({} cached), {} output",
            thousands(u.input_tokens),
            u.cached_input_tokens
                .map_or_else(|| "no cache figure".to_string(), thousands),
            thousands(u.output_tokens)
        ),
        None => "no usage reported".to_string(),
    };
    let mut text = format!(
        "{}{}: appended {}; {} tool call{} to run; {} ({usage})",
        r.operation_id,
        if r.finished_interrupted {
            " (finished after an interruption)"
        } else {
            ""
        },
        if ids.is_empty() {
            "nothing".to_string()
        } else {
            ids.join(", ")
        },
        r.tool_calls.len(),
        if r.tool_calls.len() == 1 { "" } else { "s" },
        r.model,
    );
    if !r.blocked.is_empty() {
        let ids: Vec<&str> = r.blocked.iter().map(|b| b.id.as_str()).collect();
        text.push_str(&format!("; held back by the gate: {}", ids.join(", ")));
    }
    for run in &r.framework {
        text.push_str(&format!("; {} {} {}", run.name, run.id, run.outcome));
    }
    text
}
