//! `brief usage` over a ClickHouse table: the same totals as over a file, summed by SQL in
//! the server — one row comes back per group and price (provider, model, brief directory),
//! never one per call.
//!
//! Every query reads the table `FINAL`, so a row that reached the table twice counts once,
//! and leaves out the rows a file's reader would skip (figures no provider reports), which
//! it counts for the warning. Prices are resolved here as for a file (flags, the brief's
//! `pricing`, the provider's multipliers) and applied to each group's sums: the cost of a
//! call is linear in its tokens and summed in exact integer units, so the sum of costs is
//! the cost of the sums, to the last digit.

use serde::Deserialize;

use super::http::Client;
use crate::cache::ledger::prices::RowPrices;
use crate::cache::ledger::summary::{GroupBy, Prices, Summary, Totals};
use crate::error::Result;

/// A string literal's inside for SQL: backslash and quote escaped.
pub fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

/// The time of a row in milliseconds.
const MS: &str = "(toUInt64(time) * 1000 + time_millis)";

/// The biggest figure a ledger reader accepts in a row (see `implausible`).
use crate::wire::MAX_TOKENS;

fn key_sql(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Brief => "ifNull(brief, '(none)')",
        GroupBy::Model => "concat(provider, '/', model)",
        GroupBy::Prefix => "ifNull(prefix_hash, '(none)')",
        GroupBy::Session => "ifNull(session, '(none)')",
        GroupBy::Day => "toString(toDate(time))",
        GroupBy::Machine => "ifNull(host, '(none)')",
    }
}

/// The rows a file's reader accepts (`ledger::implausible`): plausible token counts and
/// prices; `prices` are the table's price columns (or `NULL` where an older table has none).
fn plausible_sql(prices: &[String; 3]) -> String {
    let t = |c: &str| format!("ifNull({c}, 0)");
    let max_price = crate::brief::MAX_PRICE_PER_MTOK;
    let price = |c: &str| format!("(isNull({c}) OR ({c} >= 0 AND {c} <= {max_price}))");
    format!(
        "({i} <= {MAX_TOKENS} AND {c} <= {MAX_TOKENS} AND {w} <= {MAX_TOKENS} AND {o} <= {MAX_TOKENS} \
         AND {c} + {w} <= {i} AND {pi} AND {pc} AND {po})",
        i = t("input_tokens"),
        c = t("cached_input_tokens"),
        w = t("cache_write_tokens"),
        o = t("output_tokens"),
        pi = price(&prices[0]),
        pc = price(&prices[1]),
        po = price(&prices[2]),
    )
}

/// The row price columns as the table has them: a table made before rows carried prices
/// reads as if every row's were `null`.
fn price_columns(client: &Client) -> Result<[String; 3]> {
    let target = client.target();
    let have = client
        .select(&format!(
            "SELECT name FROM system.columns WHERE database = '{}' AND table = '{}' FORMAT TabSeparated",
            escape(&target.database),
            escape(&target.table)
        ))
        .map_err(|f| f.into_error())?;
    let column = |name: &str| {
        if have.lines().any(|l| l.trim() == name) {
            name.to_string()
        } else {
            "CAST(NULL AS Nullable(Float64))".to_string()
        }
    };
    Ok([
        column("price_input_per_mtok"),
        column("price_cached_per_mtok"),
        column("price_output_per_mtok"),
    ])
}

fn since_sql(since: Option<i64>) -> String {
    match since {
        Some(ms) => format!(
            "time >= toDateTime({}) AND {MS} >= {}",
            (ms.max(0) / 1000),
            ms.max(0)
        ),
        None => "1".to_string(),
    }
}

