//! The running figures of one proxy process, for `GET /stats` (JSON) and `GET /metrics`
//! (Prometheus text format).
//!
//! They are the ledger rows of this process, added up as they are written, so a dashboard
//! and `brief usage` agree. Counters are kept per (provider, model, session); per model and
//! per session are sums over that. The number of series is capped so that an agent minting
//! a session per call cannot grow the process without bound: past the cap, new sessions are
//! counted under the session `_other`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::cache::ledger::prices::PriceResolver;
use crate::cache::ledger::summary::{Prices, cost_figure};
use crate::cache::ledger::{Entry, SinkState};

/// (provider, model, session) series kept before new sessions fold into `_other`.
pub const MAX_SERIES: usize = 10_000;
const OTHER: &str = "_other";

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Figures {
    pub calls: u64,
    /// Calls whose status is not `ok`.
    pub failed: u64,
    /// Calls whose answer carried a usage.
    pub with_usage: u64,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    /// `null` while no call reported cache writes.
    pub cache_write_tokens: Option<u64>,
    pub output_tokens: u64,
    /// Cached input over input, among calls that reported a cached-token field.
    pub cached_share: Option<f64>,
    /// Calls whose tools, system or conversation drifted from the session's previous call.
    pub drifted: u64,
    /// Estimated cost of the calls with usage, where prices are known (the rows' prices,
    /// which `brief proxy --price-*` sets, else a brief's or the list price, as `brief
    /// usage` resolves them), summed exactly and shown as `brief usage --json` shows it;
    /// `null` when none was priced.
    pub cost: Option<f64>,
    /// What the same calls would have cost with no cache, minus `cost` (negative when
    /// cache writes cost more than reads saved); `null` when none was priced.
    pub savings: Option<f64>,
    /// Calls with usage that were priced; `cost` and `savings` cover only these.
    pub priced_calls: u64,
    #[serde(skip)]
    input_reporting_cache: u64,
    /// The cost and what it would have been with no cache, in
    /// `summary::UNITS_PER_CURRENCY`: exact sums, as `brief usage` makes them.
    #[serde(skip)]
    cost_units: i128,
    #[serde(skip)]
    cost_without_cache_units: i128,
}

impl Figures {
    /// Every sum saturates: a usage frame of 2^64 - 1 tokens makes a total of 2^64 - 1,
    /// never a small number.
    fn add(&mut self, entry: &Entry, prices: Option<Prices>) {
        let bump = |total: &mut u64, by: u64| *total = total.saturating_add(by);
        bump(&mut self.calls, 1);
        if !entry.is_ok() {
            bump(&mut self.failed, 1);
        }
        if let Some(input) = entry.input_tokens {
            bump(&mut self.with_usage, 1);
            bump(&mut self.input_tokens, input);
            if let Some(cached) = entry.cached_input_tokens {
                bump(&mut self.cached_input_tokens, cached);
                bump(&mut self.input_reporting_cache, input);
            }
        }
        self.cache_write_tokens =
            crate::numbers::add_known(self.cache_write_tokens, entry.cache_write_tokens);
        bump(&mut self.output_tokens, entry.output_tokens.unwrap_or(0));
        if entry.drifted_parts.as_ref().is_some_and(|p| !p.is_empty()) {
            bump(&mut self.drifted, 1);
        }
        if let (Some(prices), Some(input)) = (prices, entry.input_tokens) {
            let (with, without) = prices.cost_units(
                input,
                entry.cached_input_tokens.unwrap_or(0),
                entry.cache_write_tokens.unwrap_or(0),
                entry.cache_write_1h_tokens.unwrap_or(0),
                entry.output_tokens.unwrap_or(0),
            );
            bump(&mut self.priced_calls, 1);
            self.cost_units = self.cost_units.saturating_add(with);
            self.cost_without_cache_units = self.cost_without_cache_units.saturating_add(without);
        }
        self.share();
    }

