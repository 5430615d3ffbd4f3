//! `brief usage`: what the ledger says the provider actually did with the prefix. The
//! arguments, one call to `cache::usage::report`, and the report's human form (the one
//! table helper, columns as wide as their widest cell).

use std::path::{Path, PathBuf};

use crate::cache::ledger::summary::{GroupBy, Totals};
use crate::cache::usage::{self, PriceOverrides, UsageReport, UsageRequest};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::LedgerArgs;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::clock;
use crate::error::{Error, Result};
use crate::numbers::thousands;
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
    let since_ms = match &args.since {
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
    let ledger = args.ledger.destination()?;
    if args.html.is_some() && ledger.file().is_none() {
        return Err(Error::input(
            "--html draws the report from a ledger file; a ClickHouse ledger gives the report as text or --json",
        )
        .with_hint("to look at a fleet's rows call by call, export them to a file first (e.g. clickhouse-client --query \"SELECT * FROM db.table FINAL FORMAT JSONEachRow\")"));
    }
    let report = usage::report(UsageRequest {
        ledger,
        since_ms,
        since: args.since.clone(),
        by: args.by.into(),
        prices: PriceOverrides {
            input: args.price_input,
            cached: args.price_cached,
            output: args.price_output,
        },
        page: args.html.is_some(),
    })?;
    if let (Some(file), Some(page)) = (&args.html, &report.page) {
        if html_to_stdout {
            report.notes(ui);
            ui.out(page)?;
            return Ok(Outcome::Ok);
        }
        crate::files::write_atomic(file, page.as_bytes())?;
        ui.info(&format!(
            "brief usage: wrote the report to {} ({} KiB); open it in a browser",
            file.display(),
            page.len().div_ceil(1024)
        ));
    }
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for UsageReport {
    fn status(&self) -> &str {
        UsageReport::status(self)
    }

    fn summary(&self) -> String {
        UsageReport::summary(self)
    }

    /// Each skipped line, where it was.
    fn notes(&self, ui: &Ui) {
        for warning in &self.warnings {
            if warning.line > 0 {
                ui.warn(&format!(
                    "{}:{}: {}",
                    self.ledger, warning.line, warning.message
                ));
            } else {
                ui.warn(&format!("{}: {}", self.ledger, warning.message));
            }
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&human(self, ui))
    }
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

fn human(report: &UsageReport, ui: &Ui) -> String {
    let t = &report.total;
    let mut out = String::new();
    let since = report
        .since
        .as_deref()
        .map(|s| format!(" since {s}"))
        .unwrap_or_default();
    out.push_str(&ui.paint(
        &format!("Ledger {}{since}: {}", report.ledger, report.summary()),
        Tone::Strong,
    ));
    out.push('\n');
    if t.calls == 0 {
        return out;
    }
    out.push_str(&format!(
        "Input {} tokens, cached {} ({}), cache writes {}, output {}; {} failed\n",
        thousands(t.input_tokens),
        thousands(t.cached_input_tokens),
        share(t),
        crate::numbers::thousands_known(t.cache_write_tokens),
        thousands(t.output_tokens),
        t.failed
    ));
    if t.calls_without_cache_field > 0 {
        out.push_str(&format!(
            "{} no cached-token field in the answer; {} not in the share\n",
            crate::numbers::count(t.calls_without_cache_field, "call had", "calls had"),
            crate::numbers::noun(t.calls_without_cache_field, "it is", "they are")
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
            "Prefix drift: {} of {} {} from their session's previous call{parts}\n",
            t.drifted,
            t.drift_compared,
            crate::numbers::noun(
                t.drift_compared,
                "proxied call differed",
                "proxied calls differed"
            )
        ));
    }
    if t.priced_calls > 0 && t.priced_calls < t.calls_with_usage {
        out.push_str(&format!(
            "Cost covers {} of {} with usage (no prices for the rest)\n",
            t.priced_calls,
            crate::numbers::count(t.calls_with_usage, "call", "calls")
        ));
    }
    out.push('\n');
    out.push_str(&table(report).render_header_with(|line| ui.paint(line, Tone::Dim)));
    out
}

/// The groups' table: the brief column for prefix groups only, the drift column only for
/// ledgers with proxied calls.
fn table(report: &UsageReport) -> Table {
    use Align::{Left, Right};
    let by_prefix = report.by == GroupBy::Prefix;
    let drift = report.total.drift_compared > 0;
    let mut aligns = vec![Left];
    let mut header = vec![report.by.as_str().to_uppercase()];
    if by_prefix {
        aligns.push(Left);
        header.push("BRIEF".into());
    }
    for (title, align) in [
        ("CALLS", Right),
        ("INPUT", Right),
        ("CACHED", Right),
        ("SHARE", Right),
        ("WRITES", Right),
    ] {
        aligns.push(align);
        header.push(title.into());
    }
    if drift {
        aligns.push(Right);
        header.push("DRIFTED".into());
    }
    for (title, align) in [
        ("OUTPUT", Right),
        ("COST", Right),
        ("SAVED", Right),
        ("FIRST SEEN", Left),
        ("LAST SEEN", Left),
    ] {
        aligns.push(align);
        header.push(title.into());
    }
    let mut table = Table::new(&aligns).header(header);
    for g in &report.groups {
        let gt = &g.totals;
        let money = |v: f64| {
            if gt.priced_calls > 0 {
                format!("{v:.4}")
            } else {
                "-".to_string()
            }
        };
        // Keys and brief names came from clients (through the proxy) and from ledger
        // lines: what a terminal shows of them goes through the one sanitiser.
        let key = if by_prefix {
            g.key.get(..12).unwrap_or(&g.key)
        } else {
            &g.key
        };
        let mut row = vec![terminal_line(key)];
        if by_prefix {
            row.push(terminal_line(&g.briefs.join(",")));
        }
        row.extend([
            gt.calls.to_string(),
            thousands(gt.input_tokens),
            thousands(gt.cached_input_tokens),
            share(gt),
            crate::numbers::thousands_known(gt.cache_write_tokens),
        ]);
        if drift {
            row.push(gt.drifted.to_string());
        }
        row.extend([
            thousands(gt.output_tokens),
            money(gt.cost()),
            money(gt.savings()),
            minute(gt.first_seen.as_ref()),
            minute(gt.last_seen.as_ref()),
        ]);
        table.row(row);
    }
    table
}
