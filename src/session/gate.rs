//! The gate: an operation checked against the context budget before it runs, the decision
//! recorded in the log, and a blocked operation resumed later with its stored estimate.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Session;
use super::budget::{self, OpKind};
use super::cache::{Cache, Summary};
use super::log::{self, Event, GateRecord, Locked};
use super::ops::now;
use super::state::State;
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
        let locked = Locked::acquire(&self.dir)?;
        let mut cache = Cache::read(&self.dir)?;
        let summary = match cache.fresh_summary(&locked.log_path).cloned() {
            Some(summary) => summary,
            None => {
                let read = log::read(&locked.log_path)?;
                if read.torn && locked.cut_torn_tail(read.complete_len)? {
                    self.notices.borrow_mut().push(format!(
                        "{}: cut off an unfinished last line left by a crash (it was never acknowledged)",
                        locked.log_path.display()
                    ));
                }
                let state = State::replay(&read.events);
                let tail = log::tail_mark(&locked.log_path, read.complete_len).unwrap_or_default();
                Summary::of(&state, read.complete_len, tail)
            }
        };
        let (tier2, op_counter) = (summary.tier2_tokens, summary.op_counter);
        let pending = summary.pending.clone();
        let (op, kind, estimate, high_volume) = match &request {
            GateRequest::New {
                estimate,
                kind,
                high_volume,
            } => (
                format!("op_{}", op_counter + 1),
                *kind,
                *estimate,
                *high_volume,
            ),
            GateRequest::Resume(op) => {
                let found = pending.iter().find(|p| &p.id == op).ok_or_else(|| {
                    Error::input(format!("{op} is not a pending operation of this session"))
                        .with_topic(Topic::NotPending)
                })?;
                let kind = OpKind::parse(&found.kind)
                    .ok_or_else(|| Error::input(format!("{op}: unknown kind `{}`", found.kind)))?;
                (op.clone(), kind, found.estimate, found.high_volume)
            }
        };
        let figures = self.figures_with(tier2 + incoming, vars, &mut cache.memo)?;
        let current = figures.current_context_tokens;
        let decision = budget::decide(&self.limits(), current, estimate, kind, high_volume);
        let report = GateReport {
            allowed: decision.allowed,
            operation_id: op.clone(),
            level: decision.level,
            current_context_tokens: current,
            estimated_result_tokens: decision.effective_estimate,
            available_operation_tokens: decision.available,
            reason: decision.reason,
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
            },
        };
        let len = locked.append(std::slice::from_ref(&event))?;
        // Bring the summary forward by this one event instead of replaying the log.
        let mut summary = summary;
        summary.log_len = len;
        summary.log_tail = log::tail_mark(&locked.log_path, len).unwrap_or_default();
        if let Event::Gate { record, .. } = &event {
            summary.op_counter = summary
                .op_counter
                .max(super::state::id_number(&record.op).unwrap_or(0));
            summary.pending.retain(|p| p.id != record.op);
            if record.outcome != "ok" {
                summary.pending.push(super::cache::CachedOp {
                    id: record.op.clone(),
                    kind: record.kind.clone(),
                    estimate: record.estimate,
                    high_volume: record.high_volume,
                });
            }
        }
        cache.summary = Some(summary);
        cache.write(&self.dir);
        Ok(report)
    }
}

/// What to check at the gate.
#[derive(Debug, Clone, PartialEq)]
pub enum GateRequest {
    New {
        estimate: u64,
        kind: OpKind,
        high_volume: bool,
    },
    Resume(String),
}
