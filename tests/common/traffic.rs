//! For the page tests (`dashboard`, `usage_html`): scripted traffic through a real proxy —
//! a session whose system prompt gains a date half-way, an agent whose model and session
//! names are markup — and reading a page's figures back in the browser.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::brief;
use crate::common::browser::Browser;
use crate::common::proxy::{Proxy, Script, Upstream, send};

pub const HOSTILE_MODEL: &str = "<img src=x onerror=alert(1)>";
pub const HOSTILE_SESSION: &str = "\"><svg/onload=alert(2)>";
pub const SYSTEM: &str = "You are the front desk of Tallis Clinic. Keep answers short and kind. \
                      Never give medical advice; book a visit instead.";

/// An upstream that caches like a provider in miniature: a system prompt seen before is
/// read from the cache, a new one is written to it.
pub fn caching_upstream() -> Upstream {
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
pub fn desk_body(call: usize) -> String {
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

pub fn desk_call(proxy: &Proxy, call: usize) {
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

pub fn hostile_call(proxy: &Proxy) {
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
pub fn align_offset() -> u64 {
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
pub fn proxy_with_traffic(upstream: &Upstream) -> Proxy {
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

pub fn stats(proxy: &Proxy) -> Value {
    serde_json::from_str(&proxy.get("/stats")).unwrap()
}

/// `1,234` as 1234.
pub fn number(text: &Value) -> u64 {
    let text = text.as_str().unwrap_or_else(|| panic!("not text: {text}"));
    text.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {text}"))
}

/// A share as the page shows it.
pub fn percent(share: &Value) -> String {
    format!("{:.1}%", share.as_f64().unwrap() * 100.0)
}

/// The text of every body row of the table `t-{id}`.
pub fn table(browser: &mut Browser, id: &str) -> Vec<Vec<String>> {
    let rows = browser.eval(&format!(
        "Array.from(document.querySelectorAll('#t-{id} tbody tr')).map(r => \
         Array.from(r.cells).map(c => c.textContent))"
    ));
    serde_json::from_value(rows).unwrap()
}

pub fn card(browser: &mut Browser, id: &str) -> Value {
    browser.eval(&format!(
        "document.getElementById('card-{id}-value').textContent"
    ))
}

/// Every row of figures in `rows` keyed by its first cell equals `expected[key]`.
pub fn assert_rows_equal(rows: &[Vec<String>], expected: &serde_json::Map<String, Value>) {
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
pub fn assert_no_injection(browser: &mut Browser) {
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

pub fn docs_image(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/img")
        .join(name)
}
