//! The ClickHouse table a fleet's rows land in, and one ledger row as a line of its
//! `JSONEachRow` insert.
//!
//! Every ledger field keeps its name and meaning; types are the ones ClickHouse 18.16 (the
//! oldest we test, Debian's) and current releases both accept:
//! - `time` is `DateTime('UTC')` with the milliseconds in `time_millis` (`DateTime64` came
//!   with 20.1); `date` is materialised from it and partitions the table by month.
//! - `drifted_parts` is `Array(String)` (an array cannot be `Nullable`): the ledger's `null`
//!   ("nothing to compare with") is `[]` with `drift_compared = 0`; `[]` with
//!   `drift_compared = 1` is "compared, nothing drifted".
//! - Strings stay `String` / `Nullable(String)` (`LowCardinality` needs a setting 18.16
//!   requires and current releases reject).
//!
//! Exactly once: each row carries a deterministic `event_id` and its insert's `batch_id`.
//! The engine is `ReplacingMergeTree` ordered by `(time, event_id)` — ordered by time, as
//! queries over a period want — so a row sent twice (a retry whose first answer was lost)
//! is one row for every reader that says `FINAL` (which `brief usage` does), and is merged
//! away in the background. The writer asks before a retry whether its batch already
//! landed, and sends `insert_deduplication_token` where the server knows it (22.2+).

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::cache::ledger::Entry;

/// The columns, in order, with their types. `date` is materialised and never sent.
pub const COLUMNS: &[(&str, &str)] = &[
    ("time", "DateTime('UTC')"),
    ("time_millis", "UInt16"),
    ("date", "Date MATERIALIZED toDate(time)"),
    ("command", "String"),
    ("provider", "String"),
    ("model", "String"),
    ("brief", "Nullable(String)"),
    ("brief_dir", "Nullable(String)"),
    ("item", "Nullable(String)"),
    ("prefix_hash", "Nullable(String)"),
    ("input_tokens", "Nullable(UInt64)"),
    ("cached_input_tokens", "Nullable(UInt64)"),
    ("cache_write_tokens", "Nullable(UInt64)"),
    ("output_tokens", "Nullable(UInt64)"),
    ("latency_ms", "UInt64"),
    ("attempts", "UInt32"),
    ("status", "String"),
    ("error", "Nullable(String)"),
    ("session", "Nullable(String)"),
    ("drifted_parts", "Array(String)"),
    ("drift_compared", "UInt8"),
    ("target_brief", "Nullable(String)"),
    ("target_brief_dir", "Nullable(String)"),
    ("drift_offset", "Nullable(UInt64)"),
    ("cache_write_5m_tokens", "Nullable(UInt64)"),
    ("cache_write_1h_tokens", "Nullable(UInt64)"),
    ("reasoning_tokens", "Nullable(UInt64)"),
    ("host", "Nullable(String)"),
    ("price_input_per_mtok", "Nullable(Float64)"),
    ("price_cached_per_mtok", "Nullable(Float64)"),
    ("price_output_per_mtok", "Nullable(Float64)"),
    ("event_id", "String"),
    ("batch_id", "String"),
];

/// The merge tree's memory of recent insert tokens, on servers that have the setting.
pub const DEDUP_WINDOW: u32 = 1000;

/// What goes into the `CREATE TABLE`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableOptions {
    /// Drop rows this many days after their date (`TTL date + INTERVAL N DAY`: 19.6+).
    pub ttl_days: Option<u32>,
    /// Add `SETTINGS non_replicated_deduplication_window` (servers that have it).
    pub dedup_window: bool,
}

/// The `CREATE TABLE IF NOT EXISTS` statement for `table` (`` `db`.`t` ``).
pub fn create_table(table: &str, options: TableOptions) -> String {
    let mut sql = format!("CREATE TABLE IF NOT EXISTS {table}\n(\n");
    let width = COLUMNS.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 2;
    for (i, (name, kind)) in COLUMNS.iter().enumerate() {
        let comma = if i + 1 < COLUMNS.len() { "," } else { "" };
        let quoted = format!("`{name}`");
        sql.push_str(&format!("    {quoted:<width$} {kind}{comma}\n"));
    }
    sql.push_str(
        ")\nENGINE = ReplacingMergeTree()\nPARTITION BY toYYYYMM(date)\nORDER BY (time, event_id)",
    );
    if let Some(days) = options.ttl_days {
        sql.push_str(&format!("\nTTL date + INTERVAL {days} DAY"));
    }
    if options.dedup_window {
        sql.push_str(&format!(
            "\nSETTINGS non_replicated_deduplication_window = {DEDUP_WINDOW}"
        ));
    }
    sql
}

/// One row of the insert: the ledger entry's fields, the time split for `DateTime`, and
/// the row's identity.
#[derive(Serialize)]
struct Row<'a> {
    time: i64,
    time_millis: u16,
    command: &'a str,
    provider: &'a str,
    model: &'a str,
    brief: &'a Option<String>,
    brief_dir: &'a Option<String>,
    item: &'a Option<String>,
    prefix_hash: &'a Option<String>,
    input_tokens: Option<u64>,
    cached_input_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    output_tokens: Option<u64>,
    latency_ms: u64,
    attempts: u32,
    status: &'a crate::error::CallStatus,
    error: &'a Option<String>,
    session: &'a Option<String>,
    drifted_parts: &'a [String],
    drift_compared: u8,
    target_brief: &'a Option<String>,
    target_brief_dir: &'a Option<String>,
    drift_offset: Option<u64>,
    cache_write_5m_tokens: Option<u64>,
    cache_write_1h_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
    host: &'a Option<String>,
    price_input_per_mtok: Option<f64>,
    price_cached_per_mtok: Option<f64>,
    price_output_per_mtok: Option<f64>,
    event_id: &'a str,
    batch_id: &'a str,
}

