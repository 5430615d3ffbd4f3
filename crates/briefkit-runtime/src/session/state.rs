//! A session's state, replayed from its log: every entry ever appended, Tier 2 in order,
//! what removed each entry that left it, and the gate's operations.
//!
//! Replaying is linear in the log. The only changes to Tier 2 order that exist are the
//! events `purge` and `compact`; an entry's text is never edited.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::flow::{self, Flow};
use super::log::{Entry, Event, GateRecord, Kind};

/// Why an entry is no longer in Tier 2.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Removal {
    /// `purged` or `compacted`.
    pub state: &'static str,
    /// The event, as `purge` or `compact`, with its time.
    pub event: &'static str,
    pub at: String,
    /// The entry that took its place: a purge's summary or a compaction's state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
    /// The other ids removed by the same event.
    pub ids: Vec<String>,
}

/// One operation the gate decided about; the last decision counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Operation {
    pub id: String,
    pub kind: String,
    pub estimate: u64,
    pub high_volume: bool,
    /// `ok` or `pending` (blocked, waiting for a purge or compaction).
    pub state: &'static str,
    /// The tool call the operation runs, if any.
    pub call: Option<String>,
}

#[derive(Debug, Default, Clone)]
pub struct State {
    /// Every entry, in the order appended (id order).
    pub entries: Vec<Entry>,
    index: HashMap<String, usize>,
    /// Tier 2: indexes into `entries`, in context order.
    pub live: Vec<usize>,
    pub removed: HashMap<String, Removal>,
    /// The highest N used by any visible id.
    pub counter: u64,
    pub op_counter: u64,
    pub operations: BTreeMap<u64, Operation>,
    /// Tool calls that have a result (live or not).
    answered: HashSet<String>,
    pub tier2_tokens: u64,
    /// What may be appended next ([`flow`]).
    pub flow: Flow,
}

/// The N of `msg_N`, `tool_call_N`, `tool_res_N` or `op_N`.
pub fn id_number(id: &str) -> Option<u64> {
    let (_, n) = id.rsplit_once('_')?;
    if n.starts_with('0') && n.len() > 1 {
        return None;
    }
    n.parse().ok()
}

