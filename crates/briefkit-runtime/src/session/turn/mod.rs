//! One orchestrator step (`brief session turn`): gate the model call, render, call the
//! provider (streamed), record the call, append the answer with visible ids, run the
//! framework's own memory tools (`purge`, `compact_context`) and hand every other tool call
//! back to the caller, who runs it and answers with `brief session append --tool-result`.
//!
//! Nothing of a failed call is appended: the user message enters Tier 2 together with the
//! answer (the gate counts it already). Once an answer arrived it is journaled
//! ([`super::journal`]) before anything is appended, so an interrupted turn is finished by
//! running it again.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

mod finish;

use super::calls::BlockedCall;
use super::compact::CompactReport;
use super::journal::{Journal, Received};
use super::log::{Entry, Event, Kind};
use super::model::ModelChoice;
use super::ops::{GateReport, GateRequest, PurgeReport};
use super::render;
use super::subagent::SubagentRun;
use super::{Notice, OpKind, Session};
use crate::error::{Error, Result, Topic};
use crate::provider::{CallOptions, Provider, Usage};
use crate::wire::prefix::StablePrefix;

/// What `brief session turn` asks for.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    pub user: Option<String>,
    pub vars: BTreeMap<String, String>,
    /// Retry a model call the gate blocked (`op_N`).
    pub resume: Option<String>,
    /// The answer's length cap, which is also the gate's estimate [default: the session's
    /// `reserved_completion_tokens`].
    pub max_tokens: Option<u32>,
    pub model: ModelChoice,
    /// The estimate for a tool call whose tool item declares no `result_estimate`.
    pub tool_estimate: Option<u64>,
    /// The estimate for a framework sub-agent's envelope [default: learned per kind,
    /// [`super::calls::learned_estimate`]].
    pub subagent_estimate: Option<u64>,
    /// Run the framework's sub-agents in the turn instead of handing their calls back.
    pub run_subagents: bool,
    /// The ledger's `command` for the model call [default: `session`; a delegated task's
    /// turns are `subagent`].
    pub ledger_command: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub enum TurnOutcome {
    /// The gate blocked the call: the seed's `context_budget_exceeded` object.
    Blocked(GateReport),
    Done(TurnReport),
    /// `--resume op_N` of a tool call the gate had held back: it fits now.
    Released(PendingCall),
}

/// A tool call for the caller to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingCall {
    /// The visible id to answer (`tool_call_N`).
    pub id: String,
    /// The provider's own id for the call.
    pub call_id: String,
    pub name: String,
    pub arguments: Value,
    /// The gate's operation for this call.
    pub operation_id: String,
}

/// A framework tool the turn ran itself.
#[derive(Debug, Clone, Serialize)]
pub struct FrameworkRun {
    /// The call (`tool_call_N`).
    pub id: String,
    pub name: String,
    /// `ok`, `refused` (bad arguments or ids: the model reads why) or `failed` (an
    /// invalid CompactedState twice: nothing compacted).
    pub outcome: &'static str,
    /// The tool result appended (`None` after a compaction: the call itself left Tier 2).
    pub result_id: Option<String>,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purge: Option<PurgeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact: Option<CompactReport>,
}

/// What a finished turn did.
#[derive(Debug, Clone, Serialize)]
pub struct TurnReport {
    pub operation_id: String,
    /// This run finished a turn interrupted after its answer arrived.
    pub finished_interrupted: bool,
    pub user_id: Option<String>,
    /// The answer's entries: its text (`msg_N`) and tool calls (`tool_call_N`).
    pub appended_ids: Vec<String>,
    pub text: String,
    /// Tool calls for the caller to run, in the model's order, each let through by the
    /// gate.
    pub tool_calls: Vec<PendingCall>,
    /// Tool calls the gate held back: they do not fit until a purge or a compaction.
    pub blocked: Vec<BlockedCall>,
    /// Sub-agents run in the turn (`--run-subagents`).
    pub subagents: Vec<SubagentRun>,
    pub framework: Vec<FrameworkRun>,
    pub model: String,
    pub finish_reason: String,
    pub usage: Option<Usage>,
}

