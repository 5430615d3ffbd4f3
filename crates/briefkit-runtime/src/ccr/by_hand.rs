//! Putting an original in the store and getting it back by hash, as one operation each:
//! `brief ccr put|get` and the MCP `ccr_put` / `retrieve` tools call [`put`] and
//! [`retrieve`] and print the same typed report, so a script and an agent read the same
//! document for the same store.

use std::path::Path;

use serde::Serialize;

use super::{Entry, Lookup, Record, Store, Strategy, Tombstone, parse_hash, thousands};
use crate::clock::format_rfc3339;
use crate::document::Document;
use crate::error::Result;

/// What to keep: the original's bytes, the text that stands in its place and how it was
/// made. Everything in it was checked by the caller before the store is touched.
#[derive(Debug, Clone, Copy)]
pub struct Original<'a> {
    pub bytes: &'a [u8],
    pub compressed: &'a str,
    pub strategy: Strategy,
    pub source: &'a str,
    /// The lifetime of the entry, resolved by the caller ([`super::ttl::resolve`]).
    pub ttl_seconds: u64,
}

/// Keeps `original` in the store at `path` (created when missing) under its hash. Nothing
/// here counts tokens: the first reader that needs them counts them.
pub fn put(path: &Path, original: Original) -> Result<Put> {
    let store = Store::open(path)?
        .with_ttl(original.ttl_seconds)
        .without_token_counts();
    let stored = store.put(
        original.bytes,
        original.compressed,
        original.strategy,
        original.source,
        None,
    )?;
    Ok(Put {
        refreshed: stored.refreshed,
        hash: stored.hash,
        strategy: original.strategy,
        source: original.source.to_string(),
        created: format_rfc3339(stored.created_ms),
        expires: format_rfc3339(stored.expires_ms),
        ttl_seconds: original.ttl_seconds,
        original_bytes: original.bytes.len(),
        compressed_bytes: original.compressed.len(),
        store: path.display().to_string(),
    })
}

/// The original `hash` (24 hex characters, the full 64 or `ccr:HASH`, any case) stands
/// for in the store at `path`: found, expired (with what it was) or unknown. A look-up
/// never creates a store.
pub fn retrieve(path: &Path, hash: &str) -> Result<Retrieved> {
    let query = parse_hash(hash)?;
    let lookup = match Store::open_existing(path)? {
        Some(store) => store.get(&query)?,
        None => Lookup::Unknown,
    };
    Ok(match lookup {
        Lookup::Found(entry) => Retrieved::Found(Found::of(entry)),
        Lookup::Expired(tomb) => Retrieved::Expired(Expired::of(tomb)),
        Lookup::Unknown => Retrieved::Unknown(Unknown {
            hash: query.key,
            store: path.display().to_string(),
            advice: UNKNOWN_ADVICE,
        }),
    })
}

/// [`put`]'s report: `stored`, or `refreshed` when the same original was already there.
#[derive(Debug, Serialize)]
pub struct Put {
    #[serde(skip)]
    pub refreshed: bool,
    pub hash: String,
    pub strategy: Strategy,
    pub source: String,
    pub created: String,
    pub expires: String,
    pub ttl_seconds: u64,
    pub original_bytes: usize,
    pub compressed_bytes: usize,
    pub store: String,
}

impl Document for Put {
    fn status(&self) -> &str {
        if self.refreshed {
            "refreshed"
        } else {
            "stored"
        }
    }

    fn summary(&self) -> String {
        format!(
            "{} {} bytes as ccr:{} ({}), expires {}",
            self.status(),
            thousands(self.original_bytes as u64),
            self.hash,
            self.strategy,
            self.expires
        )
    }
}

/// What an expired original's caller should do instead of retrying its hash.
pub const EXPIRED_ADVICE: &str = "regenerate the digest, or re-read the source the entry came from: an expired original is not served";

/// What an unknown hash's caller should check.
pub const UNKNOWN_ADVICE: &str = "check that this is the store the digest was written to (--store, BRIEF_CCR_PATH), and that the hash was copied whole";

/// [`retrieve`]'s report, one of three documents (`status` found, expired or unknown).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Retrieved {
    Found(Found),
    Expired(Expired),
    Unknown(Unknown),
}

