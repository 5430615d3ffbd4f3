//! The framework's sub-agents (seed 000): `fetch_url`, `web_search_agent` and
//! `delegate_task`, run for a tool call of the session (`brief session subagent DIR
//! TOOL_CALL_ID`, or `session turn --run-subagents`).
//!
//! Each runs in isolation, with a bundled brief of its own (`briefs/<name>/`, embedded in
//! the binary like the compaction brief) and none of the session's memory, and answers with
//! the seed's result envelope, checked against `schemas/subagent-envelope.schema.json`; an
//! invalid answer is sent back once with its violations. The envelope is appended whole as
//! the call's result (its visible `tool_res_N`), never cut. Every sub-agent is gated first
//! (kind `subagent`, high-volume), and every model call it makes is a ledger row
//! (`command: "subagent"`). A sub-agent that could not do its work (a page that cannot be
//! fetched, a refused address, an answer invalid twice) still answers the call, with an
//! envelope of status `failed` that says why, so the orchestrator can react; only a failure
//! of the provider itself leaves the call unanswered (exit 3), to be run again.

mod answer;
mod conversation;
mod delegate;
mod envelopes;
pub mod fetch;
pub mod html;
mod search;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use answer::SubagentWaiting;
use conversation::Conversation;
pub use conversation::{parse_envelope, retry_message};
pub use delegate::{DelegateReport, TOKEN_CAP, TURN_CAP};
use envelopes::{cite, invalid_twice};
pub use envelopes::{completed_empty, failed};

use super::calls::CallBudget;
use super::log::{Entry, Kind};
use super::model::ModelChoice;
use super::ops::{GateReport, NewEntry};
use super::turn::PendingCall;
use super::{Session, tools};
use crate::brief::Brief;
use crate::error::{Error, Result, Topic};
use crate::prompt::compose::{self, ComposeOptions};

macro_rules! bundled {
    ($name:literal) => {
        (
            concat!("briefs/", $name),
            include_str!(concat!("../../../../../briefs/", $name, "/brief.yaml")),
            [
                (
                    "role",
                    include_str!(concat!("../../../../../briefs/", $name, "/items/role.md")),
                ),
                (
                    "answer",
                    include_str!(concat!("../../../../../briefs/", $name, "/items/answer.md")),
                ),
            ],
        )
    };
}

/// A sub-agent's bundled brief, composed: (system text, prefix hash).
pub fn bundled_brief(name: &str) -> Result<(String, String)> {
    let (dir, manifest, items) = match name {
        tools::FETCH_URL => bundled!("fetch_url"),
        tools::WEB_SEARCH => bundled!("web_search_agent"),
        tools::DELEGATE => bundled!("delegate_task"),
        other => return Err(Error::input(format!("`{other}` is not a sub-agent"))),
    };
    let brief = Brief::embedded(dir, manifest, &items)?;
    let prefix = compose::prefix(&brief, ComposeOptions::default());
    Ok((prefix.static_system, prefix.hashes.prefix))
}

/// What running a sub-agent takes.
#[derive(Debug, Clone, Default)]
pub struct SubagentRequest {
    pub model: ModelChoice,
    pub vars: BTreeMap<String, String>,
    /// The gate's estimate [default: the tool item's, else 2000].
    pub estimate: Option<u64>,
}

/// What a sub-agent run did.
#[derive(Debug, Clone, Serialize)]
pub struct SubagentReport {
    /// The call answered (`tool_call_N`).
    pub call: String,
    pub name: String,
    pub operation_id: String,
    /// The result appended (`tool_res_N`).
    pub result_id: String,
    /// The envelope's status.
    pub outcome: String,
    pub tokens: u64,
    /// The envelope did not fit the budget: kept whole, and the next model call waits.
    pub over_budget: bool,
    /// Model calls the sub-agent made (each a ledger row).
    pub model_calls: u32,
    pub envelope: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegate: Option<DelegateReport>,
}

#[derive(Debug, Clone)]
pub enum SubagentOutcome {
    /// The gate held the sub-agent back: the seed's object, the call waits.
    Blocked(GateReport),
    Done(Box<SubagentReport>),
    /// A delegated task's own tool calls, handed to the caller like the orchestrator's:
    /// answer them in the child session, then run the sub-agent again.
    Waiting(SubagentWaiting),
}

