//! The proxy's dashboard, looked at in a real browser (headless Chromium,
//! `common::browser`) after scripted traffic through a real `brief proxy` to a loopback
//! upstream (`common::traffic`): the page must load cleanly, show what `/stats` says, list
//! the drift where `brief align` puts it, show hostile names as text, ask nothing of any
//! other host and update live. The screenshot is kept under `target/`.

use std::io::{Read, Write};

use serde_json::{Value, json};

use crate::common::brief;
use crate::common::browser::{Shared, artifact, shared};
use crate::common::proxy::{Proxy, send};
use crate::common::traffic::*;

/// The cards and the per-model and per-session tables say what `/stats` says.
fn assert_page_equals_stats(browser: &mut Shared, stats: &Value) {
    let totals = &stats["totals"];
    assert_eq!(
        number(&card(browser, "calls")),
        totals["calls"].as_u64().unwrap()
    );
    assert_eq!(
        number(&card(browser, "input")),
        totals["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        card(browser, "cached-share"),
        json!(percent(&totals["cached_share"]))
    );
    assert_eq!(
        crate::common::traffic::known(&card(browser, "cache-writes")),
        totals["cache_write_tokens"].as_u64()
    );
    assert_eq!(
        number(&card(browser, "drifted")),
        totals["drifted"].as_u64().unwrap()
    );
    assert_eq!(
        card(browser, "cost"),
        json!(format!("{:.4}", totals["cost"].as_f64().unwrap()))
    );
    assert_rows_equal(
        &table(browser, "model"),
        stats["per_model"].as_object().unwrap(),
    );
    assert_rows_equal(
        &table(browser, "session"),
        stats["per_session"].as_object().unwrap(),
    );
}

/// The cached-share chart has a point for every recent call of `/stats`, in order, at its
/// share, and a red rule for every drifted one.
fn assert_share_series_equals_stats(browser: &mut Shared, stats: &Value) {
    let shown = browser.eval(
        "Array.from(document.querySelectorAll('#svg-share circle.dot title')).map(t => t.textContent)",
    );
    let expected: Vec<String> = stats["recent_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let (input, cached) = (
                call["input_tokens"].as_u64().unwrap(),
                call["cached_input_tokens"].as_u64().unwrap(),
            );
            let mut text = format!(
                "call {}: {} in, {} cached ({:.1}%), {} written",
                call["seq"],
                grouped(input),
                grouped(cached),
                cached as f64 * 100.0 / input as f64,
                grouped(call["cache_write_tokens"].as_u64().unwrap_or(0))
            );
            if let Some(parts) = call["drifted_parts"].as_array().filter(|p| !p.is_empty()) {
                let parts: Vec<&str> = parts.iter().map(|p| p.as_str().unwrap()).collect();
                text.push_str(&format!("; drift: {}", parts.join(", ")));
            }
            text
        })
        .collect();
    assert_eq!(shown, json!(expected));
    let rules = browser.eval(
        "(document.querySelector('#svg-share path.drift')?.getAttribute('d') ?? '').split('M').length - 1",
    );
    assert_eq!(rules, stats["totals"]["drifted"]);
}

/// The drift table's excerpts are `/stats`'s, event for event (newest first).
fn assert_excerpts_equal_stats(rows: &[Vec<String>], stats: &Value) {
    let events = stats["drift_events"].as_array().unwrap();
    assert_eq!(rows.len(), events.len());
    for (row, event) in rows.iter().zip(events) {
        assert_eq!(row[1], event["session"].as_str().unwrap());
        assert_eq!(row[5], event["previous"].as_str().unwrap(), "{row:?}");
        assert_eq!(row[6], event["current"].as_str().unwrap(), "{row:?}");
    }
}

