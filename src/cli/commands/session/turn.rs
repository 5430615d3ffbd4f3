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
    /// Retry the model call the gate blocked as op_N, once memory was reduced
    #[arg(long, value_name = "OP_ID")]
    pub resume: Option<String>,
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
            ui.outln(&serde_json::to_string(&gate.to_json()).unwrap_or_default())?;
            if !json {
                ui.info(&format!(
                    "{} blocked: ~{} tokens do not fit in {}; purge or compact, then `brief session turn {} --resume {}`",
                    gate.operation_id,
                    thousands(gate.estimated_result_tokens),
                    thousands(gate.available_operation_tokens),
                    args.dir.display(),
                    gate.operation_id
                ));
            }
            Ok(Outcome::Failed)
        }
        TurnOutcome::Done(report) => {
            let summary = summary(&report);
            if json {
                output::json(ui, "ok", &summary, &report)?;
                return Ok(Outcome::Ok);
            }
            // The model's text as a terminal may show it; the log keeps it as it came.
            if !report.text.is_empty() {
                ui.outln(shown(&report.text).trim_end_matches('\n'))?;
            }
            for call in &report.tool_calls {
                ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
            }
            for run in &report.framework {
                ui.info(&shown(&format!(
                    "{} {} ({}): {}",
                    run.id, run.name, run.outcome, run.text
                )));
                if let Some(compact) = &run.compact {
                    for fact in compact.forgotten.as_array().into_iter().flatten() {
                        ui.info(&shown(&format!(
                            "  forgotten {}: {}",
                            fact["kind"].as_str().unwrap_or("fact"),
                            fact["value"]
                                .as_str()
                                .map_or_else(|| fact.to_string(), str::to_string)
                        )));
                    }
                }
            }
            ui.info(&shown(&summary));
            Ok(Outcome::Ok)
        }
    }
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
    for run in &r.framework {
        text.push_str(&format!("; {} {} {}", run.name, run.id, run.outcome));
    }
    text
}
