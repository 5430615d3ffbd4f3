//! `brief proxy` when things go wrong: the upstream is down, dies mid-stream or never
//! answers; the client hangs up; the body is too large; the ledger cannot be written; the
//! process is told to stop mid-stream; and 200 streaming clients at once.

use std::io::Read;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;

use crate::common::proxy::{
    Proxy, Script, Upstream, dechunk, open, open_chat, parse_response, post_chat, send,
};
use crate::loopback::fixtures::{OPENAI_USAGE, anthropic_stream, openai_stream};

fn body(stream: bool) -> String {
    format!(
        "{{\"model\":\"gpt-test\",\"stream\":{stream},\"messages\":[{{\"role\":\"system\",\"content\":\"Be brief.\"}},{{\"role\":\"user\",\"content\":\"hi\"}}]}}"
    )
}

const ANTHROPIC_BODY: &str = "{\"model\":\"claude-test\",\"max_tokens\":5,\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

/// A port nothing listens on.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

#[test]
fn an_unreachable_upstream_is_a_502_in_each_providers_error_shape() {
    let proxy = Proxy::start(&dead_url(), &[]);
    let (status, _, answer) = post_chat(&proxy.url, body(false).as_bytes());
    assert_eq!(status, 502);
    let error: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(error["error"]["type"], "server_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("could not connect")
    );
    let (status, _, answer) = send(
        &proxy.url,
        "POST",
        "/v1/messages",
        &[],
        ANTHROPIC_BODY.as_bytes(),
    );
    assert_eq!(status, 502);
    let error: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "api_error");
    let rows = proxy.wait_rows(2);
    assert!(rows.iter().all(|r| r["status"] == "connect"), "{rows:?}");
    // Rows land when their digests are done, not always in the calls' order.
    assert!(rows.iter().any(|r| r["model"] == "claude-test"), "{rows:?}");
}

