//! `brief proxy` against a loopback upstream: bytes through unchanged both ways, usage
//! and drift in the ledger, `/stats` and `/metrics`.

use std::time::Duration;

use serde_json::Value;

use crate::common::proxy::{Proxy, Script, Upstream, post_chat, send};
use crate::harness::assert_exit;
use crate::loopback::fixtures::{OPENAI_USAGE, anthropic_stream, openai_stream};

const KEY: &str = "sk-proj-proxytestSECRETabcdefghijklmnop";

/// A request body with odd spacing and key order, so any re-serialisation would show.
fn openai_body(system: &str, stream: bool) -> String {
    format!(
        "{{ \"model\":\"gpt-test\",  \"stream\": {stream},\n \"messages\":[{{\"role\":\"system\",\"content\":\"{system}\"}},{{\"content\":\"hi\",\"role\":\"user\"}}], \"temperature\": 1.50 }}"
    )
}

fn anthropic_body(system: &str) -> String {
    format!(
        "{{\"system\":[{{\"type\":\"text\",\"text\":\"{system}\",\"cache_control\":{{\"type\":\"ephemeral\"}}}}],\"model\":\"claude-test\",\"max_tokens\":5,\"stream\":true,\"messages\":[{{\"role\":\"user\",\"content\":\"hi\"}}]}}"
    )
}

fn json_answer() -> String {
    format!(
        "{{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{{\"index\":0,\"message\":{{\"role\":\"assistant\",\"content\":\"ok\"}},\"finish_reason\":\"stop\"}}],\"usage\":{OPENAI_USAGE}}}"
    )
}

fn upstream_for_both() -> Upstream {
    Upstream::start(|request| {
        if request.path().ends_with("/messages") {
            let body = anthropic_stream("Hello there, friend.", Some("end_turn"), true);
            Script::sse(&body, 4, Duration::from_millis(1), true)
        } else if request.json()["stream"] == true {
            let body = openai_stream("Hello there.", Some("stop"), Some(OPENAI_USAGE), true);
            Script::sse(&body, 3, Duration::from_millis(1), true)
        } else {
            Script::json(200, &json_answer())
        }
    })
}

#[test]
fn a_call_passes_byte_for_byte_and_its_usage_lands_in_the_ledger() {
    let upstream = upstream_for_both();
    let proxy = Proxy::start(&upstream.url, &[]);
    let body = openai_body("Be brief.", false);
    let auth = format!("Bearer {KEY}");
    let headers = [
        ("Authorization", auth.as_str()),
        ("X-Custom-Thing", "Value With  Spaces"),
        ("content-type", "application/json"),
    ];
    let (status, head, answer) = send(
        &proxy.url,
        "POST",
        "/v1/chat/completions?trace=1",
        &headers,
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    assert_eq!(String::from_utf8(answer).unwrap(), json_answer());
    assert!(head.to_ascii_lowercase().contains("x-upstream: yes"));

    let sent = &upstream.requests()[0];
    assert_eq!(
        sent.body,
        body.as_bytes(),
        "the body went upstream unchanged"
    );
    assert_eq!(sent.path(), "/v1/chat/completions?trace=1");
    assert_eq!(sent.header("authorization").as_deref(), Some(auth.as_str()));
    assert_eq!(
        sent.header("x-custom-thing").as_deref(),
        Some("Value With  Spaces")
    );
    assert!(sent.head.contains("X-Custom-Thing:"), "header case kept");
    let host = upstream.url.trim_start_matches("http://");
    assert_eq!(sent.header("host").as_deref(), Some(host));

    let rows = proxy.wait_rows(1);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["command"], "proxy");
    assert_eq!(row["provider"], "openai");
    assert_eq!(row["model"], "gpt-test");
    assert_eq!(row["status"], "ok");
    assert_eq!(row["input_tokens"], 2048);
    assert_eq!(row["cached_input_tokens"], 1920);
    assert_eq!(row["output_tokens"], 31);
    assert_eq!(row["prefix_hash"].as_str().map(str::len), Some(64));
    assert!(row["session"].as_str().unwrap().starts_with("auto-"));
    assert_eq!(row["drifted_parts"], Value::Null);
    let ledger = std::fs::read_to_string(&proxy.ledger).unwrap();
    assert!(
        !ledger.contains("SECRET"),
        "the credential never reaches the ledger"
    );
}

