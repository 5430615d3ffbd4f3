//! For the page tests (`dashboard`, `usage_html`): scripted traffic through a real proxy
//! — four sessions, each drifting in its own way (a system prompt that gains a date, a
//! tool list that gains a tool, a conversation rewritten, a system prompt that gains
//! markup), from clients whose every string is hostile where they choose it (model,
//! session, user agent, tool names, prompt text) — and reading a page's figures back in the
//! browser.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::brief;
use crate::common::browser::Browser;
use crate::common::proxy::{Proxy, Script, Upstream, send};

pub const HOSTILE_MODEL: &str = "<img src=x onerror=alert(1)>";
pub const HOSTILE_SESSION: &str = "\"><svg/onload=alert(2)>";
pub const HOSTILE_TOOL: &str = "<script>alert(3)</script>";
/// Prompt text that closes the excerpt's cell and opens a frame on another host.
pub const HOSTILE_TEXT: &str = "</td></tr></table><iframe src=//evil.example/x></iframe>";
/// What of them a page shows (an excerpt is cut 40 bytes past the difference).
pub const HOSTILE_SHOWN: [&str; 4] = [
    HOSTILE_MODEL,
    HOSTILE_SESSION,
    HOSTILE_TOOL,
    "</td></tr></table><iframe",
];
pub const HOSTILE_AGENT: &str = "<svg onload=alert(5)> curl/8";
pub const SYSTEM: &str = "You are the front desk of Tallis Clinic. Keep answers short and kind. \
                      Never give medical advice; book a visit instead.";

