//! `brief proxy` with the wires agents speak besides Chat Completions: the OpenAI Responses
//! API (Codex CLI, the current SDKs) and Gemini `generateContent`, each metered with its
//! cached tokens; Anthropic cache writes per TTL bucket; every request routed to its own
//! provider, a Gemini key kept at its origin; sessions named by the client's own
//! conversation id, so a new conversation is not drift.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::proxy::{Proxy, Script, Upstream, send};
use crate::harness::{argv, assert_exit};
use crate::loopback::fixtures::{GEMINI_USAGE, RESPONSES_USAGE, gemini_stream, responses_stream};

const GEMINI_KEY: &str = "AIzaSyProxyTestSECRETabcdefghijklmn";

fn responses_body(instructions: &str, stream: bool) -> String {
    format!(
        "{{\"model\":\"gpt-5-codex\", \"instructions\":\"{instructions}\",\"input\":[{{\"role\":\"user\",\"content\":\"hi\"}}],\"stream\":{stream},\"prompt_cache_key\":\"thread-1\"}}"
    )
}

fn responses_answer() -> String {
    format!(
        "{{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-5-codex\",\"output\":[{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"ok\"}}]}}],\"usage\":{RESPONSES_USAGE}}}"
    )
}

fn gemini_body(system: &str) -> String {
    format!(
        "{{\"systemInstruction\":{{\"parts\":[{{\"text\":\"{system}\"}}]}},\"contents\":[{{\"role\":\"user\",\"parts\":[{{\"text\":\"hi\"}}]}}]}}"
    )
}

fn gemini_answer() -> String {
    format!(
        "{{\"candidates\":[{{\"content\":{{\"role\":\"model\",\"parts\":[{{\"text\":\"ok\"}}]}},\"finishReason\":\"STOP\"}}],\"usageMetadata\":{GEMINI_USAGE},\"modelVersion\":\"gemini-test\"}}"
    )
}

/// Answers each wire in its own way, streamed when the request asks.
fn upstream_for_all() -> Upstream {
    Upstream::start(|request| {
        let path = request.path();
        if path.starts_with("/v1/responses") {
            if request.json()["stream"] == true {
                let body = responses_stream("Hello there.", true);
                Script::sse(&body, 3, Duration::from_millis(1), true)
            } else {
                Script::json(200, &responses_answer())
            }
        } else if path.contains(":streamGenerateContent") && path.contains("alt=sse") {
            Script::sse(
                &gemini_stream("Hello there.", true),
                3,
                Duration::ZERO,
                true,
            )
        } else if path.contains(":streamGenerateContent") {
            // Without `alt=sse`, a stream is one JSON array of chunks.
            let first = "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]}}]}";
            Script::json(200, &format!("[{first},\n{}]", gemini_answer()))
        } else if path.contains(":generateContent") {
            Script::json(200, &gemini_answer())
        } else {
            Script::json(200, "{\"data\":[]}")
        }
    })
}

fn usage_json(ledger: &std::path::Path, by: &str) -> Value {
    let out = crate::common::brief()
        .args(["usage", "--json", "--by", by, "--ledger"])
        .arg(ledger)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn responses_calls_are_metered_with_cached_and_reasoning_tokens_streamed_or_not() {
    let upstream = upstream_for_all();
    let proxy = Proxy::start(&upstream.url, &[]);
    let auth = "Bearer sk-proj-responsesSECRETabcdefghij";
    for (path, stream) in [
        ("/v1/responses", false),
        ("/v1/responses", true),
        ("/v1/responses/compact", false),
    ] {
        let body = responses_body("You are terse.", stream);
        let (status, _, answer) = send(
            &proxy.url,
            "POST",
            path,
            &[("authorization", auth)],
            body.as_bytes(),
        );
        assert_eq!(status, 200);
        let expected = if stream {
            responses_stream("Hello there.", true)
        } else {
            responses_answer()
        };
        assert_eq!(String::from_utf8(answer).unwrap(), expected);
        let sent = upstream.requests().last().unwrap().clone();
        assert_eq!(
            sent.body,
            body.as_bytes(),
            "the body went upstream unchanged"
        );
        assert_eq!(sent.path(), path);
    }
    let rows = proxy.wait_rows(3);
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_eq!(row["provider"], "responses", "{row}");
        assert_eq!(row["model"], "gpt-5-codex");
        assert_eq!(row["status"], "ok");
        assert_eq!(row["input_tokens"], 2048);
        assert_eq!(row["cached_input_tokens"], 1920);
        assert_eq!(row["output_tokens"], 31);
        assert_eq!(row["reasoning_tokens"], 12);
        // The client's own conversation id names the session.
        assert_eq!(row["session"], "thread-1");
        assert_eq!(row["prefix_hash"].as_str().map(str::len), Some(64));
    }
    assert_eq!(rows[0]["drifted_parts"], Value::Null);
    assert_eq!(rows[1]["drifted_parts"], json!([]));

    let usage = usage_json(&proxy.ledger, "model");
    let group = &usage["groups"][0];
    assert_eq!(group["key"], "responses/gpt-5-codex", "{usage}");
    assert_eq!(group["calls"], 3);
    assert_eq!(group["cached_input_tokens"], 3 * 1920, "{usage}");
    let ledger = std::fs::read_to_string(&proxy.ledger).unwrap();
    assert!(!ledger.contains("SECRET"));
}

