//! `brief session run`: the orchestrator's loop (seed 000) in one call. A model call (a
//! turn), then what it asked for — the framework's `purge` and `compact_context` (run by
//! the turn), its sub-agents (in process, in parallel, at most `parallel` at once, each
//! gated), the brief's own tools (by `--tool-exec`, else handed back: `waiting`) — then
//! the next model call, until the model answers without tool calls or `max_turns` model
//! calls were made.
//!
//! Every step is appended to the session as it happens (a turn journals its answer before
//! anything of it is appended; every result is one append), and the run itself is marked
//! in the session directory (`run.json`: its user message and where the log stood), so a
//! run killed anywhere is continued by running it again: an interrupted turn is finished,
//! calls still open are run, and the user message is not sent twice.

mod calls;
mod marker;

use std::time::Instant;

use serde::Serialize;

use super::Session;
use super::journal::Journal;
use super::log::Kind;
use super::model::ModelChoice;
use super::ops::GateReport;
use super::tool_exec::ToolExec;
use super::turn::{PendingCall, TurnOutcome, TurnReport, TurnRequest};
use crate::error::{Error, Result};
use marker::Marker;

/// The model calls a run makes at most, unless told.
pub const DEFAULT_MAX_TURNS: u32 = 16;
/// The sub-agents a run runs at once, unless told.
pub const DEFAULT_PARALLEL: usize = 4;

/// What `brief session run` takes.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub user: Option<String>,
    pub vars: std::collections::BTreeMap<String, String>,
    pub model: ModelChoice,
    pub max_turns: u32,
    pub max_tokens: Option<u32>,
    pub tool_exec: Option<ToolExec>,
    pub parallel: usize,
    pub tool_estimate: Option<u64>,
    pub subagent_estimate: Option<u64>,
}

impl Default for RunRequest {
    fn default() -> RunRequest {
        RunRequest {
            user: None,
            vars: Default::default(),
            model: ModelChoice::default(),
            max_turns: DEFAULT_MAX_TURNS,
            max_tokens: None,
            tool_exec: None,
            parallel: DEFAULT_PARALLEL,
            tool_estimate: None,
            subagent_estimate: None,
        }
    }
}

/// One operation of a run, as `--json` reports it and stderr shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunOp {
    /// The gate's operation (`op_N`), when the gate decided about it.
    pub operation_id: Option<String>,
    /// `model`, `tool`, `subagent`, `purge` or `compact_context`.
    pub kind: &'static str,
    /// The tool (`tool`, `subagent`) or the model (`model`).
    pub name: String,
    /// The tool call it answers (`tool_call_N`).
    pub call: Option<String>,
    /// `ok`; a tool: `error`, `timeout`, `too_large`; a sub-agent: its envelope's status
    /// or `waiting`; any: `blocked` (answered with the gate's object).
    pub outcome: String,
    /// The result appended.
    pub result_id: Option<String>,
    /// A result's tokens; a model call's input tokens as the provider counted them.
    pub tokens: Option<u64>,
    pub millis: u64,
}

impl RunOp {
    /// A call of `kind` the gate held back, answered with the gate's object.
    fn blocked(held: &super::calls::BlockedCall, kind: &'static str) -> RunOp {
        RunOp {
            operation_id: Some(held.operation_id.clone()),
            kind,
            name: held.name.clone(),
            call: Some(held.id.clone()),
            outcome: "blocked".into(),
            result_id: held.result_id.clone(),
            tokens: None,
            millis: 0,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// `answered` (the model answered without tool calls), `waiting` (tool calls for the
    /// caller: run again once they are answered), `blocked` (a model call does not fit:
    /// purge or compact, then run again) or `max_turns`.
    pub outcome: &'static str,
    /// This run went on from one that was interrupted.
    pub continued: bool,
    /// Model calls this run made.
    pub turns: u32,
    /// The model's final answer (`answered`), else its last text.
    pub answer: String,
    pub ops: Vec<RunOp>,
    /// The calls to run and answer (`waiting`).
    pub waiting: Vec<PendingCall>,
    /// The blocked model call (`blocked`): the seed's object.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_gate"
    )]
    pub gate: Option<GateReport>,
}

fn serialize_gate<S: serde::Serializer>(
    gate: &Option<GateReport>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    match gate {
        Some(gate) => super::gate::serialize_answer(gate, serializer),
        None => serializer.serialize_none(),
    }
}

impl crate::document::Document for RunReport {
    fn status(&self) -> &str {
        match self.outcome {
            "answered" => "ok",
            "blocked" => "context_budget_exceeded",
            "waiting" => "waiting",
            _ => "stopped",
        }
    }

    fn summary(&self) -> String {
        let ops = self.ops.len();
        let what = match self.outcome {
            "answered" => "the model answered".to_string(),
            "waiting" => format!(
                "{} tool call{} to run and answer, then run again",
                self.waiting.len(),
                if self.waiting.len() == 1 { "" } else { "s" }
            ),
            "blocked" => "a model call does not fit: purge or compact, then run again".into(),
            _ => "stopped at --max-turns before the model's final answer".into(),
        };
        format!(
            "{what}; {} model call{}, {ops} operation{}{}",
            self.turns,
            if self.turns == 1 { "" } else { "s" },
            if ops == 1 { "" } else { "s" },
            if self.continued {
                " (continued an interrupted run)"
            } else {
                ""
            }
        )
    }
}

