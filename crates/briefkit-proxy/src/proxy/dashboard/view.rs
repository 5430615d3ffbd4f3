//! One reading of the proxy's figures ([`Snapshot`]) and what the dashboard draws of it:
//! `/stats` serves the reading as JSON, the page and `/dashboard.json` its [`View`].

use serde::Serialize;

use crate::cache::dashboard::{
    self as view, Drift, Figures, Order, View, chart, drift_table, figures_table, pairs_table,
};
use crate::numbers::thousands;

use super::super::App;
use super::super::detail::KeptUsage;
use super::super::stats::{self, Report};
use super::{CallPoint, DriftEvent};

/// Sessions and models listed on the page, the busiest first (`/stats` lists all).
const MAX_ROWS: usize = 50;

/// The `/stats` members a sink reports its state under (the fleet's ClickHouse writer);
/// shown as a table when present.
const SINK_KEYS: [&str; 2] = ["sink", "sinks"];

/// What the page says about where it runs.
#[derive(Debug, Clone)]
pub struct Context {
    pub address: String,
    pub ledger: String,
    pub started: String,
    pub allow_remote: bool,
}

/// One consistent reading of the proxy's figures, for `/stats` and the page alike.
pub struct Snapshot {
    report: Report,
    calls: Vec<CallPoint>,
    drifts: Vec<DriftEvent>,
    kept: KeptUsage,
}

/// `GET /stats`: the running figures, then the recent calls and drift events.
#[derive(Serialize)]
struct StatsJson<'a> {
    #[serde(flatten)]
    report: &'a Report,
    /// The last calls, oldest first (at most [`MAX_RECENT_CALLS`]).
    recent_calls: &'a [CallPoint],
    /// The last drift events, newest first (at most [`MAX_DRIFT_EVENTS`]).
    drift_events: &'a [DriftEvent],
    /// The texts sessions keep for drift offsets, and their bounds.
    drift_texts: KeptUsage,
}

impl Snapshot {
    pub fn take(app: &App) -> Snapshot {
        let backlog = app.backlog();
        let report = app
            .stats
            .lock()
            .map(|s| s.report_with(backlog))
            .unwrap_or_else(|_| stats::Stats::default().report());
        let (calls, drifts) = app
            .recent
            .lock()
            .map(|r| (r.calls().cloned().collect(), r.drifts().cloned().collect()))
            .unwrap_or_default();
        Snapshot {
            report,
            calls,
            drifts,
            kept: app.book.kept(),
        }
    }

    pub fn stats_json(&self) -> String {
        let json = StatsJson {
            report: &self.report,
            recent_calls: &self.calls,
            drift_events: &self.drifts,
            drift_texts: self.kept,
        };
        serde_json::to_string_pretty(&json).unwrap_or_else(|_| "{}".into()) + "\n"
    }

    pub fn view(&self, context: &Context) -> View {
        let r = &self.report;
        let points: Vec<chart::Point> = self.calls.iter().map(point).collect();
        let groups = |map: &std::collections::BTreeMap<String, stats::Figures>| {
            map.iter()
                .map(|(name, f)| (name.clone(), figures(f)))
                .collect::<Vec<_>>()
        };
        let drifts: Vec<Drift> = self.drifts.iter().map(drift).collect();
        let mut tables = vec![
            figures_table(
                "model",
                "Per model",
                "Model",
                groups(&r.per_model),
                MAX_ROWS,
                Order::Calls,
            ),
            figures_table(
                "session",
                "Per session",
                "Session",
                groups(&r.per_session),
                MAX_ROWS,
                Order::Calls,
            ),
            drift_table(&drifts, r.totals.drifted, true),
        ];
        if let Some(sink) = sink_pairs(r) {
            tables.push(pairs_table("sink", "Fleet sink", sink));
        }
        tables.push(pairs_table(
            "bookkeeping",
            "Bookkeeping",
            self.bookkeeping(),
        ));
        View {
            title: "brief proxy".into(),
            subtitle: format!(
                "{} · ledger {} · running since {}",
                context.address, context.ledger, context.started
            ),
            summary: r.summary.clone(),
            cards: view::cards(&figures(&r.totals)),
            charts: vec![chart::input(&points), chart::share(&points)],
            tables,
        }
    }

    fn bookkeeping(&self) -> Vec<(String, String)> {
        let r = &self.report;
        let k = &self.kept;
        vec![
            ("ledger rows waiting".into(), thousands(r.ledger_backlog)),
            ("ledger rows spilled".into(), thousands(r.ledger_spilled)),
            ("ledger rows not written".into(), thousands(r.ledger_errors)),
            (
                "requests being digested".into(),
                thousands(r.digest_backlog),
            ),
            (
                "drift texts kept".into(),
                format!(
                    "{} sessions, {} of {} bytes ({} per session at most)",
                    thousands(k.sessions),
                    thousands(k.bytes),
                    thousands(k.budget_bytes),
                    thousands(k.per_session_bytes)
                ),
            ),
        ]
    }
}

fn figures(f: &stats::Figures) -> Figures {
    Figures {
        calls: f.calls,
        failed: f.failed,
        input_tokens: f.input_tokens,
        cached_input_tokens: f.cached_input_tokens,
        cache_write_tokens: f.cache_write_tokens,
        output_tokens: f.output_tokens,
        cached_share: f.cached_share,
        drifted: f.drifted,
        cost: f.cost,
        savings: f.savings,
        first_seen: None,
        last_seen: None,
    }
}