    fn merge(&mut self, other: &Figures) {
        let bump = |total: &mut u64, by: u64| *total = total.saturating_add(by);
        bump(&mut self.calls, other.calls);
        bump(&mut self.failed, other.failed);
        bump(&mut self.with_usage, other.with_usage);
        bump(&mut self.input_tokens, other.input_tokens);
        bump(&mut self.cached_input_tokens, other.cached_input_tokens);
        self.cache_write_tokens =
            crate::numbers::add_known(self.cache_write_tokens, other.cache_write_tokens);
        bump(&mut self.output_tokens, other.output_tokens);
        bump(&mut self.drifted, other.drifted);
        bump(&mut self.input_reporting_cache, other.input_reporting_cache);
        bump(&mut self.priced_calls, other.priced_calls);
        self.cost_units = self.cost_units.saturating_add(other.cost_units);
        self.cost_without_cache_units = self
            .cost_without_cache_units
            .saturating_add(other.cost_without_cache_units);
        self.share();
    }

    fn share(&mut self) {
        self.cached_share = (self.input_reporting_cache > 0).then(|| {
            (self.cached_input_tokens as f64 / self.input_reporting_cache as f64).min(1.0)
        });
        let priced = self.priced_calls > 0;
        self.cost = priced.then(|| cost_figure(self.cost_units));
        self.savings = priced.then(|| {
            cost_figure(
                self.cost_without_cache_units
                    .saturating_sub(self.cost_units),
            )
        });
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct SeriesKey {
    provider: String,
    model: String,
    session: String,
}

#[derive(Debug, Default)]
pub struct Stats {
    series: BTreeMap<SeriesKey, Figures>,
    /// Calls by (provider, model, session, status), for the metrics' status label.
    statuses: BTreeMap<(SeriesKey, String), u64>,
    ledger_errors: u64,
    /// Requests relayed without metering (no model call, or a path the proxy does not
    /// know), by provider.
    unmetered: BTreeMap<&'static str, u64>,
    /// Where a call's prices come from: the row's own (`brief proxy --price-*`), a brief's,
    /// the list price, as `brief usage` resolves them.
    prices: PriceResolver,
}

/// `GET /stats`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub status: &'static str,
    pub summary: String,
    pub totals: Figures,
    pub per_model: BTreeMap<String, Figures>,
    pub per_session: BTreeMap<String, Figures>,
    /// Ledger rows that could not be written (the calls themselves were served).
    pub ledger_errors: u64,
    /// Rows handed to the ledger writer and not written yet.
    pub ledger_backlog: u64,
    /// Rows written straight by their call because the writer's queue was full.
    pub ledger_spilled: u64,
    /// Requests whose digest and drift check are not done yet (calls in flight included).
    pub digest_backlog: u64,
    /// Requests relayed without a ledger row (model lists, token counts, paths the proxy
    /// does not know).
    pub unmetered: u64,
    /// The same by provider (`openai`, `anthropic`, `gemini`).
    pub unmetered_per_provider: BTreeMap<String, u64>,
    /// Where the rows' store stands: `kind` (`jsonl`, `clickhouse`), `target`,
    /// `rows_pending`, `rows_stored`, `last_success`, `last_error` (credentials removed),
    /// and for ClickHouse its spool (see `SinkState`).
    pub sink: SinkState,
}

impl Stats {
    pub fn record(&mut self, entry: &Entry) {
        // Figures no call has (an upstream that reported 2^64 - 1 tokens) are not summed,
        // as `brief usage` skips such a row: the call counts, its usage does not.
        let cleaned;
        let entry = if crate::cache::ledger::implausible(entry).is_some() {
            let mut bare = entry.clone();
            bare.input_tokens = None;
            bare.cached_input_tokens = None;
            bare.cache_write_tokens = None;
            bare.cache_write_5m_tokens = None;
            bare.cache_write_1h_tokens = None;
            bare.output_tokens = None;
            bare.reasoning_tokens = None;
            cleaned = bare;
            &cleaned
        } else {
            entry
        };
        let mut key = SeriesKey {
            provider: entry.provider.clone(),
            model: entry.model.clone(),
            session: entry.session.clone().unwrap_or_default(),
        };
        // Past the cap a new series folds into `_other`: its session first, then (for a
        // model not seen yet) its model too, so that neither sessions nor models minted per
        // call grow the process.
        for fold in [0, 1] {
            if self.series.contains_key(&key) || self.series.len() < MAX_SERIES {
                break;
            }
            if fold == 0 {
                key.session = OTHER.to_string();
            } else {
                key.model = OTHER.to_string();
            }
        }
        let prices = self.prices.prices(entry);
        self.series
            .entry(key.clone())
            .or_default()
            .add(entry, prices);
        let count = self
            .statuses
            .entry((key, entry.status.to_string()))
            .or_default();
        *count = count.saturating_add(1);
    }

