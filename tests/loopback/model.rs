//! A scripted model for session turns: streamed answers with text and tool calls in both
//! wire formats, the tool calls' arguments split across several fragments as real
//! servers send them (OpenAI `delta.tool_calls` by index, Anthropic `tool_use` blocks with
//! `input_json_delta`s).

use serde_json::{Value, json};

use super::{Reply, odd_cuts};

/// One answer: optional text, then tool calls `(name, arguments)`.
pub fn answer(provider: &str, text: Option<&str>, calls: &[(&str, Value)]) -> Reply {
    let body = match provider {
        "anthropic" => anthropic(text, calls, true),
        _ => openai(text, calls, true),
    };
    let cuts = odd_cuts(&body, 61);
    Reply::sse(&body, &cuts)
}

/// A text-only answer.
pub fn say(provider: &str, text: &str) -> Reply {
    answer(provider, Some(text), &[])
}

/// A stream cut off in the middle of a tool call's arguments.
pub fn cut(provider: &str) -> Reply {
    let calls = [("find_slot", json!({"day": "2026-12-01"}))];
    let body = match provider {
        "anthropic" => anthropic(Some("Checking."), &calls, false),
        _ => openai(Some("Checking."), &calls, false),
    };
    let at = body.rfind("day").expect("the arguments are in the stream");
    Reply::sse(&body[..at], &[])
}

/// A complete stream whose tool call's arguments are not JSON.
pub fn malformed(provider: &str) -> Reply {
    let body = match provider {
        "anthropic" => anthropic(None, &[("find_slot", json!({"day": "x"}))], true),
        _ => openai(None, &[("find_slot", json!({"day": "x"}))], true),
    };
    // Drop the closing brace of the arguments' last fragment.
    let body = body.replacen(r#"\"x\"}"#, r#"\"x\""#, 1);
    Reply::sse(&body, &[])
}

fn halves(text: &str) -> (&str, &str) {
    let middle = (0..=text.len() / 2)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.split_at(middle)
}

pub fn openai(text: Option<&str>, calls: &[(&str, Value)], finish: bool) -> String {
    let frame = |delta: Value, reason: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "model": "test-model", "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]})
        )
    };
    let mut out = frame(json!({"role": "assistant", "content": ""}), Value::Null);
    for piece in text.unwrap_or_default().split_inclusive(' ') {
        out.push_str(&frame(json!({"content": piece}), Value::Null));
    }
    for (i, (name, arguments)) in calls.iter().enumerate() {
        let arguments = arguments.to_string();
        let (head, tail) = halves(&arguments);
        out.push_str(&frame(
            json!({"tool_calls": [{"index": i, "id": format!("call_{i}x"), "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        for part in [head, tail] {
            out.push_str(&frame(
                json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}),
                Value::Null,
            ));
        }
    }
    if finish {
        let reason = if calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        out.push_str(&frame(json!({}), json!(reason)));
        out.push_str(&format!(
            "data: {}\n\ndata: [DONE]\n\n",
            json!({"id": "c1", "model": "test-model", "choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 768}}})
        ));
    }
    out
}

pub fn anthropic(text: Option<&str>, calls: &[(&str, Value)], finish: bool) -> String {
    let event = |data: Value| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap_or_default()
        )
    };
    let mut out = event(
        json!({"type": "message_start", "message": {"id": "m1", "model": "test-model", "usage": {"input_tokens": 132, "cache_read_input_tokens": 768, "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
    );
    let mut index = 0;
    if let Some(text) = text {
        out.push_str(&event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})));
        for piece in text.split_inclusive(' ') {
            out.push_str(&event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
        }
        out.push_str(&event(json!({"type": "content_block_stop", "index": 0})));
        index = 1;
    }
    for (i, (name, arguments)) in calls.iter().enumerate() {
        let at = index + i;
        out.push_str(&event(json!({"type": "content_block_start", "index": at, "content_block": {"type": "tool_use", "id": format!("toolu_{i}x"), "name": name, "input": {}}})));
        let arguments = arguments.to_string();
        let (head, tail) = halves(&arguments);
        for part in ["", head, tail] {
            out.push_str(&event(json!({"type": "content_block_delta", "index": at, "delta": {"type": "input_json_delta", "partial_json": part}})));
        }
        out.push_str(&event(json!({"type": "content_block_stop", "index": at})));
    }
    if finish {
        let stop = if calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        };
        out.push_str(&event(json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}})));
        out.push_str(&event(json!({"type": "message_stop"})));
    }
    out
}
