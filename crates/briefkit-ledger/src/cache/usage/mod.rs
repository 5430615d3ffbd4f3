//! The usage report, as one operation: read a ledger (a JSON-lines file, a line at a time,
//! or a fleet's ClickHouse table, summed by SQL in the server), keep the calls since a
//! time, group and price them, and return the typed [`UsageReport`] — plus, when asked,
//! the same figures as one HTML page (`cache::dashboard`).
//!
//! `brief usage` is this call and its rendering; a library user calling [`report`] gets the
//! document `brief usage --json` prints.

pub mod report;

pub use report::UsageReport;

use crate::cache::dashboard::html;
use crate::cache::dashboard::usage::LedgerViews;
use crate::cache::ledger::prices::PriceResolver;
use crate::cache::ledger::summary::{GroupBy, Summary};
use crate::cache::ledger::{self, Destination, clickhouse};
use crate::clock;
use crate::error::{Error, Result};
use crate::text::sanitize::terminal_line;

/// Prices per million tokens that override every brief's `pricing`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PriceOverrides {
    pub input: Option<f64>,
    pub cached: Option<f64>,
    pub output: Option<f64>,
}

/// What to report on.
#[derive(Debug, Clone)]
pub struct UsageRequest {
    pub ledger: Destination,
    /// Only calls at or after this time (ms since the epoch)…
    pub since_ms: Option<i64>,
    /// …as the caller wrote it, for the report to say.
    pub since: Option<String>,
    pub by: GroupBy,
    pub prices: PriceOverrides,
    /// Also draw the HTML page (from a ledger file only).
    pub page: bool,
}

/// Reads the ledger the request names and sums it.
///
/// A ledger file that does not exist yet holds no calls. Errors: an HTML page asked
/// of a ClickHouse ledger (input); ClickHouse unreachable or refusing (provider).
pub fn report(request: UsageRequest) -> Result<UsageReport> {
    let UsageRequest {
        ledger: destination,
        since_ms,
        since,
        by,
        prices,
        page,
    } = request;
    let mut resolver = PriceResolver::new(prices.input, prices.cached, prices.output);
    let mut views = None;
    let (summary, warnings) = match &destination {
        // No ledger yet is no calls yet: the first model call (probe, compress, the
        // proxy's) creates it.
        Destination::File(path) if std::fs::symlink_metadata(path).is_err() => {
            views = page.then(|| LedgerViews::new(by));
            (Summary::new(by), Vec::new())
        }
        Destination::File(path) => {
            // Summed as it is read, a line at a time: memory follows the groups, not the
            // ledger.
            let mut summary = Summary::new(by);
            let mut file_views = page.then(|| LedgerViews::new(by));
            let warnings = ledger::read_each(path, |entry| {
                if since_ms.is_none_or(|s| entry.time_ms().is_some_and(|t| t >= s)) {
                    let prices = resolver.prices(&entry);
                    summary.add(&entry, prices);
                    if let Some(views) = file_views.as_mut() {
                        views.add(&entry, prices);
                    }
                }
            })?;
            views = file_views;
            (summary, warnings)
        }
        Destination::ClickHouse(target) => {
            if page {
                return Err(Error::input(
                    "the HTML report is drawn from a ledger file; a ClickHouse ledger gives the report as text or JSON",
                ));
            }
            // Summed by SQL in the server; one row per group and price comes back.
            let client = clickhouse::http::Client::new(target).map_err(|f| f.into_error())?;
            let found = clickhouse::usage::summarise(&client, by, since_ms, |p, m, d, row| {
                resolver.prices_for(p, m, d, row)
            })?;
            let mut warnings = Vec::new();
            if found.implausible > 0 {
                warnings.push(ledger::Warning {
                    line: 0,
                    torn: false,
                    message: format!(
                        "{} skipped: cached or cache-written tokens above all input, or \
                         more tokens than any call takes",
                        crate::numbers::count(found.implausible as u64, "row", "rows")
                    ),
                });
            }
            (found.summary, warnings)
        }
    };
    let (total, groups) = summary.finish();
    let mut report = UsageReport {
        ledger: destination.display(),
        since,
        by,
        total,
        groups,
        warnings,
        page: None,
    };
    if let Some(views) = views {
        report.page = Some(draw_page(&report, views));
    }
    Ok(report)
}

/// The report as one HTML page, from the same sums as the table.
fn draw_page(report: &UsageReport, views: LedgerViews) -> String {
    let mut subtitle = format!("Ledger {}", report.ledger);
    if let Some(since) = &report.since {
        subtitle.push_str(&format!(" · since {since}"));
    }
    subtitle.push_str(&format!(" · by {}", report.by.as_str()));
    let skipped = report.warnings.len();
    if skipped > 0 {
        subtitle.push_str(&format!(
            " · {} skipped",
            crate::numbers::count(skipped as u64, "unreadable line", "unreadable lines")
        ));
    }
    let view = views.view(&report.total, &report.groups, terminal_line(&subtitle));
    let footer = format!(
        "briefkit {} · written {} by brief usage --html",
        env!("CARGO_PKG_VERSION"),
        clock::format_rfc3339(clock::now_ms())
    );
    html::page(&view, html::Mode::File, &footer)
}
