//! `brief usage`: what the ledger says the provider actually did with the prefix.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cache::dashboard::html;
use crate::cache::dashboard::usage::LedgerViews;
use crate::cache::ledger::prices::PriceResolver;
use crate::cache::ledger::summary::{Group, GroupBy, Summary, Totals};
use crate::cache::ledger::{self, Destination, clickhouse};
use crate::ccr::thousands;
use crate::cli::output::{self, Outcome};
use crate::cli::shared_args::LedgerArgs;
use crate::cli::ui::{Tone, Ui};
use crate::clock;
use crate::error::{Error, Result};
use crate::text::sanitize::terminal_line;

/// Summarise the usage ledger: calls, input, cached share, cache writes, cost and savings
///
/// Reads the JSON-lines ledger that every model call appends to. The cached share is cached
/// input over all input, among calls whose answer reported a cached-token field. Cost and
/// savings are estimated where prices are known: the `--price-*` flags, else the `pricing`
/// of the brief each call was made for (when its `model` is the one called); a missing
/// cached or cache-write price is taken from the provider's known multipliers.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// Only calls at or after this time: YYYY-MM-DD (UTC) or an RFC 3339 date-time
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Group the calls by brief, model, prefix hash, agent session (`brief proxy`), UTC day or
    /// machine (the rows' `host`)
    #[arg(long, value_enum, default_value_t = By::Prefix)]
    pub by: By,
    /// Input price per million tokens (overrides the brief's pricing)
    #[arg(long, value_name = "PRICE")]
    pub price_input: Option<f64>,
    /// Cached input price per million tokens
    #[arg(long, value_name = "PRICE")]
    pub price_cached: Option<f64>,
    /// Output price per million tokens
    #[arg(long, value_name = "PRICE")]
    pub price_output: Option<f64>,
    /// Print one JSON object instead of the table
    #[arg(long)]
    pub json: bool,
    /// Also write the report as one self-contained HTML page that opens from disk: totals,
    /// the --by table, per model and per session, input and cached share over time, drift
    /// events (`-`: the page on stdout instead of the table)
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    Brief,
    Model,
    Prefix,
    Session,
    Day,
    Machine,
}

impl From<By> for GroupBy {
    fn from(by: By) -> GroupBy {
        match by {
            By::Brief => GroupBy::Brief,
            By::Model => GroupBy::Model,
            By::Prefix => GroupBy::Prefix,
            By::Session => GroupBy::Session,
            By::Day => GroupBy::Day,
            By::Machine => GroupBy::Machine,
        }
    }
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let since = match &args.since {
        Some(text) => Some(clock::parse(text).ok_or_else(|| {
            Error::input(format!("--since: `{text}` is not a date"))
                .with_hint("use YYYY-MM-DD (UTC) or an RFC 3339 time like 2026-11-30T09:00:00Z")
        })?),
        None => None,
    };
    crate::cli::shared_args::check_prices(&[
        ("--price-input", args.price_input),
        ("--price-cached", args.price_cached),
        ("--price-output", args.price_output),
    ])?;
    let html_to_stdout = args.html.as_deref() == Some(Path::new("-"));
    if html_to_stdout && args.json {
        return Err(Error::input(
            "--html - and --json both write to stdout; give --html a file name",
        ));
    }
    let destination = args.ledger.destination()?;
    let mut resolver = PriceResolver::new(args.price_input, args.price_cached, args.price_output);
    if args.html.is_some() && matches!(destination, Destination::ClickHouse(_)) {
        return Err(Error::input(
            "--html draws the report from a ledger file; a ClickHouse ledger gives the report as text or --json",
        )
        .with_hint("to look at a fleet's rows call by call, export them to a file first (e.g. clickhouse-client --query \"SELECT * FROM db.table FINAL FORMAT JSONEachRow\")"));
    }
    let mut views = None;
    let (summary, warnings) = match &destination {
        Destination::File(path) => {
            if !path.exists() {
                return Err(Error::input(format!("no ledger at {}", path.display())).with_hint(
                    "model calls (`brief probe`, `brief compress`) write it; or pass --ledger PATH or set BRIEF_LEDGER",
                ));
            }
            // Summed as it is read, a line at a time: memory follows the groups, not the
            // ledger.
            let mut summary = Summary::new(args.by.into());
            let mut file_views = args.html.as_ref().map(|_| LedgerViews::new(args.by.into()));
            let warnings = ledger::read_each(path, |entry| {
                if since.is_none_or(|s| entry.time_ms().is_some_and(|t| t >= s)) {
                    let prices = resolver.prices(&entry);
                    summary.add(&entry, prices);
                    if let Some(views) = file_views.as_mut() {
                        views.add(&entry, prices);
                    }
                }
            })?;
            views = file_views;
            for warning in &warnings {
                ui.warn(&format!(
                    "{}:{}: {}",
                    path.display(),
                    warning.line,
                    warning.message
                ));
            }
            (summary, warnings)
        }
        Destination::ClickHouse(target) => {
            // Summed by SQL in the server; one row per group and price comes back.
            let client = clickhouse::http::Client::new(target).map_err(|f| f.into_error())?;
            let found = clickhouse::usage::summarise(&client, args.by.into(), since, |p, m, d| {
                resolver.prices_for(p, m, d)
            })?;
            let mut warnings = Vec::new();
            if found.implausible > 0 {
                let warning = ledger::Warning {
                    line: 0,
                    torn: false,
                    message: format!(
                        "{} row(s) skipped: cached or cache-written tokens above all input, or \
                         more tokens than any call takes",
                        found.implausible
                    ),
                };
                ui.warn(&format!("{}: {}", target.display(), warning.message));
                warnings.push(warning);
            }
            (found.summary, warnings)
        }
    };
    let (total, groups) = summary.finish();
    let label = destination.display();
    let report = Report {
        ledger: &label,
        since: args.since.as_deref(),
        by: args.by.into(),
        total: &total,
        groups: &groups,
    };
    if let (Some(file), Some(views)) = (&args.html, views) {
        let page = report.page(views, warnings.len());
        if html_to_stdout {
            ui.out(&page)?;
            return Ok(Outcome::Ok);
        }
        crate::files::write_atomic(file, page.as_bytes())?;
        ui.info(&format!(
            "brief usage: wrote the report to {} ({} KiB); open it in a browser",
            file.display(),
            page.len().div_ceil(1024)
        ));
    }
    if args.json {
        let status = if warnings.is_empty() { "ok" } else { "warning" };
        output::json(ui, status, &report.summary(), &report.json(&warnings))?;
    } else {
        ui.out(&report.human(ui))?;
    }
    Ok(Outcome::Ok)
}

