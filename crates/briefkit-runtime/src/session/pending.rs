//! Pending operations, the ones the gate blocked: `session resume op_N` runs the original
//! operation once it fits, `session cancel op_N` closes one.
//!
//! A blocked tool call or sub-agent was answered in the conversation with the gate's
//! object, so the conversation went on; resuming it appends a new call of the same tool
//! and arguments (in the same write as the gate's decision) and runs that one: a
//! sub-agent in process, a brief's tool with `--tool-exec`, else handed back to the caller
//! as a turn hands out its calls. A blocked model call is the turn it was (`session turn
//! --resume`).

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::journal::Journal;
use super::log::{Event, GateRecord};
use super::model::ModelChoice;
use super::ops::{GATE_SOURCE, GateReport, GateRequest, NewEntry, now};
use super::state::Operation;
use super::subagent::{SubagentOutcome, SubagentReport, SubagentRequest, SubagentWaiting};
use super::tool_exec::{ToolExec, ToolOutput};
use super::turn::{PendingCall, TurnOutcome, TurnReport, TurnRequest};
use super::{OpKind, Session};
use crate::document::Document;
use crate::error::{Error, Result, Topic};

/// What `session resume` takes.
#[derive(Debug, Clone, Default)]
pub struct ResumeRequest {
    pub model: ModelChoice,
    pub vars: BTreeMap<String, String>,
    /// A new estimate, replacing the operation's own.
    pub estimate: Option<u64>,
    /// Runs a brief's tool; without it the call is handed back.
    pub tool_exec: Option<ToolExec>,
    pub max_tokens: Option<u32>,
}

/// What `session resume` did.
#[derive(Debug, Clone, Serialize)]
pub struct ResumeReport {
    pub operation_id: String,
    pub kind: String,
    /// `blocked` (still does not fit), `ran` (a sub-agent or `--tool-exec` answered the
    /// call), `handed_out` (the call for the caller to run), `waiting` (a delegated task's
    /// own calls), `turn` (the model call ran) or `fits` (an operation with nothing to run).
    pub outcome: &'static str,
    /// The gate's answer: `ok` or the seed's `context_budget_exceeded` object.
    #[serde(serialize_with = "super::gate::serialize_answer")]
    pub gate: GateReport,
    /// The call that runs (a new `tool_call_N` when the original was answered by the gate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<PendingCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolOutput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent: Option<Box<SubagentReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<SubagentWaiting>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<Box<TurnReport>>,
}

impl Document for ResumeReport {
    fn status(&self) -> &str {
        match self.outcome {
            "blocked" => "context_budget_exceeded",
            "handed_out" | "waiting" => "waiting",
            _ => "ok",
        }
    }

    fn summary(&self) -> String {
        let op = &self.operation_id;
        match self.outcome {
            "blocked" => format!(
                "{op} still does not fit: ~{} tokens, {} available; purge or compact first",
                self.gate.estimated_result_tokens, self.gate.available_operation_tokens
            ),
            "handed_out" => format!(
                "{op} fits: {} is for you to run and answer",
                self.call.as_ref().map_or("", |c| c.id.as_str())
            ),
            "waiting" => format!("{op} fits: the delegated task waits for its own tool calls"),
            "turn" => format!("{op}: the model call ran"),
            "fits" => format!("{op} fits"),
            _ => format!(
                "{op} ran: {} answered with {}",
                self.call.as_ref().map_or("", |c| c.id.as_str()),
                self.result_id.as_deref().unwrap_or("-")
            ),
        }
    }
}

/// What `session cancel` did.
#[derive(Debug, Clone, Serialize)]
pub struct CancelReport {
    pub operation_id: String,
    pub kind: String,
    /// The tool call the operation would have run.
    pub call: Option<String>,
    /// A result appended for a call that was still open (sessions of older versions).
    pub result_id: Option<String>,
}

impl Document for CancelReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{} cancelled{}; it is no longer pending",
            self.operation_id,
            self.call
                .as_ref()
                .map(|c| format!(" (it would have run {c})"))
                .unwrap_or_default()
        )
    }
}

