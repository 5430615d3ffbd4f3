//! `brief ccr stats` and `brief ccr gc` as one operation each ([`overview`], [`collect`]):
//! the store's counts with the TTL in force, and the sweep of expired originals. Neither
//! creates a store that is not there.

use std::path::Path;

use serde::Serialize;

use super::maintenance::{Stats, StrategyStats, Swept};
use super::{Store, Strategy, thousands, ttl};
use crate::document::Document;
use crate::error::Result;

/// The store at `path`: what it holds per strategy, and the TTL new entries get (from
/// the environment).
pub fn overview(path: &Path) -> Result<Overview> {
    let (ttl_seconds, ttl_source) = ttl::resolve(None)?;
    let stats = match Store::open_existing(path)? {
        Some(store) => Some(store.with_ttl(ttl_seconds).stats()?),
        None => None,
    };
    let total = stats.as_ref().map(|s| s.total.clone()).unwrap_or_default();
    Ok(Overview {
        path: path.display().to_string(),
        exists: stats.is_some(),
        file_bytes: stats.as_ref().map_or(0, |s| s.file_bytes),
        ttl_seconds,
        ttl_source,
        live: total.live,
        expired: total.expired,
        awaiting_gc: stats.as_ref().map_or(0, |s| s.awaiting_gc),
        original_bytes: total.original_bytes,
        compressed_bytes: total.compressed_bytes,
        original_tokens: total.original_tokens,
        compressed_tokens: total.compressed_tokens,
        strategies: Strategy::ALL
            .iter()
            .map(|s| (s.name(), per(stats.as_ref(), *s)))
            .collect(),
    })
}

fn per(stats: Option<&Stats>, strategy: Strategy) -> StrategyStats {
    stats
        .and_then(|s| s.by_strategy.iter().find(|(k, _)| *k == strategy))
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// [`overview`]'s report, as `brief ccr stats --json` prints it.
#[derive(Debug, Serialize)]
pub struct Overview {
    pub path: String,
    pub exists: bool,
    pub file_bytes: u64,
    pub ttl_seconds: u64,
    pub ttl_source: ttl::Source,
    pub live: u64,
    pub expired: u64,
    pub awaiting_gc: u64,
    pub original_bytes: u64,
    pub compressed_bytes: u64,
    pub original_tokens: u64,
    pub compressed_tokens: u64,
    /// Every strategy, in its fixed order.
    #[serde(serialize_with = "in_order")]
    pub strategies: Vec<(&'static str, StrategyStats)>,
}

/// Pairs as one JSON object, keys in their order.
fn in_order<S: serde::Serializer>(
    pairs: &[(&'static str, StrategyStats)],
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

impl Document for Overview {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        if !self.exists {
            return format!("no CCR store yet at {}", self.path);
        }
        format!(
            "{} live, {} expired; {} bytes of originals kept",
            thousands(self.live),
            thousands(self.expired),
            thousands(self.original_bytes)
        )
    }
}

/// Collects the originals of the expired entries of the store at `path` (their
/// tombstones stay); nothing to do when there is no store.
pub fn collect(path: &Path) -> Result<Collected> {
    let swept = match Store::open_existing(path)? {
        Some(store) => store.gc()?,
        None => Swept {
            collected: 0,
            bytes_freed: 0,
            tombstones: 0,
        },
    };
    Ok(Collected {
        path: path.display().to_string(),
        collected: swept.collected,
        bytes_freed: swept.bytes_freed,
        tombstones: swept.tombstones,
    })
}

/// [`collect`]'s report, as `brief ccr gc --json` prints it.
#[derive(Debug, Serialize)]
pub struct Collected {
    pub path: String,
    pub collected: u64,
    pub bytes_freed: u64,
    pub tombstones: u64,
}

impl Document for Collected {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "collected {} expired original(s), {} bytes; {} tombstone(s) kept",
            thousands(self.collected),
            thousands(self.bytes_freed),
            thousands(self.tombstones)
        )
    }
}