impl Document for Retrieved {
    fn status(&self) -> &str {
        match self {
            Retrieved::Found(_) => "found",
            Retrieved::Expired(_) => "expired",
            Retrieved::Unknown(_) => "unknown",
        }
    }

    fn summary(&self) -> String {
        match self {
            Retrieved::Found(f) => format!(
                "ccr:{} found: {} bytes ({}), expires {}",
                f.hash,
                thousands(f.original_bytes),
                f.strategy,
                f.expires
            ),
            Retrieved::Expired(e) => {
                let state = if e.collected {
                    "was collected"
                } else {
                    "is no longer served; it is still in the file, awaiting `brief ccr gc`"
                };
                format!(
                    "ccr:{} expired at {}: its original ({} bytes, {}, from {}) {state}",
                    e.hash,
                    e.expired_at,
                    thousands(e.original_bytes),
                    e.strategy,
                    e.source
                )
            }
            Retrieved::Unknown(u) => format!(
                "ccr:{} is unknown: the store {} never held it",
                u.hash, u.store
            ),
        }
    }
}

/// A live original.
#[derive(Debug, Serialize)]
pub struct Found {
    pub hash: String,
    pub strategy: Strategy,
    pub source: String,
    pub created: String,
    pub expires: String,
    pub original_bytes: u64,
    pub original_tokens: u64,
    pub compressed_bytes: u64,
    pub compressed_tokens: u64,
    pub original_is_utf8: bool,
    /// The original as text (lossy when it is not UTF-8: `original_is_utf8` says).
    pub original: String,
    pub compressed: String,
    /// Every strategy this original was stored under.
    pub records: Vec<RecordShown>,
    /// The original's exact bytes (the CLI prints them as they are).
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

impl Found {
    fn of(entry: Entry) -> Self {
        let text = String::from_utf8(entry.original.clone());
        Found {
            hash: entry.hash,
            strategy: entry.strategy,
            source: entry.source,
            created: format_rfc3339(entry.created_ms),
            expires: format_rfc3339(entry.expires_ms),
            original_bytes: entry.original_bytes,
            original_tokens: entry.original_tokens,
            compressed_bytes: entry.compressed_bytes,
            compressed_tokens: entry.compressed_tokens,
            original_is_utf8: text.is_ok(),
            original: match text {
                Ok(text) => text,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            },
            compressed: entry.compressed,
            records: entry.records.iter().map(RecordShown::from).collect(),
            bytes: entry.original,
        }
    }
}

/// One strategy an original was stored under: `{strategy, source, created, updated,
/// compressed_bytes, compressed_tokens}`.
#[derive(Debug, Serialize)]
pub struct RecordShown {
    pub strategy: String,
    pub source: String,
    pub created: String,
    pub updated: String,
    pub compressed_bytes: u64,
    pub compressed_tokens: Option<u64>,
}

impl From<&Record> for RecordShown {
    fn from(r: &Record) -> Self {
        RecordShown {
            strategy: r.strategy.clone(),
            source: r.source.clone(),
            created: format_rfc3339(r.created_ms),
            updated: format_rfc3339(r.updated_ms),
            compressed_bytes: r.compressed_bytes,
            compressed_tokens: r.compressed_tokens,
        }
    }
}

/// An expired original. Expired and collected are different states: `ccr stats` counts an
/// expired original still in the file as awaiting `gc`, and says so here too.
#[derive(Debug, Serialize)]
pub struct Expired {
    pub hash: String,
    pub strategy: Strategy,
    pub source: String,
    pub created: String,
    pub expired_at: String,
    pub original_bytes: u64,
    pub collected: bool,
    pub awaiting_gc: bool,
    pub advice: &'static str,
}

impl Expired {
    fn of(tomb: Tombstone) -> Self {
        Expired {
            hash: tomb.hash,
            strategy: tomb.strategy,
            source: tomb.source,
            created: format_rfc3339(tomb.created_ms),
            expired_at: format_rfc3339(tomb.expires_ms),
            original_bytes: tomb.original_bytes,
            collected: tomb.collected,
            awaiting_gc: !tomb.collected,
            advice: EXPIRED_ADVICE,
        }
    }
}

/// A hash this store never held.
#[derive(Debug, Serialize)]
pub struct Unknown {
    pub hash: String,
    pub store: String,
    pub advice: &'static str,
}
