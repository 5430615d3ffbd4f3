//! The operations that write a session: append, purge and the gate. Each one decides and
//! appends under the session lock, so concurrent processes see each other's entries and
//! ids stay unique; each validates everything before it writes anything.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::budget::{self, OpKind};
use super::cache::{Cache, Summary};
use super::log::{self, Entry, Event, GateRecord, Kind, Locked};
use super::render::entry_text;
use super::state::{State, is_tier2_id};
use super::{Session, envelope};
use crate::brief::Tier;
use crate::error::{Error, Result};
use crate::tokens;

/// An entry to append; the session gives it its id.
#[derive(Debug, Clone, PartialEq)]
pub enum NewEntry {
    User(String),
    Assistant(String),
    ToolCall {
        name: String,
        arguments: Value,
        /// The provider's id for the call, when it came from a model answer.
        call_id: Option<String>,
    },
    ToolResult {
        call: String,
        text: String,
        /// `text`, `file` or `subagent`.
        source: String,
    },
}

impl NewEntry {
    /// A sub-agent's result: validated against the envelope schema, appended whole.
    pub fn subagent(call: String, text: &str) -> Result<NewEntry> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::input(format!("the sub-agent result is not JSON: {e}")))?;
        let violations = envelope::validate(&value);
        if !violations.is_empty() {
            return Err(
                Error::input("the sub-agent result is not a valid result envelope")
                    .with_details(violations.iter().map(ToString::to_string).collect())
                    .with_hint("check it with `brief envelope validate FILE`"),
            );
        }
        Ok(NewEntry::ToolResult {
            call,
            text: text.trim_end_matches(['\n', '\r']).to_string(),
            source: "subagent".into(),
        })
    }
}

fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What `purge` did.
#[derive(Debug, Clone, Serialize)]
pub struct PurgeReport {
    pub removed_ids: Vec<String>,
    pub removed_tokens: u64,
    pub summary_id: Option<String>,
    pub summary_tokens: u64,
    /// The first Tier 2 entry whose bytes changed: the cached prefix ends before it.
    pub cache_break_at: String,
    /// Tokens of the prefix still served from cache after the purge (Tier 1 and the
    /// entries before the break).
    pub cache_break_after_tokens: u64,
    /// Tokens after the break that the provider writes to its cache again.
    pub tokens_rewritten: u64,
    pub tier2_tokens_before: u64,
    pub tier2_tokens_after: u64,
    /// The CCR hash the removed entries are also kept under (`brief ccr get`).
    pub ccr: Option<String>,
}

impl PurgeReport {
    /// The one-line account of a purge, the same for the CLI and the MCP tool.
    pub fn summary_line(&self) -> String {
        use super::budget::thousands;
        format!(
            "purged {} ({} tokens){}; cache breaks at {}: {} tokens written to the cache again",
            self.removed_ids.join(", "),
            thousands(self.removed_tokens),
            self.summary_id
                .as_ref()
                .map(|id| format!(", summary {id} ({} tokens)", thousands(self.summary_tokens)))
                .unwrap_or_default(),
            self.cache_break_at,
            thousands(self.tokens_rewritten)
        )
    }

    /// The `--json` document of `session purge`, which is also the MCP `purge` result:
    /// `status` and `summary` first, then every field of the report.
    pub fn reply(&self) -> serde_json::Value {
        #[derive(Serialize)]
        struct Reply<'a> {
            status: &'static str,
            summary: String,
            #[serde(flatten)]
            report: &'a PurgeReport,
        }
        serde_json::to_value(Reply {
            status: "ok",
            summary: self.summary_line(),
            report: self,
        })
        .expect("a purge report serialises")
    }
}

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
    pub fn to_json(&self) -> Value {
        if self.allowed {
            serde_json::json!({
                "status": "ok",
                "operation_id": self.operation_id,
                "available_operation_tokens": self.available_operation_tokens,
                "level": self.level.as_str(),
            })
        } else {
            serde_json::json!({
                "status": "context_budget_exceeded",
                "pending_operation_id": self.operation_id,
                "current_context_tokens": self.current_context_tokens,
                "estimated_result_tokens": self.estimated_result_tokens,
                "available_operation_tokens": self.available_operation_tokens,
                "required_action": "purge_or_compact",
            })
        }
    }
}