#[test]
fn streams_come_back_unchanged_and_are_metered_for_both_wires() {
    let upstream = upstream_for_both();
    let proxy = Proxy::start(&upstream.url, &[]);
    let (status, head, answer) = send(
        &proxy.url,
        "POST",
        "/v1/messages",
        &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
        anthropic_body("Be brief.").as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(head.contains("text/event-stream"));
    let expected = anthropic_stream("Hello there, friend.", Some("end_turn"), true);
    assert_eq!(String::from_utf8(answer).unwrap(), expected);
    let (_, _, answer) = send(
        &proxy.url,
        "POST",
        "/v1/chat/completions",
        &[("authorization", "Bearer k")],
        openai_body("Be brief.", true).as_bytes(),
    );
    let expected = openai_stream("Hello there.", Some("stop"), Some(OPENAI_USAGE), true);
    assert_eq!(String::from_utf8(answer).unwrap(), expected);

    let rows = proxy.wait_rows(2);
    let anthropic = rows.iter().find(|r| r["provider"] == "anthropic").unwrap();
    assert_eq!(anthropic["status"], "ok");
    assert_eq!(anthropic["input_tokens"], 12 + 2036);
    assert_eq!(anthropic["cached_input_tokens"], 2036);
    assert_eq!(anthropic["cache_write_tokens"], 0);
    assert_eq!(anthropic["output_tokens"], 29);
    let openai = rows.iter().find(|r| r["provider"] == "openai").unwrap();
    assert_eq!(openai["status"], "ok");
    assert_eq!(openai["cached_input_tokens"], 1920);
}

#[test]
fn a_stream_without_a_usage_frame_is_recorded_with_null_tokens() {
    let upstream = Upstream::start(|_| {
        let body = openai_stream("No usage here.", Some("stop"), None, true);
        Script::sse(&body, 2, Duration::ZERO, true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let (status, _, _) = post_chat(&proxy.url, openai_body("x", true).as_bytes());
    assert_eq!(status, 200);
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["status"], "ok");
    assert_eq!(row["input_tokens"], Value::Null);
    assert_eq!(row["cached_input_tokens"], Value::Null);
    assert_eq!(row["output_tokens"], Value::Null);
}

#[test]
fn drift_is_detected_per_session_and_shown_in_stats_and_metrics() {
    let upstream = upstream_for_both();
    let proxy = Proxy::start(&upstream.url, &[]);
    let call = |session: &str, system: &str| {
        let (status, _, _) = send(
            &proxy.url,
            "POST",
            "/v1/chat/completions",
            &[
                ("X-Brief-Session", session),
                ("authorization", "Bearer same"),
            ],
            openai_body(system, false).as_bytes(),
        );
        assert_eq!(status, 200);
    };
    call("agent-a", "Be brief.");
    call("agent-b", "Be thorough.");
    call("agent-a", "Be brief.");
    call("agent-a", "Be brief. Today is 2026-11-30.");
    // Rows of sequential calls may land in either order (each is written after its
    // answer's last bytes, on bookkeeping threads; read by position this failed once on a
    // loaded machine): each is found by its session and its drift.
    let rows = proxy.wait_rows(4);
    let of = |session: &str| -> Vec<&Value> {
        rows.iter().filter(|r| r["session"] == session).collect()
    };
    let b = of("agent-b");
    assert_eq!(b.len(), 1);
    assert_eq!(
        b[0]["drifted_parts"],
        Value::Null,
        "another session is not drift"
    );
    let a = of("agent-a");
    assert_eq!(a.len(), 3);
    let first: Vec<&&Value> = a.iter().filter(|r| r["drifted_parts"].is_null()).collect();
    let same: Vec<&&Value> = a
        .iter()
        .filter(|r| r["drifted_parts"] == serde_json::json!([]))
        .collect();
    let drifted: Vec<&&Value> = a
        .iter()
        .filter(|r| r["drifted_parts"][0] == "system")
        .collect();
    assert_eq!((first.len(), same.len(), drifted.len()), (1, 1, 1), "{a:?}");
    assert_eq!(first[0]["prefix_hash"], same[0]["prefix_hash"]);
    assert_ne!(same[0]["prefix_hash"], drifted[0]["prefix_hash"]);

    let stats: Value = serde_json::from_str(&proxy.get("/stats")).unwrap();
    assert_eq!(stats["status"], "ok");
    assert_eq!(stats["totals"]["calls"], 4);
    assert_eq!(stats["totals"]["drifted"], 1);
    assert_eq!(stats["totals"]["input_tokens"], 4 * 2048);
    assert_eq!(stats["per_session"]["agent-a"]["calls"], 3);
    assert_eq!(
        stats["per_model"]["gpt-test"]["cached_input_tokens"],
        4 * 1920
    );
    let share = stats["totals"]["cached_share"].as_f64().unwrap();
    assert!((share - 1920.0 / 2048.0).abs() < 1e-9);

    let metrics = proxy.get("/metrics");
    assert!(metrics.contains(
        "brief_proxy_prefix_drift_total{provider=\"openai\",model=\"gpt-test\",session=\"agent-a\"} 1\n"
    ), "{metrics}");
    assert!(metrics.contains(
        "brief_proxy_calls_total{provider=\"openai\",model=\"gpt-test\",session=\"agent-b\",status=\"ok\"} 1\n"
    ));
    assert!(metrics.contains("# TYPE brief_proxy_cached_input_tokens_total counter\n"));

    // The same drift, read back from the ledger by `brief usage --by session`.
    let out = crate::common::brief()
        .args(["usage", "--by", "session", "--json", "--ledger"])
        .arg(&proxy.ledger)
        .output()
        .unwrap();
    assert!(out.status.success());
    let usage: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(usage["by"], "session");
    let groups = usage["groups"].as_array().unwrap();
    let keys: Vec<&str> = groups.iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["agent-a", "agent-b"]);
    assert_eq!(groups[0]["calls"], 3);
    assert_eq!(groups[0]["drift_compared"], 2);
    assert_eq!(groups[0]["drifted"], 1);
    assert_eq!(groups[0]["drifted_parts"], serde_json::json!({"system": 1}));
    assert_eq!(groups[1]["drift_compared"], 0);
    assert_eq!(usage["total"]["drifted"], 1);
    let out = crate::common::brief()
        .args(["usage", "--by", "session", "--ledger"])
        .arg(&proxy.ledger)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Prefix drift: 1 of 2 proxied calls differed from their session's previous call (system 1)"),
        "{text}"
    );
    assert!(text.contains(" DRIFTED "), "{text}");
}

#[test]
fn brief_usage_reads_the_proxy_rows() {
    let upstream = upstream_for_both();
    let proxy = Proxy::start(&upstream.url, &[]);
    for _ in 0..2 {
        post_chat(&proxy.url, openai_body("Be brief.", false).as_bytes());
    }
    proxy.wait_rows(2);
    let out = crate::common::brief()
        .args(["usage", "--json", "--ledger"])
        .arg(&proxy.ledger)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("4096") && text.contains("3840"), "{text}");
}

