//! Provider calls that must fail with exit 3 and a one-line reason: error statuses, cut-off
//! and malformed streams, incomplete answers, dead servers; and never with the key shown.

use std::time::{Duration, Instant};

use crate::loopback::fixtures::*;
use crate::loopback::{Reply, Server, odd_cuts};
use briefkit::provider::{self, CallOptions, Provider, Settings};
use briefkit::wire::Wire;

#[test]
fn three_500s_fail_after_three_attempts() {
    let reply = Reply::status(
        500,
        &[],
        "application/json",
        r#"{"error":{"message":"upstream exploded","type":"server_error"}}"#,
    );
    let (server, err) = fail(
        Wire::OpenAi,
        vec![reply.clone(), reply.clone(), reply.clone(), reply],
        &CallOptions::text(2000),
    );
    assert_eq!(server.requests().len(), 3);
    assert!(err.message.contains("HTTP 500"), "{}", err.message);
    assert!(err.message.contains("upstream exploded"), "{}", err.message);
    assert!(err.message.contains("after 3 attempts"), "{}", err.message);
    assert_eq!(err.details.len(), 3);
}

#[test]
fn a_401_is_not_retried_and_the_hint_names_the_key_variable() {
    let (server, err) = fail(
        Wire::Anthropic,
        vec![Reply::status(
            401,
            &[],
            "application/json",
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
        )],
        &CallOptions::text(10),
    );
    assert_eq!(server.requests().len(), 1);
    assert!(
        err.message
            .contains("authentication_error: invalid x-api-key"),
        "{}",
        err.message
    );
    assert!(err.hint.unwrap().contains("ANTHROPIC_API_KEY"));
}

#[test]
fn a_retry_after_beyond_the_cap_ends_the_call() {
    let (server, err) = fail(
        Wire::OpenAi,
        vec![Reply::status(
            429,
            &[("retry-after", "3600")],
            "text/plain",
            "slow down",
        )],
        &CallOptions::text(10),
    );
    assert_eq!(server.requests().len(), 1);
    assert!(
        err.message.contains("asked to wait 3600 s (Retry-After)"),
        "{}",
        err.message
    );
}

#[test]
fn an_openai_stream_cut_before_the_finish_reason_fails_without_retry() {
    let body = openai_stream(ESCAPED_TEXT, None, None, false);
    let (server, err) = fail(
        Wire::OpenAi,
        vec![
            Reply::sse(&body, &odd_cuts(&body, 50)),
            Reply::sse(&body, &[]),
        ],
        &CallOptions::text(2000),
    );
    assert_eq!(server.requests().len(), 1);
    assert!(
        err.message.contains("cut off before the model finished"),
        "{}",
        err.message
    );
}

#[test]
fn an_openai_stream_cut_before_done_fails() {
    let body = openai_stream("short", Some("stop"), Some(OPENAI_USAGE), false);
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::probe(),
    );
    assert!(err.message.contains("before [DONE]"), "{}", err.message);
}

#[test]
fn an_openai_stream_cut_inside_an_event_fails() {
    let body = openai_stream(ESCAPED_TEXT, Some("stop"), Some(OPENAI_USAGE), true);
    let cut = body.find("\"finish_reason\":\"stop\"").unwrap();
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse(&body[..cut], &[])],
        &CallOptions::text(2000),
    );
    assert!(err.message.contains("cut off"), "{}", err.message);
}

#[test]
fn an_anthropic_stream_cut_before_message_stop_fails() {
    let body = anthropic_stream(ESCAPED_TEXT, Some("end_turn"), false);
    let (_, err) = fail(
        Wire::Anthropic,
        vec![Reply::sse(&body, &[3, 99])],
        &CallOptions::text(2000),
    );
    assert!(
        err.message.contains("before message_stop"),
        "{}",
        err.message
    );
}

#[test]
fn a_non_json_body_fails() {
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::status(
            200,
            &[],
            "text/html",
            "<html><body>Bad gateway</body></html>",
        )],
        &CallOptions::text(10),
    );
    assert!(
        err.message.contains("expected an event stream"),
        "{}",
        err.message
    );

    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse("data: <html>oops</html>\n\n", &[])],
        &CallOptions::text(10),
    );
    assert!(err.message.contains("not JSON"), "{}", err.message);

    let (_, err) = fail(
        Wire::Anthropic,
        vec![Reply::status(200, &[], "text/plain", "just some words\n")],
        &CallOptions::text(10),
    );
    assert!(
        err.message.contains("not an event stream"),
        "{}",
        err.message
    );
}

