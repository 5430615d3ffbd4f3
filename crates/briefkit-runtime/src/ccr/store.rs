//! The CCR store's library API: `open`, `put`, `get`, `stats`, `gc`.
//!
//! One [`Store`] is one SQLite connection: cheap to open, `Send` but not `Sync` (async code
//! opens one per blocking task or keeps one behind a mutex). Time comes from the store's
//! clock, the system clock unless a caller injects another ([`Store::with_clock`]), so
//! expiry is testable without waiting.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

use crate::ccr::{HashQuery, Strategy, hash, schema, ttl};
use crate::error::{Error, Result};
use crate::files::limits::CCR_ORIGINAL;
use crate::tokens::{self, Encoding};

/// The encoding the store counts tokens in.
pub const TOKENS: Encoding = Encoding::O200kBase;

/// How many expired originals a `put` collects on the side, so the file stays bounded
/// without a reaper and no single put pays for a backlog.
const SWEEP_PER_PUT: i64 = 32;

type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    pub(super) ttl_seconds: u64,
    pub(super) now_ms: Clock,
    /// Count tokens when putting; off, they are counted when first read (`get`, `stats`,
    /// or collection), so a put that reports none loads no vocabulary.
    pub(super) count_tokens: bool,
}

/// What `put` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stored {
    pub hash: String,
    /// False for a new entry; true when the same original was already stored (its expiry
    /// was extended and its strategy, compressed text and source replaced by this put's).
    pub refreshed: bool,
    pub created_ms: i64,
    pub expires_ms: i64,
}

/// A live entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub hash: String,
    pub strategy: Strategy,
    pub source: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub original_bytes: u64,
    pub original_tokens: u64,
    pub compressed_bytes: u64,
    pub compressed_tokens: u64,
    #[serde(skip)]
    pub original: Vec<u8>,
    pub compressed: String,
    /// Every strategy the original was stored under, oldest first (the entry's own
    /// `strategy` is the latest put's).
    pub records: Vec<Record>,
}

/// One strategy an original was stored under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    pub strategy: String,
    pub source: String,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub compressed_bytes: u64,
    /// `None`: put without counting, and its text was replaced by a later put's.
    pub compressed_tokens: Option<u64>,
}

/// What is left of an expired entry: enough to say what it was and that it is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tombstone {
    pub hash: String,
    pub strategy: Strategy,
    pub source: String,
    pub created_ms: i64,
    pub expires_ms: i64,
    pub original_bytes: u64,
    pub original_tokens: u64,
    /// The original is gone (`gc` or a put collected it); `false` while it still sits in
    /// the file, expired and never served, awaiting `gc`.
    pub collected: bool,
}

/// The answer to `get`: never a bare "not found" for something that once existed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(Entry),
    Expired(Tombstone),
    Unknown,
}

impl Store {
    /// Opens the store at `path`, creating it when missing, with the default TTL
    /// ([`ttl::DEFAULT_SECONDS`]) and the system clock.
    pub fn open(path: &Path) -> Result<Store> {
        Ok(Store {
            conn: schema::open(path)?,
            path: path.to_path_buf(),
            ttl_seconds: ttl::DEFAULT_SECONDS,
            now_ms: Arc::new(crate::clock::now_ms),
            count_tokens: true,
        })
    }

    /// Opens the store at `path` only when it is one: look-ups and reports never create a
    /// store as a side effect, not even in an empty file, and a file that is not a store is
    /// refused unchanged.
    pub fn open_existing(path: &Path) -> Result<Option<Store>> {
        Ok(schema::open_existing(path)?.map(|conn| Store {
            conn,
            path: path.to_path_buf(),
            ttl_seconds: ttl::DEFAULT_SECONDS,
            now_ms: Arc::new(crate::clock::now_ms),
            count_tokens: true,
        }))
    }

    /// Opens the store the user configured: `--store` (`flag`), else `BRIEF_CCR_PATH`, else
    /// the state directory; with the TTL of `BRIEF_CCR_TTL_SECONDS` when set.
    pub fn open_default(flag: Option<&Path>) -> Result<Store> {
        let path = crate::ccr::path::resolve(flag)?;
        let (seconds, _) = ttl::resolve(None)?;
        Ok(Store::open(&path)?.with_ttl(seconds))
    }

    /// The lifetime of entries put without their own TTL.
    pub fn with_ttl(mut self, seconds: u64) -> Store {
        self.ttl_seconds = seconds.clamp(1, ttl::MAX_SECONDS);
        self
    }

