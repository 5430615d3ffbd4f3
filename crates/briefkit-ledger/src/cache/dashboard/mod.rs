//! The cache, seen: one page of figures — totals, per model, per session, input and cached
//! share call by call, every drift and where it was — for the proxy's live dashboard and
//! for `brief usage --html` alike.
//!
//! Both build a [`View`] (what the page says, already worded: cells are the strings shown)
//! and [`html::page`] renders it, so a figure reads the same live and in a report. The
//! proxy also sends the [`View`] as JSON for its page's script to repaint, which is why the
//! view holds charts as plain shapes ([`chart`]): one renderer, on the server, for the first
//! paint, the repaint and a page read with scripts off.
//!
//! Everything in a view that a client chose — model and session names, the excerpts of a
//! drift, the ledger's paths — is text: [`html`] escapes it, and the script only ever sets
//! `textContent` and whitelisted numeric attributes.

pub mod chart;
pub mod html;
pub mod usage;

use serde::Serialize;

use crate::numbers::thousands;
use crate::text::sanitize::terminal_line;

/// One page.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct View {
    pub title: String,
    /// Where the figures come from (the proxy's address, the ledger and its filters).
    pub subtitle: String,
    /// The whole in one sentence.
    pub summary: String,
    pub cards: Vec<Card>,
    pub charts: Vec<chart::Chart>,
    pub tables: Vec<Table>,
}

/// A headline figure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Card {
    pub id: String,
    pub label: String,
    pub value: String,
    pub note: String,
}

/// How a column's cells are shown.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Text,
    /// Right-aligned figures.
    Number,
    /// Bytes of a request, in a fixed-width font.
    Code,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Column {
    pub label: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Table {
    pub id: String,
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    /// Shown instead of the rows when there are none.
    pub empty: String,
    /// Under the table (e.g. how many rows were left out).
    pub note: String,
}

/// One group's figures, whichever source summed them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub calls: u64,
    pub failed: u64,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    pub cache_write_tokens: u64,
    pub output_tokens: u64,
    /// Cached over input among the calls that reported a cached field.
    pub cached_share: Option<f64>,
    pub drifted: u64,
    pub cost: Option<f64>,
    pub savings: Option<f64>,
    /// When the group's first and last calls were made (a ledger knows; the proxy's
    /// running figures do not).
    pub first_seen: Option<String>,
    pub last_seen: Option<String>,
}

/// The order of a table's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Most calls first.
    Calls,
    /// As given (a report's groups come in order of first appearance in time).
    Given,
}

/// One drift, whichever source saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    pub time: String,
    pub session: String,
    pub model: String,
    /// Every part that drifted.
    pub parts: Vec<String>,
    /// The first of them, where the offset and excerpts are taken.
    pub part: String,
    pub offset: Option<u64>,
    pub previous: Option<String>,
    pub current: Option<String>,
    /// Why there is no offset or excerpt, when there is none.
    pub missing: Option<String>,
}

/// A share as shown: `42.7%`, `-` when unknown.
pub fn share(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0))
}

/// Money as shown: four decimals, `-` when unknown.
pub fn money(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"))
}

/// The headline cards for `total`.
pub fn cards(total: &Figures) -> Vec<Card> {
    let card = |id: &str, label: &str, value: String, note: String| Card {
        id: id.into(),
        label: label.into(),
        value,
        note,
    };
    vec![
        card(
            "calls",
            "Calls",
            thousands(total.calls),
            format!("{} failed", thousands(total.failed)),
        ),
        card(
            "input",
            "Input tokens",
            thousands(total.input_tokens),
            format!("{} output", thousands(total.output_tokens)),
        ),
        card(
            "cached-share",
            "Cached share",
            share(total.cached_share),
            format!("{} cached tokens", thousands(total.cached_input_tokens)),
        ),
        card(
            "cache-writes",
            "Cache writes",
            thousands(total.cache_write_tokens),
            "tokens written to the cache".into(),
        ),
        card(
            "drifted",
            "Drifted calls",
            thousands(total.drifted),
            "prefix differed from the session's previous call".into(),
        ),
        card(
            "cost",
            "Cost",
            money(total.cost),
            match total.savings {
                Some(saved) => format!("saved {saved:.4}"),
                None => "no prices known".into(),
            },
        ),
    ]
}

/// Rows as shown: every cell through the one sanitiser (control characters gone,
/// bidirectional controls shown as `<U+202E>`, whitespace folded), so no cell reorders or
/// hides what is around it.
fn cells(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.into_iter()
        .map(|row| row.iter().map(|cell| terminal_line(cell)).collect())
        .collect()
}

