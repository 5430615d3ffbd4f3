//! The gate: an operation checked against the context budget before it runs, the decision
//! recorded in the log, and a blocked operation resumed later with its stored estimate.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Session;
use super::budget::{self, OpKind};
use super::log::{Entry, Event, GateRecord, Kind};
use super::ops::now;
use super::render::entry_text;
use crate::error::{Error, Result, Topic};
use crate::tokens;

/// What the gate decided.
#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    pub allowed: bool,
    pub operation_id: String,
    pub level: budget::Level,
    pub current_context_tokens: u64,
    pub estimated_result_tokens: u64,
    pub available_operation_tokens: u64,
    pub reason: Option<&'static str>,
    /// The tool call the operation runs.
    pub call: Option<String>,
}

impl GateReport {
    /// The seed's objects: `ok`, or `context_budget_exceeded` with the pending operation.
    pub fn answer(&self) -> GateAnswer<'_> {
        if self.allowed {
            GateAnswer::Ok {
                operation_id: &self.operation_id,
                available_operation_tokens: self.available_operation_tokens,
                level: self.level.as_str(),
            }
        } else {
            GateAnswer::ContextBudgetExceeded {
                pending_operation_id: &self.operation_id,
                current_context_tokens: self.current_context_tokens,
                estimated_result_tokens: self.estimated_result_tokens,
                available_operation_tokens: self.available_operation_tokens,
                required_action: "purge_or_compact",
            }
        }
    }
}

/// Serialises a [`GateReport`] kept in another report as its [`GateAnswer`].
pub fn serialize_answer<S: serde::Serializer>(
    report: &GateReport,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    report.answer().serialize(serializer)
}

/// The gate's answer as `brief session turn` prints it and the MCP `gate` tool returns it:
/// `status` first, then the fields of that status (the keys and their order are the
/// contract).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum GateAnswer<'a> {
    Ok {
        operation_id: &'a str,
        available_operation_tokens: u64,
        level: &'static str,
    },
    ContextBudgetExceeded {
        pending_operation_id: &'a str,
        current_context_tokens: u64,
        estimated_result_tokens: u64,
        available_operation_tokens: u64,
        required_action: &'static str,
    },
}

impl Session {
    /// Checks an operation against the budget, records the decision and returns it.
    /// `resume` checks a pending operation again with its stored estimate.
    pub fn gate(
        &self,
        request: GateRequest,
        vars: &BTreeMap<String, String>,
    ) -> Result<GateReport> {
        self.gate_with(request, vars, 0)
    }

    /// [`Session::gate`] counting `incoming` more Tier 2 tokens than the log holds: a
    /// turn's user message, which enters Tier 2 only with the answer.
    pub fn gate_with(
        &self,
        request: GateRequest,
        vars: &BTreeMap<String, String>,
        incoming: u64,
    ) -> Result<GateReport> {
        Ok(self.gate_replaying(request, vars, incoming, None)?.0)
    }

