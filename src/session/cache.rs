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

use super::state::{Operation, State};
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
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedOp {
    pub id: String,
    pub kind: String,
    pub estimate: u64,
    pub high_volume: bool,
}

impl CachedOp {
    pub fn from(op: &Operation) -> CachedOp {
        CachedOp {
            id: op.id.clone(),
            kind: op.kind.clone(),
            estimate: op.estimate,
            high_volume: op.high_volume,
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
        }
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
        let len = std::fs::metadata(log_path).ok()?.len();
        (len == summary.log_len
            && super::log::tail_mark(log_path, len).as_deref() == Some(&summary.log_tail))
        .then_some(summary)
    }

    /// Best effort: a cache that cannot be written is rebuilt next time.
    pub fn write(&self, dir: &Path) {
        if let Ok(bytes) = serde_json::to_vec(self) {
            let _ = crate::files::write_atomic(&dir.join(CACHE_FILE), &bytes);
        }
    }
}
