//! Keeping the store honest and bounded: what it holds (`stats`) and collecting expired
//! originals into tombstones (`gc`, and a bounded sweep on every put).

use std::path::PathBuf;

use rusqlite::{Connection, TransactionBehavior, params};
use serde::Serialize;

use crate::ccr::{Store, Strategy};
use crate::error::Result;

/// Counts for one strategy (or all), as `brief ccr stats` prints them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StrategyStats {
    pub live: u64,
    pub expired: u64,
    pub original_bytes: u64,
    pub compressed_bytes: u64,
    pub original_tokens: u64,
    pub compressed_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub path: String,
    /// The store file and its WAL, in bytes.
    pub file_bytes: u64,
    pub ttl_seconds: u64,
    /// Live and expired entries, with the bytes and tokens of the live ones.
    pub total: StrategyStats,
    /// Expired entries whose original is still on disk, until the next `gc`.
    pub awaiting_gc: u64,
    pub by_strategy: Vec<(Strategy, StrategyStats)>,
}

/// What `gc` collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Swept {
    /// Originals removed (their tombstones stay).
    pub collected: u64,
    /// Bytes of the originals and compressed texts removed.
    pub bytes_freed: u64,
    /// Tombstones in the store after the sweep.
    pub tombstones: u64,
}