struct Report<'a> {
    /// The file's path or the table's URL (without its password).
    ledger: &'a str,
    since: Option<&'a str>,
    by: GroupBy,
    total: &'a Totals,
    groups: &'a [Group],
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
    cache_write_tokens: u64,
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
            cost: priced.then(|| round(t.cost(), 6)),
            savings: priced.then(|| round(t.savings(), 6)),
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
        use serde::ser::SerializeMap;
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

#[derive(Serialize)]
struct WarningJson<'a> {
    line: usize,
    torn: bool,
    message: &'a str,
}

/// `usage --json`, after `status` and `summary`.
#[derive(Serialize)]
struct ReportJson<'a> {
    ledger: String,
    since: Option<&'a str>,
    by: &'static str,
    total: TotalsJson<'a>,
    groups: Vec<GroupJson<'a>>,
    warnings: Vec<WarningJson<'a>>,
}

fn share(t: &Totals) -> String {
    t.cached_share()
        .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0))
}

/// `2026-11-30T09:05:01.250Z` as `2026-11-30 09:05`.
fn minute(time: Option<&String>) -> String {
    time.map_or_else(String::new, |t| {
        t.get(..16).unwrap_or(t).replacen('T', " ", 1)
    })
}

impl<'a> Report<'a> {
    /// The report as one HTML page (`cache::dashboard`), from the same sums as the table.
    fn page(&self, views: LedgerViews, skipped: usize) -> String {
        let mut subtitle = format!("Ledger {}", self.ledger);
        if let Some(since) = self.since {
            subtitle.push_str(&format!(" · since {since}"));
        }
        subtitle.push_str(&format!(" · by {}", self.by.as_str()));
        if skipped > 0 {
            subtitle.push_str(&format!(" · {skipped} unreadable line(s) skipped"));
        }
        let view = views.view(self.total, self.groups, terminal_line(&subtitle));
        let footer = format!(
            "briefkit {} · written {} by brief usage --html",
            env!("CARGO_PKG_VERSION"),
            clock::format_rfc3339(clock::now_ms())
        );
        html::page(&view, html::Mode::File, &footer)
    }

    fn summary(&self) -> String {
        let t = self.total;
        let mut text = format!("{} call{}", t.calls, if t.calls == 1 { "" } else { "s" });
        match t.cached_share() {
            Some(s) => text.push_str(&format!(", {:.1}% of input served from cache", s * 100.0)),
            None if t.calls > 0 => text.push_str(", no cached-token figures reported"),
            None => {}
        }
        if t.priced_calls > 0 {
            text.push_str(&format!(
                ", estimated cost {:.4}, saved {:.4}",
                t.cost(),
                t.savings()
            ));
        }
        text
    }

