//! Provider calls against a scripted server on loopback: both wire formats, streams split
//! at odd places, retries that end in an answer.

use std::time::{Duration, Instant};

use crate::loopback::fixtures::*;
use crate::loopback::{Reply, Server, odd_cuts};
use briefkit::provider::{CallOptions, Provider, Usage};
use briefkit::wire::Wire;

#[test]
fn openai_stream_split_at_odd_places_gives_the_exact_text_and_usage() {
    let body = openai_stream(ESCAPED_TEXT, Some("stop"), Some(OPENAI_USAGE), true);
    for step in [3, 17, 64] {
        let (server, answer) = run(
            Wire::OpenAi,
            vec![Reply::sse(&body, &odd_cuts(&body, step))],
            &CallOptions::text(2000),
        );
        assert_openai_answer(&answer);
        assert_eq!(answer.attempts, 1);
        assert_eq!(server.requests().len(), 1);
    }
}

#[test]
fn openai_request_has_the_key_streaming_usage_and_length_cap() {
    let body = openai_stream("ok", Some("stop"), Some(OPENAI_USAGE), true);
    let mut options = CallOptions::text(900);
    options.cache_key = Some("support-brief".into());
    let (server, _) = run(Wire::OpenAi, vec![Reply::sse(&body, &[])], &options);
    let request = &server.requests()[0];
    assert!(
        request.head.starts_with("POST /v1/chat/completions "),
        "{}",
        request.head
    );
    assert_eq!(
        request.header("authorization").as_deref(),
        Some("Bearer sk-test-SECRET123")
    );
    assert_eq!(
        request.header("accept").as_deref(),
        Some("text/event-stream")
    );
    let json = request.json();
    assert_eq!(json["model"], "test-model");
    assert_eq!(json["stream"], true);
    assert_eq!(json["stream_options"]["include_usage"], true);
    assert_eq!(json["max_tokens"], 900);
    assert_eq!(json["prompt_cache_key"], "support-brief");
    assert_eq!(json["messages"][0]["role"], "system");
    assert_eq!(
        json["messages"][1]["content"],
        "Orders over 40 EUR ship free."
    );
    assert!(json.get("temperature").is_none());
}

#[test]
fn anthropic_stream_split_at_odd_places_adds_cache_reads_to_input() {
    let body = anthropic_stream(ESCAPED_TEXT, Some("end_turn"), true);
    for step in [2, 5, 33] {
        let (server, answer) = run(
            Wire::Anthropic,
            vec![Reply::sse(&body, &odd_cuts(&body, step))],
            &CallOptions::text(2000),
        );
        assert_eq!(answer.text, ESCAPED_TEXT);
        assert_eq!(answer.finish_reason, "end_turn");
        assert_eq!(answer.model, "test-model-2025");
        assert_eq!(
            answer.usage,
            Some(Usage {
                input_tokens: 2048,
                cached_input_tokens: Some(2036),
                cache_write_tokens: Some(0),
                output_tokens: 29,
                ..Usage::default()
            })
        );
        let request = &server.requests()[0];
        assert!(
            request.head.starts_with("POST /v1/messages "),
            "{}",
            request.head
        );
        assert_eq!(request.header("x-api-key").as_deref(), Some(KEY));
        assert_eq!(
            request.header("anthropic-version").as_deref(),
            Some("2023-06-01")
        );
        assert!(request.header("authorization").is_none());
        let json = request.json();
        assert_eq!(json["max_tokens"], 2000);
        assert_eq!(json["stream"], true);
        assert_eq!(json["system"][0]["type"], "text");
        assert_eq!(json["system"][0]["cache_control"]["type"], "ephemeral");
    }
}

#[test]
fn a_probe_sends_the_smallest_answer_and_accepts_a_length_stop() {
    let body = anthropic_stream("O", Some("max_tokens"), true);
    let (server, answer) = run(
        Wire::Anthropic,
        vec![Reply::sse(&body, &[])],
        &CallOptions::probe(),
    );
    assert_eq!(server.requests()[0].json()["max_tokens"], 1);
    assert!(!answer.complete);
    assert_eq!(answer.usage.unwrap().cached_input_tokens, Some(2036));
}

#[test]
fn a_429_then_success_waits_as_retry_after_asks() {
    let ok = openai_stream(ESCAPED_TEXT, Some("stop"), Some(OPENAI_USAGE), true);
    let started = Instant::now();
    let (server, answer) = run(
        Wire::OpenAi,
        vec![
            Reply::status(
                429,
                &[("retry-after", "1")],
                "application/json",
                r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
            ),
            Reply::sse(&ok, &[]),
        ],
        &CallOptions::text(2000),
    );
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(answer.attempts, 2);
    assert_eq!(server.requests().len(), 2);
    assert_openai_answer(&answer);
}

#[test]
fn an_anthropic_overloaded_event_is_retried() {
    let overloaded = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let ok = anthropic_stream("fine", Some("end_turn"), true);
    let (_, answer) = run(
        Wire::Anthropic,
        vec![Reply::sse(overloaded, &[]), Reply::sse(&ok, &[])],
        &CallOptions::text(100),
    );
    assert_eq!(answer.text, "fine");
    assert_eq!(answer.attempts, 2);
}

#[test]
fn a_server_without_usage_or_cached_field_says_so() {
    let body = openai_stream("hi", Some("stop"), None, true);
    let (_, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::probe(),
    );
    assert_eq!(answer.usage, None);
    let body = openai_stream(
        "hi",
        Some("stop"),
        Some(r#"{"prompt_tokens":9,"completion_tokens":1}"#),
        true,
    );
    let (_, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::probe(),
    );
    let usage = answer.usage.unwrap();
    assert_eq!(usage.cached_input_tokens, None);
    assert_eq!(answer.raw_usage.unwrap()["prompt_tokens"], 9);
}

#[test]
fn a_400_naming_the_length_field_switches_to_the_other() {
    let ok = openai_stream("hi", Some("stop"), Some(OPENAI_USAGE), true);
    let (server, answer) = run(
        Wire::OpenAi,
        vec![
            Reply::status(
                400,
                &[],
                "application/json",
                r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error"}}"#,
            ),
            Reply::sse(&ok, &[]),
        ],
        &CallOptions::text(50),
    );
    assert_eq!(answer.text, "hi");
    let requests = server.requests();
    assert_eq!(requests[0].json()["max_tokens"], 50);
    assert_eq!(requests[1].json()["max_completion_tokens"], 50);
    assert!(requests[1].json().get("max_tokens").is_none());
}

#[test]
fn no_key_sends_no_authorization_header() {
    let body = openai_stream("hi", Some("stop"), None, true);
    let server = Server::start(vec![Reply::sse(&body, &[])]);
    let mut settings = settings(Wire::OpenAi, &server);
    settings.api_key = None;
    let provider = Provider::new(settings).unwrap();
    provider.call(&prompt(), &CallOptions::text(10)).unwrap();
    assert!(server.requests()[0].header("authorization").is_none());
}