fn point(call: &CallPoint) -> chart::Point {
    let input = call.input_tokens.unwrap_or(0);
    let parts = call.drifted_parts.clone().unwrap_or_default();
    chart::Point {
        label: format!("call {}", call.seq),
        calls: 1,
        input_tokens: input,
        cached_input_tokens: call.cached_input_tokens.unwrap_or(0),
        input_reporting: if call.cached_input_tokens.is_some() {
            input
        } else {
            0
        },
        cache_write_tokens: call.cache_write_tokens.unwrap_or(0),
        drifted: u64::from(!parts.is_empty()),
        drifted_parts: parts,
    }
}

fn drift(event: &DriftEvent) -> Drift {
    Drift {
        time: event
            .time
            .get(..19)
            .unwrap_or(&event.time)
            .replacen('T', " ", 1),
        session: event.session.clone().unwrap_or_default(),
        model: format!("{}/{}", event.provider, event.model),
        parts: event.parts.clone(),
        part: event.part.clone(),
        offset: event.offset,
        previous: event.previous.clone(),
        current: event.current.clone(),
        missing: event.missing.map(str::to_string),
    }
}

/// A sink's state as (field, value) rows, from whichever of [`SINK_KEYS`] `/stats` has.
fn sink_pairs(report: &Report) -> Option<Vec<(String, String)>> {
    sink_pairs_of(&serde_json::to_value(report).ok()?)
}

fn sink_pairs_of(value: &serde_json::Value) -> Option<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for key in SINK_KEYS {
        if let Some(found) = value.get(key).filter(|v| !v.is_null()) {
            flatten(key, found, &mut pairs);
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

fn flatten(name: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                flatten(&format!("{name}.{key}"), item, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{name}[{i}]"), item, out);
            }
        }
        Value::String(text) => out.push((name.to_string(), text.clone())),
        Value::Null => out.push((name.to_string(), "-".into())),
        other => out.push((name.to_string(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        ASSETS, EVERY_MS, MAX_DRIFT_EVENTS, MAX_RECENT_CALLS, Recent, SOURCE, footer,
    };
    use super::*;
    use crate::cache::dashboard::html;

    /// The page when every ring is full and every name as long as a row keeps it.
    fn full_snapshot() -> Snapshot {
        use crate::cache::ledger::Entry;
        use crate::proxy::detail::Detail;
        let mut stats = stats::Stats::default();
        let mut recent = Recent::default();
        let excerpt = format!("…\"text\":\"{}…", "You are the desk of T".repeat(4));
        for i in 0..(MAX_RECENT_CALLS * 4) {
            let model = format!("{i:05}-{}", "model-".repeat(50))[..256].to_string();
            let mut row = Entry::new("proxy", "anthropic", &model);
            row.session = Some(format!("{i:05}-{}", "s".repeat(123)));
            row.input_tokens = Some(123_456);
            row.cached_input_tokens = Some(100_000);
            row.cache_write_tokens = Some(20_000);
            row.drifted_parts = Some(vec!["system".into(), "messages".into()]);
            stats.record(&row);
            let detail = Detail {
                part: "system".into(),
                offset: Some(6_328),
                previous: Some(excerpt.clone()),
                current: Some(excerpt.clone()),
                missing: None,
            };
            recent.record(i as u64, &row, Some(&detail));
        }
        Snapshot {
            report: stats.report(),
            calls: recent.calls().cloned().collect(),
            drifts: recent.drifts().cloned().collect(),
            kept: KeptUsage::default(),
        }
    }

    fn context() -> Context {
        Context {
            address: "http://127.0.0.1:8787".into(),
            ledger: "/home/ada/.local/state/briefkit/usage.jsonl".into(),
            started: "2026-12-01T09:00:00.000Z".into(),
            allow_remote: false,
        }
    }

    #[test]
    fn a_full_page_with_its_assets_stays_well_under_300_kib() {
        let snapshot = full_snapshot();
        let mode = html::Mode::Live {
            assets: ASSETS,
            source: SOURCE,
            every_ms: EVERY_MS,
        };
        let page = html::page(&snapshot.view(&context()), mode, &footer());
        let assets = html::SCRIPT.len() + html::STYLE.len() + html::ICON.len();
        let weight = page.len() + assets;
        assert!(weight < 250 * 1024, "{weight} bytes");
        assert_eq!(snapshot.drifts.len(), MAX_DRIFT_EVENTS);
        // The repaint's JSON is of the same order.
        let json = serde_json::to_string(&snapshot.view(&context())).unwrap();
        assert!(json.len() < 300 * 1024, "{} bytes", json.len());
    }

    #[test]
    fn a_sinks_state_in_stats_becomes_a_table_whatever_its_fields() {
        let stats = serde_json::json!({"status": "ok", "sink": {"kind": "clickhouse",
            "rows_pending": 12, "last_success": null, "last_error": {"message": "HTTP 401"}}});
        let pairs = sink_pairs_of(&stats).unwrap();
        assert_eq!(
            pairs,
            [
                ("sink.kind".to_string(), "clickhouse".to_string()),
                ("sink.rows_pending".into(), "12".into()),
                ("sink.last_success".into(), "-".into()),
                ("sink.last_error.message".into(), "HTTP 401".into()),
            ]
        );
        assert_eq!(sink_pairs_of(&serde_json::json!({"status": "ok"})), None);
        assert_eq!(sink_pairs_of(&serde_json::json!({"sink": null})), None);
    }
}