    /// Replaces the clock (milliseconds since the Unix epoch), e.g. to test expiry.
    /// Puts leave token counts to the first reader that needs them (see
    /// [`NOT_COUNTED`]): for callers that report none (`ccr put`, a session's originals, a
    /// digest's backing), which then load no tokenizer vocabulary.
    pub fn without_token_counts(mut self) -> Store {
        self.count_tokens = false;
        self
    }

    pub fn with_clock(mut self, now_ms: impl Fn() -> i64 + Send + Sync + 'static) -> Store {
        self.now_ms = Arc::new(now_ms);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn ttl_seconds(&self) -> u64 {
        self.ttl_seconds
    }

    pub(super) fn sql(&self, err: rusqlite::Error) -> Error {
        schema::sql(&self.path, err)
    }

    /// Stores `original` (keyed by [`hash`]) with the `compressed` text that stands in its
    /// place, the producing `strategy` and a `source` label, for `ttl_seconds` (the store's
    /// TTL when `None`). The same original again refreshes the entry: its expiry becomes the
    /// later of the old and the new one, and a collected original comes back. An original
    /// or a compressed text over [`CCR_ORIGINAL`] is refused before anything is written
    /// (SQLite's own limit, about 1 GB, is found only after the whole value was bound).
    pub fn put(
        &self,
        original: &[u8],
        compressed: &str,
        strategy: Strategy,
        source: &str,
        ttl_seconds: Option<u64>,
    ) -> Result<Stored> {
        for (what, len) in [
            ("original", original.len()),
            ("compressed text", compressed.len()),
        ] {
            if len as u64 > CCR_ORIGINAL.bytes {
                return Err(Error::input(format!(
                    "a CCR {what} of {len} bytes is over the store's {CCR_ORIGINAL} limit"
                ))
                .with_hint("keep it in a file and store a part of it; nothing was stored"));
            }
        }
        let full = crate::wire::canonical::sha256_hex(original);
        let key = hash(original);
        let now = (self.now_ms)();
        let ttl_ms = i64::try_from(
            ttl_seconds
                .unwrap_or(self.ttl_seconds)
                .clamp(1, ttl::MAX_SECONDS),
        )
        .unwrap_or(i64::MAX / 2)
            * 1000;
        let expires = now.saturating_add(ttl_ms);
        let (original_tokens, compressed_tokens) = if self.count_tokens {
            (count(&String::from_utf8_lossy(original)), count(compressed))
        } else {
            (NOT_COUNTED, NOT_COUNTED)
        };
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.sql(e))?;
        let existing: Option<(String, i64)> = tx
            .query_row(
                "SELECT sha256, created_ms FROM ccr_entries WHERE hash = ?1",
                [&key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        if let Some((stored_full, _)) = &existing
            && *stored_full != full
        {
            return Err(Error::conflict(format!(
                "CCR hash collision: {key} already names a different original"
            )));
        }
        tx.execute(
            "INSERT INTO ccr_entries (hash, sha256, strategy, source, created_ms, expires_ms,
                 collected_ms, original_bytes, original_tokens, compressed_bytes,
                 compressed_tokens, original, compressed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT(hash) DO UPDATE SET
                 strategy = excluded.strategy,
                 source = excluded.source,
                 expires_ms = max(expires_ms, excluded.expires_ms),
                 collected_ms = NULL,
                 original_tokens = excluded.original_tokens,
                 compressed_bytes = excluded.compressed_bytes,
                 compressed_tokens = excluded.compressed_tokens,
                 original = excluded.original,
                 compressed = excluded.compressed",
            params![
                key,
                full,
                strategy.name(),
                source,
                now,
                expires,
                original.len() as i64,
                original_tokens,
                compressed.len() as i64,
                compressed_tokens,
                original,
                compressed,
            ],
        )
        .map_err(|e| self.sql(e))?;
        // Every strategy the original was stored under keeps its record.
        tx.execute(
            "INSERT INTO ccr_records (hash, strategy, source, created_ms, updated_ms,
                 compressed_bytes, compressed_tokens)
             VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)
             ON CONFLICT(hash, strategy) DO UPDATE SET
                 source = excluded.source,
                 updated_ms = excluded.updated_ms,
                 compressed_bytes = excluded.compressed_bytes,
                 compressed_tokens = excluded.compressed_tokens",
            params![
                key,
                strategy.name(),
                source,
                now,
                compressed.len() as i64,
                compressed_tokens
            ],
        )
        .map_err(|e| self.sql(e))?;
        let expires_ms: i64 = tx
            .query_row(
                "SELECT expires_ms FROM ccr_entries WHERE hash = ?1",
                [&key],
                |row| row.get(0),
            )
            .map_err(|e| self.sql(e))?;
        super::maintenance::sweep(&tx, now, Some(SWEEP_PER_PUT)).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(Stored {
            hash: key,
            refreshed: existing.is_some(),
            created_ms: existing.map_or(now, |(_, created)| created),
            expires_ms,
        })
    }

