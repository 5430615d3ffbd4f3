//! Anthropic Messages, as this toolkit writes and reads it: the request body of a composed
//! prompt with its `cache_control` breakpoints, how worked examples are recognised in a
//! body, its usage object (cache writes per TTL bucket) and its streamed events.
//!
//! A stream is `message_start` (model, input and cache usage), content blocks with
//! `text_delta`s, `message_delta` (stop reason, output usage) and `message_stop`; `ping`
//! may come anywhere and unknown event types are skipped, as Anthropic asks of clients.
//! Only a stream that reached `message_stop` with a stop reason is an answer.
//!
//! Layout (see `wire::prefix` for why): tools; `system` as text blocks, the breakpoint on
//! the last static block; the worked examples opening `messages`, the last one with a
//! second breakpoint; the volatile part after them; then the conversation.

use serde_json::{Map, Value, json};

use super::canonical;
use super::prompt::{Message, Prompt};
use super::stream::{self, Carried, EventError, Flow, Reader, Streamed, StreamedCall, Unfinished};
use super::usage::{Usage, count};

/// The Anthropic messages of the worked examples: plain string content, except the last
/// message, one text block carrying the breakpoint that caches tools, system and examples.
fn examples(examples: &[Message]) -> Vec<Value> {
    let last = examples.len().saturating_sub(1);
    examples
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if i == last {
                json!({"role": m.role.as_str(), "content": [{
                    "type": "text",
                    "text": m.content,
                    "cache_control": {"type": "ephemeral"},
                }]})
            } else {
                json!({"role": m.role.as_str(), "content": m.content})
            }
        })
        .collect()
}

/// An Anthropic messages request body: `system` as text blocks with `cache_control` on the
/// last static block and the volatile part as a later block; tools with `input_schema`.
/// Without static text the breakpoint goes on the last tool, so the volatile block still
/// lies after it.
///
/// Worked examples open `messages`, the last one with a second breakpoint. The provider
/// caches tools, then system, then messages, so a volatile system block would lie before
/// the examples and spoil their cache on every call: with examples, the volatile part is
/// sent instead as a user message right after them (the conversation that follows is a
/// user turn too, which the API joins to it).
pub fn body(prompt: &Prompt, model: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = model {
        body.insert("model".into(), json!(model));
    }
    let mut system = Vec::new();
    if !prompt.static_system.is_empty() {
        system.push(json!({
            "type": "text",
            "text": prompt.static_system,
            "cache_control": {"type": "ephemeral"},
        }));
    }
    let volatile = prompt.volatile_system.as_ref().filter(|v| !v.is_empty());
    if let Some(volatile) = volatile.filter(|_| prompt.examples.is_empty()) {
        system.push(json!({"type": "text", "text": volatile}));
    }
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    let mut messages = examples(&prompt.examples);
    if let Some(volatile) = volatile.filter(|_| !prompt.examples.is_empty()) {
        messages.push(json!({"role": "user", "content": volatile}));
    }
    messages.extend(
        prompt
            .messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content})),
    );
    body.insert("messages".into(), Value::Array(messages));
    if !prompt.tools.is_empty() {
        let mark_last_tool = prompt.static_system.is_empty();
        let last = prompt.tools.len() - 1;
        let tools = prompt
            .tools
            .iter()
            .enumerate()
            .map(|(i, tool)| {
                let mut value = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": canonical::sorted(&tool.input_schema),
                });
                if mark_last_tool && i == last {
                    value["cache_control"] = json!({"type": "ephemeral"});
                }
                value
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// How many leading Anthropic messages are worked examples: up to and including the first
/// message with a breakpoint, when it is an `assistant` message of text blocks with the
/// breakpoint on its last block, and every message before it has plain string content,
/// alternating `user` and `assistant` from `user` (how `compose` writes them; a session's
/// or a client's turns carry content blocks). 0 when they are not.
pub(crate) fn leading_examples(messages: &[Value]) -> usize {
    let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_owned);
    let marked = |b: &Value| b.get("cache_control").is_some_and(|c| !c.is_null());
    let Some(k) = messages.iter().position(|m| {
        m.get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| blocks.iter().any(marked))
    }) else {
        return 0;
    };
    let last = &messages[k];
    let blocks = last["content"].as_array().map_or(&[][..], Vec::as_slice);
    let text_blocks = blocks
        .iter()
        .all(|b| b.get("type").and_then(Value::as_str) == Some("text"));
    let breakpoint_last =
        blocks.last().is_some_and(marked) && blocks[..blocks.len() - 1].iter().all(|b| !marked(b));
    let alternating = messages[..=k].iter().enumerate().all(|(i, m)| {
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        role(m).as_deref() == Some(expected)
    });
    let strings_before = messages[..k].iter().all(|m| m["content"].is_string());
    if k % 2 == 1 && text_blocks && breakpoint_last && alternating && strings_before {
        k + 1
    } else {
        0
    }
}

