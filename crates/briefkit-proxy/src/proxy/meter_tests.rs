use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;

use super::*;

const OPENAI_STREAM: &str = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":null}\n\n\
data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2006,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":1920}}}\n\n\
data: [DONE]\n\n";

const ANTHROPIC_STREAM: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":21,\"cache_read_input_tokens\":1800,\"cache_creation_input_tokens\":300,\"output_tokens\":1}}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

fn metered(
    wire: Wire,
    content_type: &str,
    encoding: Option<&str>,
    body: &[u8],
    cuts: usize,
) -> Meter {
    let mut meter = Meter::new(wire, Some(content_type), encoding);
    let step = body.len().div_ceil(cuts.max(1)).max(1);
    for chunk in body.chunks(step) {
        meter.feed(chunk);
    }
    meter.end();
    meter
}

#[test]
fn an_openai_stream_gives_its_usage_frame_in_any_chunking() {
    for cuts in [1, 2, 7, OPENAI_STREAM.len()] {
        let meter = metered(
            Wire::OpenAi,
            "text/event-stream; charset=utf-8",
            None,
            OPENAI_STREAM.as_bytes(),
            cuts,
        );
        assert!(meter.complete());
        let usage = meter.usage().expect("usage");
        assert_eq!(usage.input_tokens, 2006);
        assert_eq!(usage.cached_input_tokens, Some(1920));
        assert_eq!(usage.output_tokens, 3);
    }
}

#[test]
fn an_anthropic_stream_merges_start_and_delta_usage() {
    let meter = metered(
        Wire::Anthropic,
        "text/event-stream",
        None,
        ANTHROPIC_STREAM.as_bytes(),
        5,
    );
    assert!(meter.complete());
    let usage = meter.usage().expect("usage");
    assert_eq!(usage.input_tokens, 2121);
    assert_eq!(usage.cached_input_tokens, Some(1800));
    assert_eq!(usage.cache_write_tokens, Some(300));
    assert_eq!(usage.output_tokens, 7);
}

#[test]
fn a_stream_without_a_usage_frame_has_no_usage_and_is_not_guessed() {
    let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
    let meter = metered(Wire::OpenAi, "text/event-stream", None, body.as_bytes(), 1);
    assert!(meter.complete());
    assert!(meter.usage().is_none());
}

#[test]
fn a_stream_cut_before_its_end_marker_is_incomplete() {
    let cut = &ANTHROPIC_STREAM[..ANTHROPIC_STREAM.find("event: message_stop").unwrap()];
    let meter = metered(
        Wire::Anthropic,
        "text/event-stream",
        None,
        cut.as_bytes(),
        3,
    );
    assert!(!meter.complete());
    assert_eq!(meter.usage().map(|u| u.output_tokens), Some(7));
}

#[test]
fn json_answers_are_read_at_their_end_for_both_wires() {
    let openai = r#"{"id":"x","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
    let meter = metered(Wire::OpenAi, "application/json", None, openai.as_bytes(), 4);
    assert!(meter.complete());
    assert_eq!(meter.usage().unwrap().input_tokens, 12);
    assert_eq!(meter.usage().unwrap().cached_input_tokens, None);
    let anthropic = r#"{"type":"message","usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":2}}"#;
    let meter = metered(
        Wire::Anthropic,
        "application/json",
        None,
        anthropic.as_bytes(),
        3,
    );
    assert_eq!(meter.usage().unwrap().input_tokens, 105);
}

#[test]
fn a_gzip_encoded_answer_is_read_from_a_decoded_copy() {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(OPENAI_STREAM.as_bytes()).unwrap();
    let gz = encoder.finish().unwrap();
    let meter = metered(Wire::OpenAi, "text/event-stream", Some("gzip"), &gz, 9);
    assert!(meter.complete());
    assert_eq!(meter.usage().unwrap().cached_input_tokens, Some(1920));
}

#[test]
fn an_encoding_the_proxy_cannot_read_is_said_not_guessed() {
    let meter = metered(
        Wire::OpenAi,
        "application/json",
        Some("br"),
        b"\x0b\x02\x80",
        1,
    );
    assert!(meter.usage().is_none());
    assert!(meter.blind().unwrap().contains("br-encoded"));
}