impl Session {
    /// Runs the loop (see the module documentation). `progress` hears every operation.
    pub fn run(&self, request: &RunRequest, progress: &mut dyn FnMut(&str)) -> Result<RunReport> {
        if request.max_turns == 0 {
            return Err(Error::input("--max-turns must be at least 1"));
        }
        let state = self.state()?;
        let (marker, continued) = Marker::take(&self.dir, request.user.as_deref(), &state)?;
        let mut user = marker.as_ref().and_then(|m| m.unsent(&state, &self.dir));
        let mut report = RunReport {
            outcome: "answered",
            continued,
            turns: 0,
            answer: String::new(),
            ops: Vec::new(),
            waiting: Vec::new(),
            gate: None,
        };
        // A model call the gate blocked earlier in this run, its user message waiting.
        let mut resume = marker.as_ref().and_then(|m| m.blocked_turn(&self.dir));
        loop {
            let waiting = self.answer_open(request, &mut report.ops, progress)?;
            if !waiting.is_empty() {
                report.outcome = "waiting";
                report.waiting = waiting;
                return Ok(report);
            }
            if let Some(answer) = self.final_answer(marker.as_ref(), report.turns)? {
                report.answer = answer;
                break;
            }
            if report.turns >= request.max_turns {
                report.outcome = "max_turns";
                return Ok(report);
            }
            let turn = TurnRequest {
                user: if resume.is_some() { None } else { user.take() },
                resume: resume.take(),
                vars: request.vars.clone(),
                max_tokens: request.max_tokens,
                model: request.model.clone(),
                tool_estimate: request.tool_estimate,
                subagent_estimate: request.subagent_estimate,
                run_subagents: false,
                ledger_command: None,
            };
            let started = Instant::now();
            match self.turn(&turn, progress)? {
                TurnOutcome::Blocked(gate) => {
                    progress(&format!(
                        "{}: the model call does not fit (~{} tokens, {} available)",
                        gate.operation_id,
                        gate.estimated_result_tokens,
                        gate.available_operation_tokens
                    ));
                    if let Some(marker) = &marker {
                        marker.note_blocked(&self.dir, &gate.operation_id)?;
                    }
                    report.outcome = "blocked";
                    report.gate = Some(gate);
                    return Ok(report);
                }
                TurnOutcome::Released(_) => unreachable!("a run resumes model calls only"),
                TurnOutcome::Done(done) => {
                    report.turns += 1;
                    report.answer = done.text.clone();
                    self.note_turn(&done, started, &mut report.ops, progress);
                    if answered_without_calls(&done) {
                        break;
                    }
                }
            }
        }
        Marker::finish(&self.dir)?;
        Ok(report)
    }

    /// The model's final answer when the session already ends with it: the last live
    /// entry is the model's text, after this run's user message, and nothing waits.
    fn final_answer(&self, marker: Option<&Marker>, turns: u32) -> Result<Option<String>> {
        if turns > 0 || Journal::interrupted(&self.dir)?.is_some() {
            return Ok(None);
        }
        let Some(marker) = marker else {
            return Ok(None);
        };
        let state = self.state()?;
        if marker.unsent(&state, &self.dir).is_some() {
            return Ok(None);
        }
        let last = state.tier2().last();
        Ok(last
            .filter(|e| e.kind == Kind::Assistant && marker.after_start(&e.id))
            .map(|e| e.text.clone()))
    }

    /// Records a turn's operations: the model call and the framework tools it ran.
    fn note_turn(
        &self,
        done: &TurnReport,
        started: Instant,
        ops: &mut Vec<RunOp>,
        progress: &mut dyn FnMut(&str),
    ) {
        let millis = started.elapsed().as_millis() as u64;
        let tokens = done.usage.as_ref().map(|u| u.input_tokens);
        progress(&format!(
            "{}: model {} answered in {millis} ms ({} input tokens, {} tool call{})",
            done.operation_id,
            done.model,
            tokens.map_or_else(|| "no count of".into(), crate::numbers::thousands),
            done.appended_ids
                .iter()
                .filter(|id| id.starts_with("tool_call_"))
                .count(),
            if done
                .appended_ids
                .iter()
                .filter(|id| id.starts_with("tool_call_"))
                .count()
                == 1
            {
                ""
            } else {
                "s"
            }
        ));
        ops.push(RunOp {
            operation_id: Some(done.operation_id.clone()),
            kind: "model",
            name: done.model.clone(),
            call: None,
            outcome: "ok".into(),
            result_id: done.appended_ids.first().cloned(),
            tokens,
            millis,
        });
        for run in &done.framework {
            ops.push(RunOp {
                operation_id: None,
                kind: if run.name == "purge" {
                    "purge"
                } else {
                    "compact_context"
                },
                name: run.name.clone(),
                call: Some(run.id.clone()),
                outcome: run.outcome.into(),
                result_id: run.result_id.clone(),
                tokens: None,
                millis: 0,
            });
        }
        for held in &done.blocked {
            progress(&format!(
                "{}: {} `{}` blocked at the gate (~{} tokens, {} available); the model is told",
                held.operation_id,
                held.id,
                held.name,
                held.gate.estimated_result_tokens,
                held.gate.available_operation_tokens
            ));
            let kind = if self.is_subagent(&held.name) {
                "subagent"
            } else {
                "tool"
            };
            ops.push(RunOp::blocked(held, kind));
        }
    }
}

/// The model answered without asking for anything: the run is done.
fn answered_without_calls(done: &TurnReport) -> bool {
    !done
        .appended_ids
        .iter()
        .any(|id| id.starts_with("tool_call_"))
}
