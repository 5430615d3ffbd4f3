//! The operations that write a session: append here, purge (`purge.rs`) and the gate
//! (`gate.rs`). Each one decides and appends under the session lock, so concurrent
//! processes see each other's entries and ids stay unique; each validates everything
//! before it writes anything.

use std::collections::BTreeMap;

use serde_json::Value;

use super::cache::{Cache, Summary};
use super::log::{self, Entry, Event, Kind, Locked};
use super::render::entry_text;
use super::state::State;
use super::{Figures, Session, envelope};
use crate::error::{Error, Result, Topic};
use crate::files::limits::SESSION_ENTRY;
use crate::tokens;

pub use super::gate::{GateReport, GateRequest};
pub use super::purge::{PurgeReport, purge_result_text};

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
        /// `text`, `file`, `subagent`, `tool_exec` or `gate` ([`GATE_SOURCE`]).
        source: String,
    },
}

impl NewEntry {
    /// A sub-agent's result: validated against the envelope schema, appended whole.
    pub fn subagent(call: String, text: &str) -> Result<NewEntry> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            Error::input(format!("the sub-agent result is not JSON: {e}")).with_source(e)
        })?;
        let violations = envelope::validate(&value);
        if !violations.is_empty() {
            return Err(
                Error::input("the sub-agent result is not a valid result envelope")
                    .with_details(violations.iter().map(ToString::to_string).collect())
                    .with_topic(Topic::InvalidEnvelope),
            );
        }
        Ok(NewEntry::ToolResult {
            call,
            text: text.trim_end_matches(['\n', '\r']).to_string(),
            source: "subagent".into(),
        })
    }
}

/// The `source` of the tool result the gate answers a blocked call with: the seed's
/// `context_budget_exceeded` object, so the model reads why and can purge or compact.
pub const GATE_SOURCE: &str = "gate";

pub(super) fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub(super) fn now() -> String {
    crate::clock::format_rfc3339(crate::clock::now_ms())
}

impl Session {
    /// Refuses a link, a FIFO or a device planted where a writer's files go (`.lock`,
    /// `.cache.json`), for operations that would otherwise find out only after a model call.
    pub(super) fn check_writable(&self) -> Result<()> {
        log::refuse_odd(&self.dir.join(log::LOCK_FILE))?;
        log::refuse_odd(&self.dir.join(super::cache::CACHE_FILE))
    }

    /// Runs `decide` on the current state under the lock and appends what it returns.
    /// Replays the whole log: for the operations that need every entry (purge, compaction).
    pub(super) fn write<T>(
        &self,
        decide: impl FnOnce(&State) -> Result<(Vec<Event>, T)>,
    ) -> Result<T> {
        let locked = Locked::acquire(&self.dir)?;
        // The cache is rewritten after the append: a file planted in its place is refused
        // before anything is appended.
        log::refuse_odd(&self.dir.join(super::cache::CACHE_FILE))?;
        let read = log::read(&locked.log_path)?;
        let state = State::replay(&read.events);
        let (events, value) = decide(&state)?;
        self.cut_torn(&locked, &read)?;
        let mut state = state;
        let len = locked.append(&events)?;
        for event in &events {
            state.apply(event);
        }
        self.refresh_cache(&state, len);
        Ok(value)
    }

    fn cut_torn(&self, locked: &Locked, read: &log::LogContents) -> Result<()> {
        if read.torn && locked.cut_torn_tail(read.complete_len)? {
            self.notices.borrow_mut().push(super::Notice::Text(format!(
                "{}: cut off an unfinished last line left by a crash (it was never acknowledged)",
                locked.log_path.display()
            )));
        }
        Ok(())
    }

    /// [`Session::write`] for events that only append entries or record gate decisions:
    /// `decide` sees the derived summary (ids, the flow, budget figures), read from the
    /// cache when it describes the log, so a long session is not replayed (O(1)). `budget`
    /// gives the figures for a Tier 2 of N tokens, with the session's own values.
    pub(super) fn write_head<T>(
        &self,
        vars: &BTreeMap<String, String>,
        decide: impl FnOnce(&Summary, &mut dyn FnMut(u64) -> Result<Figures>) -> Result<(Vec<Event>, T)>,
    ) -> Result<T> {
        let locked = Locked::acquire(&self.dir)?;
        log::refuse_odd(&self.dir.join(super::cache::CACHE_FILE))?;
        let mut cache = Cache::read(&self.dir)?;
        let fresh = cache.fresh_summary(&locked.log_path).cloned();
        let (summary, read) = match fresh {
            Some(summary) => (summary, None),
            None => {
                let read = log::read(&locked.log_path)?;
                let state = State::replay(&read.events);
                let tail = log::tail_mark(&locked.log_path, read.complete_len).unwrap_or_default();
                (Summary::of(&state, read.complete_len, tail), Some(read))
            }
        };
        let memo = &mut cache.memo;
        let mut budget = |tier2: u64| self.figures_with(tier2, vars, memo);
        let (events, value) = decide(&summary, &mut budget)?;
        if let Some(read) = &read {
            self.cut_torn(&locked, read)?;
        }
        let len = locked.append(&events)?;
        let mut summary = summary;
        summary.apply(&events);
        summary.log_len = len;
        summary.log_tail = log::tail_mark(&locked.log_path, len).unwrap_or_default();
        // Warm the counts `status` and `gate` need for the new Tier 2 (Tier 3's telemetry
        // line changes with it), so they load no vocabulary.
        let _ = self.figures_with(summary.tier2_tokens, &self.config.vars, &mut cache.memo);
        cache.summary = Some(summary);
        cache.write(&self.dir);
        Ok(value)
    }