#[test]
fn error_events_are_kept() {
    let body = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let meter = metered(
        Wire::Anthropic,
        "text/event-stream",
        None,
        body.as_bytes(),
        1,
    );
    assert_eq!(meter.error(), Some("overloaded_error: Overloaded"));
    assert!(!meter.complete());
}

#[test]
fn anthropic_usage_of_two_to_the_64_saturates_instead_of_wrapping() {
    // Issue 21, defect 9: input is the sum of three reported figures.
    let body = format!(
        "{{\"usage\":{{\"input_tokens\":{m},\"cache_read_input_tokens\":{m},\"cache_creation_input_tokens\":5,\"output_tokens\":1}}}}",
        m = u64::MAX
    );
    let meter = metered(
        Wire::Anthropic,
        "application/json",
        None,
        body.as_bytes(),
        3,
    );
    assert_eq!(meter.usage().unwrap().input_tokens, u64::MAX);
}

const RESPONSES_STREAM: &str = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\"}}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"pong\"}\n\n\
event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":1500,\"input_tokens_details\":{\"cached_tokens\":1024},\"output_tokens\":20,\"output_tokens_details\":{\"reasoning_tokens\":8}}}}\n\n";

#[test]
fn a_responses_stream_is_metered_from_its_completed_event() {
    for cuts in [1, 3, RESPONSES_STREAM.len()] {
        let meter = metered(
            Wire::Responses,
            "text/event-stream",
            None,
            RESPONSES_STREAM.as_bytes(),
            cuts,
        );
        assert!(meter.complete());
        let usage = meter.usage().unwrap();
        assert_eq!(usage.input_tokens, 1500);
        assert_eq!(usage.cached_input_tokens, Some(1024));
        assert_eq!(usage.reasoning_tokens, Some(8));
    }
    let json = r#"{"id":"resp_1","object":"response","status":"completed","error":null,"usage":{"input_tokens":40,"input_tokens_details":{"cached_tokens":0},"output_tokens":2}}"#;
    let meter = metered(
        Wire::Responses,
        "application/json",
        None,
        json.as_bytes(),
        2,
    );
    assert_eq!(meter.usage().unwrap().cached_input_tokens, Some(0));
    assert_eq!(meter.error(), None);
    let failed = "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n";
    let meter = metered(
        Wire::Responses,
        "text/event-stream",
        None,
        failed.as_bytes(),
        1,
    );
    assert_eq!(meter.error(), Some("server_error: boom"));
}

#[test]
fn gemini_sse_and_json_array_streams_are_metered() {
    let sse = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"po\"}]}}]}\r\n\r\n\
data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ng\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":2100,\"cachedContentTokenCount\":2048,\"candidatesTokenCount\":2}}\r\n\r\n";
    let meter = metered(Wire::Gemini, "text/event-stream", None, sse.as_bytes(), 4);
    assert!(meter.complete());
    assert_eq!(meter.usage().unwrap().cached_input_tokens, Some(2048));
    let array = "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"po\"}]}}]}\n,\r\n{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ng\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":900,\"cachedContentTokenCount\":512,\"candidatesTokenCount\":2}}]";
    let meter = metered(Wire::Gemini, "application/json", None, array.as_bytes(), 5);
    assert!(meter.complete());
    assert_eq!(meter.usage().unwrap().input_tokens, 900);
    assert_eq!(meter.usage().unwrap().cached_input_tokens, Some(512));
    let cut = &sse[..sse
        .find("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ng")
        .unwrap()];
    let meter = metered(Wire::Gemini, "text/event-stream", None, cut.as_bytes(), 1);
    assert!(!meter.complete());
}

#[test]
fn anthropic_cache_writes_keep_their_ttl_buckets() {
    let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":2000,\"cache_creation\":{\"ephemeral_5m_input_tokens\":60,\"ephemeral_1h_input_tokens\":40},\"output_tokens\":1}}}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let meter = metered(
        Wire::Anthropic,
        "text/event-stream",
        None,
        body.as_bytes(),
        3,
    );
    let usage = meter.usage().unwrap();
    assert_eq!(usage.cache_write_5m_tokens, Some(60));
    assert_eq!(usage.cache_write_1h_tokens, Some(40));
    assert_eq!(usage.input_tokens, 2112);
}