impl Session {
    /// Runs pending operation `op` once it fits (see the module documentation).
    pub fn resume(
        &self,
        op: &str,
        request: &ResumeRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<ResumeReport> {
        let found = self.pending_operation(op)?;
        let report = |outcome, gate: GateReport| ResumeReport {
            operation_id: op.to_string(),
            kind: found.kind.clone(),
            outcome,
            gate,
            call: None,
            result_id: None,
            tool: None,
            subagent: None,
            waiting: None,
            turn: None,
        };
        if found.call.is_none() {
            if found.kind == OpKind::Model.as_str() && Journal::read(&self.dir, op)?.is_some() {
                let turn = TurnRequest {
                    resume: Some(op.to_string()),
                    vars: request.vars.clone(),
                    model: request.model.clone(),
                    max_tokens: request.max_tokens,
                    ..TurnRequest::default()
                };
                return Ok(match self.turn(&turn, progress)? {
                    TurnOutcome::Blocked(gate) => report("blocked", gate),
                    TurnOutcome::Done(done) => ResumeReport {
                        turn: Some(Box::new(done)),
                        ..report("turn", self.gate_ok(op))
                    },
                    TurnOutcome::Released(_) => unreachable!("a model operation has no call"),
                });
            }
            let gate = self.gate(
                GateRequest::resume(op.to_string(), request.estimate),
                &request.vars,
            )?;
            let outcome = if gate.allowed { "fits" } else { "blocked" };
            return Ok(report(outcome, gate));
        }
        let call = match self.resume_call(op, request.estimate, &request.vars)? {
            Err(gate) => return Ok(report("blocked", gate)),
            Ok(call) => call,
        };
        let gate = self.gate_ok(op);
        if self.is_subagent(&call.name) {
            let sub = SubagentRequest {
                model: request.model.clone(),
                vars: request.vars.clone(),
                estimate: None,
            };
            return Ok(match self.run_subagent(&call.id, &sub, progress)? {
                SubagentOutcome::Done(done) => ResumeReport {
                    result_id: Some(done.result_id.clone()),
                    subagent: Some(done),
                    call: Some(call),
                    ..report("ran", gate)
                },
                SubagentOutcome::Waiting(waiting) => ResumeReport {
                    waiting: Some(waiting),
                    call: Some(call),
                    ..report("waiting", gate)
                },
                SubagentOutcome::Blocked(gate) => report("blocked", gate),
            });
        }
        match &request.tool_exec {
            Some(exec) => {
                let (output, result_id) = self.execute(exec, &call, progress)?;
                Ok(ResumeReport {
                    result_id: Some(result_id),
                    tool: Some(output),
                    call: Some(call),
                    ..report("ran", gate)
                })
            }
            None => Ok(ResumeReport {
                call: Some(call),
                ..report("handed_out", gate)
            }),
        }
    }

    /// The gate's `ok` for `op` as the log now holds it.
    fn gate_ok(&self, op: &str) -> GateReport {
        let figures = self.status(&BTreeMap::new()).ok();
        GateReport {
            allowed: true,
            operation_id: op.to_string(),
            level: figures
                .as_ref()
                .map_or(super::Level::Optimal, |s| s.figures.level),
            current_context_tokens: figures
                .as_ref()
                .map_or(0, |s| s.figures.current_context_tokens),
            estimated_result_tokens: 0,
            available_operation_tokens: figures
                .as_ref()
                .map_or(0, |s| s.figures.available_operation_tokens),
            reason: None,
            call: None,
        }
    }

    /// Runs a brief's tool call with `--tool-exec` and appends what it gave as the call's
    /// result (source `tool_exec`).
    pub fn execute(
        &self,
        exec: &ToolExec,
        call: &PendingCall,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(ToolOutput, String)> {
        let started = Instant::now();
        let output = exec.run(call)?;
        let entry = self
            .append(vec![NewEntry::ToolResult {
                call: call.id.clone(),
                text: output.text.clone(),
                source: "tool_exec".into(),
            }])?
            .remove(0);
        progress(&format!(
            "{} {} ({}): {} tokens as {} in {} ms",
            call.id,
            call.name,
            output.outcome,
            entry.tokens,
            entry.id,
            started.elapsed().as_millis()
        ));
        Ok((output, entry.id))
    }

    /// Closes pending operation `op`: it is no longer pending, and a call it held back that
    /// is still open is answered with a result saying so.
    pub fn cancel(&self, op: &str) -> Result<CancelReport> {
        let found = self.pending_operation(op)?;
        let vars = self.config.vars.clone();
        let record = GateRecord {
            op: op.to_string(),
            kind: found.kind.clone(),
            estimate: found.estimate,
            high_volume: found.high_volume,
            outcome: "cancelled".into(),
            effective_estimate: found.estimate,
            current_context_tokens: 0,
            available_operation_tokens: 0,
            call: found.call.clone(),
            reason: None,
        };
        self.write_head(&vars, |_, _| {
            Ok((vec![Event::Gate { at: now(), record }], ()))
        })?;
        Journal::remove(&self.dir, op)?;
        let mut result_id = None;
        if let Some(call) = &found.call
            && self.state()?.flow.is_open(call)
        {
            let text = format!(
                "{{\"status\":\"cancelled\",\"operation_id\":\"{op}\",\"summary\":\"the operation was cancelled; this call will not run\"}}"
            );
            let entry = self.append(vec![NewEntry::ToolResult {
                call: call.clone(),
                text,
                source: GATE_SOURCE.into(),
            }])?;
            result_id = Some(entry[0].id.clone());
        }
        Ok(CancelReport {
            operation_id: op.to_string(),
            kind: found.kind,
            call: found.call,
            result_id,
        })
    }
}

impl Session {
    /// The session's operation `op`, refused unless it is pending.
    fn pending_operation(&self, op: &str) -> Result<Operation> {
        self.state()?
            .operation(op)
            .filter(|o| o.state == "pending")
            .cloned()
            .ok_or_else(|| not_pending(op))
    }
}

fn not_pending(op: &str) -> Error {
    Error::input(format!("{op} is not a pending operation of this session"))
        .with_topic(Topic::NotPending)
}
