//! The proxy's dashboard and `brief usage --html`, looked at in a real browser (headless
//! Chromium, `common::browser`): scripted traffic through a real `brief proxy` to a
//! loopback upstream — one session whose system prompt changes half-way, one agent whose
//! model and session names are markup — then the page must load cleanly, show what
//! `/stats` (or `usage --json`) says, list the drift where `brief align` puts it, show the
//! hostile names as text, and ask nothing of any other host. Screenshots are kept under
//! `target/`.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::brief;
use crate::common::browser::{Browser, artifact};
use crate::common::proxy::{Proxy, Script, Upstream, send};

const HOSTILE_MODEL: &str = "<img src=x onerror=alert(1)>";
const HOSTILE_SESSION: &str = "\"><svg/onload=alert(2)>";
const SYSTEM: &str = "You are the front desk of Tallis Clinic. Keep answers short and kind. \
                      Never give medical advice; book a visit instead.";

/// An upstream that caches like a provider in miniature: a system prompt seen before is
/// read from the cache, a new one is written to it.
fn caching_upstream() -> Upstream {
    let seen = Mutex::new(HashSet::new());
    Upstream::start(move |request| {
        let body = request.json();
        if request.path().ends_with("/messages") {
            let system = body["system"].to_string();
            let known = !seen.lock().unwrap().insert(system);
            let (read, written) = if known { (1200, 0) } else { (0, 1200) };
            let sse = format!(
                "event: message_start\ndata: {}\n\n\
                 event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n\
                 event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"Booked.\"}}}}\n\n\
                 event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
                 event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":3}}}}\n\n\
                 event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
                json!({"type": "message_start", "message": {"id": "m1", "type": "message",
                    "role": "assistant", "model": "claude-test", "content": [],
                    "stop_reason": null, "usage": {"input_tokens": 40,
                    "cache_read_input_tokens": read, "cache_creation_input_tokens": written,
                    "output_tokens": 1}}})
            );
            Script::sse(&sse, 2, Duration::ZERO, true)
        } else {
            let answer = json!({"id": "c1", "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 900, "completion_tokens": 2,
                "prompt_tokens_details": {"cached_tokens": 768}}});
            Script::json(200, &answer.to_string())
        }
    })
}

/// The desk session's request bodies: the system prompt gains today's date from the third
/// call on; the conversation only grows.
fn desk_body(call: usize) -> String {
    let system = if call < 2 {
        SYSTEM.to_string()
    } else {
        format!("Today is 2026-12-01. {SYSTEM}")
    };
    let mut messages = vec![json!({"role": "user", "content": "Can I see Dr Okafor?"})];
    for turn in 0..call {
        messages.push(json!({"role": "assistant", "content": format!("Answer {turn}.")}));
        messages.push(json!({"role": "user", "content": format!("And then {turn}?")}));
    }
    json!({"model": "claude-test", "max_tokens": 64, "stream": true,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages})
    .to_string()
}

fn desk_call(proxy: &Proxy, call: usize) {
    let body = desk_body(call);
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/messages",
        &[
            ("x-api-key", "sk-ant-dashboard-test-0123456789abcdef"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
            ("x-brief-session", "desk"),
        ],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
}

fn hostile_call(proxy: &Proxy) {
    let body = json!({"model": HOSTILE_MODEL,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]})
    .to_string();
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/chat/completions",
        &[
            ("authorization", "Bearer sk-proj-dashboardtest0123456789"),
            ("content-type", "application/json"),
            ("x-brief-session", HOSTILE_SESSION),
        ],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
}

/// Where `brief align` says the desk session's prefix first differs when the date arrives.
fn align_offset() -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = (dir.path().join("2.json"), dir.path().join("3.json"));
    std::fs::write(&before, desk_body(1)).unwrap();
    std::fs::write(&after, desk_body(2)).unwrap();
    let out = brief()
        .args(["align", "--json"])
        .arg(&before)
        .arg(&after)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let difference = &report["wakes"][1]["first_difference"];
    assert_eq!(difference["part"], "system", "{report}");
    difference["offset"].as_u64().unwrap()
}