/// One group's sums for one price key.
#[derive(Deserialize)]
struct SumsRow {
    group_key: String,
    provider: String,
    model: String,
    price_dir: Option<String>,
    row_price_input: Option<f64>,
    row_price_cached: Option<f64>,
    row_price_output: Option<f64>,
    calls: u64,
    failed: u64,
    input_sum: u64,
    input_f: f64,
    cached_sum: u64,
    cached_f: f64,
    write_sum: u64,
    write_f: f64,
    /// Rows that reported cache writes (none: the sum is unknown, not 0).
    #[serde(default)]
    with_write: u64,
    output_sum: u64,
    output_f: f64,
    without_cache_field: u64,
    input_reporting: u64,
    input_reporting_f: f64,
    with_usage: u64,
    priced_cached: u64,
    priced_write: u64,
    /// Of `priced_write`, the tokens written for an hour (priced apart, as a file's are).
    priced_write_1h: u64,
    priced_output: u64,
    compared: u64,
    drifted: u64,
    first_ms: i64,
    last_ms: i64,
}

#[derive(Deserialize)]
struct BriefRow {
    group_key: String,
    brief_name: String,
}

#[derive(Deserialize)]
struct PartRow {
    group_key: String,
    part: String,
    n: u64,
}

fn lines<T: for<'de> Deserialize<'de>>(text: &str) -> Result<Vec<T>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).map_err(|e| {
                crate::error::Error::provider(format!(
                    "ClickHouse answered a usage query with a row we cannot read ({e}): {}",
                    crate::text::sanitize::one_line(line, 200)
                ))
            })
        })
        .collect()
}

/// A sum as the file's reader makes it: saturating at 2^64 - 1 (ClickHouse's own sum of
/// UInt64 wraps, so the float sum says when it went past).
fn saturated(sum: u64, float: f64) -> u64 {
    if float >= u64::MAX as f64 {
        u64::MAX
    } else {
        sum
    }
}

/// What the usage queries found.
pub struct Found {
    pub summary: Summary,
    /// Rows left out as a file's reader would skip them (figures no provider reports),
    /// counted over the whole table as a file's reader warns of every such line.
    pub implausible: u64,
}

