//! The dashboard's views of a ledger, for `brief usage --html`: summed a row at a time
//! beside the table report's own summary, in memory that follows the groups and a fixed
//! number of points and events, never the number of calls.
//!
//! The time series keeps at most [`MAX_POINTS`] bars: when it would grow past them, each
//! pair of neighbours becomes one bar of twice as many calls, so a ledger of millions of
//! calls is drawn in one pass as runs of consecutive calls. Rows are appended when they are
//! finished, which is not always in the order their calls ended (concurrent processes, the
//! proxy's threads), so calls pass through a window of [`REORDER`] rows sorted by time on
//! their way to the chart. The drift list keeps the latest [`MAX_DRIFTS`] events and counts
//! the rest.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use crate::cache::ledger::Entry;
use crate::cache::ledger::summary::{Group, GroupBy, Prices, Summary, Totals, cost_figure};
use crate::numbers::thousands;

use super::chart::{self, Point};
use super::{Drift, Figures, Order, View, cards, drift_table, figures_table};

/// Bars in a report's charts, at most.
pub const MAX_POINTS: usize = 240;

/// Drift events listed in a report, at most (the latest).
pub const MAX_DRIFTS: usize = 200;

/// Rows of the grouped tables, at most (the groups with the most calls are kept for the
/// per-model and per-session tables; the `--by` table keeps its order).
pub const MAX_GROUP_ROWS: usize = 1000;

/// Rows of the per-model and per-session tables beside the `--by` one.
const SIDE_ROWS: usize = 50;

/// Rows held back to be put in time order before they are drawn.
pub const REORDER: usize = 1024;

/// A call waiting in the reorder window: earliest first, then in ledger order.
struct Queued {
    at: (i64, u64),
    point: Point,
    time: String,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        self.at.cmp(&other.at)
    }
}

/// The series and drift events of a ledger, and its per-model and per-session sums.
pub struct LedgerViews {
    by: GroupBy,
    models: Option<Summary>,
    sessions: Option<Summary>,
    points: Vec<Point>,
    /// Each point's first call's time.
    times: Vec<String>,
    /// Calls per finished point; the point being filled has fewer.
    per_point: u64,
    drifts: VecDeque<Drift>,
    drifts_seen: u64,
    window: BinaryHeap<Reverse<Queued>>,
    rows: u64,
}

impl LedgerViews {
    pub fn new(by: GroupBy) -> LedgerViews {
        LedgerViews {
            by,
            models: (by != GroupBy::Model).then(|| Summary::new(GroupBy::Model)),
            sessions: (by != GroupBy::Session).then(|| Summary::new(GroupBy::Session)),
            points: Vec::new(),
            times: Vec::new(),
            per_point: 1,
            drifts: VecDeque::new(),
            drifts_seen: 0,
            window: BinaryHeap::new(),
            rows: 0,
        }
    }

    /// One ledger row, with the prices the table report used for it.
    pub fn add(&mut self, entry: &Entry, prices: Option<Prices>) {
        for summary in [&mut self.models, &mut self.sessions].into_iter().flatten() {
            summary.add(entry, prices);
        }
        self.queue(entry);
        if let Some(parts) = entry.drifted_parts.as_ref().filter(|p| !p.is_empty()) {
            self.drifts_seen = self.drifts_seen.saturating_add(1);
            if self.drifts.len() == MAX_DRIFTS {
                self.drifts.pop_front();
            }
            self.drifts.push_back(Drift {
                time: minute_second(&entry.time),
                session: entry.session.clone().unwrap_or_else(|| "(none)".into()),
                model: format!("{}/{}", entry.provider, entry.model),
                parts: parts.clone(),
                part: parts[0].clone(),
                offset: entry.drift_offset,
                previous: None,
                current: None,
                missing: None,
            });
        }
    }

    fn queue(&mut self, entry: &Entry) {
        let input = entry.input_tokens.unwrap_or(0);
        let call = Point {
            label: String::new(),
            calls: 1,
            input_tokens: input,
            cached_input_tokens: entry.cached_input_tokens.unwrap_or(0),
            input_reporting: if entry.cached_input_tokens.is_some() {
                input
            } else {
                0
            },
            cache_write_tokens: entry.cache_write_tokens.unwrap_or(0),
            drifted: u64::from(entry.drifted_parts.as_ref().is_some_and(|p| !p.is_empty())),
            drifted_parts: entry.drifted_parts.clone().unwrap_or_default(),
        };
        self.rows += 1;
        self.window.push(Reverse(Queued {
            at: (entry.time_ms().unwrap_or(0), self.rows),
            point: call,
            time: minute_second(&entry.time),
        }));
        if self.window.len() > REORDER
            && let Some(Reverse(earliest)) = self.window.pop()
        {
            self.draw(earliest.point, earliest.time);
        }
    }