fn column(label: &str, kind: Kind) -> Column {
    Column {
        label: label.into(),
        kind,
    }
}

/// A table of figures per group (`key` names the group column), at most `limit` rows in
/// `order`; the note says how many were left out.
pub fn figures_table(
    id: &str,
    title: &str,
    key: &str,
    groups: Vec<(String, Figures)>,
    limit: usize,
    order: Order,
) -> Table {
    let total = groups.len();
    let mut groups = groups;
    if order == Order::Calls {
        groups.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then_with(|| a.0.cmp(&b.0)));
    }
    groups.truncate(limit);
    let dated = groups.iter().any(|(_, f)| f.first_seen.is_some());
    let minute = |time: &Option<String>| {
        time.as_deref()
            .map(|t| t.get(..16).unwrap_or(t).replacen('T', " ", 1))
            .unwrap_or_default()
    };
    let rows = groups
        .into_iter()
        .map(|(name, f)| {
            let mut row = vec![
                name,
                thousands(f.calls),
                thousands(f.input_tokens),
                thousands(f.cached_input_tokens),
                share(f.cached_share),
                thousands(f.cache_write_tokens),
                thousands(f.drifted),
                thousands(f.output_tokens),
                money(f.cost),
                money(f.savings),
            ];
            if dated {
                row.push(minute(&f.first_seen));
                row.push(minute(&f.last_seen));
            }
            row
        })
        .collect();
    let number = |label: &str| column(label, Kind::Number);
    let mut columns = vec![
        column(key, Kind::Text),
        number("Calls"),
        number("Input"),
        number("Cached"),
        number("Share"),
        number("Writes"),
        number("Drifted"),
        number("Output"),
        number("Cost"),
        number("Saved"),
    ];
    if dated {
        columns.push(column("First seen", Kind::Text));
        columns.push(column("Last seen", Kind::Text));
    }
    Table {
        id: id.into(),
        title: title.into(),
        columns,
        rows: cells(rows),
        empty: "No calls yet.".into(),
        note: if total > limit {
            format!(
                "The {} with the most calls of {}.",
                thousands(limit as u64),
                thousands(total as u64)
            )
        } else {
            String::new()
        },
    }
}

/// The drift events, newest first; `seen` counts all of them, shown or not. `excerpts`:
/// whether the source kept the bytes before and after (the proxy does, a ledger does not).
pub fn drift_table(events: &[Drift], seen: u64, excerpts: bool) -> Table {
    let rows = events
        .iter()
        .map(|d| {
            let parts = if d.parts.len() > 1 {
                format!("{} (also {})", d.part, d.parts[1..].join(", "))
            } else {
                d.part.clone()
            };
            let offset = match (d.offset, &d.missing) {
                (Some(offset), _) => format!("byte {}", thousands(offset)),
                (None, Some(why)) => format!("unknown: {why}"),
                (None, None) => "unknown".into(),
            };
            let mut row = vec![
                d.time.clone(),
                d.session.clone(),
                d.model.clone(),
                parts,
                offset,
            ];
            if excerpts {
                row.push(d.previous.clone().unwrap_or_default());
                row.push(d.current.clone().unwrap_or_default());
            }
            row
        })
        .collect();
    let shown = events.len() as u64;
    let mut columns = vec![
        column("Time", Kind::Text),
        column("Session", Kind::Text),
        column("Model", Kind::Text),
        column("Part", Kind::Text),
        column("First difference", Kind::Text),
    ];
    if excerpts {
        columns.push(column("Before", Kind::Code));
        columns.push(column("After", Kind::Code));
    }
    Table {
        id: "drift".into(),
        title: "Drift events".into(),
        columns,
        rows: cells(rows),
        empty: "No drift: every call's tools and system matched its session's previous call, \
                and conversations only grew."
            .into(),
        note: if seen > shown {
            format!(
                "The latest {} of {} drift events.",
                thousands(shown),
                thousands(seen)
            )
        } else {
            String::new()
        },
    }
}

/// A table of named values (a sink's state), in the order given.
pub fn pairs_table(id: &str, title: &str, pairs: Vec<(String, String)>) -> Table {
    Table {
        id: id.into(),
        title: title.into(),
        columns: vec![column("Field", Kind::Text), column("Value", Kind::Text)],
        rows: cells(pairs.into_iter().map(|(k, v)| vec![k, v]).collect()),
        empty: "Nothing reported.".into(),
        note: String::new(),
    }
}