#[test]
fn an_upstream_error_status_is_passed_through_and_recorded() {
    let upstream = Upstream::start(|_| {
        Script::json(
            429,
            "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\"}}",
        )
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let (status, _, answer) = post_chat(&proxy.url, body(false).as_bytes());
    assert_eq!(status, 429);
    assert!(
        String::from_utf8(answer)
            .unwrap()
            .contains("Rate limit reached")
    );
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["status"], "http_429");
    assert_eq!(row["error"], "requests: Rate limit reached");
}

#[test]
fn an_upstream_that_dies_mid_stream_ends_the_clients_stream_and_is_truncated_stream() {
    let upstream = Upstream::start(|_| {
        let full = anthropic_stream("A long answer that will be cut.", Some("end_turn"), true);
        let cut = &full[..full.len() / 2];
        Script::sse(cut, 3, Duration::from_millis(2), false)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let mut stream = open(
        &proxy.url,
        "POST",
        "/v1/messages",
        &[],
        ANTHROPIC_BODY.as_bytes(),
    );
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let (data, finished) = dechunk(&raw[at..]);
    assert!(
        !finished,
        "the client must see an unfinished body, not a clean end"
    );
    assert!(String::from_utf8_lossy(&data).contains("message_start"));
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["status"], "truncated_stream", "{row}");
    assert_eq!(
        row["cached_input_tokens"], 2036,
        "usage seen before the cut is kept"
    );
}

#[test]
fn a_client_that_disconnects_cancels_the_upstream_call() {
    let upstream = Upstream::start(|_| {
        let body = openai_stream(&"word ".repeat(400), Some("stop"), Some(OPENAI_USAGE), true);
        Script::sse(&body, 200, Duration::from_millis(10), true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let mut stream = open_chat(&proxy.url, body(true).as_bytes());
    let mut first = [0u8; 256];
    let n = stream.read(&mut first).unwrap();
    assert!(n > 0);
    drop(stream);
    let mut cancelled = false;
    for _ in 0..300 {
        if upstream.cut_off.load(Ordering::SeqCst) > 0 {
            cancelled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        cancelled,
        "the upstream connection was closed long before its 2 s answer ended"
    );
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["status"], "client_disconnected");
}

#[test]
fn an_upstream_that_never_answers_times_out_with_a_502() {
    let upstream = Upstream::start(|_| Script::silent());
    let proxy = Proxy::start(&upstream.url, &["--timeout", "300ms"]);
    let (status, _, answer) = post_chat(&proxy.url, body(false).as_bytes());
    assert_eq!(status, 502);
    let error: Value = serde_json::from_slice(&answer).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no answer within 300 ms")
    );
    assert_eq!(proxy.wait_rows(1)[0]["status"], "timeout");
}

#[test]
fn an_upstream_that_goes_quiet_mid_stream_ends_the_clients_stream_at_the_timeout() {
    let upstream = Upstream::start(|_| {
        let full = openai_stream(&"word ".repeat(40), Some("stop"), Some(OPENAI_USAGE), true);
        let mut script = Script::sse(&full[..full.len() / 3], 1, Duration::ZERO, false);
        script.hang = Some(Duration::from_secs(30));
        script
    });
    let proxy = Proxy::start(&upstream.url, &["--timeout", "300ms"]);
    let mut stream = open_chat(&proxy.url, body(true).as_bytes());
    let mut raw = Vec::new();
    // Ends at the proxy's idle timeout, long before the upstream's 30 s hang.
    let _ = stream.read_to_end(&mut raw);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert!(String::from_utf8_lossy(&raw[..at]).starts_with("HTTP/1.1 200"));
    let (data, finished) = dechunk(&raw[at..]);
    assert!(
        !finished,
        "a stream cut at the timeout must not look complete"
    );
    assert!(String::from_utf8_lossy(&data).contains("data: "));
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["status"], "timeout", "{row}");
    assert!(row["error"].as_str().unwrap().contains("300 ms"), "{row}");
}

#[test]
fn a_body_over_the_limit_is_413_and_nothing_goes_upstream() {
    let upstream = Upstream::start(|_| Script::json(200, "{}"));
    let proxy = Proxy::start(&upstream.url, &[]);
    let big = vec![b' '; 32 * 1024 * 1024 + 1];
    let (status, _, answer) = send(&proxy.url, "POST", "/v1/messages", &[], &big);
    assert_eq!(status, 413);
    let error: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(error["error"]["type"], "request_too_large");
    assert!(upstream.requests().is_empty());
}

#[test]
fn a_remote_address_needs_allow_remote_and_the_proxy_cannot_be_its_own_upstream() {
    let out = crate::common::brief()
        .args(["proxy", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let out = crate::common::brief()
        .args(["proxy", "--listen", &format!("127.0.0.1:{port}")])
        .env("OPENAI_BASE_URL", format!("http://localhost:{port}/v1"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("go round in a circle"));
}

#[test]
fn a_ledger_that_cannot_be_written_fails_no_call_and_is_reported_once() {
    let upstream = Upstream::start(|_| Script::json(200, "{\"usage\":{\"prompt_tokens\":3}}"));
    let dir = tempfile::tempdir().unwrap();
    // A directory where the ledger file should be: every append fails.
    let ledger = dir.path().join("usage.jsonl");
    std::fs::create_dir(&ledger).unwrap();
    let mut proxy = Proxy::start_with(&upstream.url, &ledger, &[]);
    for _ in 0..3 {
        let (status, _, _) = post_chat(&proxy.url, body(false).as_bytes());
        assert_eq!(status, 200);
    }
    let mut stats = Value::Null;
    for _ in 0..100 {
        stats = serde_json::from_str(&proxy.get("/stats")).unwrap();
        if stats["ledger_errors"] == 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(stats["ledger_errors"], 3);
    assert_eq!(stats["totals"]["calls"], 3);
    let (status, stderr) = proxy.stop();
    assert!(status.success());
    assert_eq!(
        stderr.matches("cannot write the ledger").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn sigterm_lets_a_stream_in_flight_finish_and_its_row_is_written() {
    let upstream = Upstream::start(|_| {
        let body = openai_stream(
            "Finishing what was started.",
            Some("stop"),
            Some(OPENAI_USAGE),
            true,
        );
        Script::sse(&body, 20, Duration::from_millis(15), true)
    });
    let mut proxy = Proxy::start(&upstream.url, &[]);
    let mut stream = open_chat(&proxy.url, body(true).as_bytes());
    let mut raw = vec![0u8; 64];
    let n = stream.read(&mut raw).unwrap();
    raw.truncate(n);
    crate::common::proxy::terminate_pid(proxy.pid());
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    raw.extend(rest);
    let (status, _, answer) = parse_response(&raw);
    assert_eq!(status, 200);
    assert!(
        String::from_utf8(answer)
            .unwrap()
            .ends_with("data: [DONE]\r\n\r\n")
    );
    let (exit, _) = proxy.stop();
    assert!(exit.success());
    let rows = proxy.rows();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "ok");
}

#[test]
fn two_hundred_streaming_clients_give_two_hundred_whole_rows() {
    let upstream = Upstream::start(|_| {
        let body = openai_stream("Streaming to many.", Some("stop"), Some(OPENAI_USAGE), true);
        Script::sse(&body, 4, Duration::from_millis(2), true)
    });
    let mut proxy = Proxy::start(&upstream.url, &[]);
    let url = proxy.url.clone();
    let clients: Vec<_> = (0..200)
        .map(|i| {
            let url = url.clone();
            std::thread::spawn(move || {
                let session = format!("load-{i}");
                let (status, _, answer) = send(
                    &url,
                    "POST",
                    "/v1/chat/completions",
                    &[("x-brief-session", &session)],
                    body(true).as_bytes(),
                );
                (status, String::from_utf8(answer).unwrap())
            })
        })
        .collect();
    for client in clients {
        let (status, answer) = client.join().unwrap();
        assert_eq!(status, 200);
        assert!(answer.ends_with("data: [DONE]\r\n\r\n"));
    }
    let (exit, _) = proxy.stop();
    assert!(exit.success());
    // `rows()` parses every line on its own: a glued or torn line fails here.
    let rows = proxy.rows();
    assert_eq!(rows.len(), 200);
    let mut sessions: Vec<&str> = rows
        .iter()
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    sessions.sort_unstable();
    sessions.dedup();
    assert_eq!(sessions.len(), 200);
    assert!(
        rows.iter()
            .all(|r| r["status"] == "ok" && r["cached_input_tokens"] == 1920)
    );
}