    fn json(&self, warnings: &'a [ledger::Warning]) -> ReportJson<'a> {
        ReportJson {
            ledger: self.ledger.to_string(),
            since: self.since,
            by: self.by.as_str(),
            total: TotalsJson::new(self.total),
            groups: self
                .groups
                .iter()
                .map(|g| GroupJson {
                    key: &g.key,
                    briefs: (self.by == GroupBy::Prefix).then_some(g.briefs.as_slice()),
                    totals: TotalsJson::new(&g.totals),
                })
                .collect(),
            warnings: warnings
                .iter()
                .map(|w| WarningJson {
                    line: w.line,
                    torn: w.torn,
                    message: &w.message,
                })
                .collect(),
        }
    }

    fn human(&self, ui: &Ui) -> String {
        let t = self.total;
        let mut out = String::new();
        let since = self
            .since
            .map(|s| format!(" since {s}"))
            .unwrap_or_default();
        out.push_str(&ui.paint(
            &format!("Ledger {}{since}: {}", self.ledger, self.summary()),
            Tone::Strong,
        ));
        out.push('\n');
        if t.calls == 0 {
            return out;
        }
        out.push_str(&format!(
            "Input {} tokens, cached {} ({}), cache writes {}, output {}; {} failed",
            thousands(t.input_tokens),
            thousands(t.cached_input_tokens),
            share(t),
            thousands(t.cache_write_tokens),
            thousands(t.output_tokens),
            t.failed
        ));
        out.push('\n');
        if t.calls_without_cache_field > 0 {
            out.push_str(&format!(
                "{} call(s) had no cached-token field in the answer; they are not in the share\n",
                t.calls_without_cache_field
            ));
        }
        if t.drift_compared > 0 {
            let parts: Vec<String> = t
                .drifted_parts
                .iter()
                .map(|(part, n)| format!("{part} {n}"))
                .collect();
            let parts = if parts.is_empty() {
                String::new()
            } else {
                format!(" ({})", parts.join(", "))
            };
            out.push_str(&format!(
                "Prefix drift: {} of {} proxied call(s) differed from their session's previous \
                 call{parts}\n",
                t.drifted, t.drift_compared
            ));
        }
        if t.priced_calls > 0 && t.priced_calls < t.calls_with_usage {
            out.push_str(&format!(
                "Cost covers {} of {} calls with usage (no prices for the rest)\n",
                t.priced_calls, t.calls_with_usage
            ));
        }
        out.push('\n');
        // Keys and brief names came from clients (through the proxy) and from ledger
        // lines: what a terminal shows of them goes through the one sanitiser.
        let keys: Vec<String> = self
            .groups
            .iter()
            .map(|g| match self.by {
                GroupBy::Prefix => terminal_line(g.key.get(..12).unwrap_or(&g.key)),
                _ => terminal_line(&g.key),
            })
            .collect();
        let key_width = match self.by {
            GroupBy::Prefix => 12,
            _ => keys
                .iter()
                .map(|k| k.chars().count())
                .max()
                .unwrap_or(4)
                .clamp(5, 40),
        };
        let by = self.by.as_str().to_uppercase();
        let brief_col = |text: &str| {
            if self.by == GroupBy::Prefix {
                format!(" {text:<12}")
            } else {
                String::new()
            }
        };
        // Only ledgers with proxied calls have drift to show.
        let drift_col = |text: &str| {
            if t.drift_compared > 0 {
                format!(" {text:>7}")
            } else {
                String::new()
            }
        };
        let header = format!(
            "{by:<key_width$}{} {:>6} {:>10} {:>10} {:>6} {:>10}{} {:>8} {:>9} {:>9}  {:<16}  {:<16}",
            brief_col("BRIEF"),
            "CALLS",
            "INPUT",
            "CACHED",
            "SHARE",
            "WRITES",
            drift_col("DRIFTED"),
            "OUTPUT",
            "COST",
            "SAVED",
            "FIRST SEEN",
            "LAST SEEN"
        );
        out.push_str(&ui.paint(header.trim_end(), Tone::Dim));
        out.push('\n');
        for (g, key) in self.groups.iter().zip(&keys) {
            let gt = &g.totals;
            let money = |v: f64| {
                if gt.priced_calls > 0 {
                    format!("{v:.4}")
                } else {
                    "-".to_string()
                }
            };
            let line = format!(
                "{key:<key_width$}{} {:>6} {:>10} {:>10} {:>6} {:>10}{} {:>8} {:>9} {:>9}  {:<16}  {:<16}",
                brief_col(&terminal_line(&g.briefs.join(","))),
                gt.calls,
                thousands(gt.input_tokens),
                thousands(gt.cached_input_tokens),
                share(gt),
                thousands(gt.cache_write_tokens),
                drift_col(&gt.drifted.to_string()),
                thousands(gt.output_tokens),
                money(gt.cost()),
                money(gt.savings()),
                minute(gt.first_seen.as_ref()),
                minute(gt.last_seen.as_ref())
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}