fn now() -> String {
    crate::clock::format_rfc3339(crate::clock::now_ms())
}

impl Session {
    /// Runs `decide` on the current state under the lock and appends what it returns.
    pub(super) fn write<T>(
        &self,
        decide: impl FnOnce(&State) -> Result<(Vec<Event>, T)>,
    ) -> Result<T> {
        let locked = Locked::acquire(&self.dir)?;
        let read = log::read(&locked.log_path)?;
        let state = State::replay(&read.events);
        let (events, value) = decide(&state)?;
        if read.torn && locked.cut_torn_tail(read.complete_len)? {
            self.notices.borrow_mut().push(format!(
                "{}: cut off an unfinished last line left by a crash (it was never acknowledged)",
                locked.log_path.display()
            ));
        }
        let mut state = state;
        let len = locked.append(&events)?;
        for event in &events {
            state.apply(event);
        }
        self.refresh_cache(&state, len);
        Ok(value)
    }

    /// Rewrites the derived cache for `state` (the log at `len` bytes), warming the token
    /// counts `status` needs with the session's own values.
    fn refresh_cache(&self, state: &State, len: u64) {
        let mut cache = Cache::read(&self.dir);
        let tail = log::tail_mark(&self.log_path(), len).unwrap_or_default();
        cache.summary = Some(Summary::of(state, len, tail));
        let _ = self.figures_with(state.tier2_tokens, &BTreeMap::new(), &mut cache.memo);
        cache.write(&self.dir);
    }

    /// Appends entries (one model answer's entries share a group), returning them with
    /// their ids. Refuses, with nothing written, empty text, a malformed tool call and a
    /// result for an unknown, removed or already answered call.
    pub fn append(&self, new: Vec<NewEntry>) -> Result<Vec<Entry>> {
        if new.is_empty() {
            return Err(Error::input("nothing to append"));
        }
        for item in &new {
            match item {
                NewEntry::User(text)
                | NewEntry::Assistant(text)
                | NewEntry::ToolResult { text, .. }
                    if text.trim().is_empty() =>
                {
                    return Err(Error::input("refusing to append an empty text"));
                }
                NewEntry::ToolCall {
                    name, arguments, ..
                } => {
                    if !valid_tool_name(name) {
                        return Err(Error::input(format!(
                            "`{name}` is not a valid tool name (letters, digits, _ and -, at most 64)"
                        )));
                    }
                    if !arguments.is_object() {
                        return Err(Error::input(
                            "a tool call's arguments must be a JSON object",
                        ));
                    }
                }
                _ => {}
            }
        }
        // Load the vocabulary before taking the lock: other appenders need not wait for it.
        tokens::count(self.encoding, "warm");
        let encoding = self.encoding;
        self.write(|state| {
            let mut entries: Vec<Entry> = Vec::with_capacity(new.len());
            let mut answered: HashSet<String> = HashSet::new();
            for (offset, item) in new.into_iter().enumerate() {
                let (kind, text, name, call, source) = match item {
                    NewEntry::User(text) => (Kind::User, text, None, None, None),
                    NewEntry::Assistant(text) => (Kind::Assistant, text, None, None, None),
                    NewEntry::ToolCall {
                        name,
                        arguments,
                        call_id,
                    } => (
                        Kind::ToolCall,
                        crate::prompt::canonical::to_string(&arguments),
                        Some(name),
                        call_id,
                        None,
                    ),
                    NewEntry::ToolResult { call, text, source } => {
                        let in_batch = entries
                            .iter()
                            .any(|e| e.kind == Kind::ToolCall && e.id == call);
                        if !in_batch {
                            check_answerable(state, &call)?;
                        }
                        if !answered.insert(call.clone()) {
                            return Err(Error::input(format!("{call} is answered twice")));
                        }
                        (Kind::ToolResult, text, None, Some(call), Some(source))
                    }
                };
                let id = state.next_id(kind, offset as u64);
                let mut entry = Entry {
                    id,
                    kind,
                    text,
                    tokens: 0,
                    name,
                    call,
                    group: None,
                    source,
                    op: None,
                };
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                entries.push(entry);
            }
            if entries.len() > 1 {
                let group = entries[0].id.clone();
                for entry in &mut entries {
                    entry.group = Some(group.clone());
                }
            }
            let event = Event::Append {
                at: now(),
                entries: entries.clone(),
            };
            Ok((vec![event], entries))
        })
    }