    /// Looks a hash up (see [`crate::ccr::parse_hash`] for the forms accepted): the live
    /// entry, the tombstone of an expired one, or unknown. Never writes.
    pub fn get(&self, query: &HashQuery) -> Result<Lookup> {
        let now = (self.now_ms)();
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT sha256, strategy, source, created_ms, expires_ms, original_bytes,
                        original_tokens, compressed_bytes, compressed_tokens, original, compressed
                 FROM ccr_entries WHERE hash = ?1",
            )
            .map_err(|e| self.sql(e))?;
        let row = statement
            .query_row([&query.key], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    [row.get::<_, i64>(3)?, row.get::<_, i64>(4)?],
                    [
                        row.get::<_, i64>(5)?,
                        row.get::<_, i64>(6)?,
                        row.get::<_, i64>(7)?,
                        row.get::<_, i64>(8)?,
                    ],
                    row.get::<_, Option<Vec<u8>>>(9)?,
                    row.get::<_, Option<String>>(10)?,
                ))
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        let Some((full, strategy, source, [created_ms, expires_ms], sizes, original, compressed)) =
            row
        else {
            return Ok(Lookup::Unknown);
        };
        if query.full.as_ref().is_some_and(|wanted| *wanted != full) {
            return Ok(Lookup::Unknown);
        }
        let strategy = self.strategy(&strategy)?;
        let size = |i: usize| u64::try_from(sizes[i]).unwrap_or(0);
        // Counted now when the put left it to the first reader.
        let tokens = |i: usize, text: &dyn Fn() -> String| {
            if sizes[i] == NOT_COUNTED {
                count(&text()) as u64
            } else {
                size(i)
            }
        };
        match original {
            Some(original) if expires_ms > now => Ok(Lookup::Found(Entry {
                hash: query.key.clone(),
                strategy,
                source,
                created_ms,
                expires_ms,
                original_bytes: size(0),
                original_tokens: tokens(1, &|| String::from_utf8_lossy(&original).into_owned()),
                compressed_bytes: size(2),
                compressed_tokens: tokens(3, &|| compressed.clone().unwrap_or_default()),
                records: self.records(&query.key, &strategy, &compressed),
                original,
                compressed: compressed.unwrap_or_default(),
            })),
            original => Ok(Lookup::Expired(Tombstone {
                hash: query.key.clone(),
                strategy,
                source,
                created_ms,
                expires_ms,
                original_bytes: size(0),
                original_tokens: tokens(1, &|| {
                    String::from_utf8_lossy(original.as_deref().unwrap_or_default()).into_owned()
                }),
                collected: original.is_none(),
            })),
        }
    }

    /// The strategies `hash` was stored under; none from a store older than the records
    /// (opened by a reader, which never migrates).
    fn records(&self, hash: &str, latest: &Strategy, compressed: &Option<String>) -> Vec<Record> {
        let Ok(mut statement) = self.conn.prepare_cached(
            "SELECT strategy, source, created_ms, updated_ms, compressed_bytes, compressed_tokens
             FROM ccr_records WHERE hash = ?1 ORDER BY created_ms, strategy",
        ) else {
            return Vec::new();
        };
        statement
            .query_map([hash], |row| {
                Ok(Record {
                    strategy: row.get(0)?,
                    source: row.get(1)?,
                    created_ms: row.get(2)?,
                    updated_ms: row.get(3)?,
                    compressed_bytes: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                    compressed_tokens: u64::try_from(row.get::<_, i64>(5)?).ok(),
                })
            })
            .map(|rows| rows.filter_map(std::result::Result::ok).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|mut r| {
                // The latest strategy's compressed text is at hand: count it if need be.
                if r.compressed_tokens.is_none() && r.strategy == latest.name() {
                    r.compressed_tokens = Some(count(compressed.as_deref().unwrap_or("")) as u64);
                }
                r
            })
            .collect()
    }

    pub(super) fn strategy(&self, name: &str) -> Result<Strategy> {
        name.parse().map_err(|_| {
            Error::input(format!(
                "CCR store {} holds an entry with compression strategy `{name}`, which this briefkit does not know",
                self.path.display()
            ))
            .with_hint("a newer briefkit wrote it; use that version to read it")
        })
    }
}

/// The token columns of a put that left counting to the first reader.
pub const NOT_COUNTED: i64 = -1;

fn count(text: &str) -> i64 {
    i64::try_from(tokens::count(TOKENS, text)).unwrap_or(i64::MAX)
}
