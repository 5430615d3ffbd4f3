//! What `brief proxy` records of hostile or broken traffic (issue 21): totals that would
//! wrap, keys smuggled into the model or the session header, strings a metric label must
//! escape, error events inside a stream, and requests of very many messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::proxy::{Proxy, Script, Upstream, send};
use crate::loopback::fixtures::anthropic_stream;

fn chat(model: &str) -> String {
    json!({"model": model, "messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]})
    .to_string()
}

fn post(proxy: &Proxy, path: &str, headers: &[(&str, &str)], body: &str) -> u16 {
    send(&proxy.url, "POST", path, headers, body.as_bytes()).0
}

#[test]
fn proxy_stats_totals_wrap_now_saturate() {
    // Regression (issue 21, defect 9): usage frames of 2^64-1 and 105 tokens summed to 103.
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let upstream = Upstream::start(move |_| {
        let tokens = if seen.fetch_add(1, Ordering::SeqCst) == 0 {
            u64::MAX
        } else {
            105
        };
        Script::json(
            200,
            &format!(
                "{{\"usage\":{{\"prompt_tokens\":{tokens},\"completion_tokens\":{tokens},\"prompt_tokens_details\":{{\"cached_tokens\":{tokens}}}}}}}"
            ),
        )
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    for _ in 0..2 {
        assert_eq!(post(&proxy, "/v1/chat/completions", &[], &chat("m")), 200);
    }
    proxy.wait_rows(2);
    let stats: Value = serde_json::from_str(&proxy.get("/stats")).unwrap();
    let totals = &stats["totals"];
    // Issue 37 (defect 10): a usage no provider could report (2^64-1 tokens) is not summed
    // at all, as `brief usage` skips it; the plausible call's 105 stand, never wrapped.
    for field in ["input_tokens", "cached_input_tokens", "output_tokens"] {
        assert_eq!(totals[field].as_u64(), Some(105), "{field}: {totals}");
    }
    assert_eq!(totals["cached_share"], 1.0);
    let metrics = proxy.get("/metrics");
    assert!(
        metrics.contains("brief_proxy_input_tokens_total{provider=\"openai\",model=\"m\"")
            && !metrics.contains(&u64::MAX.to_string()),
        "{metrics}"
    );
}

/// Every sample line of a Prometheus text exposition: `name{label="value",…} number`, with
/// only the three escapes the format defines inside label values. Returns the label
/// values, unescaped.
fn parse_metrics(text: &str) -> Vec<String> {
    let mut values = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut chars = line.chars().peekable();
        let name: String = chars
            .by_ref()
            .take_while(|c| *c != '{' && *c != ' ')
            .collect();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{line:?}"
        );
        if line[name.len()..].starts_with('{') {
            loop {
                let label: String = chars.by_ref().take_while(|c| *c != '=').collect();
                assert!(
                    label.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{line:?}"
                );
                assert_eq!(chars.next(), Some('"'), "{line:?}");
                let mut value = String::new();
                loop {
                    match chars
                        .next()
                        .unwrap_or_else(|| panic!("unterminated: {line:?}"))
                    {
                        '\\' => match chars.next() {
                            Some('\\') => value.push('\\'),
                            Some('"') => value.push('"'),
                            Some('n') => value.push('\n'),
                            other => panic!("bad escape {other:?} in {line:?}"),
                        },
                        '"' => break,
                        '\n' => panic!("raw newline in {line:?}"),
                        c => value.push(c),
                    }
                }
                values.push(value);
                match chars.next() {
                    Some(',') => continue,
                    Some('}') => break,
                    other => panic!("{other:?} after a label in {line:?}"),
                }
            }
            assert_eq!(chars.next(), Some(' '), "{line:?}");
        }
        let number: String = chars.collect();
        assert!(number.parse::<f64>().is_ok(), "{line:?}");
    }
    values
}

#[test]
fn client_supplied_keys_are_stored_raw_by_the_proxy_now_redacted_in_ledger_and_metrics() {
    // Regression (issue 21, defect 10): a key placed in `model` or `X-Brief-Session` reached
    // the ledger and /metrics as sent.
    let upstream = Upstream::start(|_| Script::json(200, "{\"usage\":{\"prompt_tokens\":3}}"));
    let proxy = Proxy::start(&upstream.url, &[]);
    // A key shaped like a provider's, in the model.
    let shaped = "sk-proj-SHAPEDsecret0123456789";
    let status = post(
        &proxy,
        "/v1/chat/completions",
        &[("x-brief-session", "agent-1")],
        &chat(&format!("gpt-4o {shaped}")),
    );
    assert_eq!(status, 200);
    // The call's own key, in no provider's shape, in the model and in the session header.
    let own = "plainOWNsecret-0123456789";
    let session = format!("agent-{own}");
    let status = post(
        &proxy,
        "/v1/messages",
        &[("x-api-key", own), ("x-brief-session", &session)],
        &chat(&format!("claude-{own}")),
    );
    assert_eq!(status, 200);
    // Text a label must escape, and an escape sequence the ledger keeps as text.
    let odd = "m\"x\\y\nz\u{1b}[31m";
    assert_eq!(post(&proxy, "/v1/chat/completions", &[], &chat(odd)), 200);
    // Rows land when their calls' digests are done, not always in the calls' order.
    let rows = proxy.wait_rows(3);
    let row = |model: &str| {
        rows.iter()
            .find(|r| r["model"] == model)
            .unwrap_or_else(|| panic!("no row for {model:?} in {rows:?}"))
    };
    assert_eq!(row("gpt-4o [redacted]")["session"], "agent-1");
    assert!(
        row("claude-[redacted]")["session"]
            .as_str()
            .unwrap()
            .starts_with("h-")
    );
    row(odd); // the ledger keeps the text as sent
    let ledger = std::fs::read_to_string(&proxy.ledger).unwrap();
    let metrics = proxy.get("/metrics");
    let stats = proxy.get("/stats");
    for (place, text) in [
        ("ledger", &ledger),
        ("/metrics", &metrics),
        ("/stats", &stats),
    ] {
        assert!(
            !text.contains("SHAPEDsecret") && !text.contains("OWNsecret"),
            "{place}: {text}"
        );
    }
    let labels = parse_metrics(&metrics);
    // The label is the name through the one sanitiser (issue 37, defect 8: no ESC reaches
    // a terminal), then escaped as the text format says.
    assert!(labels.iter().any(|l| l == "m\"x\\y z"), "{labels:?}");
    assert!(!metrics.contains('\u{1b}'), "{metrics}");
    assert!(
        labels.iter().any(|l| l == "claude-[redacted]"),
        "{labels:?}"
    );
}

#[test]
fn a_stream_that_carries_an_error_event_then_ends_is_stream_error_not_truncated_stream() {
    // Regression (issue 21, defect 13): the provider's error was lost as `truncated_stream`.
    let upstream = Upstream::start(|request| {
        if request.path().ends_with("/messages") {
            let full = anthropic_stream("Partial", None, false);
            let start = full.find("event: content_block_delta").unwrap();
            let body = format!(
                "{}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n",
                &full[..start]
            );
            Script::sse(&body, 3, Duration::from_millis(1), true)
        } else {
            let body = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n";
            Script::sse(body, 2, Duration::from_millis(1), true)
        }
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let mut stream_body: Value = serde_json::from_str(&chat("m")).unwrap();
    stream_body["stream"] = json!(true);
    let stream_body = stream_body.to_string();
    assert_eq!(post(&proxy, "/v1/chat/completions", &[], &stream_body), 200);
    let anthropic = json!({"model": "claude-test", "max_tokens": 5, "stream": true,
        "messages": [{"role": "user", "content": "hi"}]})
    .to_string();
    assert_eq!(
        post(
            &proxy,
            "/v1/messages",
            &[("anthropic-version", "2023-06-01")],
            &anthropic
        ),
        200
    );
    let rows = proxy.wait_rows(2);
    let openai = rows.iter().find(|r| r["provider"] == "openai").unwrap();
    assert_eq!(openai["status"], "stream_error", "{openai}");
    assert_eq!(openai["error"], "server_error: The server had an error");
    let anthropic = rows.iter().find(|r| r["provider"] == "anthropic").unwrap();
    assert_eq!(anthropic["status"], "stream_error", "{anthropic}");
    assert_eq!(anthropic["error"], "overloaded_error: Overloaded");
    assert_eq!(
        anthropic["cached_input_tokens"], 2036,
        "usage seen before the error is kept"
    );
}

#[test]
fn proxy_memory_grows_with_each_sessions_last_request_now_a_request_of_many_messages_is_a_digest() {
    // Regression (issue 21, defect 5): the drift state was the session's whole last
    // request; now it is a digest, and drift is still found in a long conversation.
    let upstream = Upstream::start(|_| Script::json(200, "{\"usage\":{\"prompt_tokens\":3}}"));
    let proxy = Proxy::start(&upstream.url, &[]);
    let conversation = |n: usize, changed: Option<usize>| {
        let mut messages = vec![json!({"role": "system", "content": "Be brief."})];
        messages.extend((0..n).map(|i| {
            let text = if Some(i) == changed {
                "edited".to_string()
            } else {
                format!("turn {i}")
            };
            json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": text})
        }));
        json!({"model": "m", "messages": messages}).to_string()
    };
    let session = [("x-brief-session", "long")];
    for body in [
        conversation(20_000, None),
        conversation(20_002, None),
        conversation(20_004, Some(7)),
    ] {
        assert_eq!(post(&proxy, "/v1/chat/completions", &session, &body), 200);
    }
    // Generous: digesting 20,000 messages in a debug build on a loaded machine is slow.
    let rows = proxy.wait_rows_for(3, Duration::from_secs(60));
    assert_eq!(rows[0]["drifted_parts"], Value::Null);
    assert_eq!(rows[1]["drifted_parts"], json!([]));
    assert_eq!(rows[2]["drifted_parts"], json!(["messages"]));
    assert_eq!(rows[0]["prefix_hash"], rows[2]["prefix_hash"]);
    // The rows are in the file before their batch's sync returns and they are counted.
    let mut stats = Value::Null;
    for _ in 0..2000 {
        stats = serde_json::from_str(&proxy.get("/stats")).unwrap();
        if stats["ledger_backlog"] == 0 && stats["digest_backlog"] == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(stats["digest_backlog"], 0, "{stats}");
    assert_eq!(stats["ledger_backlog"], 0, "{stats}");
    assert_eq!(stats["ledger_spilled"], 0, "{stats}");
}