#[test]
fn the_live_dashboard_shows_what_stats_says_and_every_drift_where_align_puts_it() {
    let upstream = caching_upstream();
    let proxy = proxy_with_traffic(&upstream);
    let mut browser = shared();
    // The address is the client's too: a query and a fragment are not the page's business.
    browser.open(&format!(
        "{}/?q=<img src=x onerror=alert(7)>#<script>alert(8)</script>",
        proxy.url
    ));
    // The script's first repaint from /dashboard.json.
    browser.wait_for("document.body.dataset.painted");
    let stats = self::stats(&proxy);
    assert_eq!(stats["totals"]["calls"], json!(CALLS));
    assert_eq!(stats["totals"]["drifted"], json!(DRIFTED));
    assert_page_equals_stats(&mut browser, &stats);
    assert_share_series_equals_stats(&mut browser, &stats);
    let sessions = table(&mut browser, "session");
    assert!(
        sessions.iter().any(|r| r[0] == HOSTILE_SESSION),
        "{sessions:?}"
    );

    // Every drift: its session, the part (system, tools, messages) at align's offset, and
    // what was there before and after — the desk's date, the kit's new tool.
    let drifts = table(&mut browser, "drift");
    assert_drifts_listed(&drifts, &self::drifts());
    assert_excerpts_equal_stats(&drifts, &stats);
    let desk = drifts.iter().find(|r| r[1] == "desk").unwrap();
    assert!(
        !desk[5].contains("Today is") && desk[6].contains("Today is"),
        "{desk:?}"
    );
    let kit = drifts.iter().find(|r| r[1] == "kit").unwrap();
    assert!(kit[6].contains(HOSTILE_TOOL), "{kit:?}");

    assert_no_injection(&mut browser, &HOSTILE_SHOWN);
    // Everything the page loaded came from the proxy.
    for url in browser.requests() {
        assert!(url.starts_with(&proxy.url), "the page asked for {url}");
    }
    // The figures opened as they are: text in the browser's viewer, nothing planted.
    for path in ["/stats", "/metrics", "/dashboard.json"] {
        browser.open(&format!("{}{path}", proxy.url));
        let planted = browser.eval(
            "document.querySelectorAll('img, iframe, svg, script, [onerror], [onload]').length",
        );
        assert_eq!(planted, json!(0), "{path}");
        assert!(
            browser
                .eval("document.body.innerText")
                .as_str()
                .unwrap()
                .contains("alert(1)"),
            "{path} shows the hostile model as text"
        );
        assert_eq!(browser.problems(), Vec::<String>::new(), "{path}");
    }
    // A path the proxy does not know is relayed upstream (never dropped); whatever comes
    // back, the hostile path plants nothing.
    browser.open(&format!("{}/<img src=x onerror=alert(6)>", proxy.url));
    assert_eq!(
        browser.eval("document.querySelectorAll('img, [onerror]').length"),
        json!(0)
    );
    assert!(
        browser
            .eval("document.body.innerText")
            .as_str()
            .unwrap()
            .contains("no such path")
    );
    browser.open(&format!("{}/", proxy.url));
    browser.wait_for("document.body.dataset.painted");
    browser.screenshot(&artifact("dashboard.png"));
    if std::env::var_os("BRIEF_UPDATE_DOCS").is_some() {
        std::fs::copy(artifact("dashboard.png"), docs_image("dashboard.png")).unwrap();
    }

    // Live, without a reload: the desk's date turns (a drift, and a cache write that lowers
    // the cached share), then its conversation grows (no drift).
    anthropic_call(&proxy, "desk", &desk_body_on(4, "2026-12-02"));
    proxy.wait_rows(CALLS as usize + 1);
    browser.wait_for(&format!(
        "document.querySelectorAll('#t-drift tbody tr').length === {}",
        DRIFTED + 1
    ));
    let turned = Drifted {
        session: "desk",
        part: "system",
        before: desk_body(3),
        after: desk_body_on(4, "2026-12-02"),
    };
    let mut expected = self::drifts();
    expected.push(turned);
    let stats = self::stats(&proxy);
    assert_page_equals_stats(&mut browser, &stats);
    assert_share_series_equals_stats(&mut browser, &stats);
    let drifts = table(&mut browser, "drift");
    assert_drifts_listed(&drifts, &expected);
    assert_excerpts_equal_stats(&drifts, &stats);
    assert!(
        drifts[0][6].contains("2026-12-02"),
        "newest first: {drifts:?}"
    );

    anthropic_call(&proxy, "desk", &desk_body_on(5, "2026-12-02"));
    proxy.wait_rows(CALLS as usize + 2);
    browser.wait_for(&format!(
        "document.getElementById('card-calls-value').textContent === '{}'",
        CALLS + 2
    ));
    let stats = self::stats(&proxy);
    assert_page_equals_stats(&mut browser, &stats);
    assert_eq!(
        table(&mut browser, "drift").len(),
        expected.len(),
        "growing is not drift"
    );
    assert_no_injection(&mut browser, &HOSTILE_SHOWN);

    // Scripts off: the same figures, rendered by the server.
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({"value": true}),
    );
    browser.open(&format!("{}/", proxy.url));
    assert_eq!(
        browser.eval("document.body.dataset.painted ?? null"),
        Value::Null
    );
    assert_page_equals_stats(&mut browser, &stats);
    let drifts = table(&mut browser, "drift");
    assert_drifts_listed(&drifts, &expected);
    assert_excerpts_equal_stats(&drifts, &stats);
    assert_no_injection(&mut browser, &HOSTILE_SHOWN);
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
    // The figures are data whatever opens them: never sniffed as a page, under the policy.
    for path in ["/stats", "/metrics", "/dashboard.json"] {
        let (status, head, _) = send(&proxy.url, "GET", path, &[], b"");
        assert_eq!(status, 200, "{path}");
        let head = head.to_ascii_lowercase();
        assert!(head.contains("x-content-type-options: nosniff"), "{path}");
        assert!(
            head.contains("content-security-policy: default-src 'none'"),
            "{path}"
        );
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