    /// One request relayed to `provider` without metering.
    pub fn unmetered(&mut self, provider: &'static str) {
        let count = self.unmetered.entry(provider).or_default();
        *count = count.saturating_add(1);
    }

    pub fn ledger_errors(&mut self, rows: u64) {
        self.ledger_errors = self.ledger_errors.saturating_add(rows);
    }

    /// `GET /stats`, with the writer's and the digest stage's backlog.
    pub fn report_with(&self, backlog: Backlog) -> Report {
        let mut report = self.report();
        report.ledger_backlog = backlog.ledger;
        report.ledger_spilled = backlog.spilled;
        report.digest_backlog = backlog.digest;
        report.sink = backlog.sink;
        report
    }

    pub fn report(&self) -> Report {
        let mut totals = Figures::default();
        let mut per_model: BTreeMap<String, Figures> = BTreeMap::new();
        let mut per_session: BTreeMap<String, Figures> = BTreeMap::new();
        for (key, figures) in &self.series {
            totals.merge(figures);
            per_model
                .entry(key.model.clone())
                .or_default()
                .merge(figures);
            per_session
                .entry(key.session.clone())
                .or_default()
                .merge(figures);
        }
        let share = totals
            .cached_share
            .map(|s| format!("{:.1}% of input served from cache", s * 100.0))
            .unwrap_or_else(|| "no cached-token figure reported yet".to_string());
        Report {
            status: "ok",
            summary: format!(
                "{}, {} input tokens, {share}, {}, {} drifted",
                crate::numbers::count(totals.calls, "call", "calls"),
                totals.input_tokens,
                totals.cache_write_tokens.map_or_else(
                    || "no cache writes reported".to_string(),
                    |n| format!("{n} cache-write tokens")
                ),
                totals.drifted
            ),
            totals,
            per_model,
            per_session,
            ledger_errors: self.ledger_errors,
            ledger_backlog: 0,
            ledger_spilled: 0,
            digest_backlog: 0,
            unmetered: self
                .unmetered
                .values()
                .fold(0u64, |sum, n| sum.saturating_add(*n)),
            unmetered_per_provider: self
                .unmetered
                .iter()
                .map(|(p, n)| (p.to_string(), *n))
                .collect(),
            sink: SinkState::default(),
        }
    }