/// Sums the table's rows at or after `since` (ms) by `by`, pricing each group and price
/// key with `prices(provider, model, brief_dir)`.
pub fn summarise(
    client: &Client,
    by: GroupBy,
    since: Option<i64>,
    mut prices: impl FnMut(&str, &str, Option<&str>, RowPrices) -> Option<Prices>,
) -> Result<Found> {
    let table = client.target().table_sql();
    let key = key_sql(by);
    let since = since_sql(since);
    let row_prices = price_columns(client)?;
    let plausible = plausible_sql(&row_prices);
    let filter = format!("{since} AND {plausible}");
    let run = |sql: String| client.select(&sql).map_err(|f| f.into_error());

    let implausible = run(format!(
        "SELECT count() FROM {table} FINAL WHERE NOT {plausible} FORMAT TabSeparated"
    ))?
    .trim()
    .parse::<u64>()
    .unwrap_or(0);

    let n = |c: &str| format!("ifNull({c}, 0)");
    let sums = run(format!(
        "SELECT {key} AS group_key, provider, model, \
         ifNull(brief_dir, target_brief_dir) AS price_dir, \
         {pi} AS row_price_input, {pc} AS row_price_cached, {po} AS row_price_output, \
         count() AS calls, countIf(status != 'ok') AS failed, \
         sum({i}) AS input_sum, sum(toFloat64({i})) AS input_f, \
         sum({c}) AS cached_sum, sum(toFloat64({c})) AS cached_f, \
         sum({w}) AS write_sum, sum(toFloat64({w})) AS write_f, \
         countIf(isNotNull(cache_write_tokens)) AS with_write, \
         sum({o}) AS output_sum, sum(toFloat64({o})) AS output_f, \
         countIf(isNull(cached_input_tokens) AND status = 'ok') AS without_cache_field, \
         sumIf({i}, isNotNull(cached_input_tokens)) AS input_reporting, \
         sumIf(toFloat64({i}), isNotNull(cached_input_tokens)) AS input_reporting_f, \
         countIf(isNotNull(input_tokens)) AS with_usage, \
         sumIf({c}, isNotNull(input_tokens)) AS priced_cached, \
         sumIf({w}, isNotNull(input_tokens)) AS priced_write, \
         sumIf(least({w1h}, {w}), isNotNull(input_tokens)) AS priced_write_1h, \
         sumIf({o}, isNotNull(input_tokens)) AS priced_output, \
         countIf(drift_compared = 1) AS compared, \
         countIf(drift_compared = 1 AND notEmpty(drifted_parts)) AS drifted, \
         toInt64(min({MS})) AS first_ms, toInt64(max({MS})) AS last_ms \
         FROM {table} FINAL WHERE {filter} \
         GROUP BY group_key, provider, model, price_dir, \
         row_price_input, row_price_cached, row_price_output FORMAT JSONEachRow",
        i = n("input_tokens"),
        c = n("cached_input_tokens"),
        w = n("cache_write_tokens"),
        w1h = n("cache_write_1h_tokens"),
        o = n("output_tokens"),
        pi = row_prices[0],
        pc = row_prices[1],
        po = row_prices[2],
    ))?;
    let mut summary = Summary::new(by);
    for row in lines::<SumsRow>(&sums)? {
        let mut totals = Totals {
            calls: row.calls,
            failed: row.failed,
            input_tokens: saturated(row.input_sum, row.input_f),
            cached_input_tokens: saturated(row.cached_sum, row.cached_f),
            cache_write_tokens: (row.with_write > 0).then(|| saturated(row.write_sum, row.write_f)),
            output_tokens: saturated(row.output_sum, row.output_f),
            calls_without_cache_field: row.without_cache_field,
            input_tokens_reporting: saturated(row.input_reporting, row.input_reporting_f),
            calls_with_usage: row.with_usage,
            drift_compared: row.compared,
            drifted: row.drifted,
            first_seen: Some(crate::clock::format_rfc3339(row.first_ms)),
            last_seen: Some(crate::clock::format_rfc3339(row.last_ms)),
            ..Totals::default()
        };
        if row.with_usage > 0
            && let Some(prices) = prices(
                &row.provider,
                &row.model,
                row.price_dir.as_deref(),
                RowPrices {
                    input: row.row_price_input,
                    cached: row.row_price_cached,
                    output: row.row_price_output,
                },
            )
        {
            let (with, without) = prices.cost_units(
                row.input_sum,
                row.priced_cached,
                row.priced_write,
                row.priced_write_1h,
                row.priced_output,
            );
            totals.priced_calls = row.with_usage;
            totals.cost_units = with;
            totals.cost_without_cache_units = without;
        }
        summary.add_totals(&row.group_key, &totals);
    }

    if by == GroupBy::Prefix {
        let briefs = run(format!(
            "SELECT {key} AS group_key, assumeNotNull(brief) AS brief_name, toInt64(min({MS})) AS first_ms \
             FROM {table} FINAL WHERE {filter} AND isNotNull(brief) \
             GROUP BY group_key, brief_name ORDER BY first_ms, brief_name FORMAT JSONEachRow"
        ))?;
        for row in lines::<BriefRow>(&briefs)? {
            summary.add_brief(&row.group_key, &row.brief_name);
        }
    }

    let parts = run(format!(
        // First seen by time, then by place in the row, as a file's reader meets them.
        "SELECT {key} AS group_key, part, count() AS n, min({MS} * 1000 + position) AS first_at \
         FROM {table} FINAL ARRAY JOIN drifted_parts AS part, arrayEnumerate(drifted_parts) AS position \
         WHERE {filter} AND drift_compared = 1 \
         GROUP BY group_key, part ORDER BY first_at, part FORMAT JSONEachRow"
    ))?;
    for row in lines::<PartRow>(&parts)? {
        summary.add_drifted_part(&row.group_key, &row.part, row.n);
    }
    Ok(Found {
        summary,
        implausible,
    })
}
