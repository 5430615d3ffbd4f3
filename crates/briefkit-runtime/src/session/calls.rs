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
use super::ops::{GATE_SOURCE, GateReport, GateRequest, NewEntry};
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
    /// The call's result in the conversation: the same object, so the model reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
}

/// A blocked call's result as the model reads it: the seed's object on one line.
pub fn notification(gate: &GateReport) -> String {
    serde_json::to_string(&gate.answer()).unwrap_or_default()
}

/// The estimates a turn was given: `--tool-estimate` for the brief's tools without a
/// `result_estimate`, `--subagent-estimate` for the framework's sub-agents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimates {
    pub tool: Option<u64>,
    pub subagent: Option<u64>,
}

/// The fewest tokens a learned sub-agent estimate assumes.
pub const MIN_LEARNED_ESTIMATE: u64 = 500;
/// The most tokens a learned sub-agent estimate assumes.
pub const MAX_LEARNED_ESTIMATE: u64 = 8_000;
/// How many of a kind's latest envelopes the learned estimate looks at.
pub const LEARNED_WINDOW: usize = 8;

/// The estimate of sub-agent `name`'s next envelope, learned from this session's results:
/// the largest of its last [`LEARNED_WINDOW`] envelopes plus a quarter, within
/// [`MIN_LEARNED_ESTIMATE`]..=[`MAX_LEARNED_ESTIMATE`]; [`DEFAULT_SUBAGENT_ESTIMATE`]
/// before the first one. The largest, since the gate is there to prevent an overshoot.
pub fn learned_estimate(state: &State, name: &str) -> u64 {
    let seen: Vec<u64> = state
        .entries
        .iter()
        .rev()
        .filter(|e| e.source.as_deref() == Some("subagent"))
        .filter(|e| {
            e.call
                .as_deref()
                .and_then(|c| state.entry(c))
                .and_then(|c| c.name.as_deref())
                == Some(name)
        })
        .take(LEARNED_WINDOW)
        .map(|e| e.tokens)
        .collect();
    match seen.iter().max() {
        None => DEFAULT_SUBAGENT_ESTIMATE,
        Some(&largest) => (largest + largest / 4).clamp(MIN_LEARNED_ESTIMATE, MAX_LEARNED_ESTIMATE),
    }
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
        // `--tool-estimate` is for the brief's tools: a sub-agent's envelope has its own
        // estimate (learned per kind, [`learned_estimate`]).
        if self.is_subagent(name) {
            return CallBudget {
                kind: OpKind::Subagent,
                estimate: DEFAULT_SUBAGENT_ESTIMATE,
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
        estimate: Option<u64>,
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
            Some(op) => GateRequest::resume(op.id.clone(), estimate),
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
        estimates: Estimates,
        vars: &BTreeMap<String, String>,
    ) -> Result<(Vec<PendingCall>, Vec<BlockedCall>)> {
        let state = self.state()?;
        let (mut out, mut blocked) = (Vec::new(), Vec::new());
        for call in calls {
            let name = call.name.clone().unwrap_or_default();
            let mut budget = self.call_budget(&name, estimates.tool);
            if budget.kind == OpKind::Subagent {
                budget.estimate = estimates
                    .subagent
                    .unwrap_or_else(|| learned_estimate(&state, &name));
            }
            let gate = self.gate_call(&state, call, budget, None, vars)?;
            if gate.allowed {
                out.push(pending(call, gate.operation_id));
            } else {
                blocked.push(BlockedCall {
                    id: call.id.clone(),
                    name,
                    operation_id: gate.operation_id.clone(),
                    gate,
                    result_id: None,
                });
            }
        }
        self.answer_blocked(&mut blocked)?;
        Ok((out, blocked))
    }

    /// Answers each blocked call, in the conversation, with the gate's object as its
    /// result: the next model call reads why and can purge or compact, and nothing is left
    /// open that would stop the next turn or render. The operation stays pending until
    /// `session resume` runs it or `session cancel` closes it.
    pub(super) fn answer_blocked(&self, blocked: &mut [BlockedCall]) -> Result<()> {
        let state = self.state()?;
        let open: Vec<&mut BlockedCall> = blocked
            .iter_mut()
            .filter(|b| b.result_id.is_none() && state.flow.is_open(&b.id))
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        let entries = open
            .iter()
            .map(|b| NewEntry::ToolResult {
                call: b.id.clone(),
                text: notification(&b.gate),
                source: GATE_SOURCE.into(),
            })
            .collect();
        let appended = self.append(entries)?;
        for (b, entry) in open.into_iter().zip(appended) {
            b.result_id = Some(entry.id);
        }
        Ok(())
    }

    /// `session turn --resume op_N` for an operation that holds back a tool call: the
    /// call once it fits (`Ok`), else the gate's report again.
    pub(super) fn resume_call(
        &self,
        op: &str,
        estimate: Option<u64>,
        vars: &BTreeMap<String, String>,
    ) -> Result<std::result::Result<PendingCall, GateReport>> {
        let state = self.state()?;
        let call_id = state
            .operation(op)
            .and_then(|o| o.call.clone())
            .expect("checked by the caller");
        let call = state
            .entry(&call_id)
            .ok_or_else(|| {
                Error::input(format!("{op} held back {call_id}, which is not in the log"))
            })?
            .clone();
        // Still open (a session of an older version left it so): hand out the call itself.
        // Answered with the gate's object: a new call of the same tool and arguments is
        // appended once it fits, and that one runs.
        let open = state.flow.is_open(&call_id);
        let replay = (!open).then_some(&call);
        let (gate, replayed) = self.gate_replaying(
            GateRequest::resume(op.to_string(), estimate),
            vars,
            0,
            replay,
        )?;
        Ok(if gate.allowed {
            Ok(pending(
                replayed.as_ref().unwrap_or(&call),
                gate.operation_id,
            ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::log::{Event, Kind};

    fn entry(id: &str, kind: Kind, name: Option<&str>, call: Option<&str>, tokens: u64) -> Entry {
        Entry {
            id: id.into(),
            kind,
            text: "x".into(),
            tokens,
            name: name.map(str::to_string),
            call: call.map(str::to_string),
            group: None,
            source: (kind == Kind::ToolResult).then(|| "subagent".to_string()),
            op: None,
            over_budget: false,
        }
    }

    #[test]
    fn a_sub_agents_estimate_is_learned_from_its_own_kind_and_bounded() {
        let mut state = State::default();
        assert_eq!(
            learned_estimate(&state, "fetch_url"),
            DEFAULT_SUBAGENT_ESTIMATE
        );
        let add = |state: &mut State, n: u64, name: &str, tokens: u64| {
            let call = format!("tool_call_{n}");
            let result = format!("tool_res_{}", n + 1);
            state.apply(&Event::Append {
                at: String::new(),
                entries: vec![entry(&call, Kind::ToolCall, Some(name), None, 5)],
            });
            state.apply(&Event::Append {
                at: String::new(),
                entries: vec![entry(&result, Kind::ToolResult, None, Some(&call), tokens)],
            });
        };
        add(&mut state, 1, "fetch_url", 800);
        add(&mut state, 3, "fetch_url", 1_200);
        add(&mut state, 5, "web_search_agent", 100_000);
        assert_eq!(learned_estimate(&state, "fetch_url"), 1_500);
        assert_eq!(
            learned_estimate(&state, "web_search_agent"),
            MAX_LEARNED_ESTIMATE
        );
        add(&mut state, 7, "delegate_task", 10);
        assert_eq!(
            learned_estimate(&state, "delegate_task"),
            MIN_LEARNED_ESTIMATE
        );
    }
}