    /// The Prometheus text exposition format (version 0.0.4).
    pub fn metrics(&self, backlog: &Backlog) -> String {
        let mut out = String::new();
        family(
            &mut out,
            "brief_proxy_calls_total",
            "counter",
            "Model calls relayed, by provider, model, session and status.",
        );
        // Two names that differ only in what the sanitiser removes are one series: the
        // text format refuses a series listed twice.
        let mut calls: BTreeMap<String, u64> = BTreeMap::new();
        for ((key, status), count) in &self.statuses {
            let series = format!("{},status=\"{}\"", labels(key), escape(status));
            let sum = calls.entry(series).or_default();
            *sum = sum.saturating_add(*count);
        }
        for (series, count) in calls {
            let _ = writeln!(out, "brief_proxy_calls_total{{{series}}} {count}");
        }
        let counters: [Counter; 5] = [
            (
                "brief_proxy_input_tokens_total",
                "All input tokens, cached and cache-written ones included.",
                |f| f.input_tokens,
            ),
            (
                "brief_proxy_cached_input_tokens_total",
                "Input tokens served from the provider's prompt cache.",
                |f| f.cached_input_tokens,
            ),
            (
                "brief_proxy_cache_write_tokens_total",
                "Input tokens written to the provider's prompt cache.",
                |f| f.cache_write_tokens.unwrap_or(0),
            ),
            ("brief_proxy_output_tokens_total", "Output tokens.", |f| {
                f.output_tokens
            }),
            (
                "brief_proxy_prefix_drift_total",
                "Calls whose tools, system or conversation drifted from the session's previous call.",
                |f| f.drifted,
            ),
        ];
        for (name, help, value) in counters {
            family(&mut out, name, "counter", help);
            let mut merged: BTreeMap<String, u64> = BTreeMap::new();
            for (key, figures) in &self.series {
                let sum = merged.entry(labels(key)).or_default();
                *sum = sum.saturating_add(value(figures));
            }
            for (series, count) in merged {
                let _ = writeln!(out, "{name}{{{series}}} {count}");
            }
        }
        let report = self.report();
        family(
            &mut out,
            "brief_proxy_cached_share",
            "gauge",
            "Cached input over input among calls that reported a cached-token field, by model.",
        );
        for (model, figures) in &report.per_model {
            if let Some(share) = figures.cached_share {
                let _ = writeln!(
                    out,
                    "brief_proxy_cached_share{{model=\"{}\"}} {share}",
                    escape(model)
                );
            }
        }
        family(
            &mut out,
            "brief_proxy_unmetered_requests_total",
            "counter",
            "Requests relayed without a ledger row (model lists, token counts, unknown paths), by provider.",
        );
        for (provider, count) in &self.unmetered {
            let _ = writeln!(
                out,
                "brief_proxy_unmetered_requests_total{{provider=\"{}\"}} {count}",
                escape(provider)
            );
        }
        family(
            &mut out,
            "brief_proxy_ledger_errors_total",
            "counter",
            "Ledger rows that could not be written.",
        );
        let _ = writeln!(
            out,
            "brief_proxy_ledger_errors_total {}",
            self.ledger_errors
        );
        let gauges = [
            (
                "brief_proxy_ledger_backlog_rows",
                "gauge",
                "Rows handed to the ledger writer and not written yet.",
                backlog.ledger,
            ),
            (
                "brief_proxy_ledger_spilled_total",
                "counter",
                "Rows written straight by their call because the writer's queue was full.",
                backlog.spilled,
            ),
            (
                "brief_proxy_digest_backlog_requests",
                "gauge",
                "Requests whose digest and drift check are not done yet.",
                backlog.digest,
            ),
        ];
        for (name, kind, help, value) in gauges {
            family(&mut out, name, kind, help);
            let _ = writeln!(out, "{name} {value}");
        }
        sink_metrics(&mut out, &backlog.sink);
        out
    }
}

/// What is waiting behind the calls, from the writer and the digest stage, and where the
/// rows' store stands.
#[derive(Debug, Clone, Default)]
pub struct Backlog {
    pub ledger: u64,
    pub spilled: u64,
    pub digest: u64,
    pub sink: SinkState,
}

/// The sink's figures: rows pending, stored, overflowed, errors, the time of the last
/// success, and the last error as an info series' label.
fn sink_metrics(out: &mut String, sink: &SinkState) {
    let kind = escape(sink.kind);
    let series: [(&str, &str, &str, u64); 4] = [
        (
            "brief_proxy_sink_rows_pending",
            "gauge",
            "Rows handed to the store and not yet in it (for ClickHouse: spooled, not yet acknowledged).",
            sink.rows_pending,
        ),
        (
            "brief_proxy_sink_rows_stored_total",
            "counter",
            "Rows in the store since start (for ClickHouse: acknowledged).",
            sink.rows_stored,
        ),
        (
            "brief_proxy_sink_overflow_rows_total",
            "counter",
            "Rows written to the overflow file because the spool was full.",
            sink.overflow_rows,
        ),
        (
            "brief_proxy_sink_errors_total",
            "counter",
            "Failed attempts to write rows to the store.",
            sink.errors,
        ),
    ];
    for (name, kind_of, help, value) in series {
        family(out, name, kind_of, help);
        let _ = writeln!(out, "{name}{{sink=\"{kind}\"}} {value}");
    }
    let seconds = |t: &Option<String>| {
        t.as_deref()
            .and_then(crate::clock::parse)
            .map(|ms| ms as f64 / 1000.0)
    };
    family(
        out,
        "brief_proxy_sink_last_success_timestamp_seconds",
        "gauge",
        "When rows last reached the store (Unix time); absent before the first time.",
    );
    if let Some(at) = seconds(&sink.last_success) {
        let _ = writeln!(
            out,
            "brief_proxy_sink_last_success_timestamp_seconds{{sink=\"{kind}\"}} {at}"
        );
    }
    if let Some(spool) = sink.spool_bytes {
        family(
            out,
            "brief_proxy_sink_spool_bytes",
            "gauge",
            "Bytes of rows in the spool not yet acknowledged (every process's).",
        );
        let _ = writeln!(
            out,
            "brief_proxy_sink_spool_bytes{{sink=\"{kind}\"}} {spool}"
        );
    }
    family(
        out,
        "brief_proxy_sink_last_error_info",
        "gauge",
        "The store's last error (credentials removed), as a label; absent when none.",
    );
    if let Some(error) = &sink.last_error {
        let _ = writeln!(
            out,
            "brief_proxy_sink_last_error_info{{sink=\"{kind}\",error=\"{}\"}} 1",
            escape(&crate::text::sanitize::one_line(error, 300))
        );
    }
}

/// A counter family: name, help text, and its value in a series' figures.
type Counter = (&'static str, &'static str, fn(&Figures) -> u64);

// Why no prometheus-client: it writes OpenMetrics text (`# EOF`, `_total` moved from the
// counter's name to its series, a different content type), not the 0.0.4 text format the
// `/metrics` endpoint serves and scrapers and tests read; the format is these lines,
// `family`, `labels` and `escape`, all here.
fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn labels(key: &SeriesKey) -> String {
    format!(
        "provider=\"{}\",model=\"{}\",session=\"{}\"",
        escape(&key.provider),
        escape(&key.model),
        escape(&key.session)
    )
}

/// A label value as the text format wants it: through the one sanitiser first (a client's
/// model name can carry ESC, BEL or a right-to-left override, and `curl /metrics` prints
/// to a terminal), then backslash, quote and newline escaped as the format says.
fn escape(value: &str) -> String {
    crate::text::sanitize::terminal_line(value)
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(model: &str, session: &str, input: u64, cached: Option<u64>, drift: bool) -> Entry {
        let mut e = Entry::new("proxy", "openai", model);
        e.session = Some(session.into());
        e.input_tokens = Some(input);
        e.cached_input_tokens = cached;
        e.output_tokens = Some(1);
        e.drifted_parts = Some(if drift { vec!["system".into()] } else { vec![] });
        e
    }

    #[test]
    fn figures_add_up_per_model_and_per_session() {
        let mut stats = Stats::default();
        stats.record(&call("a", "s1", 1000, Some(800), false));
        stats.record(&call("a", "s2", 1000, None, true));
        stats.record(&call("b", "s1", 500, Some(0), false));
        let report = stats.report();
        assert_eq!(report.totals.calls, 3);
        assert_eq!(report.totals.input_tokens, 2500);
        assert_eq!(report.totals.drifted, 1);
        // The call without a cached field is left out of the share.
        assert_eq!(report.totals.cached_share, Some(800.0 / 1500.0));
        assert_eq!(report.per_model["a"].calls, 2);
        assert_eq!(report.per_session["s1"].input_tokens, 1500);
    }

    #[test]
    fn metrics_are_prometheus_text_with_escaped_labels() {
        let mut stats = Stats::default();
        stats.record(&call("m\"x", "s\\1", 10, Some(5), false));
        let text = stats.metrics(&Backlog::default());
        assert!(text.contains("# TYPE brief_proxy_calls_total counter\n"));
        assert!(text.contains(
            "brief_proxy_calls_total{provider=\"openai\",model=\"m\\\"x\",session=\"s\\\\1\",status=\"ok\"} 1\n"
        ));
        assert!(text.contains("brief_proxy_cached_share{model=\"m\\\"x\"} 0.5\n"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            assert!(!line.chars().any(char::is_control), "{line:?}");
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn metrics_carry_no_control_byte_from_a_client_model_name() {
        // Issue 37, defect 8: ESC, BEL and a right-to-left override reached the scrape.
        let mut stats = Stats::default();
        stats.record(&call(
            "gpt\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}x",
            "s",
            10,
            None,
            false,
        ));
        stats.record(&call("gpt\u{7}\u{202e}x", "s", 10, None, false));
        let text = stats.metrics(&Backlog::default());
        assert!(
            !text
                .chars()
                .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
            "{text:?}"
        );
        assert!(text.contains("<U+202E>"), "{text}");
        // The two names sanitise alike and are one series, not two with one label set.
        let series: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("brief_proxy_input_tokens_total{"))
            .collect();
        assert_eq!(series.len(), 1, "{series:?}");
        assert!(series[0].ends_with(" 20"), "{series:?}");
    }
}
