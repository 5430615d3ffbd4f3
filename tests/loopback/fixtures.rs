//! Prompts, settings and provider streams shared by the provider tests.

use std::time::Duration;

use briefkit::error::{Error, ErrorKind};
use briefkit::provider::{self, Answer, ApiKey, CallOptions, Settings, Usage};
use briefkit::wire::Wire;
use briefkit::wire::{Message, Prompt, Role};

use super::{Reply, Server};

pub const KEY: &str = "sk-test-SECRET123";

pub fn settings(kind: Wire, server: &Server) -> Settings {
    let base = match kind {
        Wire::OpenAi | Wire::Responses => format!("{}/v1", server.url()),
        Wire::Anthropic | Wire::Gemini => server.url(),
    };
    let mut settings = Settings::new(kind, "test-model", base);
    settings.api_key = Some(ApiKey::new(KEY));
    settings.retry_base = Duration::from_millis(1);
    settings.max_retry_wait = Duration::from_secs(3);
    settings.timeout = Duration::from_secs(10);
    settings
}

pub fn prompt() -> Prompt {
    Prompt {
        static_system: "You shorten help-desk notes. Keep every price.".into(),
        examples: Vec::new(),
        volatile_system: None,
        tools: Vec::new(),
        messages: vec![Message {
            role: Role::User,
            content: "Orders over 40 EUR ship free.".into(),
        }],
    }
}

pub fn run(kind: Wire, replies: Vec<Reply>, options: &CallOptions) -> (Server, Answer) {
    let server = Server::start(replies);
    let answer = provider::call(&settings(kind, &server), &prompt(), options)
        .unwrap_or_else(|err| panic!("call failed: {err} {:?}", err.details));
    (server, answer)
}

pub fn fail(kind: Wire, replies: Vec<Reply>, options: &CallOptions) -> (Server, Error) {
    let server = Server::start(replies);
    let err = provider::call(&settings(kind, &server), &prompt(), options)
        .expect_err("the call must fail");
    assert_eq!(err.kind, ErrorKind::Provider, "{err}");
    assert_eq!(err.exit_code(), 3);
    assert!(!err.message.contains('\n'), "one line: {}", err.message);
    (server, err)
}

/// The answer carries colour, an OSC 8 hyperlink and a bell, JSON-escaped on the wire.
pub const ESCAPED_TEXT: &str = "Free shipping \u{1b}[1mover 40\u{a0}\u{20ac}\u{1b}[0m \u{1b}]8;;https://shop.example/ship\u{7}terms\u{1b}]8;;\u{7} caf\u{e9} \u{2713}\n\"quoted\"\\";

pub fn openai_stream(text: &str, finish: Option<&str>, usage: Option<&str>, done: bool) -> String {
    let mut out = String::from(": OPENROUTER PROCESSING\r\n\r\n");
    out.push_str("data: {\"id\":\"c1\",\"model\":\"test-model-2025\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}],\"usage\":null}\r\n\r\n");
    let chars: Vec<char> = text.chars().collect();
    for part in chars.chunks(7) {
        let part: String = part.iter().collect();
        let content = serde_json::to_string(&part).unwrap();
        out.push_str(&format!(
            "data: {{\"id\":\"c1\",\"model\":\"test-model-2025\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{content}}},\"finish_reason\":null}}],\"usage\":null}}\r\n\r\n"
        ));
        out.push_str(": keep-alive\r\n\r\n");
    }
    if let Some(finish) = finish {
        out.push_str(&format!(
            "data: {{\"id\":\"c1\",\"model\":\"test-model-2025\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"{finish}\"}}],\"usage\":null}}\r\n\r\n"
        ));
    }
    if let Some(usage) = usage {
        out.push_str(&format!(
            "data: {{\"id\":\"c1\",\"model\":\"test-model-2025\",\"choices\":[],\"usage\":{usage}}}\r\n\r\n"
        ));
    }
    if done {
        out.push_str("data: [DONE]\r\n\r\n");
    }
    out
}

pub const OPENAI_USAGE: &str = r#"{"prompt_tokens":2048,"completion_tokens":31,"total_tokens":2079,"prompt_tokens_details":{"cached_tokens":1920}}"#;

pub fn anthropic_stream(text: &str, stop: Option<&str>, message_stop: bool) -> String {
    let mut out = String::new();
    out.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"test-model-2025\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":2036,\"output_tokens\":1}}}\n\n");
    out.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    out.push_str("event: ping\ndata: {\"type\": \"ping\"}\n\n");
    let chars: Vec<char> = text.chars().collect();
    for part in chars.chunks(5) {
        let part: String = part.iter().collect();
        let text = serde_json::to_string(&part).unwrap();
        out.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{text}}}}}\n\n"
        ));
    }
    out.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    if let Some(stop) = stop {
        out.push_str(&format!(
            "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{stop}\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":29}}}}\n\n"
        ));
    }
    if message_stop {
        out.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    }
    out
}

pub fn assert_openai_answer(answer: &Answer) {
    assert_eq!(answer.text, ESCAPED_TEXT);
    assert_eq!(answer.finish_reason, "stop");
    assert!(answer.complete);
    assert_eq!(answer.model, "test-model-2025");
    assert_eq!(
        answer.usage,
        Some(Usage {
            input_tokens: 2048,
            cached_input_tokens: Some(1920),
            cache_write_tokens: None,
            output_tokens: 31,
            ..Usage::default()
        })
    );
}

/// A streamed Responses answer: text deltas, the finished item, then `response.completed`
/// with usage (cached and reasoning tokens inside their totals).
pub fn responses_stream(text: &str, completed: bool) -> String {
    let mut out = String::from(
        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"model\":\"test-model-2025\"}}\n\n",
    );
    let chars: Vec<char> = text.chars().collect();
    for part in chars.chunks(6) {
        let part: String = part.iter().collect();
        let delta = serde_json::to_string(&part).unwrap();
        out.push_str(&format!(
            "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"delta\":{delta}}}\n\n"
        ));
    }
    let whole = serde_json::to_string(text).unwrap();
    out.push_str(&format!("event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":{whole}}}]}}}}\n\n"));
    if completed {
        out.push_str(&format!("event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"id\":\"resp_1\",\"status\":\"completed\",\"model\":\"test-model-2025\",\"usage\":{RESPONSES_USAGE}}}}}\n\n"));
    }
    out
}

pub const RESPONSES_USAGE: &str = r#"{"input_tokens":2048,"input_tokens_details":{"cached_tokens":1920},"output_tokens":31,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":2079}"#;

/// A streamed Gemini answer (`alt=sse`): text chunks, the last with the finish reason and
/// `usageMetadata`.
pub fn gemini_stream(text: &str, finished: bool) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let parts: Vec<String> = chars.chunks(8).map(|c| c.iter().collect()).collect();
    for (i, part) in parts.iter().enumerate() {
        let text = serde_json::to_string(part).unwrap();
        let last = i + 1 == parts.len() && finished;
        let tail = if last {
            format!(",\"finishReason\":\"STOP\"}}],\"usageMetadata\":{GEMINI_USAGE}")
        } else {
            "}]".to_string()
        };
        out.push_str(&format!(
            "data: {{\"candidates\":[{{\"content\":{{\"role\":\"model\",\"parts\":[{{\"text\":{text}}}]}}{tail},\"modelVersion\":\"test-model-2025\"}}\r\n\r\n"
        ));
    }
    out
}

pub const GEMINI_USAGE: &str = r#"{"promptTokenCount":2048,"cachedContentTokenCount":1920,"candidatesTokenCount":19,"thoughtsTokenCount":12,"totalTokenCount":2079}"#;
