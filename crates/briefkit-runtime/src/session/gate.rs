//! The gate: an operation checked against the context budget before it runs, the decision
//! recorded in the log, and a blocked operation resumed later with its stored estimate.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Session;
use super::budget::{self, OpKind};
use super::log::{Event, GateRecord};
use super::ops::now;
use crate::error::{Error, Result, Topic};

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
        self.warn_unknown_vars(vars);
        let vars = self.vars(vars);
        let limits = self.limits();
        self.write_head(&vars, |summary, budget| {
            let (op, kind, estimate, high_volume, call) = match &request {
                GateRequest::New {
                    estimate,
                    kind,
                    high_volume,
                    call,
                } => (
                    format!("op_{}", summary.op_counter + 1),
                    *kind,
                    *estimate,
                    *high_volume,
                    call.clone(),
                ),
                GateRequest::Resume(op) => {
                    let found = summary
                        .pending
                        .iter()
                        .find(|p| &p.id == op)
                        .ok_or_else(|| {
                            Error::input(format!("{op} is not a pending operation of this session"))
                                .with_topic(Topic::NotPending)
                        })?;
                    let kind = OpKind::parse(&found.kind).ok_or_else(|| {
                        Error::input(format!("{op}: unknown kind `{}`", found.kind))
                    })?;
                    (
                        op.clone(),
                        kind,
                        found.estimate,
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
            Ok((vec![event], report))
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
}

impl GateRequest {
    /// A new operation that runs no tool call.
    pub fn new(estimate: u64, kind: OpKind, high_volume: bool) -> GateRequest {
        GateRequest::New {
            estimate,
            kind,
            high_volume,
            call: None,
        }
    }
}
