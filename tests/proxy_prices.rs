//! One price for one ledger (issue 33): the prices `brief proxy --price-*` was given travel
//! in every row, so `brief usage --json`, `usage --html`, the proxy's `/stats`, its
//! dashboard's figures and its page all show the same cost — driven by real calls over the
//! four wires (Chat Completions, Responses, Anthropic Messages, Gemini), streamed, through
//! the real proxy to an upstream on loopback. The models are ones the built-in list prices
//! differently from the flags: before the rows carried the prices, `usage` priced them at
//! the list price while the dashboard used the flags.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::common::brief;
use crate::common::proxy::{Proxy, Script, Upstream, send};
use crate::loopback::fixtures::{
    OPENAI_USAGE, anthropic_stream, gemini_stream, openai_stream, responses_stream,
};

/// Streams each wire's answer, with usage, whatever the request.
fn upstream_for_all() -> Upstream {
    Upstream::start(|request| {
        let path = request.path();
        let body = if path.starts_with("/v1/responses") {
            responses_stream("Booked for Tuesday.", true)
        } else if path.starts_with("/v1/messages") {
            anthropic_stream("Booked for Tuesday.", Some("end_turn"), true)
        } else if path.contains(":streamGenerateContent") {
            gemini_stream("Booked for Tuesday.", true)
        } else {
            openai_stream(
                "Booked for Tuesday.",
                Some("stop"),
                Some(OPENAI_USAGE),
                true,
            )
        };
        Script::sse(&body, 3, Duration::ZERO, true)
    })
}

/// One streamed call on each wire, to models the list prices (each differently).
fn calls(proxy: &Proxy) {
    let system = "You book visits for a small clinic. Keep answers short.";
    let user = "Can I come in on Tuesday?";
    let calls: [(&str, String, (&str, &str)); 4] = [
        (
            "/v1/chat/completions",
            format!(
                r#"{{"model":"gpt-4.1-mini","stream":true,"stream_options":{{"include_usage":true}},"messages":[{{"role":"system","content":"{system}"}},{{"role":"user","content":"{user}"}}]}}"#
            ),
            ("authorization", "Bearer sk-test-prices"),
        ),
        (
            "/v1/responses",
            format!(
                r#"{{"model":"gpt-5","stream":true,"instructions":"{system}","input":[{{"role":"user","content":"{user}"}}]}}"#
            ),
            ("authorization", "Bearer sk-test-prices"),
        ),
        (
            "/v1/messages",
            format!(
                r#"{{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"system":"{system}","messages":[{{"role":"user","content":"{user}"}}]}}"#
            ),
            ("x-api-key", "sk-ant-test-prices"),
        ),
        (
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            format!(
                r#"{{"systemInstruction":{{"parts":[{{"text":"{system}"}}]}},"contents":[{{"role":"user","parts":[{{"text":"{user}"}}]}}]}}"#
            ),
            ("x-goog-api-key", "AIzaSyPricesTestabcdefghijklmnopqrstu"),
        ),
    ];
    for (path, body, key) in &calls {
        let headers = [
            *key,
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
        ];
        let (status, _, answer) = send(&proxy.url, "POST", path, &headers, body.as_bytes());
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&answer));
    }
    let rows = proxy.wait_rows(calls.len());
    assert_eq!(rows.len(), calls.len(), "{rows:?}");
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row}");
        assert!(row["input_tokens"].as_u64().unwrap() > 0, "{row}");
    }
}

fn get_json(proxy: &Proxy, path: &str) -> Value {
    let text = proxy.get(path);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
}

/// The text of the card `cost` on a page, as drawn.
fn cost_card(html: &str) -> String {
    let marker = "id=\"card-cost-value\">";
    let at = html.find(marker).expect("the page has a cost card") + marker.len();
    html[at..].split('<').next().unwrap().to_string()
}