impl Session {
    /// Runs the sub-agent for `call_id` (see the module documentation).
    pub fn run_subagent(
        &self,
        call_id: &str,
        request: &SubagentRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<SubagentOutcome> {
        let state = self.state()?;
        let call = state
            .entry(call_id)
            .filter(|e| e.kind == Kind::ToolCall)
            .ok_or_else(|| Error::input(format!("{call_id}: no such tool call in this session")))?
            .clone();
        let name = call.name.clone().unwrap_or_default();
        if !self.is_subagent(&name) {
            let err = Error::input(format!(
                "{call_id} calls `{name}`, not one of the framework's sub-agents ({})",
                tools::SUBAGENTS.join(", ")
            ));
            return Err(if self.config.framework_tools {
                err.with_hint("run it yourself and append its result")
            } else {
                err.with_hint("this session was made without the framework's tools")
                    .with_topic(Topic::NoFrameworkTools)
            });
        }
        super::ops::check_answerable(&state, call_id)?;
        let budget = CallBudget {
            estimate: request
                .estimate
                .unwrap_or_else(|| super::calls::learned_estimate(&state, &name)),
            ..self.call_budget(&name, None)
        };
        let gate = self.gate_call(&state, &call, budget, request.estimate, &request.vars)?;
        if !gate.allowed {
            // Answered in the conversation with the gate's object, as a turn answers it.
            let mut held = [super::calls::BlockedCall {
                id: call.id.clone(),
                name,
                operation_id: gate.operation_id.clone(),
                gate: gate.clone(),
                result_id: None,
            }];
            self.answer_blocked(&mut held)?;
            return Ok(SubagentOutcome::Blocked(gate));
        }
        let mut conversation =
            Conversation::new(self, &request.model, gate.estimated_result_tokens)?;
        let mut delegate = None;
        let envelope = match name.as_str() {
            tools::FETCH_URL => self.fetch_url(&call, &mut conversation, progress)?,
            tools::WEB_SEARCH => self.web_search(&call, &mut conversation, progress)?,
            _ => match self.delegate(&call, request, progress)? {
                delegate::Delegated::Done(envelope, report) => {
                    delegate = Some(report);
                    envelope
                }
                delegate::Delegated::Waiting(report, calls) => {
                    return Ok(SubagentOutcome::Waiting(SubagentWaiting {
                        call: call_id.to_string(),
                        delegate: report,
                        tool_calls: calls,
                    }));
                }
            },
        };
        let text = serde_json::to_string_pretty(&envelope)
            .map_err(|e| Error::internal(format!("an envelope did not serialise: {e}")))?;
        let entry = NewEntry::subagent(call_id.to_string(), &text)?;
        let appended = self.append(vec![entry])?.remove(0);
        Ok(SubagentOutcome::Done(Box::new(SubagentReport {
            call: call_id.to_string(),
            name,
            operation_id: gate.operation_id,
            result_id: appended.id,
            outcome: envelope["status"].as_str().unwrap_or_default().to_string(),
            tokens: appended.tokens,
            over_budget: appended.over_budget,
            model_calls: conversation.calls
                + delegate
                    .as_ref()
                    .map_or(0, |d: &DelegateReport| d.model_calls),
            envelope,
            delegate,
        })))
    }

    fn fetch_url(
        &self,
        call: &Entry,
        conversation: &mut Conversation,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Value> {
        let args = call.arguments();
        let Some(url) = text_argument(&args, "url") else {
            return Ok(failed("fetch_url needs a `url`".into(), Vec::new()));
        };
        let focus = args.get("focus").and_then(Value::as_str).unwrap_or("");
        progress(&format!("fetch_url: fetching {url}"));
        let page = match fetch::fetch(url, fetch::Reach::from_env()) {
            Ok(page) => page,
            Err(err) => {
                let mut envelope = failed(
                    format!("The page could not be read: {}", err.message),
                    Vec::new(),
                );
                cite(&mut envelope, &[url.to_string()]);
                return Ok(envelope);
            }
        };
        let material = page_material(&page, focus);
        let mut envelope = match conversation.envelope(tools::FETCH_URL, material, progress)? {
            Ok(envelope) => envelope,
            Err(violations) => invalid_twice(&violations),
        };
        let mut urls = vec![url.to_string()];
        if page.final_url != url {
            urls.push(page.final_url.clone());
        }
        cite(&mut envelope, &urls);
        Ok(envelope)
    }
}

/// A fetched page as the sub-agent's model reads it.
pub fn page_material(page: &fetch::Page, focus: &str) -> String {
    let mut out = format!("Address: {}\n", page.url);
    if page.final_url != page.url {
        out.push_str(&format!("Redirected to: {}\n", page.final_url));
    }
    out.push_str(&format!(
        "Focus: {}\n",
        if focus.trim().is_empty() {
            "none given: report what the page is about and its key facts"
        } else {
            focus
        }
    ));
    if page.cut {
        out.push_str(&format!(
            "Note: the page is longer than {} bytes; only its first {} bytes were read.\n",
            fetch::MAX_BYTES,
            page.bytes
        ));
    }
    out.push_str(&format!(
        "\nThe page's text ({}):\n\n{}",
        if page.content_type.is_empty() {
            "no content type"
        } else {
            &page.content_type
        },
        page.text
    ));
    out
}

/// A sub-agent a turn ran (`session turn --run-subagents`).
#[derive(Debug, Clone, Serialize)]
pub struct SubagentRun {
    /// The call (`tool_call_N`).
    pub id: String,
    pub name: String,
    pub operation_id: Option<String>,
    /// The envelope's status, or `waiting` (a delegated task's own calls to run).
    pub outcome: String,
    /// The result appended.
    pub result_id: Option<String>,
    pub over_budget: bool,
    /// A delegated task's child session and its calls to run there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegate: Option<DelegateReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<PendingCall>,
}

pub(super) enum Ran {
    Run(SubagentRun),
    Blocked(super::calls::BlockedCall),
}

impl Session {
    /// A sub-agent run inside a turn: its failures that the caller could fix (no search
    /// backend, bad arguments) answer the call with a `failed` envelope, so the model
    /// reads why; a provider failure stops the turn (run it again to finish it).
    pub(super) fn run_in_turn(
        &self,
        call: &Entry,
        request: &super::turn::TurnRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Ran> {
        let sub = SubagentRequest {
            model: request.model.clone(),
            vars: request.vars.clone(),
            estimate: request.subagent_estimate,
        };
        let name = call.name.clone().unwrap_or_default();
        let outcome = match self.run_subagent(&call.id, &sub, progress) {
            Err(err) if err.exit_code() == 2 => {
                let envelope = failed(
                    err.message.clone(),
                    err.hint.iter().map(|h| h.to_string()).collect(),
                );
                let text = serde_json::to_string_pretty(&envelope).unwrap_or_default();
                let entry = self
                    .append(vec![NewEntry::subagent(call.id.clone(), &text)?])?
                    .remove(0);
                return Ok(Ran::Run(SubagentRun {
                    id: call.id.clone(),
                    name,
                    operation_id: None,
                    outcome: "failed".into(),
                    result_id: Some(entry.id),
                    over_budget: entry.over_budget,
                    delegate: None,
                    tool_calls: Vec::new(),
                }));
            }
            other => other?,
        };
        Ok(match outcome {
            SubagentOutcome::Blocked(gate) => Ran::Blocked(super::calls::BlockedCall {
                id: call.id.clone(),
                name,
                operation_id: gate.operation_id.clone(),
                gate,
                result_id: None,
            }),
            SubagentOutcome::Done(report) => Ran::Run(SubagentRun {
                id: call.id.clone(),
                name,
                operation_id: Some(report.operation_id),
                outcome: report.outcome,
                result_id: Some(report.result_id),
                over_budget: report.over_budget,
                delegate: report.delegate,
                tool_calls: Vec::new(),
            }),
            SubagentOutcome::Waiting(waiting) => Ran::Run(SubagentRun {
                id: call.id.clone(),
                name,
                operation_id: None,
                outcome: "waiting".into(),
                result_id: None,
                over_budget: false,
                delegate: Some(waiting.delegate),
                tool_calls: waiting.tool_calls,
            }),
        })
    }
}

/// The argument `key` of a call when it is text that is not blank.
pub(super) fn text_argument<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
}