    /// Removes entries from Tier 2, with an optional summary in the first one's place.
    pub fn purge(&self, ids: &[String], summary: Option<&str>) -> Result<PurgeReport> {
        self.purge_answering(ids, summary, None)
            .map(|(report, _)| report)
    }

    /// [`Session::purge`] asked for by the model's `purge` call `answering = (tool_call_N,
    /// op_N)`: its result is appended in the same write as the purge, so a crash leaves
    /// both or neither.
    pub fn purge_answering(
        &self,
        ids: &[String],
        summary: Option<&str>,
        answering: Option<(&str, &str)>,
    ) -> Result<(PurgeReport, Option<Entry>)> {
        if let Some((call, _)) = answering
            && ids.iter().any(|id| id == call)
        {
            return Err(Error::input(format!(
                "`{call}` is this purge's own call; it cannot remove itself"
            )));
        }
        if ids.is_empty() {
            return Err(Error::input("--ids names no entry"));
        }
        if summary.is_some_and(|s| s.trim().is_empty()) {
            return Err(Error::input("the summary is empty"));
        }
        for id in ids {
            self.refuse_non_tier2(id)?;
        }
        tokens::count(self.encoding, "warm");
        let encoding = self.encoding;
        let tier1 = {
            let mut memo = Cache::read(&self.dir).memo;
            self.tier1_tokens(&mut memo)
        };
        self.write(|state| {
            let set = check_removable(state, ids)?;
            let removed: Vec<&Entry> = state
                .tier2()
                .filter(|e| set.contains(e.id.as_str()))
                .collect();
            let first = state
                .live
                .iter()
                .position(|&i| set.contains(state.entries[i].id.as_str()))
                .expect("ids were checked live");
            // Entries of one model answer render as one message: it changes as a whole.
            let mut first = first;
            while first > 0 {
                let (a, b) = (
                    &state.entries[state.live[first - 1]],
                    &state.entries[state.live[first]],
                );
                if a.group.is_none() || a.group != b.group {
                    break;
                }
                first -= 1;
            }
            let summary_entry = summary.map(|text| {
                let mut entry = Entry {
                    id: state.next_id(Kind::Summary, 0),
                    kind: Kind::Summary,
                    text: text.to_string(),
                    tokens: 0,
                    name: None,
                    call: None,
                    group: None,
                    source: None,
                    op: None,
                };
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                entry
            });
            let removed_tokens: u64 = removed.iter().map(|e| e.tokens).sum();
            let before: u64 = state.tier2().take(first).map(|e| e.tokens).sum();
            let summary_tokens = summary_entry.as_ref().map_or(0, |e| e.tokens);
            let after = state.tier2_tokens - removed_tokens + summary_tokens;
            let report = PurgeReport {
                removed_ids: removed.iter().map(|e| e.id.clone()).collect(),
                removed_tokens,
                summary_id: summary_entry.as_ref().map(|e| e.id.clone()),
                summary_tokens,
                cache_break_at: state.entries[state.live[first]].id.clone(),
                cache_break_after_tokens: tier1 + before,
                tokens_rewritten: after - before,
                tier2_tokens_before: state.tier2_tokens,
                tier2_tokens_after: after,
                ccr: None,
            };
            let mut report = report;
            report.ccr = self.keep_originals(
                crate::ccr::Strategy::SessionPurge,
                &removed,
                summary.unwrap_or_default(),
            );
            let offset = u64::from(summary_entry.is_some());
            let event = Event::Purge {
                at: now(),
                ids: report.removed_ids.clone(),
                summary: summary_entry,
                ccr: report.ccr.clone(),
            };
            let mut events = vec![event];
            let result = answering.map(|(call, op)| {
                let mut entry = Entry {
                    id: state.next_id(Kind::ToolResult, offset),
                    kind: Kind::ToolResult,
                    text: purge_result_text(&report),
                    tokens: 0,
                    name: None,
                    call: Some(call.to_string()),
                    group: None,
                    source: Some("framework".into()),
                    op: Some(op.to_string()),
                };
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                entry
            });
            if let Some(entry) = &result {
                check_answerable(state, call_of(entry))?;
                events.push(Event::Append {
                    at: now(),
                    entries: vec![entry.clone()],
                });
            }
            Ok((events, (report, result)))
        })
    }