/// A proxy that relayed the scripted traffic: four desk calls (drift at the third), two
/// calls from the hostile agent. Waits until every row is written.
fn proxy_with_traffic(upstream: &Upstream) -> Proxy {
    let proxy = Proxy::start(
        &upstream.url,
        &["--price-input", "3", "--price-output", "15"],
    );
    for call in 0..4 {
        desk_call(&proxy, call);
    }
    hostile_call(&proxy);
    hostile_call(&proxy);
    assert_eq!(proxy.wait_rows(6).len(), 6);
    proxy
}

fn stats(proxy: &Proxy) -> Value {
    serde_json::from_str(&proxy.get("/stats")).unwrap()
}

/// `1,234` as 1234.
fn number(text: &Value) -> u64 {
    let text = text.as_str().unwrap_or_else(|| panic!("not text: {text}"));
    text.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {text}"))
}

/// A share as the page shows it.
fn percent(share: &Value) -> String {
    format!("{:.1}%", share.as_f64().unwrap() * 100.0)
}

/// The text of every body row of the table `t-{id}`.
fn table(browser: &mut Browser, id: &str) -> Vec<Vec<String>> {
    let rows = browser.eval(&format!(
        "Array.from(document.querySelectorAll('#t-{id} tbody tr')).map(r => \
         Array.from(r.cells).map(c => c.textContent))"
    ));
    serde_json::from_value(rows).unwrap()
}

fn card(browser: &mut Browser, id: &str) -> Value {
    browser.eval(&format!(
        "document.getElementById('card-{id}-value').textContent"
    ))
}

/// Every row of figures in `rows` keyed by its first cell equals `expected[key]`.
fn assert_rows_equal(rows: &[Vec<String>], expected: &serde_json::Map<String, Value>) {
    assert_eq!(rows.len(), expected.len(), "{rows:?}");
    for (key, figures) in expected {
        let row = rows
            .iter()
            .find(|r| &r[0] == key)
            .unwrap_or_else(|| panic!("no row for {key:?} in {rows:?}"));
        let cells: Vec<Value> = row.iter().map(|c| json!(c)).collect();
        assert_eq!(
            number(&cells[1]),
            figures["calls"].as_u64().unwrap(),
            "{key}"
        );
        assert_eq!(number(&cells[2]), figures["input_tokens"].as_u64().unwrap());
        assert_eq!(
            number(&cells[3]),
            figures["cached_input_tokens"].as_u64().unwrap()
        );
        assert_eq!(row[4], percent(&figures["cached_share"]), "{key}");
        assert_eq!(
            number(&cells[5]),
            figures["cache_write_tokens"].as_u64().unwrap()
        );
        assert_eq!(number(&cells[6]), figures["drifted"].as_u64().unwrap());
    }
}

/// Nothing a client named became an element, and no script of theirs ran.
fn assert_no_injection(browser: &mut Browser) {
    let planted = browser.eval(
        "document.querySelectorAll('img, iframe, object, embed, [onerror], [onload], \
         script:not([src])').length",
    );
    assert_eq!(planted, json!(0));
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().unwrap();
    assert!(
        text.contains(HOSTILE_MODEL),
        "the hostile name shows as text"
    );
}