    /// Rewrites the derived cache for `state` (the log at `len` bytes), warming the token
    /// counts `status` needs with the session's own values.
    fn refresh_cache(&self, state: &State, len: u64) {
        // Refused (a planted FIFO or link): the next reader says so; the append stands.
        let Ok(mut cache) = Cache::read(&self.dir) else {
            return;
        };
        let tail = log::tail_mark(&self.log_path(), len).unwrap_or_default();
        cache.summary = Some(Summary::of(state, len, tail));
        let _ = self.figures_with(state.tier2_tokens, &self.config.vars, &mut cache.memo);
        cache.write(&self.dir);
    }

    /// Appends entries (one model answer's entries share a group), returning them with
    /// their ids. Refuses, with nothing written, empty text, a malformed tool call, a result
    /// for an unknown, removed or already answered call, and anything a provider would
    /// reject in that place ([`super::flow`]). A tool result that does not fit the operation
    /// budget is appended whole and marked `over_budget`: the next model call waits for a
    /// purge or a compaction.
    pub fn append(&self, new: Vec<NewEntry>) -> Result<Vec<Entry>> {
        if new.is_empty() {
            return Err(Error::input("nothing to append"));
        }
        for item in &new {
            check_new(item)?;
        }
        // Load the vocabulary before taking the lock: other appenders need not wait for it.
        tokens::count(self.encoding, "warm");
        let encoding = self.encoding;
        let limits = self.limits();
        let mut unanswerable: Option<(String, bool)> = None;
        let vars = self.config.vars.clone();
        let result = self.write_head(&vars, |head, budget| {
            let mut flow = head.flow.clone();
            let mut entries: Vec<Entry> = Vec::with_capacity(new.len());
            let mut tier2 = head.tier2_tokens;
            for (offset, item) in new.iter().cloned().enumerate() {
                let (kind, text, name, call, source) = match item {
                    NewEntry::User(text) => (Kind::User, text, None, None, None),
                    NewEntry::Assistant(text) => (Kind::Assistant, text, None, None, None),
                    NewEntry::ToolCall {
                        name,
                        arguments,
                        call_id,
                    } => (
                        Kind::ToolCall,
                        crate::wire::canonical::to_string(&arguments),
                        Some(name),
                        call_id,
                        None,
                    ),
                    NewEntry::ToolResult { call, text, source } => {
                        if !flow.is_open(&call) {
                            let twice = entries.iter().any(|e| e.call.as_deref() == Some(&call));
                            unanswerable = Some((call, twice));
                            return Err(Error::input("not answerable"));
                        }
                        (Kind::ToolResult, text, None, Some(call), Some(source))
                    }
                };
                flow.check(kind)?;
                let mut entry = Entry {
                    id: next_id(head.counter, kind, offset as u64),
                    kind,
                    text,
                    tokens: 0,
                    name,
                    call,
                    group: None,
                    source,
                    op: None,
                    over_budget: false,
                };
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                if kind == Kind::ToolResult {
                    let figures = budget(tier2)?;
                    let available = limits.available(
                        figures.current_context_tokens
                            + head.reserved_except(entry.call.as_deref()),
                        limits.safety_margin_tokens,
                    );
                    entry.over_budget = entry.tokens > available;
                }
                tier2 += entry.tokens;
                flow.push(&entry);
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
        });
        match unanswerable {
            Some((call, true)) => Err(Error::input(format!("{call} is answered twice"))),
            Some((call, false)) => {
                // The precise reason needs the whole log: paid only on this error.
                check_answerable(&self.state()?, &call)?;
                Err(Error::input(format!("{call} is not waiting for a result")))
            }
            None => result,
        }
    }
}

/// The visible id of the entry `offset` places after the highest id so far.
pub(super) fn next_id(counter: u64, kind: Kind, offset: u64) -> String {
    // Saturating: an id past the limit is refused by the append (log_check).
    let n = counter.saturating_add(1).saturating_add(offset);
    format!("{}_{}", kind.id_prefix(), n)
}

/// What can be refused about an entry without looking at the session.
fn check_new(item: &NewEntry) -> Result<()> {
    let size = match item {
        NewEntry::User(text) | NewEntry::Assistant(text) => text.len(),
        NewEntry::ToolResult { text, .. } => text.len(),
        NewEntry::ToolCall { arguments, .. } => crate::wire::canonical::to_string(arguments).len(),
    };
    if size as u64 > SESSION_ENTRY.bytes {
        return Err(Error::input(format!(
            "{size} bytes is over the {SESSION_ENTRY} limit for {}",
            SESSION_ENTRY.what
        ))
        .with_hint(
            "store the text in the CCR store and append a reference to it; nothing was appended",
        )
        .with_topic(Topic::EntryTooLarge));
    }
    match item {
        NewEntry::User(text) | NewEntry::Assistant(text) | NewEntry::ToolResult { text, .. }
            if text.trim().is_empty() =>
        {
            Err(Error::input("refusing to append an empty text"))
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
            Ok(())
        }
        _ => Ok(()),
    }
}

pub(super) fn call_of(entry: &Entry) -> &str {
    entry.call.as_deref().unwrap_or_default()
}

pub(super) fn check_answerable(state: &State, call: &str) -> Result<()> {
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
