//! A small derived cache beside the log (`.cache.json`), so that `status` and `gate` on a
//! long session neither replay ten thousand entries nor load a tokenizer vocabulary.
//!
//! It holds running totals and token counts of texts seen before (Tier 1, Tier 3), and
//! names the log length and tail it was made from: any other log makes it stale and it
//! is rebuilt from the log, which stays the one source of truth. Written by writers under
//! the session lock, atomically; losing it costs time, never correctness.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::flow::Flow;
use super::log::{Entry, Event};
use super::state::{Operation, State, id_number};
use crate::error::Result;
use crate::files::limits::SESSION_CACHE;
use crate::tokens::{self, Encoding};
use crate::wire::canonical::sha256_hex;

pub const CACHE_FILE: &str = ".cache.json";
/// Token counts remembered; enough for a few `--var` variants of Tier 3.
const MEMO_SIZE: usize = 32;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub log_len: u64,
    pub log_tail: String,
    pub tier2_tokens: u64,
    pub live_entries: u64,
    pub counter: u64,
    pub op_counter: u64,
    pub pending: Vec<CachedOp>,
    /// What may be appended next.
    pub flow: Flow,
    /// Operations the gate let through for a tool call still waiting for its result: their
    /// estimates are spoken for.
    pub approved: Vec<CachedOp>,
    /// Live entries appended over the budget.
    pub over_budget: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedOp {
    pub id: String,
    pub kind: String,
    pub estimate: u64,
    pub high_volume: bool,
    pub call: Option<String>,
}

impl CachedOp {
    pub fn from(op: &Operation) -> CachedOp {
        CachedOp {
            id: op.id.clone(),
            kind: op.kind.clone(),
            estimate: op.estimate,
            high_volume: op.high_volume,
            call: op.call.clone(),
        }
    }
}

impl Summary {
    pub fn of(state: &State, log_len: u64, log_tail: String) -> Summary {
        Summary {
            log_len,
            log_tail,
            tier2_tokens: state.tier2_tokens,
            live_entries: state.live.len() as u64,
            counter: state.counter,
            op_counter: state.op_counter,
            pending: state.pending().into_iter().map(CachedOp::from).collect(),
            flow: state.flow.clone(),
            approved: state
                .operations
                .values()
                .filter(|o| {
                    o.state == "ok" && o.call.as_ref().is_some_and(|c| state.flow.is_open(c))
                })
                .map(CachedOp::from)
                .collect(),
            over_budget: state.over_budget().iter().map(|e| e.id.clone()).collect(),
        }
    }

    /// Brings the summary forward by appended entries, as [`State::apply`] would.
    pub fn append(&mut self, entries: &[Entry]) {
        for entry in entries {
            if let Some(n) = id_number(&entry.id) {
                self.counter = self.counter.max(n);
            }
            self.tier2_tokens = self.tier2_tokens.saturating_add(entry.tokens);
            self.live_entries += 1;
            self.flow.push(entry);
            if entry.kind == super::log::Kind::ToolResult
                && entry.source.as_deref() != Some(super::ops::GATE_SOURCE)
            {
                // Answered by hand: the operation that waited for the call is done.
                self.pending
                    .retain(|p| p.call.is_none() || p.call != entry.call);
            }
            if entry.over_budget {
                self.over_budget.push(entry.id.clone());
            }
        }
        let flow = &self.flow;
        self.approved
            .retain(|op| op.call.as_ref().is_some_and(|c| flow.is_open(c)));
    }

