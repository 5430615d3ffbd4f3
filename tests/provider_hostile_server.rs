//! Regressions from the adversarial run against the provider layer: redirects, keys echoed
//! back changed, hostile model names, oversized answers, honest timeouts and waits. Each
//! test is named after what broke.

use std::time::Duration;

use crate::loopback::fixtures::*;
use crate::loopback::{Reply, Server};
use briefkit::provider::redact::Redactor;
use briefkit::provider::{self, CallOptions, Settings};
use briefkit::wire::Wire;

fn base64(text: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in text.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= group.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Every way a server echoed the key in the adversarial run.
fn echoes() -> Vec<String> {
    vec![
        KEY.to_string(),
        KEY.to_uppercase(),
        KEY.to_lowercase(),
        KEY.replace('-', "%2D"),
        base64(KEY.as_bytes()),
        base64(format!("Bearer {KEY}").as_bytes()),
    ]
}

#[test]
fn a_redirect_is_never_followed_so_the_key_and_the_item_stay_with_their_origin() {
    for kind in [Wire::OpenAi, Wire::Anthropic] {
        for code in [301, 302, 303, 307, 308] {
            let elsewhere = Server::start(vec![Reply::sse(
                &openai_stream("leaked", Some("stop"), None, true),
                &[],
            )]);
            let location = format!("{}/v1/chat/completions", elsewhere.url());
            let (origin, err) = fail(
                kind,
                vec![Reply::status(
                    code,
                    &[("location", &location)],
                    "text/plain",
                    "",
                )],
                &CallOptions::text(10),
            );
            assert_eq!(origin.requests().len(), 1, "{kind} {code}: not retried");
            assert!(
                elsewhere.requests().is_empty(),
                "{kind} {code}: the redirect target was contacted"
            );
            assert!(
                err.message.contains(&format!("HTTP {code}")),
                "{}",
                err.message
            );
            assert!(
                err.message.contains(&format!("redirected to {location}")),
                "{}",
                err.message
            );
        }
    }
}

#[test]
fn a_key_echoed_changed_in_an_error_is_still_redacted() {
    let redactor = Redactor::with_keys([KEY]);
    for echo in echoes() {
        for kind in [Wire::OpenAi, Wire::Anthropic] {
            let body = format!(r#"{{"error":{{"message":"bad key {echo} given","type":"auth"}}}}"#);
            let (_server, err) = fail(
                kind,
                vec![Reply::status(
                    401,
                    &[("location", &echo)],
                    "application/json",
                    &body,
                )],
                &CallOptions::text(10),
            );
            let shown = format!("{err} {:?} {:?}", err.details, err.hint);
            assert!(!redactor.finds_key(&shown), "{echo}: {shown}");
            assert!(shown.contains("[redacted]"), "{echo}: {shown}");
        }
    }
}

#[test]
fn a_model_name_with_escapes_or_the_key_is_cleaned_before_anyone_sees_it() {
    let hostile = format!(
        "gpt\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}]52;c;aGk=\u{7}-x {}",
        KEY.to_uppercase()
    );
    let model = serde_json::to_string(&hostile).unwrap();
    let body =
        openai_stream("Short.", Some("stop"), None, true).replace("\"test-model-2025\"", &model);
    let (_server, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::text(10),
    );
    assert_eq!(answer.model, "gpt-x [redacted]");
}

#[test]
fn an_answer_holding_the_key_in_any_form_is_marked() {
    for echo in echoes() {
        let body = openai_stream(&format!("Your key is {echo}."), Some("stop"), None, true);
        let (_server, answer) = run(
            Wire::OpenAi,
            vec![Reply::sse(&body, &[])],
            &CallOptions::text(10),
        );
        assert!(answer.contains_key, "{echo}");
    }
    let (_server, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(
            &openai_stream("Short.", Some("stop"), None, true),
            &[],
        )],
        &CallOptions::text(10),
    );
    assert!(!answer.contains_key);
}

/// An answer of `size` bytes in events of 64 KiB.
fn big_answer(size: usize) -> String {
    let mut out = String::new();
    let chunk = "x".repeat(64 * 1024);
    let mut sent = 0;
    while sent < size {
        let part = &chunk[..(size - sent).min(chunk.len())];
        out.push_str(&format!(
            "data: {{\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{part}\"}},\"finish_reason\":null}}]}}\n\n"
        ));
        sent += part.len();
    }
    out.push_str("data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    out
}

#[test]
fn an_answer_over_the_size_cap_is_refused() {
    let too_big = provider::MAX_ANSWER_BYTES + 1;
    let (_server, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse(&big_answer(too_big), &[])],
        &CallOptions::text(10),
    );
    assert!(
        err.message.contains("the limit is 256 KiB"),
        "{}",
        err.message
    );
    let (_server, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(&big_answer(provider::MAX_ANSWER_BYTES), &[])],
        &CallOptions::text(10),
    );
    assert_eq!(answer.text.len(), provider::MAX_ANSWER_BYTES);
}

#[test]
fn a_slow_but_live_stream_is_not_cut_off_by_the_timeout() {
    // Regression: the timeout bounded the whole request, so a healthy stream that sent
    // data steadily was killed. It is an idle timeout now: 8 pieces 100 ms apart outlast
    // a 500 ms timeout without ever being idle for it.
    let body = openai_stream("Orders over forty ship free.", Some("stop"), None, true);
    let step = body.len() / 8;
    let cuts: Vec<usize> = (1..8).map(|i| i * step).collect();
    let server = Server::start(vec![
        Reply::sse(&body, &cuts).pause(Duration::from_millis(100)),
    ]);
    let mut settings: Settings = settings(Wire::OpenAi, &server);
    settings.timeout = Duration::from_millis(500);
    let answer = provider::call(&settings, &prompt(), &CallOptions::text(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.text, "Orders over forty ship free.");
}

#[test]
fn a_retry_after_too_long_is_reported_as_asked_not_capped() {
    let (_server, err) = fail(
        Wire::OpenAi,
        vec![Reply::status(
            429,
            &[("retry-after", "999999")],
            "text/plain",
            "later",
        )],
        &CallOptions::text(10),
    );
    assert!(
        err.message.contains("asked to wait 999999 s (Retry-After)"),
        "{}",
        err.message
    );
    assert!(err.message.contains("waits at most 3 s"), "{}", err.message);
}

#[test]
fn a_retry_after_honoured_says_what_was_waited() {
    let reply = Reply::status(503, &[("retry-after", "0")], "text/plain", "busy");
    let ok = Reply::sse(&openai_stream("Short.", Some("stop"), None, true), &[]);
    let server = Server::start(vec![reply.clone(), reply, ok]);
    let answer = provider::call(
        &settings(Wire::OpenAi, &server),
        &prompt(),
        &CallOptions::text(10),
    )
    .unwrap();
    assert_eq!(answer.attempts, 3);
    let (_s, err) = fail(
        Wire::OpenAi,
        vec![
            Reply::status(503, &[("retry-after", "0")], "text/plain", "busy"),
            Reply::status(503, &[], "text/plain", "busy"),
            Reply::status(503, &[], "text/plain", "busy"),
        ],
        &CallOptions::text(10),
    );
    assert!(
        err.details[0].contains("waited 0 ms as the server asked (Retry-After)"),
        "{:?}",
        err.details
    );
    assert!(err.details[1].contains("(backoff)"), "{:?}", err.details);
}