    fn draw(&mut self, call: Point, time: String) {
        match self.points.last_mut() {
            Some(last) if last.calls < self.per_point => last.absorb(&call),
            _ => {
                if self.points.len() == MAX_POINTS {
                    self.halve();
                    return self.draw(call, time);
                }
                self.points.push(call);
                self.times.push(time);
            }
        }
    }

    /// Every pair of neighbouring points becomes one.
    fn halve(&mut self) {
        let points = std::mem::take(&mut self.points);
        let times = std::mem::take(&mut self.times);
        for (pair, time) in points.chunks(2).zip(times.into_iter().step_by(2)) {
            let mut merged = pair[0].clone();
            if let Some(next) = pair.get(1) {
                merged.absorb(next);
            }
            self.points.push(merged);
            self.times.push(time);
        }
        self.per_point = self.per_point.saturating_mul(2);
    }

    /// The page: `total` and `groups` are the table report's own (`--by`), so the report
    /// and the table agree; `subtitle` says which ledger and which calls.
    pub fn view(mut self, total: &Totals, groups: &[Group], subtitle: String) -> View {
        while let Some(Reverse(queued)) = self.window.pop() {
            self.draw(queued.point, queued.time);
        }
        let mut start = 1u64;
        let points: Vec<Point> = self
            .points
            .into_iter()
            .zip(self.times)
            .map(|(mut p, time)| {
                let end = start + p.calls - 1;
                p.label = if p.calls == 1 {
                    format!("call {start} ({time})")
                } else {
                    format!("calls {start}–{end} (from {time})")
                };
                start = end + 1;
                p
            })
            .collect();
        let main = figures_table(
            "groups",
            &format!("By {}", self.by.as_str()),
            &key_label(self.by),
            groups
                .iter()
                .map(|g| (group_key(self.by, g), figures(&g.totals)))
                .collect(),
            MAX_GROUP_ROWS,
            Order::Given,
        );
        let mut tables = vec![main];
        for (summary, id, title, key) in [
            (self.models, "model", "Per model", "Model"),
            (self.sessions, "session", "Per session", "Session"),
        ] {
            if let Some(summary) = summary {
                let (_, groups) = summary.finish();
                let rows = groups
                    .iter()
                    .map(|g| (g.key.clone(), figures(&g.totals)))
                    .collect();
                tables.push(figures_table(id, title, key, rows, SIDE_ROWS, Order::Calls));
            }
        }
        let mut drifts: Vec<Drift> = self.drifts.into_iter().rev().collect();
        // Newest first by time (ties keep the ledger's order).
        drifts.sort_by(|a, b| b.time.cmp(&a.time));
        tables.push(drift_table(&drifts, self.drifts_seen, false));
        let totals = figures(total);
        View {
            title: "briefkit usage report".into(),
            subtitle,
            summary: summary(total),
            cards: cards(&totals),
            charts: vec![chart::input(&points), chart::share(&points)],
            tables,
        }
    }
}

/// A ledger group's figures as the dashboard shows them.
pub fn figures(t: &Totals) -> Figures {
    let priced = t.priced_calls > 0;
    Figures {
        calls: t.calls,
        failed: t.failed,
        input_tokens: t.input_tokens,
        cached_input_tokens: t.cached_input_tokens,
        cache_write_tokens: t.cache_write_tokens,
        output_tokens: t.output_tokens,
        cached_share: t.cached_share(),
        drifted: t.drifted,
        cost: priced.then(|| cost_figure(t.cost_units)),
        savings: priced
            .then(|| cost_figure(t.cost_without_cache_units.saturating_sub(t.cost_units))),
        first_seen: t.first_seen.clone(),
        last_seen: t.last_seen.clone(),
    }
}