/// An upstream that caches like a provider in miniature: a system prompt seen before is
/// read from the cache, a new one is written to it.
pub fn caching_upstream() -> Upstream {
    let seen = Mutex::new(HashSet::new());
    Upstream::start(move |request| {
        let path = request.path();
        if !path.ends_with("/messages") && !path.ends_with("/chat/completions") {
            let error = json!({"error": {"type": "not_found_error", "message": "no such path"}});
            return Script::json(404, &error.to_string());
        }
        let body = request.json();
        if path.ends_with("/messages") {
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

/// The desk session's request bodies: the system prompt gains a date from the third call
/// on (`date` for it); the conversation only grows.
pub fn desk_body_on(call: usize, date: &str) -> String {
    let system = if call < 2 {
        SYSTEM.to_string()
    } else {
        format!("Today is {date}. {SYSTEM}")
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

pub fn desk_body(call: usize) -> String {
    desk_body_on(call, "2026-12-01")
}

/// The kit session: its second call's tools gain one named in markup.
pub fn kit_body(call: usize) -> String {
    let tool = |name: &str| {
        json!({"name": name, "description": "Books a visit.",
            "input_schema": {"type": "object", "properties": {"day": {"type": "string"}}}})
    };
    let mut tools = vec![tool("book_visit")];
    if call > 0 {
        tools.push(tool(HOSTILE_TOOL));
    }
    json!({"model": "claude-test", "max_tokens": 64, "stream": true, "system": SYSTEM,
        "tools": tools, "messages": [{"role": "user", "content": "Book me in."}]})
    .to_string()
}

/// The notes session: its second call rewrites the first message (with markup in it).
pub fn notes_body(call: usize) -> String {
    let first = if call == 0 {
        "Note: call me back.".to_string()
    } else {
        format!("Note: {HOSTILE_TEXT}")
    };
    let mut messages = vec![json!({"role": "user", "content": first})];
    for turn in 0..call {
        messages.push(json!({"role": "assistant", "content": format!("Noted {turn}.")}));
        messages.push(json!({"role": "user", "content": "Thanks."}));
    }
    json!({"model": "claude-test", "max_tokens": 64, "stream": true, "system": SYSTEM,
        "messages": messages})
    .to_string()
}

/// The hostile agent (OpenAI wire): its second call's system prompt gains markup.
pub fn hostile_body(call: usize) -> String {
    let system = if call == 0 {
        "Be brief.".to_string()
    } else {
        format!("Be brief. {HOSTILE_TEXT}")
    };
    json!({"model": HOSTILE_MODEL,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]})
    .to_string()
}

/// One call of an Anthropic session through the proxy.
pub fn anthropic_call(proxy: &Proxy, session: &str, body: &str) {
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/messages",
        &[
            ("x-api-key", "sk-ant-dashboard-test-0123456789abcdef"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
            ("x-brief-session", session),
        ],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
}

pub fn desk_call(proxy: &Proxy, call: usize) {
    anthropic_call(proxy, "desk", &desk_body(call));
}

pub fn hostile_call(proxy: &Proxy, call: usize) {
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/chat/completions",
        &[
            ("authorization", "Bearer sk-proj-dashboardtest0123456789"),
            ("content-type", "application/json"),
            ("user-agent", HOSTILE_AGENT),
            ("x-brief-session", HOSTILE_SESSION),
        ],
        hostile_body(call).as_bytes(),
    );
    assert_eq!(status, 200);
    // Paths are the client's too: neither a page nor a row may take one as markup.
    for path in [
        "/v1/%3Cimg%20src%3Dx%20onerror%3Dalert(6)%3E",
        "/<img/src=x/onerror=alert(6)>",
    ] {
        send(
            &proxy.url,
            "GET",
            path,
            &[("user-agent", HOSTILE_AGENT)],
            b"",
        );
    }
}

/// A drift the scripted traffic makes: the session, the part that drifted, and the
/// bodies before and after.
pub struct Drifted {
    pub session: &'static str,
    pub part: &'static str,
    pub before: String,
    pub after: String,
}

/// Every drift of [`proxy_with_traffic`], one per session, in the order they happen.
pub fn drifts() -> Vec<Drifted> {
    vec![
        Drifted {
            session: "desk",
            part: "system",
            before: desk_body(1),
            after: desk_body(2),
        },
        Drifted {
            session: HOSTILE_SESSION,
            part: "system",
            before: hostile_body(0),
            after: hostile_body(1),
        },
        Drifted {
            session: "kit",
            part: "tools",
            before: kit_body(0),
            after: kit_body(1),
        },
        Drifted {
            session: "notes",
            part: "messages",
            before: notes_body(0),
            after: notes_body(1),
        },
    ]
}

/// Where `brief align` says `after`'s prefix first differs from `before`'s: part, offset.
pub fn align(before: &str, after: &str) -> (String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("1.json"), dir.path().join("2.json"));
    std::fs::write(&a, before).unwrap();
    std::fs::write(&b, after).unwrap();
    let out = brief()
        .args(["align", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let difference = &report["wakes"][1]["first_difference"];
    (
        difference["part"].as_str().unwrap().to_string(),
        difference["offset"].as_u64().unwrap(),
    )
}

/// Every drift a page lists (`rows` of its drift table) is one of `expected`, at its
/// session, part and `brief align`'s offset, and every expected one is listed.
pub fn assert_drifts_listed(rows: &[Vec<String>], expected: &[Drifted]) {
    assert_eq!(rows.len(), expected.len(), "{rows:?}");
    let mut unmatched: Vec<&Vec<String>> = rows.iter().collect();
    for drift in expected {
        let (part, offset) = align(&drift.before, &drift.after);
        assert_eq!(part, drift.part, "{}", drift.session);
        let at = format!("byte {}", grouped(offset));
        let found = unmatched
            .iter()
            .position(|r| r[1] == drift.session && r[3] == drift.part && r[4] == at)
            .unwrap_or_else(|| {
                panic!(
                    "no {} drift of {:?} at {at} in {rows:?}",
                    drift.part, drift.session
                )
            });
        unmatched.remove(found);
    }
}

/// `6328` as the page writes it: `6,328`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Calls [`proxy_with_traffic`] makes, and how many of them drift.
pub const CALLS: u64 = 10;
pub const DRIFTED: u64 = 4;

/// A proxy that relayed the scripted traffic: four desk calls (drift at the third), two
/// of the hostile agent, two of kit and two of notes (each drifting at its second). Waits
/// until every row is written.
pub fn proxy_with_traffic(upstream: &Upstream) -> Proxy {
    let proxy = Proxy::start(
        &upstream.url,
        &["--price-input", "3", "--price-output", "15"],
    );
    for call in 0..4 {
        desk_call(&proxy, call);
    }
    for call in 0..2 {
        hostile_call(&proxy, call);
        anthropic_call(&proxy, "kit", &kit_body(call));
        anthropic_call(&proxy, "notes", &notes_body(call));
    }
    assert_eq!(proxy.wait_rows(CALLS as usize).len(), CALLS as usize);
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

/// A count that may be unknown: `—` (no call reported it) is `None`, as `null` in JSON.
pub fn known(text: &Value) -> Option<u64> {
    (text.as_str() != Some("—")).then(|| number(text))
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
        assert_eq!(known(&cells[5]), figures["cache_write_tokens"].as_u64());
        assert_eq!(number(&cells[6]), figures["drifted"].as_u64().unwrap());
    }
}

/// The elements the pages are made of; anything else was planted by a client's string.
const PAGE_TAGS: &str = "HTML HEAD META TITLE LINK SCRIPT NOSCRIPT STYLE BODY HEADER H1 H2 P MAIN \
     SECTION DIV TABLE THEAD TBODY TR TH TD UL LI SPAN FOOTER svg rect line polyline path \
     circle text title";

/// Nothing a client named became an element, no script of theirs ran, and the names shown
/// (`shown`) are on the page as text.
pub fn assert_no_injection(browser: &mut Browser, shown: &[&str]) {
    let planted = browser.eval(&format!(
        "(() => {{ const ok = new Set({:?}.split(' ')); \
         return Array.from(document.querySelectorAll('*')).filter(e => !ok.has(e.tagName) \
           || (e.tagName === 'SCRIPT' && !e.src) || e.getAttributeNames().some(a => a.startsWith('on'))) \
           .map(e => e.outerHTML.slice(0, 120)); }})()",
        PAGE_TAGS
    ));
    assert_eq!(planted, json!([]), "elements a client planted");
    // Scripts of the page's own: one file on the live page, none in a report.
    let scripts = browser.eval("document.scripts.length");
    assert!(scripts.as_u64().unwrap() <= 1);
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().unwrap();
    for name in shown {
        assert!(text.contains(name), "{name:?} shows as text");
    }
    assert_eq!(browser.problems(), Vec::<String>::new());
}

pub fn docs_image(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/img")
        .join(name)
}