/// Appends `entry` as one JSON line of the insert.
pub fn encode(entry: &Entry, event_id: &str, batch_id: &str, out: &mut Vec<u8>) {
    // DateTime holds 1970 to 2106; a ledger time outside it is clamped, not refused.
    let ms = entry.time_ms().unwrap_or(0).clamp(0, 4_294_967_295_999);
    let row = Row {
        time: ms / 1000,
        time_millis: (ms % 1000) as u16,
        command: &entry.command,
        provider: &entry.provider,
        model: &entry.model,
        brief: &entry.brief,
        brief_dir: &entry.brief_dir,
        item: &entry.item,
        prefix_hash: &entry.prefix_hash,
        input_tokens: entry.input_tokens,
        cached_input_tokens: entry.cached_input_tokens,
        cache_write_tokens: entry.cache_write_tokens,
        output_tokens: entry.output_tokens,
        latency_ms: entry.latency_ms,
        attempts: entry.attempts,
        status: &entry.status,
        error: &entry.error,
        session: &entry.session,
        drifted_parts: entry.drifted_parts.as_deref().unwrap_or(&[]),
        drift_compared: u8::from(entry.drifted_parts.is_some()),
        target_brief: &entry.target_brief,
        target_brief_dir: &entry.target_brief_dir,
        drift_offset: entry.drift_offset,
        cache_write_5m_tokens: entry.cache_write_5m_tokens,
        cache_write_1h_tokens: entry.cache_write_1h_tokens,
        reasoning_tokens: entry.reasoning_tokens,
        host: &entry.host,
        price_input_per_mtok: entry.price_input_per_mtok,
        price_cached_per_mtok: entry.price_cached_per_mtok,
        price_output_per_mtok: entry.price_output_per_mtok,
        event_id,
        batch_id,
    };
    serde_json::to_writer(&mut *out, &row).expect("a row of plain fields always encodes");
    out.push(b'\n');
}

fn hex_id(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    let digest = hasher.finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The identity of the row at `offset` of the spool file `file`: the same on every
/// replay, and different for every row ever spooled (spool file names are unique).
pub fn spool_event_id(file: &str, offset: u64) -> String {
    hex_id(&[b"spool", file.as_bytes(), &offset.to_le_bytes()])
}

/// The identity of a row pushed from a ledger file: its content and its line number, so
/// that pushing the same file again (or after more lines were appended) adds nothing,
/// while two identical calls on different lines stay two rows.
pub fn file_event_id(entry: &Entry, line: usize) -> String {
    let content = serde_json::to_vec(entry).unwrap_or_default();
    hex_id(&[b"line", &(line as u64).to_le_bytes(), &content])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_keeps_every_ledger_field_and_splits_the_time() {
        let mut entry = Entry::new("proxy", "openai", "m");
        entry.time = "2026-12-01T13:00:00.123Z".into();
        entry.drifted_parts = Some(vec!["system".into()]);
        entry.input_tokens = Some(10);
        let mut out = Vec::new();
        encode(&entry, "e1", "b1", &mut out);
        let row: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(row["time"], 1_796_130_000);
        assert_eq!(row["time_millis"], 123);
        assert_eq!(row["drift_compared"], 1);
        assert_eq!(row["cached_input_tokens"], serde_json::Value::Null);
        let ledger = serde_json::to_value(&entry).unwrap();
        for key in ledger.as_object().unwrap().keys() {
            assert!(row.get(key).is_some(), "{key} is not sent");
            assert!(
                COLUMNS.iter().any(|(name, _)| name == key),
                "{key} has no column"
            );
        }
        for (name, kind) in COLUMNS {
            assert!(
                kind.contains("MATERIALIZED") || row.get(*name).is_some(),
                "{name} is not sent"
            );
        }
    }

    #[test]
    fn event_ids_are_stable_and_distinct() {
        assert_eq!(spool_event_id("a", 0), spool_event_id("a", 0));
        assert_ne!(spool_event_id("a", 0), spool_event_id("a", 1));
        assert_ne!(spool_event_id("a", 10), spool_event_id("a1", 0));
        let entry = Entry::new("probe", "openai", "m");
        assert_eq!(file_event_id(&entry, 3), file_event_id(&entry, 3));
        assert_ne!(file_event_id(&entry, 3), file_event_id(&entry, 4));
    }

    #[test]
    fn the_table_is_ordered_by_time_and_ttl_is_optional() {
        let plain = create_table("`db`.`t`", TableOptions::default());
        assert!(plain.contains("ORDER BY (time, event_id)"));
        assert!(!plain.contains("TTL"));
        let ttl = create_table(
            "`db`.`t`",
            TableOptions {
                ttl_days: Some(90),
                dedup_window: true,
            },
        );
        assert!(ttl.contains("TTL date + INTERVAL 90 DAY"));
        assert!(ttl.contains("non_replicated_deduplication_window = 1000"));
    }
}