/// The usage report's own sentence, and how many proxied calls drifted.
fn summary(t: &Totals) -> String {
    let mut text = t.sentence();
    if t.drift_compared > 0 {
        text.push_str(&format!(
            "; {} of {} proxied calls drifted from their session's previous call",
            thousands(t.drifted),
            thousands(t.drift_compared)
        ));
    }
    text
}

fn key_label(by: GroupBy) -> String {
    match by {
        GroupBy::Brief => "Brief",
        GroupBy::Model => "Model",
        GroupBy::Prefix => "Prefix (brief)",
        GroupBy::Session => "Session",
        GroupBy::Day => "Day (UTC)",
        GroupBy::Machine => "Machine",
    }
    .into()
}

fn group_key(by: GroupBy, g: &Group) -> String {
    match by {
        GroupBy::Prefix => {
            let hash = g.key.get(..12).unwrap_or(&g.key);
            if g.briefs.is_empty() {
                hash.to_string()
            } else {
                format!("{hash} ({})", g.briefs.join(", "))
            }
        }
        _ => g.key.clone(),
    }
}

/// `2026-11-30T09:05:01.250Z` as `2026-11-30 09:05:01`.
fn minute_second(time: &str) -> String {
    time.get(..19).unwrap_or(time).replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(i: usize, drift: bool) -> Entry {
        let mut e = Entry::new("proxy", "openai", "m");
        e.session = Some(format!("s{}", i % 3));
        e.input_tokens = Some(100);
        e.cached_input_tokens = Some(50);
        e.drifted_parts = Some(if drift { vec!["system".into()] } else { vec![] });
        e.drift_offset = drift.then_some(7);
        e
    }

    #[test]
    fn a_long_ledger_is_drawn_in_at_most_max_points_bars_covering_every_call() {
        let mut views = LedgerViews::new(GroupBy::Prefix);
        let n = MAX_POINTS * 5 + 3;
        let mut summary = Summary::new(GroupBy::Prefix);
        for i in 0..n {
            let e = call(i, i % 100 == 0);
            summary.add(&e, None);
            views.add(&e, None);
        }
        let (total, groups) = summary.finish();
        let calls: u64 =
            views.window.len() as u64 + views.points.iter().map(|p| p.calls).sum::<u64>();
        assert_eq!(calls, n as u64);
        let view = views.view(&total, &groups, "ledger".into());
        let bars = view.charts[0]
            .shapes
            .iter()
            .filter(|s| s.class == "hit")
            .count();
        assert!(bars <= MAX_POINTS && bars > MAX_POINTS / 2, "{bars}");
        let drift = view.tables.iter().find(|t| t.id == "drift").unwrap();
        assert_eq!(drift.rows.len(), n.div_ceil(100));
        assert_eq!(drift.rows[0][4], "byte 7");
        let session = view.tables.iter().find(|t| t.id == "session").unwrap();
        assert_eq!(session.rows.len(), 3);
    }

    #[test]
    fn calls_are_drawn_in_the_order_they_ended_not_the_order_they_were_written() {
        let mut views = LedgerViews::new(GroupBy::Model);
        for (ms, input) in [(3, 30), (1, 10), (2, 20), (4, 40)] {
            let mut e = call(0, false);
            e.time = crate::clock::format_rfc3339(1_700_000_000_000 + ms);
            e.input_tokens = Some(input);
            views.add(&e, None);
        }
        let (total, groups) = Summary::new(GroupBy::Model).finish();
        let view = views.view(&total, &groups, String::new());
        let tips: Vec<&str> = view.charts[0]
            .shapes
            .iter()
            .filter_map(|s| s.title.as_deref())
            .collect();
        let inputs: Vec<&str> = tips
            .iter()
            .map(|t| t.split(": ").nth(1).unwrap().split(' ').next().unwrap())
            .collect();
        assert_eq!(inputs, ["10", "20", "30", "40"], "{tips:?}");
    }

    #[test]
    fn the_drift_list_keeps_the_latest_and_counts_all() {
        let mut views = LedgerViews::new(GroupBy::Session);
        for i in 0..(MAX_DRIFTS + 7) {
            views.add(&call(i, true), None);
        }
        assert_eq!(views.drifts.len(), MAX_DRIFTS);
        assert_eq!(views.drifts_seen, MAX_DRIFTS as u64 + 7);
        assert!(views.sessions.is_none(), "--by session is the main table");
    }
}