/// Regression: a relayed answer is served on the dashboard's origin, and an upstream page
/// there could run a script that reads `/stats` (it answered without `nosniff`).
#[test]
fn a_relayed_page_cannot_run_a_script_on_the_dashboards_origin() {
    let page = "<html><script>fetch('/stats')</script></html>";
    let upstream = Upstream::start(move |_| {
        let mut script = Script::json(200, page);
        script.head = script.head.replace("application/json", "text/html");
        script
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let (status, head, body) = send(&proxy.url, "GET", "/v1/some/page", &[], b"");
    assert_eq!((status, body.as_slice()), (200, page.as_bytes()));
    let head = head.to_ascii_lowercase();
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    assert!(
        head.contains("content-security-policy: sandbox; default-src 'none'"),
        "{head}"
    );
}

#[test]
fn other_paths_pass_through_without_a_row_and_are_counted_unmetered() {
    let upstream = Upstream::start(|_| Script::json(200, "{\"data\":[]}"));
    let mut proxy = Proxy::start(&upstream.url, &[]);
    let (status, _, body) = send(&proxy.url, "GET", "/v1/models", &[], b"");
    assert_eq!((status, body.as_slice()), (200, &b"{\"data\":[]}"[..]));
    assert_eq!(upstream.requests()[0].path(), "/v1/models");
    // A path the proxy does not know is relayed too (never dropped), below the base URL.
    let (status, _, _) = send(&proxy.url, "POST", "/v1/embeddings", &[], b"{}");
    assert_eq!(status, 200);
    assert_eq!(upstream.requests()[1].path(), "/v1/embeddings");
    let (status, _, _) = send(&proxy.url, "GET", "/nothing", &[], b"");
    assert_eq!(status, 200);
    assert_eq!(upstream.requests()[2].path(), "/nothing");
    std::thread::sleep(Duration::from_millis(50));
    assert!(proxy.rows().is_empty());
    let stats: Value = serde_json::from_str(&proxy.get("/stats")).unwrap();
    assert_eq!(stats["unmetered"], 3, "{stats}");
    assert_eq!(stats["unmetered_per_provider"]["openai"], 3, "{stats}");
    assert_eq!(stats["totals"]["calls"], 0, "{stats}");
    let metrics = proxy.get("/metrics");
    assert!(
        metrics.contains("brief_proxy_unmetered_requests_total{provider=\"openai\"} 3"),
        "{metrics}"
    );
    let (_, stderr) = proxy.stop();
    // Warned once, for the POST that could have been a model call, not for the reads.
    assert_eq!(stderr.matches("relayed to the").count(), 1, "{stderr}");
    assert!(stderr.contains("POST /v1/embeddings"), "{stderr}");
}

#[test]
fn drift_follows_the_order_requests_arrived_in_not_the_order_answers_ended() {
    // The first call streams slowly; the second, with a changed system prompt, arrives
    // while it runs and is answered at once. Its row is written first, yet it is the one
    // that drifted from the first, not the other way round.
    let upstream = Upstream::start(|request| {
        if request.json()["stream"] == true {
            let body = openai_stream("Slow answer.", Some("stop"), Some(OPENAI_USAGE), true);
            // Slow enough (about 2 s) that the second call ends first even on a loaded
            // machine.
            Script::sse(&body, 5, Duration::from_millis(400), true)
        } else {
            Script::json(200, &json_answer())
        }
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let send_as = |system: &'static str, stream: bool| {
        let url = proxy.url.clone();
        std::thread::spawn(move || {
            send(
                &url,
                "POST",
                "/v1/chat/completions",
                &[("X-Brief-Session", "ordered")],
                openai_body(system, stream).as_bytes(),
            )
            .0
        })
    };
    let first = send_as("Be brief.", true);
    for _ in 0..200 {
        if !upstream.requests().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = send_as("Be brief. Today is 2026-12-01.", false);
    assert_eq!(second.join().unwrap(), 200);
    assert_eq!(first.join().unwrap(), 200);
    let rows = proxy.wait_rows(2);
    assert_eq!(rows[0]["drifted_parts"][0], "system", "{rows:?}");
    assert_eq!(rows[1]["drifted_parts"], Value::Null, "{rows:?}");
    assert_ne!(rows[0]["prefix_hash"], rows[1]["prefix_hash"]);
}