    /// Brings the summary forward by events that only append or record gate decisions
    /// (a purge or a compaction needs the whole state).
    pub fn apply(&mut self, events: &[Event]) {
        for event in events {
            match event {
                Event::Append { entries, .. } => self.append(entries),
                Event::Gate { record, .. } => {
                    self.op_counter = self.op_counter.max(id_number(&record.op).unwrap_or(0));
                    let op = CachedOp {
                        id: record.op.clone(),
                        kind: record.kind.clone(),
                        estimate: record.estimate,
                        high_volume: record.high_volume,
                        call: record.call.clone(),
                    };
                    self.pending.retain(|p| p.id != record.op);
                    self.approved.retain(|p| p.id != record.op);
                    if record.outcome == "blocked" {
                        self.pending.push(op);
                    } else if record.outcome == "ok"
                        && op.call.as_ref().is_some_and(|c| self.flow.is_open(c))
                    {
                        self.approved.push(op);
                    }
                }
                Event::Purge { .. } | Event::Compact { .. } => {
                    debug_assert!(false, "a purge or compaction rebuilds the summary")
                }
            }
        }
    }

    /// Tokens spoken for by approved operations whose results are still to come.
    pub fn reserved(&self) -> u64 {
        self.reserved_except(None)
    }

    /// [`Summary::reserved`] but for the operation of `call` (whose result is arriving).
    pub fn reserved_except(&self, call: Option<&str>) -> u64 {
        self.approved
            .iter()
            .filter(|o| o.call.as_deref() != call || call.is_none())
            .map(|o| o.estimate)
            .fold(0u64, u64::saturating_add)
    }
}

/// Token counts by the hash of the text, most recent last.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Memo {
    counts: Vec<(String, u64)>,
    #[serde(skip)]
    index: HashMap<String, u64>,
    #[serde(skip)]
    pub changed: bool,
}

impl Memo {
    pub fn count(&mut self, encoding: Encoding, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let key = format!("{}:{}", encoding.name(), &sha256_hex(text.as_bytes())[..24]);
        if self.index.is_empty() && !self.counts.is_empty() {
            self.index = self.counts.iter().cloned().collect();
        }
        if let Some(&n) = self.index.get(&key) {
            return n;
        }
        let n = tokens::count(encoding, text) as u64;
        self.counts.push((key.clone(), n));
        self.index.insert(key, n);
        if self.counts.len() > MEMO_SIZE {
            let (old, _) = self.counts.remove(0);
            self.index.remove(&old);
        }
        self.changed = true;
        n
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cache {
    pub summary: Option<Summary>,
    pub memo: Memo,
}

impl Cache {
    /// The cache, or an empty one when it is missing, unreadable, damaged or over its
    /// limit (it is rebuilt from the log). A link, a FIFO or a device planted in its place
    /// is refused, as every session file is.
    pub fn read(dir: &Path) -> Result<Cache> {
        let path = dir.join(CACHE_FILE);
        super::log::refuse_odd(&path)?;
        let bytes = match crate::files::policy::read_owned(&path, SESSION_CACHE) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Cache::default()),
            Err(_) if super::log::refuse_odd(&path).is_ok() => return Ok(Cache::default()),
            Err(err) => return Err(err),
        };
        Ok(serde_json::from_slice(&bytes).unwrap_or_default())
    }

    /// The summary when it describes the log as it is now.
    pub fn fresh_summary(&self, log_path: &Path) -> Option<&Summary> {
        let summary = self.summary.as_ref()?;
        // Derived, but a file on disk: counters the log could not hold mean rebuild.
        let limit = super::log_check::ID_LIMIT;
        if summary.counter > limit
            || summary.op_counter > limit
            || summary.tier2_tokens > super::log_check::MAX_TOKENS.saturating_mul(1 << 16)
            || summary
                .pending
                .iter()
                .chain(&summary.approved)
                .any(|o| o.estimate > super::log_check::MAX_TOKENS)
        {
            return None;
        }
        let len = std::fs::metadata(log_path).ok()?.len();
        (len == summary.log_len
            && super::log::tail_mark(log_path, len).as_deref() == Some(&summary.log_tail))
        .then_some(summary)
    }

    /// Best effort: a cache that cannot be written is rebuilt next time.
    pub fn write(&self, dir: &Path) {
        if let Ok(bytes) = serde_json::to_vec(self) {
            let _ = crate::files::write_derived(&dir.join(CACHE_FILE), &bytes);
        }
    }
}
