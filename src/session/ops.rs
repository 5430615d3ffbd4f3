//! The operations that write a session: append here, purge (`purge.rs`) and the gate
//! (`gate.rs`). Each one decides and appends under the session lock, so concurrent
//! processes see each other's entries and ids stay unique; each validates everything
//! before it writes anything.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::cache::{Cache, Summary};
use super::log::{self, Entry, Event, Kind, Locked};
use super::render::entry_text;
use super::state::State;
use super::{Session, envelope};
use crate::error::{Error, Result};
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
        /// `text`, `file` or `subagent`.
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
        // Refused (a planted FIFO or link): the next reader says so; the append stands.
        let Ok(mut cache) = Cache::read(&self.dir) else {
            return;
        };
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
            let size = match item {
                NewEntry::User(text) | NewEntry::Assistant(text) => text.len(),
                NewEntry::ToolResult { text, .. } => text.len(),
                NewEntry::ToolCall { arguments, .. } => {
                    crate::wire::canonical::to_string(arguments).len()
                }
            };
            if size as u64 > SESSION_ENTRY.bytes {
                return Err(Error::input(format!(
                    "{size} bytes is over the {SESSION_ENTRY} limit for {}",
                    SESSION_ENTRY.what
                ))
                .with_hint("store the text in the CCR store (`brief ccr put`) and append a reference to it; nothing was appended"));
            }
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
                        crate::wire::canonical::to_string(&arguments),
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