impl Store {
    /// Live and expired entries, per strategy and in total.
    pub fn stats(&self) -> Result<Stats> {
        let now = (self.now_ms)();
        let mut statement = self
            .conn
            .prepare(
                "SELECT strategy,
                        sum(original IS NOT NULL AND expires_ms > ?1),
                        sum(original IS NULL OR expires_ms <= ?1),
                        sum(original IS NOT NULL AND expires_ms <= ?1),
                        sum(CASE WHEN original IS NOT NULL AND expires_ms > ?1 THEN original_bytes END),
                        sum(CASE WHEN original IS NOT NULL AND expires_ms > ?1 THEN compressed_bytes END),
                        sum(CASE WHEN original IS NOT NULL AND expires_ms > ?1 AND original_tokens >= 0 THEN original_tokens END),
                        sum(CASE WHEN original IS NOT NULL AND expires_ms > ?1 AND compressed_tokens >= 0 THEN compressed_tokens END)
                 FROM ccr_entries GROUP BY strategy ORDER BY strategy",
            )
            .map_err(|e| self.sql(e))?;
        let rows = statement
            .query_map([now], |row| {
                let n = |i: usize| -> rusqlite::Result<u64> {
                    Ok(u64::try_from(row.get::<_, Option<i64>>(i)?.unwrap_or(0)).unwrap_or(0))
                };
                Ok((
                    row.get::<_, String>(0)?,
                    StrategyStats {
                        live: n(1)?,
                        expired: n(2)?,
                        original_bytes: n(4)?,
                        compressed_bytes: n(5)?,
                        original_tokens: n(6)?,
                        compressed_tokens: n(7)?,
                    },
                    n(3)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        let mut uncounted = self.uncounted(now)?;
        let mut total = StrategyStats::default();
        let mut awaiting_gc = 0;
        let mut by_strategy = Vec::new();
        for row in rows {
            let (name, mut stats, awaiting) = row.map_err(|e| self.sql(e))?;
            if let Some((original, compressed)) = uncounted.remove(&name) {
                stats.original_tokens += original;
                stats.compressed_tokens += compressed;
            }
            total.live += stats.live;
            total.expired += stats.expired;
            total.original_bytes += stats.original_bytes;
            total.compressed_bytes += stats.compressed_bytes;
            total.original_tokens += stats.original_tokens;
            total.compressed_tokens += stats.compressed_tokens;
            awaiting_gc += awaiting;
            by_strategy.push((self.strategy(&name)?, stats));
        }
        by_strategy.sort_by_key(|(strategy, _)| *strategy);
        let file_bytes = ["", "-wal"]
            .iter()
            .filter_map(|suffix| {
                let mut name = self.path.as_os_str().to_os_string();
                name.push(suffix);
                std::fs::metadata(PathBuf::from(name)).ok()
            })
            .map(|m| m.len())
            .sum();
        Ok(Stats {
            path: self.path.display().to_string(),
            file_bytes,
            ttl_seconds: self.ttl_seconds,
            total,
            awaiting_gc,
            by_strategy,
        })
    }

    /// Collects every expired original, leaving its tombstone, and gives the space back.
    pub fn gc(&self) -> Result<Swept> {
        let now = (self.now_ms)();
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.sql(e))?;
        let (collected, bytes_freed) = sweep(&tx, now, None).map_err(|e| self.sql(e))?;
        let tombstones: i64 = tx
            .query_row(
                "SELECT count(*) FROM ccr_entries WHERE original IS NULL",
                [],
                |row| row.get(0),
            )
            .map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        // Best effort: another process reading the store can hold the WAL; the next gc
        // finishes the job.
        let _ = self.conn.execute_batch("PRAGMA incremental_vacuum;");
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        Ok(Swept {
            collected,
            bytes_freed,
            tombstones: u64::try_from(tombstones).unwrap_or(0),
        })
    }
}

impl Store {
    /// Tokens of the live entries whose put left counting to the first reader, counted
    /// now, by strategy.
    fn uncounted(&self, now: i64) -> Result<std::collections::HashMap<String, (u64, u64)>> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT strategy, original_tokens, compressed_tokens, original, compressed
                 FROM ccr_entries
                 WHERE original IS NOT NULL AND expires_ms > ?1
                   AND (original_tokens < 0 OR compressed_tokens < 0)",
            )
            .map_err(|e| self.sql(e))?;
        let mut out: std::collections::HashMap<String, (u64, u64)> = Default::default();
        let rows = statement
            .query_map([now], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Vec<u8>>(3)?,
                    row.get::<_, Option<String>>(4)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        for row in rows {
            let (strategy, original_tokens, compressed_tokens, original, compressed) =
                row.map_err(|e| self.sql(e))?;
            let slot = out.entry(strategy).or_default();
            if original_tokens < 0 {
                slot.0 += count_tokens(&String::from_utf8_lossy(&original));
            }
            if compressed_tokens < 0 {
                slot.1 += count_tokens(compressed.as_deref().unwrap_or_default());
            }
        }
        Ok(out)
    }
}

fn count_tokens(text: &str) -> u64 {
    crate::tokens::count(super::store::TOKENS, text) as u64
}

/// Turns expired entries into tombstones (oldest expiry first, at most `limit`): returns
/// how many and the bytes freed.
pub(super) fn sweep(
    conn: &Connection,
    now: i64,
    limit: Option<i64>,
) -> rusqlite::Result<(u64, u64)> {
    let limit = limit.unwrap_or(-1);
    let (count, bytes): (i64, Option<i64>) = conn.query_row(
        "SELECT count(*), sum(original_bytes + compressed_bytes) FROM (
             SELECT original_bytes, compressed_bytes FROM ccr_entries
             WHERE original IS NOT NULL AND expires_ms <= ?1 ORDER BY expires_ms LIMIT ?2)",
        params![now, limit],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    if count > 0 {
        // A tombstone keeps the original's size in tokens: count what a put left uncounted.
        let uncounted: Vec<(i64, Vec<u8>)> = conn
            .prepare(
                "SELECT rowid, original FROM ccr_entries
                 WHERE original IS NOT NULL AND expires_ms <= ?1 AND original_tokens < 0
                 ORDER BY expires_ms LIMIT ?2",
            )?
            .query_map(params![now, limit], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (rowid, original) in uncounted {
            conn.execute(
                "UPDATE ccr_entries SET original_tokens = ?1 WHERE rowid = ?2",
                params![
                    count_tokens(&String::from_utf8_lossy(&original)) as i64,
                    rowid
                ],
            )?;
        }
        conn.execute(
            "UPDATE ccr_entries SET original = NULL, compressed = NULL, collected_ms = ?1
             WHERE rowid IN (SELECT rowid FROM ccr_entries
                             WHERE original IS NOT NULL AND expires_ms <= ?1
                             ORDER BY expires_ms LIMIT ?2)",
            params![now, limit],
        )?;
    }
    Ok((
        u64::try_from(count).unwrap_or(0),
        u64::try_from(bytes.unwrap_or(0)).unwrap_or(0),
    ))
}
