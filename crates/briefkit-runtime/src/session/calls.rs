//! The gate before a tool call runs: every call a turn hands back (and every sub-agent it
//! starts) is an operation of its own, checked against the budget with the estimates of
//! the calls let through before it still spoken for. A call that does not fit is not handed
//! out: the caller gets the seed's `context_budget_exceeded` object, and `session turn
//! --resume op_N` hands it out once a purge or a compaction made room.
//!
//! A call's estimate is its tool item's `result_estimate`, else the turn's
//! `--tool-estimate`, else [`DEFAULT_TOOL_ESTIMATE`] ([`DEFAULT_SUBAGENT_ESTIMATE`] for the
//! framework's sub-agents, which are also high-volume: refused from 95%).

use std::collections::BTreeMap;

use serde::Serialize;

use super::log::Entry;
use super::ops::{GateReport, GateRequest};
use super::state::State;
use super::turn::PendingCall;
use super::{OpKind, Session, tools};
use crate::error::{Error, Result};

/// Tokens assumed for a tool result when neither the tool item nor the turn says.
pub const DEFAULT_TOOL_ESTIMATE: u64 = 1_000;
/// Tokens assumed for a sub-agent's result envelope when the turn does not say.
pub const DEFAULT_SUBAGENT_ESTIMATE: u64 = 2_000;

/// A tool call the gate held back.
#[derive(Debug, Clone, Serialize)]
pub struct BlockedCall {
    /// The call (`tool_call_N`).
    pub id: String,
    pub name: String,
    /// The pending operation to resume (`op_N`).
    pub operation_id: String,
    /// The gate's decision; serialised as the seed's `context_budget_exceeded` object.
    #[serde(serialize_with = "super::gate::serialize_answer")]
    pub gate: GateReport,
}

/// What a call is at the gate: its kind, estimate and volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallBudget {
    pub kind: OpKind,
    pub estimate: u64,
    pub high_volume: bool,
}

impl Session {
    /// Whether `name` is one of the framework's sub-agents in this session.
    pub fn is_subagent(&self, name: &str) -> bool {
        self.config.framework_tools && tools::SUBAGENTS.contains(&name)
    }

    /// How the gate sees a call of tool `name`.
    pub fn call_budget(&self, name: &str, tool_estimate: Option<u64>) -> CallBudget {
        if self.is_subagent(name) {
            return CallBudget {
                kind: OpKind::Subagent,
                estimate: tool_estimate.unwrap_or(DEFAULT_SUBAGENT_ESTIMATE),
                high_volume: true,
            };
        }
        let declared = self
            .brief
            .items
            .iter()
            .find(|i| i.tool.as_ref().is_some_and(|t| t.name == name))
            .map(|i| i.tool_budget)
            .unwrap_or_default();
        CallBudget {
            kind: OpKind::Tool,
            estimate: declared
                .result_estimate
                .or(tool_estimate)
                .unwrap_or(DEFAULT_TOOL_ESTIMATE),
            high_volume: declared.high_volume,
        }
    }

    /// Gates `call` unless the gate decided about it already (a turn finished again after
    /// an interruption): the earlier decision stands.
    pub fn gate_call(
        &self,
        state: &State,
        call: &Entry,
        budget: CallBudget,
        vars: &BTreeMap<String, String>,
    ) -> Result<GateReport> {
        let earlier = state
            .operations
            .values()
            .rev()
            .find(|o| o.call.as_deref() == Some(call.id.as_str()));
        let request = match earlier {
            Some(op) if op.state == "ok" => {
                return Ok(GateReport {
                    allowed: true,
                    operation_id: op.id.clone(),
                    level: super::Level::Optimal,
                    current_context_tokens: 0,
                    estimated_result_tokens: op.estimate,
                    available_operation_tokens: 0,
                    reason: None,
                    call: Some(call.id.clone()),
                });
            }
            Some(op) => GateRequest::Resume(op.id.clone()),
            None => GateRequest::New {
                estimate: budget.estimate,
                kind: budget.kind,
                high_volume: budget.high_volume,
                call: Some(call.id.clone()),
            },
        };
        self.gate(request, vars)
    }

    /// Gates each of a turn's calls in order: handed out, or held back.
    pub(super) fn gate_calls(
        &self,
        calls: &[&Entry],
        tool_estimate: Option<u64>,
        vars: &BTreeMap<String, String>,
    ) -> Result<(Vec<PendingCall>, Vec<BlockedCall>)> {
        let state = self.state()?;
        let (mut out, mut blocked) = (Vec::new(), Vec::new());
        for call in calls {
            let name = call.name.clone().unwrap_or_default();
            let gate =
                self.gate_call(&state, call, self.call_budget(&name, tool_estimate), vars)?;
            if gate.allowed {
                out.push(pending(call, gate.operation_id));
            } else {
                blocked.push(BlockedCall {
                    id: call.id.clone(),
                    name,
                    operation_id: gate.operation_id.clone(),
                    gate,
                });
            }
        }
        Ok((out, blocked))
    }

    /// `session turn --resume op_N` for an operation that holds back a tool call: the
    /// call once it fits (`Ok`), else the gate's report again.
    pub(super) fn resume_call(
        &self,
        op: &str,
        vars: &BTreeMap<String, String>,
    ) -> Result<std::result::Result<PendingCall, GateReport>> {
        let state = self.state()?;
        let call_id = state
            .operation(op)
            .and_then(|o| o.call.clone())
            .expect("checked by the caller");
        let call = state
            .entry(&call_id)
            .filter(|_| state.is_live(&call_id) && !state.is_answered(&call_id))
            .ok_or_else(|| {
                Error::input(format!(
                    "{op} held back {call_id}, which is no longer waiting for a result ({})",
                    state.entry_state(&call_id)
                ))
            })?
            .clone();
        let gate = self.gate(GateRequest::Resume(op.to_string()), vars)?;
        Ok(if gate.allowed {
            Ok(pending(&call, gate.operation_id))
        } else {
            Err(gate)
        })
    }
}

fn pending(call: &Entry, operation_id: String) -> PendingCall {
    PendingCall {
        id: call.id.clone(),
        call_id: call.call.clone().unwrap_or_default(),
        name: call.name.clone().unwrap_or_default(),
        arguments: call.arguments(),
        operation_id,
    }
}