/// Normalises an Anthropic `usage` object, where `input_tokens` counts only what came
/// after the last cache breakpoint: cache reads and writes are added back in (saturating:
/// a server's figures are not trusted to fit).
pub fn usage(usage: &Value) -> Option<Usage> {
    let uncached = count(usage, &["input_tokens"])?;
    let read = count(usage, &["cache_read_input_tokens"]);
    let written = count(usage, &["cache_creation_input_tokens"]);
    Some(Usage {
        input_tokens: uncached
            .saturating_add(read.unwrap_or(0))
            .saturating_add(written.unwrap_or(0)),
        cached_input_tokens: read,
        cache_write_tokens: written,
        output_tokens: count(usage, &["output_tokens"]).unwrap_or(0),
        cache_write_5m_tokens: count(usage, &["cache_creation", "ephemeral_5m_input_tokens"]),
        cache_write_1h_tokens: count(usage, &["cache_creation", "ephemeral_1h_input_tokens"]),
        reasoning_tokens: None,
    })
}

/// The `anthropic-version` every request carries.
pub const VERSION: &str = "2023-06-01";

/// A body with the per-call fields set. `max_tokens` is required by the API; 1 is the
/// smallest answer.
pub fn per_call(mut body: Value, fields: &super::CallFields) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("model".into(), json!(fields.model));
        map.insert("max_tokens".into(), json!(fields.max_tokens.max(1)));
        if let Some(temperature) = fields.temperature {
            map.insert("temperature".into(), json!(temperature));
        }
        map.insert("stream".into(), json!(true));
    }
    body
}

/// The usage of a whole (not streamed) answer.
pub fn answer_usage(answer: &Value) -> Option<Usage> {
    usage(answer.get("usage")?)
}

/// The streamed events of a message.
#[derive(Debug, Default)]
pub struct Stream {
    streamed: Streamed,
    /// Usage fields as they arrive: `message_start` first, `message_delta` on top (it
    /// carries the final output count and, on newer API versions, the input counts again).
    usage: Map<String, Value>,
    stopped: bool,
    events: usize,
    /// The content block index of each entry of `streamed.tool_calls`, and whether its
    /// input came as `input_json_delta`s (else the start block's `input` is the input).
    tool_blocks: Vec<(u64, bool)>,
}

impl Stream {
    fn merge_usage(&mut self, usage: Option<&Value>) {
        if let Some(Value::Object(fields)) = usage {
            for (key, value) in fields {
                if !value.is_null() {
                    self.usage.insert(key.clone(), value.clone());
                }
            }
            self.streamed.usage = Some(Value::Object(self.usage.clone()));
        }
    }

    /// A piece of a `tool_use` block's input JSON; the first one replaces the start
    /// block's placeholder `{}`.
    fn input_delta(&mut self, data: &Value) {
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        let partial = data
            .pointer("/delta/partial_json")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(at) = self.tool_blocks.iter().position(|(i, _)| *i == index) {
            let call = &mut self.streamed.tool_calls[at];
            if !self.tool_blocks[at].1 {
                self.tool_blocks[at].1 = true;
                call.arguments.clear();
            }
            call.arguments.push_str(partial);
        }
    }