#[test]
fn responses_streams_that_end_incomplete_or_failed_are_metered_from_their_last_event() {
    let upstream = Upstream::start(|request| {
        let instructions = request.json()["instructions"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let end = if instructions == "incomplete" {
            format!(
                "event: response.incomplete\ndata: {{\"type\":\"response.incomplete\",\"response\":{{\"status\":\"incomplete\",\"incomplete_details\":{{\"reason\":\"max_output_tokens\"}},\"usage\":{RESPONSES_USAGE}}}}}\n\n"
            )
        } else {
            format!(
                "event: response.failed\ndata: {{\"type\":\"response.failed\",\"response\":{{\"status\":\"failed\",\"error\":{{\"code\":\"server_error\",\"message\":\"boom\"}},\"usage\":{RESPONSES_USAGE}}}}}\n\n"
            )
        };
        let body = responses_stream("Half", false) + &end;
        Script::sse(&body, 2, Duration::ZERO, true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    for which in ["incomplete", "failed"] {
        let (status, _, _) = send(
            &proxy.url,
            "POST",
            "/v1/responses",
            &[("authorization", "Bearer k")],
            responses_body(which, true).as_bytes(),
        );
        assert_eq!(status, 200);
    }
    let rows = proxy.wait_rows(2);
    for row in &rows {
        assert_eq!(row["cached_input_tokens"], 1920, "{row}");
        assert_eq!(row["input_tokens"], 2048, "{row}");
    }
    let failed = rows
        .iter()
        .find(|r| r["status"] != "ok")
        .expect("the failed response is not ok");
    assert!(
        failed["error"].as_str().unwrap_or("").contains("boom"),
        "{failed}"
    );
}

#[test]
fn gemini_calls_are_metered_in_every_form_and_the_key_stays_with_gemini() {
    let openai = Upstream::start(|_| Script::json(200, "{\"data\":[]}"));
    let anthropic = Upstream::start(|_| Script::json(200, "{\"data\":[]}"));
    let gemini = upstream_for_all();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("usage.jsonl");
    let mut proxy = Proxy::start_apart([&openai.url, &anthropic.url, &gemini.url], &ledger, &[]);
    let body = gemini_body("You are terse.");
    let calls = [
        (
            format!("/v1beta/models/gemini-test:generateContent?key={GEMINI_KEY}"),
            None,
        ),
        (
            "/v1beta/models/gemini-test:streamGenerateContent?alt=sse".to_string(),
            Some(GEMINI_KEY),
        ),
        (
            "/v1beta/models/gemini-test:streamGenerateContent".to_string(),
            Some(GEMINI_KEY),
        ),
    ];
    for (path, header_key) in &calls {
        let headers: Vec<(&str, &str)> =
            header_key.iter().map(|k| ("x-goog-api-key", *k)).collect();
        let (status, _, answer) = send(&proxy.url, "POST", path, &headers, body.as_bytes());
        assert_eq!(status, 200, "{path}");
        assert!(!answer.is_empty());
        let sent = gemini.requests().last().unwrap().clone();
        assert_eq!(sent.body, body.as_bytes());
        assert_eq!(&sent.path(), path, "path and key reach Gemini as sent");
    }
    // A model list with the Gemini key goes to Gemini, not to OpenAI (the default).
    let (status, _, _) = send(
        &proxy.url,
        "GET",
        "/v1/models",
        &[("x-goog-api-key", GEMINI_KEY)],
        b"",
    );
    assert_eq!(status, 200);
    assert_eq!(gemini.requests().len(), 4);
    // A Gemini key sent along to another provider's path is dropped on the way.
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        &format!("/v1/chat/completions?key={GEMINI_KEY}"),
        &[
            ("x-goog-api-key", GEMINI_KEY),
            ("authorization", "Bearer sk-o"),
        ],
        b"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    );
    assert_eq!(status, 200);
    let to_openai = &openai.requests()[0];
    assert_eq!(to_openai.path(), "/v1/chat/completions");
    assert!(!to_openai.head.contains(GEMINI_KEY), "{}", to_openai.head);
    assert!(anthropic.requests().is_empty());

    let rows = proxy.wait_rows(4);
    let gemini_rows: Vec<&Value> = rows.iter().filter(|r| r["provider"] == "gemini").collect();
    assert_eq!(gemini_rows.len(), 3);
    for row in &gemini_rows {
        assert_eq!(row["model"], "gemini-test", "{row}");
        assert_eq!(row["status"], "ok", "{row}");
        assert_eq!(row["input_tokens"], 2048);
        assert_eq!(row["cached_input_tokens"], 1920);
        assert_eq!(row["output_tokens"], 31);
        assert_eq!(row["reasoning_tokens"], 12);
    }
    // One key, one model: one conversation, the same prefix every time.
    assert_eq!(gemini_rows[1]["session"], gemini_rows[0]["session"]);
    assert_eq!(gemini_rows[2]["drifted_parts"], json!([]));

    let (_, stderr) = proxy.stop();
    let ledger_text = std::fs::read_to_string(&ledger).unwrap();
    assert!(!ledger_text.contains("SECRET"), "{ledger_text}");
    assert!(!stderr.contains("SECRET"), "{stderr}");
}

#[test]
fn anthropic_cache_writes_are_recorded_per_ttl_bucket() {
    let upstream = Upstream::start(|_| {
        let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":2000,\"cache_creation\":{\"ephemeral_5m_input_tokens\":60,\"ephemeral_1h_input_tokens\":40},\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        Script::sse(body, 2, Duration::ZERO, true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let body = "{\"model\":\"claude-test\",\"max_tokens\":5,\"stream\":true,\"system\":\"Be brief.\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/messages?beta=true",
        &[
            ("x-api-key", "sk-ant-k"),
            ("anthropic-version", "2023-06-01"),
        ],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    let row = &proxy.wait_rows(1)[0];
    assert_eq!(row["input_tokens"], 12 + 100 + 2000, "{row}");
    assert_eq!(row["cached_input_tokens"], 2000);
    assert_eq!(row["cache_write_tokens"], 100);
    assert_eq!(row["cache_write_5m_tokens"], 60);
    assert_eq!(row["cache_write_1h_tokens"], 40);
    assert_eq!(row["output_tokens"], 7);
    // Priced per bucket: reads 0.1x, 5-minute writes 1.25x, 1-hour writes 2x of input.
    let out = crate::common::brief()
        .args(argv(
            "usage --json --price-input 3 --price-output 15 --ledger",
        ))
        .arg(&proxy.ledger)
        .output()
        .unwrap();
    let usage: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cost = usage["total"]["cost"].as_f64().unwrap();
    let expected = (12.0 * 3.0 + 2000.0 * 0.3 + 60.0 * 3.75 + 40.0 * 6.0 + 7.0 * 15.0) / 1e6;
    assert!((cost - expected).abs() < 1e-12, "{cost} {usage}");
}

/// A Claude Code request: its session id in a header and in `metadata.user_id`, and a git
/// status in the first user message.
fn claude_code_body(session: &str, git_status: &str) -> String {
    let user_id = serde_json::to_string(
        &json!({"device_id": "d1", "account_uuid": "", "session_id": session}).to_string(),
    )
    .unwrap();
    format!(
        "{{\"model\":\"claude-test\",\"max_tokens\":64,\"stream\":true,\"system\":[{{\"type\":\"text\",\"text\":\"You are an agent.\",\"cache_control\":{{\"type\":\"ephemeral\"}}}}],\"messages\":[{{\"role\":\"user\",\"content\":\"gitStatus: {git_status}\\nsay pong\"}}],\"metadata\":{{\"user_id\":{user_id}}}}}"
    )
}

#[test]
fn separate_conversations_are_separate_sessions_and_not_drift() {
    let upstream = Upstream::start(|_| {
        let body = crate::loopback::fixtures::anthropic_stream("pong", Some("end_turn"), true);
        Script::sse(&body, 2, Duration::ZERO, true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    let call = |header_session: Option<&str>, body: String, system: Option<&str>| {
        let body = match system {
            Some(system) => body.replace("You are an agent.", system),
            None => body,
        };
        let mut headers = vec![
            ("x-api-key", "sk-ant-same"),
            ("anthropic-version", "2023-06-01"),
        ];
        if let Some(id) = header_session {
            headers.push(("x-claude-code-session-id", id));
        }
        let (status, _, _) = send(
            &proxy.url,
            "POST",
            "/v1/messages",
            &headers,
            body.as_bytes(),
        );
        assert_eq!(status, 200);
    };
    // Two conversations, same key and model, different git status and system text.
    call(Some("conv-a"), claude_code_body("conv-a", "M a.txt"), None);
    call(
        Some("conv-b"),
        claude_code_body("conv-b", "?? b.txt"),
        Some("You are a new agent."),
    );
    // The session id in `metadata.user_id` alone also names the conversation.
    call(None, claude_code_body("conv-c", "clean"), Some("Third."));
    // Within a conversation, a changed system prompt is drift.
    call(
        Some("conv-a"),
        claude_code_body("conv-a", "M a.txt"),
        Some("You are changed."),
    );
    // Each call's row is written after its answer's last bytes, on the proxy's bookkeeping
    // threads: rows of calls made one after another may land in either order (regression: the
    // test read them by position and failed once in CI).
    let rows = proxy.wait_rows(4);
    let mut sessions: Vec<&str> = rows
        .iter()
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    sessions.sort_unstable();
    assert_eq!(sessions, ["conv-a", "conv-a", "conv-b", "conv-c"]);
    let drifted: Vec<&Value> = rows
        .iter()
        .filter(|r| r["drifted_parts"] != Value::Null)
        .collect();
    assert_eq!(
        drifted.len(),
        1,
        "only the changed system prompt is drift: {rows:?}"
    );
    assert_eq!(drifted[0]["session"], "conv-a");
    assert_eq!(drifted[0]["drifted_parts"], json!(["system"]));
    let stats: Value = serde_json::from_str(&proxy.get("/stats")).unwrap();
    assert_eq!(stats["totals"]["drifted"], 1, "{stats}");
}

#[test]
fn a_model_list_goes_to_the_provider_whose_credential_it_carries() {
    // Regression: a `GET /v1/models` with only `x-api-key` went to the OpenAI upstream.
    let openai = Upstream::start(|_| Script::json(200, "{\"data\":[\"o\"]}"));
    let anthropic = Upstream::start(|_| Script::json(200, "{\"data\":[\"a\"]}"));
    let gemini = Upstream::start(|_| Script::json(200, "{\"models\":[]}"));
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("usage.jsonl");
    let proxy = Proxy::start_apart([&openai.url, &anthropic.url, &gemini.url], &ledger, &[]);
    for (key, listed) in [
        (("x-api-key", "sk-ant-only"), b"{\"data\":[\"a\"]}"),
        (("authorization", "Bearer sk-o"), b"{\"data\":[\"o\"]}"),
    ] {
        let (_, _, body) = send(&proxy.url, "GET", "/v1/models", &[key], b"");
        assert_eq!(body, listed);
    }
    assert_eq!(openai.requests().len(), 1);
    assert_eq!(anthropic.requests().len(), 1);
    assert!(!openai.requests()[0].head.contains("sk-ant-only"));
    assert!(gemini.requests().is_empty());
}