#[test]
fn the_live_dashboard_shows_what_stats_says_and_every_drift_where_align_puts_it() {
    let upstream = caching_upstream();
    let proxy = proxy_with_traffic(&upstream);
    let offset = align_offset();
    let mut browser = Browser::launch();
    browser.open(&format!("{}/", proxy.url));
    // The script's first repaint from /dashboard.json.
    browser.wait_for("document.body.dataset.painted");
    assert_eq!(browser.problems(), Vec::<String>::new());

    let stats = stats(&proxy);
    let totals = &stats["totals"];
    assert_eq!(number(&card(&mut browser, "calls")), 6);
    assert_eq!(
        number(&card(&mut browser, "input")),
        totals["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        card(&mut browser, "cached-share"),
        json!(percent(&totals["cached_share"]))
    );
    assert_eq!(
        number(&card(&mut browser, "cache-writes")),
        totals["cache_write_tokens"].as_u64().unwrap()
    );
    assert_eq!(number(&card(&mut browser, "drifted")), 1);
    assert_eq!(
        card(&mut browser, "cost"),
        json!(format!("{:.4}", totals["cost"].as_f64().unwrap()))
    );
    let models = table(&mut browser, "model");
    assert_rows_equal(&models, stats["per_model"].as_object().unwrap());
    let sessions = table(&mut browser, "session");
    assert_rows_equal(&sessions, stats["per_session"].as_object().unwrap());
    assert!(
        sessions.iter().any(|r| r[0] == HOSTILE_SESSION),
        "{sessions:?}"
    );

    // The one drift: the desk session's system, at align's offset, with the date after.
    let drifts = table(&mut browser, "drift");
    assert_eq!(drifts.len(), 1, "{drifts:?}");
    let drift = &drifts[0];
    assert_eq!((drift[1].as_str(), drift[3].as_str()), ("desk", "system"));
    assert_eq!(drift[4], format!("byte {offset}"));
    assert!(
        !drift[5].contains("Today is") && drift[6].contains("Today is"),
        "{drift:?}"
    );
    assert_eq!(stats["drift_events"][0]["offset"], json!(offset));

    assert_no_injection(&mut browser);
    // Everything the page loaded came from the proxy.
    for url in browser.requests() {
        assert!(url.starts_with(&proxy.url), "the page asked for {url}");
    }
    browser.screenshot(&artifact("dashboard.png"));
    if std::env::var_os("BRIEF_UPDATE_DOCS").is_some() {
        std::fs::copy(artifact("dashboard.png"), docs_image("dashboard.png")).unwrap();
    }

    // Live: a new call shows up without a reload.
    desk_call(&proxy, 4);
    browser.wait_for("document.getElementById('card-calls-value').textContent === '7'");
    assert_eq!(
        table(&mut browser, "drift").len(),
        1,
        "growing is not drift"
    );
    assert_eq!(browser.problems(), Vec::<String>::new());

    // Scripts off: the same figures, rendered by the server.
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({"value": true}),
    );
    browser.open(&format!("{}/", proxy.url));
    let stats = self::stats(&proxy);
    assert_eq!(number(&card(&mut browser, "calls")), 7);
    assert_rows_equal(
        &table(&mut browser, "model"),
        stats["per_model"].as_object().unwrap(),
    );
    assert_eq!(table(&mut browser, "drift").len(), 1);
    assert_no_injection(&mut browser);
}

fn docs_image(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/img")
        .join(name)
}

#[test]
fn the_dashboard_is_served_under_a_policy_that_forbids_inline_script_and_other_hosts() {
    let upstream = caching_upstream();
    let proxy = Proxy::start(&upstream.url, &[]);
    let (status, head, page) = send(&proxy.url, "GET", "/", &[], b"");
    assert_eq!(status, 200);
    let head = head.to_ascii_lowercase();
    let csp = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .expect("a Content-Security-Policy");
    assert!(csp.contains("script-src 'self'") && csp.contains("connect-src 'self'"));
    assert!(!csp.contains("unsafe") && !csp.contains("http"), "{csp}");
    assert!(head.contains("x-content-type-options: nosniff"));
    // Offline and small: every asset is the proxy's own, the whole page well under 300 KB.
    let page = String::from_utf8(page).unwrap();
    let mut weight = page.len();
    for asset in [
        "/dashboard/app.js",
        "/dashboard/style.css",
        "/dashboard/icon.svg",
    ] {
        assert!(page.contains(asset), "{asset}");
        let (status, _, body) = send(&proxy.url, "GET", asset, &[], b"");
        assert_eq!(status, 200, "{asset}");
        weight += body.len();
    }
    assert!(weight < 100 * 1024, "{weight} bytes");
    // Every link and source is the proxy's own (the address in the subtitle is text).
    for attribute in ["href=\"", "src=\""] {
        for (at, _) in page.match_indices(attribute) {
            let value = &page[at + attribute.len()..];
            assert!(value.starts_with('/'), "{}", &value[..value.len().min(60)]);
        }
    }
    // A page on another site that rebinds its name to 127.0.0.1 is refused the figures.
    for path in ["/", "/dashboard.json", "/stats", "/metrics"] {
        let addr = proxy.url.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: evil.example:8787\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 403"), "{path}: {answer}");
    }
}