    fn block_start(&mut self, data: &Value) {
        let block = data.get("content_block");
        if block.and_then(|b| b.get("type")).and_then(Value::as_str) == Some("tool_use") {
            let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
            let field = |name: &str| {
                block
                    .and_then(|b| b.get(name))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let input = block.and_then(|b| b.get("input"));
            self.tool_blocks.push((index, false));
            self.streamed.tool_calls.push(StreamedCall {
                id: field("id"),
                name: field("name"),
                arguments: input.map(Value::to_string).unwrap_or_default(),
            });
        } else if let Some(text) = data.pointer("/content_block/text").and_then(Value::as_str) {
            self.streamed.text.push_str(text);
        }
    }
}

impl Reader for Stream {
    fn event(&mut self, name: Option<&str>, data: &str) -> Result<Flow, EventError> {
        self.events += 1;
        let value = stream::json(data)?;
        let kind = stream::kind(&value, name, data)?;
        match kind {
            "message_start" => {
                if let Some(model) = value.pointer("/message/model").and_then(Value::as_str) {
                    self.streamed.model = Some(model.to_string());
                }
                self.merge_usage(value.pointer("/message/usage"));
            }
            "content_block_start" => self.block_start(&value),
            "content_block_delta" => {
                // Only text deltas are the answer; thinking and tool-input deltas are not.
                let delta = value.get("delta");
                let kind = delta.and_then(|d| d.get("type")).and_then(Value::as_str);
                let text = delta.and_then(|d| d.get("text")).and_then(Value::as_str);
                if let (Some("text_delta"), Some(text)) = (kind, text) {
                    self.streamed.text.push_str(text);
                }
                if kind == Some("input_json_delta") {
                    self.input_delta(&value);
                }
            }
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.streamed.finish_reason = Some(reason.to_string());
                }
                self.merge_usage(value.get("usage"));
            }
            "message_stop" => {
                self.stopped = true;
                self.streamed.ended = true;
                return Ok(Flow::Done);
            }
            "error" => {
                let error = value.get("error").unwrap_or(&value);
                // An overloaded or internal error mid-stream is what a 529 or 500 would
                // have been had it come before the headers.
                let retry = matches!(
                    error.get("type").and_then(Value::as_str),
                    Some("overloaded_error" | "api_error")
                );
                return Err(EventError::Carried(Carried {
                    message: stream::describe_error(error),
                    retry,
                }));
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    stream::streamed_field!();

    fn unfinished(&self) -> Option<Unfinished> {
        if !self.stopped {
            return Some(stream::cut_off("message_stop", self.events, &self.streamed));
        }
        if self.streamed.finish_reason.is_none() {
            return Some(Unfinished {
                reason: "the stream reached message_stop without a stop reason".into(),
                truncated: false,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::prompt::fixtures::{prompt, with_examples};

    #[test]
    fn a_full_stream_gives_text_stop_reason_and_merged_usage() {
        let mut stream = Stream::default();
        let events = [
            (
                "message_start",
                r#"{"type":"message_start","message":{"model":"claude-x-1","usage":{"input_tokens":10,"cache_read_input_tokens":2000,"cache_creation_input_tokens":0,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            ("ping", r#"{"type": "ping"}"#),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
            ),
        ];
        for (name, data) in events {
            assert_eq!(stream.event(Some(name), data).unwrap(), Flow::Continue);
        }
        assert_eq!(
            stream
                .event(Some("message_stop"), r#"{"type":"message_stop"}"#)
                .unwrap(),
            Flow::Done
        );
        assert_eq!(stream.unfinished(), None);
        let streamed = stream.take();
        assert_eq!(streamed.text, "Hi");
        assert_eq!(streamed.finish_reason.as_deref(), Some("end_turn"));
        assert_eq!(streamed.model.as_deref(), Some("claude-x-1"));
        let usage = usage(streamed.usage.as_ref().unwrap()).unwrap();
        assert_eq!(usage.input_tokens, 2010);
        assert_eq!(usage.cached_input_tokens, Some(2000));
        assert_eq!(usage.output_tokens, 4);
    }

    #[test]
    fn a_stream_without_message_stop_is_unfinished() {
        let mut stream = Stream::default();
        stream
            .event(
                Some("message_delta"),
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
            )
            .unwrap();
        assert!(stream.unfinished().unwrap().reason.contains("message_stop"));
    }

    #[test]
    fn an_overloaded_error_event_may_be_retried_others_not() {
        let mut stream = Stream::default();
        let carried = |e| match e {
            EventError::Carried(c) => c,
            other => panic!("{other:?}"),
        };
        let mut error = |data: &str| carried(stream.event(Some("error"), data).unwrap_err());
        let overloaded =
            error(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert!(overloaded.retry);
        let invalid =
            error(r#"{"type":"error","error":{"type":"invalid_request_error","message":"no"}}"#);
        assert!(!invalid.retry);
        assert!(stream.event(Some("x"), "not json").is_err());
    }

    #[test]
    fn cache_writes_are_kept_per_ttl_bucket() {
        let usage = usage(&serde_json::json!({
            "input_tokens": 12, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000,
            "cache_creation": {"ephemeral_5m_input_tokens": 60, "ephemeral_1h_input_tokens": 40},
            "output_tokens": 7
        }))
        .unwrap();
        assert_eq!(usage.input_tokens, 2112);
        assert_eq!(usage.cache_write_tokens, Some(100));
        assert_eq!(usage.cache_write_5m_tokens, Some(60));
        assert_eq!(usage.cache_write_1h_tokens, Some(40));
    }

    #[test]
    fn anthropic_marks_only_the_static_block_for_caching() {
        let sent = body(&prompt(), None);
        assert_eq!(sent["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(sent["system"][1].get("cache_control").is_none());
        assert_eq!(sent["tools"][0]["input_schema"]["type"], "object");
        assert!(sent.get("model").is_none());
    }

    #[test]
    fn without_static_text_the_anthropic_breakpoint_is_on_the_last_tool() {
        let mut volatile_only = prompt();
        volatile_only.static_system.clear();
        let sent = body(&volatile_only, None);
        assert_eq!(sent["tools"][0]["cache_control"]["type"], "ephemeral");
        assert!(sent["system"][0].get("cache_control").is_none());
    }

    #[test]
    fn anthropic_examples_carry_the_second_breakpoint_and_precede_the_volatile_part() {
        let sent = body(&with_examples(), None);
        let text = serde_json::to_string(&sent).unwrap();
        assert_eq!(
            text.matches("cache_control").count(),
            2,
            "at most 4 allowed"
        );
        assert_eq!(sent["system"].as_array().unwrap().len(), 1);
        assert_eq!(sent["messages"][0]["content"], "q");
        assert_eq!(
            sent["messages"][1]["content"][0]["cache_control"]["type"],
            "ephemeral"
        );
        assert_eq!(sent["messages"][2]["content"], "Customer: Ada");
        assert_eq!(sent["messages"][3]["content"], "hi");
        // Without static text the tools' breakpoint and the examples': still two.
        let mut no_static = with_examples();
        no_static.static_system.clear();
        let text = serde_json::to_string(&body(&no_static, None)).unwrap();
        assert_eq!(text.matches("cache_control").count(), 2);
    }
}