#[test]
fn an_error_object_in_a_200_fails_with_the_servers_message() {
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::status(
            200,
            &[],
            "application/json",
            r#"{"error":{"message":"model not loaded"}}"#,
        )],
        &CallOptions::text(10),
    );
    assert!(err.message.contains("model not loaded"), "{}", err.message);
}

#[test]
fn an_empty_answer_fails_for_text_but_not_for_a_probe() {
    let body = openai_stream("", Some("stop"), Some(OPENAI_USAGE), true);
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::text(10),
    );
    assert!(err.message.contains("empty"), "{}", err.message);
    let (_, answer) = run(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::probe(),
    );
    assert_eq!(answer.text, "");
    assert_eq!(answer.usage.unwrap().input_tokens, 2048);
}

#[test]
fn a_length_stop_is_an_incomplete_answer() {
    let body = openai_stream("Orders over", Some("length"), Some(OPENAI_USAGE), true);
    let (_, err) = fail(
        Wire::OpenAi,
        vec![Reply::sse(&body, &[])],
        &CallOptions::text(3),
    );
    assert!(
        err.message.contains("stopped early (length)"),
        "{}",
        err.message
    );
}

#[test]
fn a_refused_connection_is_retried_then_fails() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut settings = Settings::new(Wire::OpenAi, "m", format!("http://127.0.0.1:{port}/v1"));
    settings.retry_base = Duration::from_millis(1);
    let err = provider::call(&settings, &prompt(), &CallOptions::text(10)).unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.message.contains("could not connect"), "{}", err.message);
    assert!(err.message.contains("after 3 attempts"), "{}", err.message);
    assert!(err.hint.unwrap().contains("OPENAI_BASE_URL"));
}

#[test]
fn a_stalled_stream_times_out() {
    let partial = openai_stream("Orders", None, None, false);
    let server = Server::start(vec![Reply::sse(&partial, &[]).hang(Duration::from_secs(5))]);
    let mut settings = settings(Wire::OpenAi, &server);
    settings.timeout = Duration::from_millis(700);
    let started = Instant::now();
    let err = provider::call(&settings, &prompt(), &CallOptions::text(10)).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.exit_code(), 3);
    assert!(err.message.contains("idle timeout"), "{}", err.message);
}

#[test]
fn the_api_key_never_appears_in_errors_or_debug_output() {
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}","type":"invalid_request_error"}}}}"#
    );
    let cases = vec![
        (
            Wire::OpenAi,
            vec![Reply::status(401, &[], "application/json", &echo)],
        ),
        (
            Wire::Anthropic,
            vec![Reply::status(
                403,
                &[],
                "text/plain",
                &format!("key {KEY} is banned"),
            )],
        ),
        (
            Wire::OpenAi,
            vec![Reply::status(500, &[], "text/plain", KEY); 3],
        ),
        (
            Wire::OpenAi,
            vec![Reply::sse(
                &format!("data: {{\"error\":{{\"message\":\"{KEY}\"}}}}\n\n"),
                &[],
            )],
        ),
        (
            Wire::Anthropic,
            vec![Reply::sse(&format!("data: not json {KEY}\n\n"), &[])],
        ),
        (
            Wire::OpenAi,
            vec![Reply::status(200, &[], "text/html", KEY)],
        ),
    ];
    for (kind, replies) in cases {
        let server = Server::start(replies);
        let settings = settings(kind, &server);
        let provider = Provider::new(settings.clone()).unwrap();
        let err = provider
            .call(&prompt(), &CallOptions::text(10))
            .unwrap_err();
        let shown = format!(
            "{err} {err:?} {} {:?} {:?} {settings:?} {provider:?} {}",
            err.details.join(" "),
            err.hint,
            settings.api_key,
            settings.api_key.as_ref().unwrap()
        );
        assert!(!shown.contains("SECRET123"), "key leaked: {shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
        // The request did carry it: the redaction is in the output, not the wire.
        let request = &server.requests()[0];
        assert!(request.head.contains(KEY));
    }
}

#[test]
fn tls_to_a_plain_server_fails_cleanly() {
    // Proves the TLS stack is wired (a missing crypto provider would panic) and that a
    // handshake failure is a provider error, not a crash.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(3) {
            let _ = std::io::Write::write_all(&mut stream.unwrap(), b"HTTP/1.1 200 OK\r\n\r\n");
        }
    });
    let mut settings = Settings::new(Wire::OpenAi, "m", url);
    settings.retry_base = Duration::from_millis(1);
    let err = provider::call(&settings, &prompt(), &CallOptions::text(10)).unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert!(!err.message.contains('\n'), "{}", err.message);
}