/// Whether `id` has the form of a Tier 2 id.
pub fn is_tier2_id(id: &str) -> bool {
    ["msg_", "tool_call_", "tool_res_"].iter().any(|p| {
        id.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

impl State {
    pub fn replay(events: &[Event]) -> State {
        let mut state = State::default();
        for event in events {
            state.apply(event);
        }
        state
    }

    /// [`State::replay`] taking the events, so appended entries move instead of being
    /// copied (a render replays every entry of a long session).
    pub fn replay_owned(events: Vec<Event>) -> State {
        let mut state = State::default();
        for event in events {
            match event {
                Event::Append { entries, .. } => {
                    for entry in entries {
                        state.flow.push(&entry);
                        state.add(entry);
                    }
                }
                other => state.apply(&other),
            }
        }
        state
    }

    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::Append { entries, .. } => {
                for entry in entries {
                    self.flow.push(entry);
                    self.add(entry.clone());
                }
            }
            Event::Purge {
                at,
                ids,
                summary,
                before,
                ..
            } => {
                let set: HashSet<&str> = ids.iter().map(String::as_str).collect();
                let wanted = self
                    .live
                    .iter()
                    .position(|&i| set.contains(self.entries[i].id.as_str()));
                let replaced_by = summary.as_ref().map(|s| s.id.clone());
                self.remove(&set, "purged", "purge", at, replaced_by, ids);
                if let Some(summary) = summary {
                    let position = match before {
                        Some(id) => self
                            .live
                            .iter()
                            .position(|&i| &self.entries[i].id == id)
                            .unwrap_or(self.live.len()),
                        None => self.summary_position(wanted.unwrap_or(self.live.len())),
                    };
                    let index = self.push(summary.clone());
                    self.live.insert(position, index);
                    self.tier2_tokens += summary.tokens;
                }
                self.flow = Flow::of(self.tier2());
            }
            Event::Compact {
                at,
                ids,
                state,
                resume,
                ..
            } => {
                let set: HashSet<&str> = ids.iter().map(String::as_str).collect();
                self.remove(
                    &set,
                    "compacted",
                    "compact",
                    at,
                    Some(state.id.clone()),
                    ids,
                );
                self.add(state.clone());
                self.add(resume.clone());
                self.flow = Flow::of(self.tier2());
            }
            Event::Gate { record, .. } => self.gate(record),
        }
    }

    fn push(&mut self, entry: Entry) -> usize {
        if let Some(n) = id_number(&entry.id) {
            self.counter = self.counter.max(n);
        }
        if entry.kind == Kind::ToolResult
            && let Some(call) = &entry.call
        {
            self.answered.insert(call.clone());
        }
        self.index.insert(entry.id.clone(), self.entries.len());
        self.entries.push(entry);
        self.entries.len() - 1
    }

    fn add(&mut self, entry: Entry) {
        self.tier2_tokens += entry.tokens;
        let index = self.push(entry);
        self.live.push(index);
    }

    fn remove(
        &mut self,
        set: &HashSet<&str>,
        state: &'static str,
        event: &'static str,
        at: &str,
        replaced_by: Option<String>,
        ids: &[String],
    ) {
        let entries = &self.entries;
        let mut removed_tokens = 0;
        self.live.retain(|&i| {
            let gone = set.contains(entries[i].id.as_str());
            if gone {
                removed_tokens += entries[i].tokens;
            }
            !gone
        });
        self.tier2_tokens -= removed_tokens.min(self.tier2_tokens);
        for id in ids {
            self.removed.insert(
                id.clone(),
                Removal {
                    state,
                    event,
                    at: at.to_string(),
                    replaced_by: replaced_by.clone(),
                    ids: ids.to_vec(),
                },
            );
        }
    }

    fn gate(&mut self, record: &GateRecord) {
        let Some(n) = id_number(&record.op) else {
            return;
        };
        self.op_counter = self.op_counter.max(n);
        self.operations.insert(
            n,
            Operation {
                id: record.op.clone(),
                kind: record.kind.clone(),
                estimate: record.estimate,
                high_volume: record.high_volume,
                state: if record.outcome == "ok" {
                    "ok"
                } else {
                    "pending"
                },
                call: record.call.clone(),
            },
        );
    }

    /// Where a summary replacing entries that stood at `wanted` in the live order goes
    /// ([`flow::summary_position`]).
    pub fn summary_position(&self, wanted: usize) -> usize {
        let tier2: Vec<&Entry> = self.tier2().collect();
        flow::summary_position(&tier2, wanted)
    }

    /// Live entries appended over the budget.
    pub fn over_budget(&self) -> Vec<&Entry> {
        self.tier2().filter(|e| e.over_budget).collect()
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.index.get(id).map(|&i| &self.entries[i])
    }

    /// `live`, `purged` or `compacted`.
    pub fn entry_state(&self, id: &str) -> &'static str {
        self.removed.get(id).map_or("live", |r| r.state)
    }

    pub fn is_live(&self, id: &str) -> bool {
        self.index.contains_key(id) && !self.removed.contains_key(id)
    }

    /// Tier 2 entries in context order.
    pub fn tier2(&self) -> impl Iterator<Item = &Entry> {
        self.live.iter().map(|&i| &self.entries[i])
    }

    pub fn is_answered(&self, call: &str) -> bool {
        self.answered.contains(call)
    }

    /// Live tool calls that have no result yet.
    pub fn unanswered_calls(&self) -> Vec<&Entry> {
        self.tier2()
            .filter(|e| e.kind == Kind::ToolCall && !self.answered.contains(&e.id))
            .collect()
    }

    /// The live result of a tool call, if any.
    pub fn live_result_of(&self, call: &str) -> Option<&Entry> {
        self.tier2()
            .find(|e| e.kind == Kind::ToolResult && e.call.as_deref() == Some(call))
    }

    pub fn next_id(&self, kind: Kind, offset: u64) -> String {
        format!("{}_{}", kind.id_prefix(), self.counter + 1 + offset)
    }

    pub fn pending(&self) -> Vec<&Operation> {
        self.operations
            .values()
            .filter(|o| o.state == "pending")
            .collect()
    }

    pub fn operation(&self, id: &str) -> Option<&Operation> {
        let n = id.strip_prefix("op_").and_then(|_| id_number(id))?;
        self.operations.get(&n)
    }
}
