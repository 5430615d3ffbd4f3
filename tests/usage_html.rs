//! `brief usage --html`: the report a ledger becomes, opened from disk in a real browser
//! (headless Chromium, `common::browser`) and checked against `usage --json`; `--since`,
//! `--by`, `-` and bad input. The screenshot is kept under `target/`.

use serde_json::{Value, json};

use crate::common::brief;
use crate::common::browser::{artifact, shared};
use crate::common::traffic::*;
use crate::harness::assert_exit;

#[test]
fn a_usage_report_opens_from_disk_and_shows_what_usage_json_says() {
    let upstream = caching_upstream();
    let mut proxy = proxy_with_traffic(&upstream);
    proxy.stop();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    let out = brief()
        .args(["usage", "--by", "session", "--json", "--price-input", "3"])
        .arg("--ledger")
        .arg(&proxy.ledger)
        .arg("--html")
        .arg(&file)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let usage: Value = serde_json::from_slice(&out.stdout).unwrap();
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.len() < 300 * 1024);

    let mut browser = shared();
    browser.open(&format!("file://{}", file.display()));
    assert_eq!(browser.problems(), Vec::<String>::new());
    // Scripts could not run in it anyway: a report has none.
    assert_eq!(browser.eval("document.scripts.length"), json!(0));
    let total = &usage["total"];
    assert_eq!(number(&card(&mut browser, "calls")), CALLS);
    assert_eq!(number(&card(&mut browser, "drifted")), DRIFTED);
    assert_eq!(
        number(&card(&mut browser, "input")),
        total["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        card(&mut browser, "cached-share"),
        json!(percent(&total["cached_share"]))
    );
    assert_eq!(
        card(&mut browser, "cost"),
        json!(format!("{:.4}", total["cost"].as_f64().unwrap()))
    );
    // The --by table is usage's groups, in its order.
    let groups: serde_json::Map<String, Value> = usage["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), g.clone()))
        .collect();
    let rows = table(&mut browser, "groups");
    assert_rows_equal(&rows, &groups);
    let keys: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let order: Vec<&str> = groups.keys().map(String::as_str).collect();
    assert_eq!(keys, order);
    let models = table(&mut browser, "model");
    assert!(
        models
            .iter()
            .any(|r| r[0] == format!("openai/{HOSTILE_MODEL}")),
        "{models:?}"
    );
    // Every drift, at the offset the proxy wrote (align's): a ledger keeps no excerpts.
    assert_drifts_listed(&table(&mut browser, "drift"), &drifts());
    assert_no_injection(&mut browser, &[HOSTILE_MODEL, HOSTILE_SESSION]);
    let file_url = format!("file://{}", file.display());
    for url in browser.requests() {
        assert!(
            url == file_url || url.starts_with("data:"),
            "the report asked for {url}"
        );
    }
    browser.screenshot(&artifact("usage-report.png"));
    if std::env::var_os("BRIEF_UPDATE_DOCS").is_some() {
        std::fs::copy(artifact("usage-report.png"), docs_image("usage-report.png")).unwrap();
    }
}

#[test]
fn usage_html_honours_since_and_by_and_writes_nothing_on_bad_input() {
    let ledger = crate::common::fixtures().join("ledger/usage.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.html");
    let run = |args: &[&str]| {
        brief()
            .args(["usage", "--ledger"])
            .arg(&ledger)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--by", "day", "--html", file.to_str().unwrap()]);
    assert!(out.status.success());
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.contains("<h2>By day</h2>") && html.contains("2026-11-30"));
    let out = run(&["--since", "2999-01-01", "--html", file.to_str().unwrap()]);
    assert!(out.status.success());
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(
        html.contains("id=\"card-calls-value\">0<"),
        "no call is that recent"
    );
    assert!(html.contains("since 2999-01-01"));
    // `-` is the page on stdout, alone.
    let out = run(&["--html", "-"]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("<!doctype html>")
    );
    let out = run(&["--html", "-", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let missing = dir.path().join("no/such/dir/r.html");
    let out = run(&["--html", missing.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    assert!(!missing.exists());
}

/// A ledger is a file anyone can write: every string of a row is hostile.
fn hostile_row(time: &str, text: &str, drifted: bool) -> Value {
    json!({"time": time, "command": text, "provider": text, "model": text, "brief": text,
        "brief_dir": text, "item": text, "prefix_hash": text, "input_tokens": 1000,
        "cached_input_tokens": 600, "cache_write_tokens": 0, "output_tokens": 3,
        "latency_ms": 5, "attempts": 1, "status": text, "error": text, "session": text,
        "drifted_parts": if drifted { json!([text, "system"]) } else { json!(null) },
        "drift_offset": if drifted { json!(7) } else { json!(null) },
        "target_brief": text, "target_brief_dir": text})
}

#[test]
fn no_string_of_a_ledger_becomes_markup_in_a_report_whatever_it_is_grouped_by() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("usage.jsonl");
    let names = [
        "<img src=x onerror=alert(1)>",
        "\"><svg/onload=alert(2)>",
        "</td></tr></table><script>alert(3)</script>",
        "'><iframe src=//evil.example></iframe>",
        "<style>body{background:url(//evil.example/x)}</style>",
    ];
    let mut lines = String::new();
    for (i, name) in names.iter().enumerate() {
        for call in 0..2 {
            let time = format!("2026-11-30T09:0{i}:0{call}.000Z");
            lines.push_str(&hostile_row(&time, name, call == 1).to_string());
            lines.push('\n');
        }
    }
    std::fs::write(&ledger, lines).unwrap();
    let mut browser = shared();
    for by in ["brief", "model", "prefix", "session", "day"] {
        let file = dir.path().join(format!("by-{by}.html"));
        let out = brief()
            .args(["usage", "--by", by, "--ledger"])
            .arg(&ledger)
            .arg("--html")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{by}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        browser.open(&format!("file://{}", file.display()));
        assert_eq!(number(&card(&mut browser, "calls")), 10, "{by}");
        assert_eq!(number(&card(&mut browser, "drifted")), 5, "{by}");
        assert_no_injection(&mut browser, &names);
        let file_url = format!("file://{}", file.display());
        for url in browser.requests() {
            assert!(
                url == file_url || url.starts_with("data:"),
                "{by}: the report asked for {url}"
            );
        }
    }
}