    /// [`Session::gate_with`]; when the operation is let through and `replay` is given (a
    /// resumed tool call whose original was answered with the gate's notification), a new
    /// call of the same tool and arguments is appended in the same write, and the
    /// operation runs that call.
    pub(super) fn gate_replaying(
        &self,
        request: GateRequest,
        vars: &BTreeMap<String, String>,
        incoming: u64,
        replay: Option<&Entry>,
    ) -> Result<(GateReport, Option<Entry>)> {
        self.warn_unknown_vars(vars);
        let vars = self.vars(vars);
        let limits = self.limits();
        let encoding = self.encoding;
        self.write_head(&vars, |summary, budget| {
            let resumed = |op: &String| {
                summary
                    .pending
                    .iter()
                    .find(|p| &p.id == op)
                    .ok_or_else(|| {
                        Error::input(format!("{op} is not a pending operation of this session"))
                            .with_topic(Topic::NotPending)
                    })
            };
            let (op, kind, estimate, high_volume, call) = match &request {
                GateRequest::New {
                    estimate,
                    kind,
                    high_volume,
                    call,
                } => (
                    format!("op_{}", summary.op_counter.saturating_add(1)),
                    *kind,
                    *estimate,
                    *high_volume,
                    call.clone(),
                ),
                GateRequest::Resume(op) | GateRequest::Reestimate { op, .. } => {
                    let found = resumed(op)?;
                    let kind = OpKind::parse(&found.kind).ok_or_else(|| {
                        Error::input(format!("{op}: unknown kind `{}`", found.kind))
                    })?;
                    // A new estimate replaces the pending operation's.
                    let estimate = match &request {
                        GateRequest::Reestimate { estimate, .. } => *estimate,
                        _ => found.estimate,
                    };
                    (
                        op.clone(),
                        kind,
                        estimate,
                        found.high_volume,
                        found.call.clone(),
                    )
                }
            };
            let figures = budget(summary.tier2_tokens + incoming)?;
            let current = figures.current_context_tokens;
            // Estimates of calls let through earlier whose results are still to come are
            // spoken for.
            let reserved = summary.reserved_except(call.as_deref());
            let mut decision =
                budget::decide(&limits, current + reserved, estimate, kind, high_volume);
            // A result appended over the budget holds every model call until a purge or a
            // compaction brings the session back under its limit.
            if kind == OpKind::Model && limits.over(current) {
                decision.allowed = false;
                decision.reason = Some("over_budget");
            }
            let mut events = Vec::new();
            let mut replayed = None;
            let mut call = call;
            if let Some(original) = replay.filter(|_| decision.allowed) {
                let mut entry = original.clone();
                entry.id = super::ops::next_id(summary.counter, Kind::ToolCall, 0);
                entry.call = Some(format!("{}_{op}", original.id));
                entry.group = None;
                entry.op = None;
                entry.over_budget = false;
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                // Nothing is written: the operation stays pending until it can run.
                summary.flow.check(Kind::ToolCall).map_err(|_| {
                    Error::input(format!(
                        "{op} fits, but its new call can only follow once the open tool calls are answered ({})",
                        summary
                            .flow
                            .open
                            .iter()
                            .map(|c| c.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .with_hint("answer them, then resume it again")
                })?;
                call = Some(entry.id.clone());
                events.push(Event::Append {
                    at: now(),
                    entries: vec![entry.clone()],
                });
                replayed = Some(entry);
            }
            let report = GateReport {
                allowed: decision.allowed,
                operation_id: op.clone(),
                level: decision.level,
                current_context_tokens: current,
                estimated_result_tokens: decision.effective_estimate,
                available_operation_tokens: decision.available,
                reason: decision.reason,
                call: call.clone(),
            };
            let event = Event::Gate {
                at: now(),
                record: GateRecord {
                    op,
                    kind: kind.as_str().into(),
                    estimate,
                    high_volume,
                    outcome: if decision.allowed { "ok" } else { "blocked" }.into(),
                    effective_estimate: decision.effective_estimate,
                    current_context_tokens: current,
                    available_operation_tokens: decision.available,
                    call,
                    reason: decision.reason.map(str::to_string),
                },
            };
            events.push(event);
            Ok((events, (report, replayed)))
        })
    }
}

/// What to check at the gate.
#[derive(Debug, Clone, PartialEq)]
pub enum GateRequest {
    New {
        estimate: u64,
        kind: OpKind,
        high_volume: bool,
        /// The tool call the operation runs (`tool_call_N`).
        call: Option<String>,
    },
    Resume(String),
    /// A pending operation checked again with a new estimate, which replaces its own.
    Reestimate {
        op: String,
        estimate: u64,
    },
}

impl GateRequest {
    /// A new operation that runs no tool call. A sub-agent is high-volume whoever asks
    /// (`gate --kind subagent`, a turn, `session subagent`): its envelope is the bulky
    /// kind of result the 95% rule is for.
    pub fn new(estimate: u64, kind: OpKind, high_volume: bool) -> GateRequest {
        GateRequest::New {
            estimate,
            kind,
            high_volume: high_volume || kind == OpKind::Subagent,
            call: None,
        }
    }

    /// Checks `op` again, with `estimate` in place of its own when one is given.
    pub fn resume(op: String, estimate: Option<u64>) -> GateRequest {
        match estimate {
            Some(estimate) => GateRequest::Reestimate { op, estimate },
            None => GateRequest::Resume(op),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_agent_is_high_volume_whoever_asks() {
        let request = GateRequest::new(10, OpKind::Subagent, false);
        assert!(matches!(
            request,
            GateRequest::New {
                high_volume: true,
                ..
            }
        ));
        let tool = GateRequest::new(10, OpKind::Tool, false);
        assert!(matches!(
            tool,
            GateRequest::New {
                high_volume: false,
                ..
            }
        ));
    }
}