impl TurnRequest {
    pub fn estimates(&self) -> super::calls::Estimates {
        super::calls::Estimates {
            tool: self.tool_estimate,
            subagent: self.subagent_estimate,
        }
    }
}

impl Session {
    /// Runs one turn; see the module documentation. `progress` hears each step.
    pub fn turn(
        &self,
        request: &TurnRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<TurnOutcome> {
        if let Some(journal) = Journal::interrupted(&self.dir)? {
            if request.user.is_some() && request.user != journal.user {
                self.notice(Notice::UserNotSent {
                    op: journal.op.clone(),
                });
            }
            progress(&format!(
                "{}: finishing the turn whose answer arrived before it was interrupted",
                journal.op
            ));
            return self
                .finish(journal, true, request, progress)
                .map(TurnOutcome::Done);
        }
        if let Some(user) = &request.user
            && user.trim().is_empty()
        {
            return Err(Error::input("the user message is empty"));
        }
        let state = self.state()?;
        if let Some(op) = &request.resume
            && state.operation(op).is_some_and(|o| o.call.is_some())
        {
            return Ok(match self.resume_call(op, None, &request.vars)? {
                Ok(call) => TurnOutcome::Released(call),
                Err(gate) => TurnOutcome::Blocked(gate),
            });
        }
        if state.live.is_empty() && request.user.is_none() && request.resume.is_none() {
            return Err(Error::input(
                "Tier 2 is empty: the first turn needs --user (providers require the conversation to open with the user's message)",
            ));
        }
        if let Some(call) = state
            .tier2()
            .find(|e| e.kind == Kind::ToolCall && !state.is_answered(&e.id))
        {
            return Err(Error::input(format!(
                "{} (`{}`) is not answered yet: providers refuse a call without its result",
                call.id,
                call.name.as_deref().unwrap_or_default()
            ))
            .with_hint("answer it first")
            .with_topic(Topic::TurnUnanswered {
                session: self.dir.clone(),
                call: call.id.clone(),
                subagent: self.is_subagent(call.name.as_deref().unwrap_or_default()),
            }));
        }
        let settings = self.settings(&request.model)?;
        let (user, max_tokens, gate) = match &request.resume {
            Some(op) => {
                // Only a turn the gate blocked can be retried as a turn: its journal holds
                // the user message and the length cap it was gated with.
                let journal = Journal::read(&self.dir, op)?.ok_or_else(|| {
                    Error::input(format!(
                        "{op} is not a turn the gate blocked in this session"
                    ))
                    .with_topic(Topic::NotATurn)
                })?;
                let user = journal.user.clone();
                // The gate approved the stored cap: a smaller --max-tokens is honoured, a
                // larger one would spend what was never checked.
                let max_tokens = match request.max_tokens {
                    Some(asked) if asked > journal.max_tokens => {
                        self.notice(Notice::LengthCapped {
                            asked,
                            cap: journal.max_tokens,
                            op: op.clone(),
                        });
                        journal.max_tokens
                    }
                    Some(asked) => asked,
                    None => journal.max_tokens,
                };
                let incoming = self.user_tokens(&state, user.as_deref());
                let gate =
                    self.gate_with(GateRequest::Resume(op.clone()), &request.vars, incoming)?;
                (user, max_tokens, gate)
            }
            None => {
                let max_tokens = request
                    .max_tokens
                    .unwrap_or_else(|| self.default_max_tokens());
                let user = request.user.clone();
                let incoming = self.user_tokens(&state, user.as_deref());
                let gate = self.gate_with(
                    GateRequest::new(u64::from(max_tokens), OpKind::Model, false),
                    &request.vars,
                    incoming,
                )?;
                (user, max_tokens, gate)
            }
        };
        let mut journal = Journal {
            op: gate.operation_id.clone(),
            user,
            max_tokens,
            answer: None,
        };
        if !gate.allowed {
            journal.write(&self.dir)?;
            return Ok(TurnOutcome::Blocked(gate));
        }
        let mut state = self.state()?;
        if let Some(text) = &journal.user {
            let entry = self.new_entry(&state, Kind::User, 0, text.clone(), &journal.op);
            state.apply(&Event::Append {
                at: String::new(),
                entries: vec![entry],
            });
        }
        let format = render::Format::from(settings.wire);
        let rendered = self.render_state(&state, format, &request.vars)?;
        let local_tokens = rendered.figures.local_context_tokens;
        let body = match rendered.body {
            super::RenderedBody::Json(body) => body,
            super::RenderedBody::Text(_) => unreachable!("a provider format renders JSON"),
        };
        let hash = StablePrefix::of_body(&body)
            .map(|p| p.hash)
            .unwrap_or_default();
        progress(&format!(
            "{}: calling {} ({} tokens at most)",
            journal.op, settings.model, max_tokens
        ));
        let provider = Provider::new(settings.clone())?;
        let options = CallOptions::text(max_tokens);
        let started = Instant::now();
        let result = provider.call_body(&body, &options);
        self.record_call(
            &request.model,
            request.ledger_command.unwrap_or("session"),
            &settings,
            (None, &hash),
            started,
            &result,
        );
        let answer = match result {
            Ok(answer) => answer,
            Err(err) => {
                Journal::remove(&self.dir, &journal.op)?;
                return Err(
                    err.with_hint("nothing was appended; run the same command again (a new turn)")
                );
            }
        };
        if answer.contains_key {
            // Never stored: Tier 2 is rendered into every later request and kept in the log.
            Journal::remove(&self.dir, &journal.op)?;
            return Err(Error::provider(format!(
                "{}'s answer contains the API key (as sent, or changed: case, URL- or base64-encoding): nothing was appended",
                answer.model
            ))
            .with_hint("the server echoed your key into the answer; revoke the key if it was not a local test server"));
        }
        self.calibrate(&settings, local_tokens, answer.usage.as_ref());
        journal.answer = Some(Received::from(&answer));
        journal.write(&self.dir)?;
        crate::store::transaction::fault_point("session-turn-after-journal");
        self.finish(journal, false, request, progress)
            .map(TurnOutcome::Done)
    }

    /// Records the provider's input tokens beside the local count of the same render
    /// ([`super::calibration`]).
    fn calibrate(&self, settings: &crate::provider::Settings, local: u64, usage: Option<&Usage>) {
        match usage.map(|u| u.input_tokens).filter(|&n| n > 0) {
            Some(counted) => {
                if let Err(err) = super::calibration::Calibration::record(
                    &self.dir,
                    settings.wire.as_str(),
                    &settings.model,
                    local,
                    counted,
                ) {
                    self.notice(format!(
                        "the provider's token count was not recorded: {}",
                        err.message
                    ));
                }
            }
            None => self.notice(format!(
                "{} reported no input tokens: the budget keeps the local tokenizer's count",
                settings.model
            )),
        }
    }

    fn default_max_tokens(&self) -> u32 {
        u32::try_from(self.config.reserved_completion_tokens.max(1)).unwrap_or(u32::MAX)
    }

    fn user_tokens(&self, state: &super::State, user: Option<&str>) -> u64 {
        user.map_or(0, |text| {
            self.new_entry(state, Kind::User, 0, text.to_string(), "")
                .tokens
        })
    }

    pub(super) fn new_entry(
        &self,
        state: &super::State,
        kind: Kind,
        offset: u64,
        text: String,
        op: &str,
    ) -> Entry {
        let op = (!op.is_empty()).then(|| op.to_string());
        render::framework_entry(state.next_id(kind, offset), kind, text, op, self.encoding)
    }
}