/// The `cost` card of the dashboard's figures (`/dashboard.json`).
fn view_cost(view: &Value) -> String {
    let card = view["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "cost")
        .unwrap_or_else(|| panic!("no cost card: {view}"));
    card["value"].as_str().unwrap().to_string()
}

/// `brief usage --json --by model` over `ledger` with `flags`, its HTML report written to
/// `page`.
fn usage(ledger: &Path, page: &Path, flags: &[&str]) -> Value {
    let out = brief()
        .args(["usage", "--json", "--by", "model"])
        .args(flags)
        .arg("--ledger")
        .arg(ledger)
        .arg("--html")
        .arg(page)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A row's cost at the given prices per million tokens, in the currency.
fn row_cost(row: &Value, input: f64, cached: f64, output: f64) -> f64 {
    let n = |key: &str| row[key].as_u64().unwrap_or(0) as f64;
    let plain = n("input_tokens") - n("cached_input_tokens") - n("cache_write_tokens");
    assert_eq!(n("cache_write_tokens"), 0.0, "{row}");
    (plain * input + n("cached_input_tokens") * cached + n("output_tokens") * output) / 1e6
}

/// Runs the calls through a proxy started with `flags`; returns what every view says:
/// (rows, `/stats`, `/dashboard.json`'s cost card, the live page's cost card, `usage
/// --json`, the HTML report's cost card).
fn every_view(flags: &[&str]) -> (Vec<Value>, Value, String, String, Value, String) {
    let upstream = upstream_for_all();
    let mut proxy = Proxy::start(&upstream.url, flags);
    calls(&proxy);
    let stats = get_json(&proxy, "/stats");
    let dashboard = view_cost(&get_json(&proxy, "/dashboard.json"));
    let live = cost_card(&proxy.get("/"));
    let rows = proxy.rows();
    let (status, stderr) = proxy.stop();
    assert!(status.success(), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let report = usage(&proxy.ledger, &page, &[]);
    let html = cost_card(&std::fs::read_to_string(&page).unwrap());
    (rows, stats, dashboard, live, report, html)
}

#[test]
fn proxy_price_flags_reach_usage_stats_the_dashboard_and_the_html_report_as_one_cost() {
    let (rows, stats, dashboard, live, report, html) = every_view(&[
        "--price-input",
        "2.5",
        "--price-cached",
        "0.25",
        "--price-output",
        "10",
    ]);
    // Every row carries the prices it was metered at.
    for row in &rows {
        assert_eq!(row["price_input_per_mtok"], 2.5, "{row}");
        assert_eq!(row["price_cached_per_mtok"], 0.25, "{row}");
        assert_eq!(row["price_output_per_mtok"], 10.0, "{row}");
    }
    let expected: f64 = rows.iter().map(|r| row_cost(r, 2.5, 0.25, 10.0)).sum();
    let total = &report["total"];
    let cost = total["cost"].as_f64().unwrap();
    assert!(
        (cost - expected).abs() < 1e-6,
        "usage {cost}, by hand {expected}"
    );
    assert_eq!(total["priced_calls"], 4, "{report}");
    // One figure, not two that agree roughly: the same number in /stats and usage --json.
    assert_eq!(stats["totals"]["cost"], total["cost"], "{stats}");
    assert_eq!(stats["totals"]["savings"], total["savings"], "{stats}");
    assert_eq!(stats["totals"]["priced_calls"], 4);
    // Per model as well.
    for group in report["groups"].as_array().unwrap() {
        let key = group["key"].as_str().unwrap();
        let model = key.split_once('/').unwrap().1;
        let figures = &stats["per_model"][model];
        assert_eq!(figures["cost"], group["cost"], "{key}: {stats}");
        assert_eq!(figures["savings"], group["savings"], "{key}: {stats}");
    }
    // The pages show it as they show money: four decimals, the same on each.
    let shown = format!("{cost:.4}");
    assert_eq!(dashboard, shown);
    assert_eq!(live, shown);
    assert_eq!(html, shown);
}

#[test]
fn usage_price_flags_still_win_over_the_prices_a_row_carries() {
    let upstream = upstream_for_all();
    let mut proxy = Proxy::start(&upstream.url, &["--price-input", "2.5"]);
    calls(&proxy);
    let rows = proxy.rows();
    proxy.stop();
    let dir = tempfile::tempdir().unwrap();
    let report = usage(
        &proxy.ledger,
        &dir.path().join("report.html"),
        &[
            "--price-input",
            "1",
            "--price-cached",
            "0.5",
            "--price-output",
            "2",
        ],
    );
    let expected: f64 = rows.iter().map(|r| row_cost(r, 1.0, 0.5, 2.0)).sum();
    let cost = report["total"]["cost"].as_f64().unwrap();
    assert!((cost - expected).abs() < 1e-6, "{cost} {expected}");
}

#[test]
fn a_proxy_without_price_flags_and_usage_price_listed_models_alike() {
    let (rows, stats, dashboard, live, report, html) = every_view(&[]);
    for row in &rows {
        assert_eq!(row["price_input_per_mtok"], Value::Null, "{row}");
        assert_eq!(row["price_output_per_mtok"], Value::Null, "{row}");
    }
    let total = &report["total"];
    // Every model is on the built-in list, so every call is priced, at the list price.
    assert_eq!(total["priced_calls"], 4, "{report}");
    assert_eq!(stats["totals"]["cost"], total["cost"], "{stats}");
    assert_eq!(stats["totals"]["savings"], total["savings"], "{stats}");
    let shown = format!("{:.4}", total["cost"].as_f64().unwrap());
    assert_eq!(dashboard, shown);
    assert_eq!(live, shown);
    assert_eq!(html, shown);
}
