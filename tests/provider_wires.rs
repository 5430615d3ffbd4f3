//! Provider calls in the Responses and Gemini wires against a scripted server on loopback:
//! the request each sends (path, key header, per-call fields), streams split at odd
//! places, usage with cached and reasoning tokens, and a cut stream refused.

use crate::loopback::fixtures::*;
use crate::loopback::{Reply, odd_cuts};
use briefkit::provider::{CallOptions, Usage};
use briefkit::wire::Wire;

/// The usage the Responses and Gemini fixtures report, read back.
fn fixture_usage() -> Usage {
    Usage {
        input_tokens: 2048,
        cached_input_tokens: Some(1920),
        output_tokens: 31,
        reasoning_tokens: Some(12),
        ..Usage::default()
    }
}

#[test]
fn a_responses_call_streams_and_reads_the_completed_usage() {
    let body = responses_stream(ESCAPED_TEXT, true);
    for step in [3, 29, 200] {
        let mut options = CallOptions::text(2000);
        options.cache_key = Some("brief-abc".into());
        let (server, answer) = run(
            Wire::Responses,
            vec![Reply::sse(&body, &odd_cuts(&body, step))],
            &options,
        );
        assert_eq!(answer.text, ESCAPED_TEXT);
        assert_eq!(answer.finish_reason, "completed");
        assert!(answer.complete);
        assert_eq!(answer.usage, Some(fixture_usage()));
        let request = &server.requests()[0];
        assert!(
            request.head.starts_with("POST /v1/responses "),
            "{}",
            request.head
        );
        assert_eq!(
            request.header("authorization").as_deref(),
            Some(format!("Bearer {KEY}").as_str())
        );
        let sent = request.json();
        assert_eq!(sent["model"], "test-model");
        assert_eq!(
            sent["instructions"],
            "You shorten help-desk notes. Keep every price."
        );
        assert_eq!(sent["input"][0]["role"], "user");
        assert_eq!(sent["max_output_tokens"], 2000);
        assert_eq!(sent["stream"], true);
        assert_eq!(sent["store"], false);
        assert_eq!(sent["prompt_cache_key"], "brief-abc");
    }
}

#[test]
fn a_responses_stream_without_its_completed_event_is_refused() {
    let body = responses_stream("half an answer", false);
    let (_, err) = fail(
        Wire::Responses,
        vec![Reply::sse(&body, &[])],
        &CallOptions::text(100),
    );
    assert!(err.message.contains("response.completed"), "{err}");
}

#[test]
fn a_gemini_call_puts_the_model_in_the_path_and_the_key_in_its_header() {
    let body = gemini_stream(ESCAPED_TEXT, true);
    for step in [4, 41] {
        let (server, answer) = run(
            Wire::Gemini,
            vec![Reply::sse(&body, &odd_cuts(&body, step))],
            &CallOptions::probe(),
        );
        assert_eq!(answer.text, ESCAPED_TEXT);
        assert_eq!(answer.finish_reason, "STOP");
        assert_eq!(answer.model, "test-model-2025");
        assert_eq!(answer.usage, Some(fixture_usage()));
        let request = &server.requests()[0];
        assert!(
            request
                .head
                .starts_with("POST /v1beta/models/test-model:streamGenerateContent?alt=sse "),
            "{}",
            request.head
        );
        assert_eq!(request.header("x-goog-api-key").as_deref(), Some(KEY));
        assert!(
            !request.head.contains("key="),
            "the key never goes in the URL"
        );
        let sent = request.json();
        assert_eq!(
            sent["systemInstruction"]["parts"][0]["text"],
            "You shorten help-desk notes. Keep every price."
        );
        assert_eq!(sent["contents"][0]["role"], "user");
        assert_eq!(sent["generationConfig"]["maxOutputTokens"], 1);
        assert!(sent.get("model").is_none());
    }
}

#[test]
fn a_gemini_stream_cut_before_its_finish_reason_is_refused() {
    let body = gemini_stream("half an answer", false);
    let (_, err) = fail(
        Wire::Gemini,
        vec![Reply::sse(&body, &[])],
        &CallOptions::text(100),
    );
    assert!(err.message.contains("finish reason"), "{err}");
}