#[test]
fn a_usage_report_opens_from_disk_and_shows_what_usage_json_says() {
    let upstream = caching_upstream();
    let mut proxy = proxy_with_traffic(&upstream);
    proxy.stop();
    let offset = align_offset();
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let usage: Value = serde_json::from_slice(&out.stdout).unwrap();
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.len() < 300 * 1024);

    let mut browser = Browser::launch();
    browser.open(&format!("file://{}", file.display()));
    assert_eq!(browser.problems(), Vec::<String>::new());
    let total = &usage["total"];
    assert_eq!(number(&card(&mut browser, "calls")), 6);
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
    let drifts = table(&mut browser, "drift");
    assert_eq!(drifts.len(), 1, "{drifts:?}");
    assert_eq!(
        (drifts[0][1].as_str(), drifts[0][3].as_str()),
        ("desk", "system")
    );
    assert_eq!(drifts[0][4], format!("byte {offset}"));
    assert_no_injection(&mut browser);
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

#[test]
fn a_drift_is_in_stats_and_the_ledger_at_aligns_offset_and_its_excerpt_never_shows_a_key() {
    let upstream = caching_upstream();
    let proxy = Proxy::start(&upstream.url, &[]);
    // The call's own key sits in the system prompt, right before what changes.
    let key = "plainkeyvalue0123456789ABCDEF";
    let body = |date: &str| {
        json!({"model": "claude-test", "max_tokens": 8, "stream": true,
            "system": format!("Key {key} {date}. Be kind."),
            "messages": [{"role": "user", "content": "hi"}]})
        .to_string()
    };
    for date in ["Monday", "Tuesday"] {
        let (status, _, _) = send(
            &proxy.url,
            "POST",
            "/v1/messages",
            &[
                ("x-api-key", key),
                ("anthropic-version", "2023-06-01"),
                ("x-brief-session", "keyed"),
            ],
            body(date).as_bytes(),
        );
        assert_eq!(status, 200);
    }
    let rows = proxy.wait_rows(2);
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = ["Monday", "Tuesday"]
        .iter()
        .map(|date| {
            let path = dir.path().join(format!("{date}.json"));
            std::fs::write(&path, body(date)).unwrap();
            path
        })
        .collect();
    let out = brief()
        .args(["align", "--json"])
        .args(&paths)
        .output()
        .unwrap();
    let align: Value = serde_json::from_slice(&out.stdout).unwrap();
    let offset = align["wakes"][1]["first_difference"]["offset"].clone();
    assert!(offset.is_u64(), "{align}");
    assert_eq!(rows[1]["drift_offset"], offset);
    assert_eq!(rows[0]["drift_offset"], Value::Null);
    let stats = stats(&proxy);
    let event = &stats["drift_events"][0];
    assert_eq!(event["part"], "system");
    assert_eq!(event["offset"], offset);
    let shown = format!("{}{}", event["previous"], event["current"]);
    assert!(!shown.contains("0123456789ABCDEF"), "{shown}");
    assert!(
        shown.contains("[redacted]") && shown.contains("Tuesday"),
        "{shown}"
    );
    assert!(!proxy.get("/").contains("0123456789ABCDEF"));
    assert_eq!(stats["drift_texts"]["sessions"], 1);
    assert_eq!(stats["recent_calls"].as_array().unwrap().len(), 2);
}
