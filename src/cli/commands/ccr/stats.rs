//! `brief ccr stats` and `brief ccr gc`: the store's counts, and the sweep of expired
//! originals.

use std::path::Path;

use serde::Serialize;

use crate::ccr::{self, Stats, Store, Strategy, StrategyStats, thousands, ttl};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;

pub(super) fn stats(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    let (ttl_seconds, ttl_source) = ttl::resolve(None)?;
    if let Some(note) = ttl_source.note(ttl_seconds).filter(|_| !as_json) {
        ui.info(&note);
    }
    let stats = match Store::open_existing(path)? {
        Some(store) => Some(store.with_ttl(ttl_seconds).stats()?),
        None => None,
    };
    let total = stats.as_ref().map(|s| s.total.clone()).unwrap_or_default();
    let report = StatsReport {
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
    };
    output::print(ui, Form::json_if(as_json), &report)
}

fn per(stats: Option<&Stats>, strategy: Strategy) -> StrategyStats {
    stats
        .and_then(|s| s.by_strategy.iter().find(|(k, _)| *k == strategy))
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// `ccr stats`.
#[derive(Serialize)]
struct StatsReport {
    path: String,
    exists: bool,
    file_bytes: u64,
    ttl_seconds: u64,
    ttl_source: ttl::Source,
    live: u64,
    expired: u64,
    awaiting_gc: u64,
    original_bytes: u64,
    compressed_bytes: u64,
    original_tokens: u64,
    compressed_tokens: u64,
    /// Every strategy, in its fixed order.
    #[serde(serialize_with = "in_order")]
    strategies: Vec<(&'static str, StrategyStats)>,
}

/// Pairs as one JSON object, keys in their order.
fn in_order<S: serde::Serializer>(
    pairs: &[(&'static str, StrategyStats)],
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

impl Report for StatsReport {
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

    fn human(&self, ui: &Ui) -> Result<()> {
        let ttl_from = match self.ttl_source {
            ttl::Source::Flag | ttl::Source::Env => ttl::ENV_TTL,
            ttl::Source::HeadroomEnv => ttl::HEADROOM_ENV_TTL,
            ttl::Source::Default => "default",
        };
        let mut out = format!(
            "{}\n",
            ui.paint(
                &format!(
                    "CCR store {} ({} bytes): {}",
                    self.path,
                    thousands(self.file_bytes),
                    self.summary()
                ),
                Tone::Strong
            )
        );
        out.push_str(&format!(
            "TTL {} ({ttl_from}); {} expired original(s) awaiting `brief ccr gc`\n",
            ttl::human(self.ttl_seconds),
            thousands(self.awaiting_gc)
        ));
        if self.exists {
            out.push('\n');
            use Align::{Left, Right};
            let mut table = Table::new(&[Left, Right, Right, Right, Right, Right, Right]).header([
                "STRATEGY",
                "LIVE",
                "EXPIRED",
                "ORIG BYTES",
                "COMPR BYTES",
                "ORIG TOK",
                "COMPR TOK",
            ]);
            for (name, s) in &self.strategies {
                table.row([
                    name.to_string(),
                    thousands(s.live),
                    thousands(s.expired),
                    thousands(s.original_bytes),
                    thousands(s.compressed_bytes),
                    thousands(s.original_tokens),
                    thousands(s.compressed_tokens),
                ]);
            }
            out.push_str(&table.render_header_with(|line| ui.paint(line, Tone::Dim)));
        }
        ui.out(&out)
    }
}

pub(super) fn gc(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    let swept = match Store::open_existing(path)? {
        Some(store) => store.gc()?,
        None => ccr::Swept {
            collected: 0,
            bytes_freed: 0,
            tombstones: 0,
        },
    };
    let report = GcReport {
        path: path.display().to_string(),
        collected: swept.collected,
        bytes_freed: swept.bytes_freed,
        tombstones: swept.tombstones,
    };
    output::print(ui, Form::json_if(as_json), &report)
}

/// `ccr gc`.
#[derive(Serialize)]
struct GcReport {
    path: String,
    collected: u64,
    bytes_freed: u64,
    tombstones: u64,
}

impl Report for GcReport {
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

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.confirm(&self.summary())
    }
}
