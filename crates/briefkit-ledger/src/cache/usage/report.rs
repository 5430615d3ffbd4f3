//! The usage report as data: the sums of a ledger (whole and per group), the lines that
//! could not be read, and its status and summary (the ledger's one sentence,
//! `Totals::sentence`, which the HTML page says too). Its JSON form (after
//! `status` and `summary`) is what `brief usage --json` prints, key for key, so a library
//! user and a script read the same document.

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::cache::ledger::Warning;
use crate::cache::ledger::summary::{Group, GroupBy, Totals};

/// What [`super::report`] found.
#[derive(Debug, Clone)]
pub struct UsageReport {
    /// The file's path or the table's URL (without its password).
    pub ledger: String,
    /// The `since` filter as it was given.
    pub since: Option<String>,
    pub by: GroupBy,
    pub total: Totals,
    pub groups: Vec<Group>,
    /// Lines (or, from ClickHouse, rows) that were skipped, with why.
    pub warnings: Vec<Warning>,
    /// The HTML page, when it was asked for.
    pub page: Option<String>,
}

impl UsageReport {
    /// `ok`, or `warning` when lines or rows were skipped.
    pub fn status(&self) -> &'static str {
        Warning::status_of(&self.warnings)
    }

    /// The report in one sentence: calls, cached share, cost and savings.
    pub fn summary(&self) -> String {
        self.total.sentence()
    }
}

fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// One row of figures, for the whole ledger or one group.
#[derive(Serialize)]
struct TotalsJson<'a> {
    calls: u64,
    failed: u64,
    input_tokens: u64,
    cached_input_tokens: u64,
    cache_write_tokens: Option<u64>,
    output_tokens: u64,
    cached_share: Option<f64>,
    calls_without_cache_field: u64,
    calls_with_usage: u64,
    priced_calls: u64,
    cost: Option<f64>,
    savings: Option<f64>,
    first_seen: Option<&'a str>,
    last_seen: Option<&'a str>,
    drift_compared: u64,
    drifted: u64,
    drifted_parts: Counts<'a>,
}

impl<'a> TotalsJson<'a> {
    fn new(t: &'a Totals) -> Self {
        let priced = t.priced_calls > 0;
        TotalsJson {
            calls: t.calls,
            failed: t.failed,
            input_tokens: t.input_tokens,
            cached_input_tokens: t.cached_input_tokens,
            cache_write_tokens: t.cache_write_tokens,
            output_tokens: t.output_tokens,
            cached_share: t.cached_share().map(|s| round(s, 4)),
            calls_without_cache_field: t.calls_without_cache_field,
            calls_with_usage: t.calls_with_usage,
            priced_calls: t.priced_calls,
            cost: priced.then(|| t.cost()),
            savings: priced.then(|| t.savings()),
            first_seen: t.first_seen.as_deref(),
            last_seen: t.last_seen.as_deref(),
            drift_compared: t.drift_compared,
            drifted: t.drifted,
            drifted_parts: Counts(&t.drifted_parts),
        }
    }
}

/// `(name, count)` pairs as a JSON object, in their order.
struct Counts<'a>(&'a [(String, u64)]);

impl Serialize for Counts<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, n) in self.0 {
            map.serialize_entry(name, n)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct GroupJson<'a> {
    key: &'a str,
    /// Prefix groups only.
    #[serde(skip_serializing_if = "Option::is_none")]
    briefs: Option<&'a [String]>,
    #[serde(flatten)]
    totals: TotalsJson<'a>,
}

/// The report's own fields, in the order `brief usage --json` has always printed them.
#[derive(Serialize)]
struct ReportJson<'a> {
    ledger: &'a str,
    since: Option<&'a str>,
    by: &'static str,
    total: TotalsJson<'a>,
    groups: Vec<GroupJson<'a>>,
    warnings: &'a [Warning],
}

impl Serialize for UsageReport {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        ReportJson {
            ledger: &self.ledger,
            since: self.since.as_deref(),
            by: self.by.as_str(),
            total: TotalsJson::new(&self.total),
            groups: self
                .groups
                .iter()
                .map(|g| GroupJson {
                    key: &g.key,
                    briefs: (self.by == GroupBy::Prefix).then_some(g.briefs.as_slice()),
                    totals: TotalsJson::new(&g.totals),
                })
                .collect(),
            warnings: &self.warnings,
        }
        .serialize(serializer)
    }
}