    /// An id that names something of Tier 1 or Tier 3, or nothing at all, is refused by
    /// name before the log is read.
    fn refuse_non_tier2(&self, id: &str) -> Result<()> {
        if is_tier2_id(id) {
            return Ok(());
        }
        let tier = self
            .brief
            .items
            .iter()
            .find(|i| i.id == id)
            .map(|i| i.tier)
            .or_else(|| {
                self.tools
                    .iter()
                    .any(|t| t.name == id)
                    .then_some(Tier::Static)
            });
        let why = match tier {
            Some(Tier::Static) => "is part of Tier 1 (the brief's static prefix)".to_string(),
            Some(Tier::Volatile) => "is part of Tier 3 (rebuilt on every render)".to_string(),
            None if ["status", "telemetry", "tier3"].contains(&id) => {
                "is part of Tier 3 (rebuilt on every render)".to_string()
            }
            None => "is not a Tier 2 id (msg_N, tool_call_N or tool_res_N)".to_string(),
        };
        Err(Error::input(format!(
            "`{id}` {why}; only Tier 2 entries can be purged"
        )))
    }

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
        let mut cache = Cache::read(&self.dir);
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
                        .with_hint("`brief session status DIR` lists the pending operations")
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

fn call_of(entry: &Entry) -> &str {
    entry.call.as_deref().unwrap_or_default()
}

/// What the model reads back from its own `purge`.
pub fn purge_result_text(report: &PurgeReport) -> String {
    let mut text = format!(
        "Purged {} ({} tokens).",
        report.removed_ids.join(", "),
        budget::thousands(report.removed_tokens)
    );
    if let Some(id) = &report.summary_id {
        text.push_str(&format!(
            " Summary {id} ({} tokens) stands in their place.",
            budget::thousands(report.summary_tokens)
        ));
    }
    text.push_str(&format!(
        " Tier 2: {} -> {} tokens. The cache breaks at {}: {} tokens are written to the cache again on the next call.",
        budget::thousands(report.tier2_tokens_before),
        budget::thousands(report.tier2_tokens_after),
        report.cache_break_at,
        budget::thousands(report.tokens_rewritten)
    ));
    text
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

fn check_answerable(state: &State, call: &str) -> Result<()> {
    match state.entry(call) {
        Some(e) if e.kind != Kind::ToolCall => {
            Err(Error::input(format!("{call} is not a tool call")))
        }
        Some(_) if !state.is_live(call) => Err(Error::input(format!(
            "{call} was {}; it cannot be answered",
            state.entry_state(call)
        ))),
        Some(_) if state.is_answered(call) => {
            Err(Error::input(format!("{call} is already answered")))
        }
        Some(_) => Ok(()),
        None => Err(Error::input(format!(
            "{call}: no such tool call in this session"
        ))),
    }
}

/// The ids as a set, once each is known, live, and purged together with its partner.
fn check_removable<'a>(state: &State, ids: &'a [String]) -> Result<HashSet<&'a str>> {
    let set: HashSet<&str> = ids.iter().map(String::as_str).collect();
    for id in ids {
        match state.entry(id) {
            None => {
                return Err(Error::input(format!(
                    "`{id}`: no such entry in this session"
                )));
            }
            Some(_) if !state.is_live(id) => {
                return Err(Error::input(format!(
                    "`{id}` was already {}",
                    state.entry_state(id)
                )));
            }
            Some(entry) if entry.kind == Kind::ToolCall => {
                if let Some(result) = state.live_result_of(id)
                    && !set.contains(result.id.as_str())
                {
                    return Err(Error::input(format!(
                        "`{id}` is a tool call whose result {} stays: providers reject a result without its call",
                        result.id
                    ))
                    .with_hint(format!("purge both: --ids {id},{}", result.id)));
                }
            }
            Some(entry) if entry.kind == Kind::ToolResult => {
                if let Some(call) = entry.call.as_deref()
                    && state.is_live(call)
                    && !set.contains(call)
                {
                    return Err(Error::input(format!(
                        "`{id}` is the result of {call}, which stays: providers reject a call without its result"
                    ))
                    .with_hint(format!("purge both: --ids {call},{id}")));
                }
            }
            Some(_) => {}
        }
    }
    Ok(set)
}
