//! Anthropic messages: the streamed request and the reading of its events.
//!
//! A stream is `message_start` (model, input and cache usage), content blocks with
//! `text_delta`s, `message_delta` (stop reason, output usage) and `message_stop`; `ping`
//! may come anywhere and unknown event types are skipped, as Anthropic asks of clients.
//! Only a stream that reached `message_stop` with a stop reason is an answer.

use serde_json::{Map, Value, json};

use super::sse::Event;
use super::stream::{Collected, Failure, Flow, Parser, RawToolCall, describe_error, snippet};
use reqwest::header::{HeaderMap, HeaderValue};

use super::dialect::Dialect;
use super::openai::TokenField;
use super::{CallOptions, Settings};
use crate::error::CallStatus;

pub const VERSION: &str = "2023-06-01";

/// The Anthropic Messages dialect of a model call.
pub struct Anthropic;

impl Dialect for Anthropic {
    fn per_call(
        &self,
        settings: &Settings,
        body: Value,
        options: &CallOptions,
        _field: TokenField,
    ) -> Value {
        per_call(settings, body, options)
    }

    fn headers(&self, headers: &mut HeaderMap) {
        headers.insert("anthropic-version", HeaderValue::from_static(VERSION));
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::<Stream>::default()
    }

    fn natural_stop(&self, finish_reason: &str) -> bool {
        matches!(finish_reason, "end_turn" | "stop_sequence")
    }
}

/// A body with the per-call fields set. `max_tokens` is required by the API; 1 is the
/// smallest answer.
pub fn per_call(settings: &Settings, mut body: Value, options: &CallOptions) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("model".into(), json!(settings.model));
        map.insert("max_tokens".into(), json!(options.max_tokens.max(1)));
        if let Some(temperature) = options.temperature {
            map.insert("temperature".into(), json!(temperature));
        }
        map.insert("stream".into(), json!(true));
    }
    body
}

#[derive(Debug, Default)]
pub struct Stream {
    collected: Collected,
    /// Usage fields as they arrive: `message_start` first, `message_delta` on top (it
    /// carries the final output count and, on newer API versions, the input counts again).
    usage: Map<String, Value>,
    stopped: bool,
    events: usize,
    /// The content block index of each entry of `collected.tool_calls`, and whether its
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
        }
    }
}

impl Stream {
    /// A piece of a `tool_use` block's input JSON; the first one replaces the start
    /// block's placeholder `{}`.
    fn input_delta(&mut self, data: &Value) {
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        let partial = data
            .pointer("/delta/partial_json")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(at) = self.tool_blocks.iter().position(|(i, _)| *i == index) {
            let call = &mut self.collected.tool_calls[at];
            if !self.tool_blocks[at].1 {
                self.tool_blocks[at].1 = true;
                call.arguments.clear();
            }
            call.arguments.push_str(partial);
        }
    }
}

impl Parser for Stream {
    fn event(&mut self, event: &Event) -> Result<Flow, Failure> {
        self.events += 1;
        let data: Value = serde_json::from_str(&event.data).map_err(|_| {
            Failure::fatal(format!(
                "the server sent an event that is not JSON: {}",
                snippet(&event.data)
            ))
        })?;
        let Some(kind) = data.get("type").and_then(Value::as_str) else {
            return Err(Failure::fatal(format!(
                "the server sent an event without a type: {}",
                snippet(&event.data)
            )));
        };
        match kind {
            "message_start" => {
                if let Some(model) = data.pointer("/message/model").and_then(Value::as_str) {
                    self.collected.model = Some(model.to_string());
                }
                self.merge_usage(data.pointer("/message/usage"));
            }
            "content_block_start" => {
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
                    self.collected.tool_calls.push(RawToolCall {
                        id: field("id"),
                        name: field("name"),
                        arguments: input.map(Value::to_string).unwrap_or_default(),
                    });
                } else if let Some(text) =
                    data.pointer("/content_block/text").and_then(Value::as_str)
                {
                    self.collected.text.push_str(text);
                }
            }
            "content_block_delta" => {
                // Only text deltas are the answer; thinking and tool-input deltas are not.
                let delta = data.get("delta");
                let kind = delta.and_then(|d| d.get("type")).and_then(Value::as_str);
                let text = delta.and_then(|d| d.get("text")).and_then(Value::as_str);
                if let (Some("text_delta"), Some(text)) = (kind, text) {
                    self.collected.text.push_str(text);
                }
                if kind == Some("input_json_delta") {
                    self.input_delta(&data);
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.collected.finish_reason = Some(reason.to_string());
                }
                self.merge_usage(data.get("usage"));
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Flow::Done);
            }
            "error" => {
                let error = data.get("error").cloned().unwrap_or(Value::Null);
                let reason = format!(
                    "the server reported an error mid-stream: {}",
                    describe_error(&error)
                );
                // An overloaded or internal error mid-stream is what a 529 or 500 would
                // have been had it come before the headers.
                let retry = matches!(
                    error.get("type").and_then(Value::as_str),
                    Some("overloaded_error" | "api_error")
                );
                return Err(if retry {
                    Failure::retry(reason, None)
                } else {
                    Failure::fatal(reason)
                });
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self) -> Result<Collected, Failure> {
        if !self.stopped {
            return Err(Failure::fatal(format!(
                "the stream was cut off before message_stop ({} events, {} characters received)",
                self.events,
                self.collected.text.chars().count()
            ))
            .with_class(CallStatus::TruncatedStream));
        }
        if self.collected.finish_reason.is_none() {
            return Err(Failure::fatal(
                "the stream reached message_stop without a stop reason",
            ));
        }
        let mut collected = std::mem::take(&mut self.collected);
        if !self.usage.is_empty() {
            collected.raw_usage = Some(Value::Object(std::mem::take(&mut self.usage)));
        }
        Ok(collected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Usage;
    use crate::wire::{Prompt, Wire};

    fn event(name: &str, data: &str) -> Event {
        Event {
            name: Some(name.to_string()),
            data: data.to_string(),
        }
    }

    #[test]
    fn the_body_has_required_max_tokens_and_cached_system_blocks() {
        let settings = Settings::new(Wire::Anthropic, "claude-x", "http://x");
        let prompt = Prompt {
            static_system: "rules".into(),
            ..Prompt::default()
        };
        let options = CallOptions {
            max_tokens: 0,
            ..CallOptions::probe()
        };
        let body = per_call(
            &settings,
            crate::wire::anthropic::body(&prompt, Some(&settings.model)),
            &options,
        );
        assert_eq!(body["max_tokens"], 1);
        assert_eq!(body["stream"], true);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["model"], "claude-x");
    }

    #[test]
    fn a_full_stream_gives_text_stop_reason_and_merged_usage() {
        let mut stream = Stream::default();
        let events = [
            event(
                "message_start",
                r#"{"type":"message_start","message":{"model":"claude-x-1","usage":{"input_tokens":10,"cache_read_input_tokens":2000,"cache_creation_input_tokens":0,"output_tokens":1}}}"#,
            ),
            event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            event("ping", r#"{"type": "ping"}"#),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            ),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
            ),
            event(
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
            ),
        ];
        for e in &events {
            assert_eq!(stream.event(e).unwrap(), Flow::Continue);
        }
        assert_eq!(
            stream
                .event(&event("message_stop", r#"{"type":"message_stop"}"#))
                .unwrap(),
            Flow::Done
        );
        let collected = stream.finish().unwrap();
        assert_eq!(collected.text, "Hi");
        assert_eq!(collected.finish_reason.as_deref(), Some("end_turn"));
        assert_eq!(collected.model.as_deref(), Some("claude-x-1"));
        let usage = Usage::of(Wire::Anthropic, collected.raw_usage.as_ref().unwrap()).unwrap();
        assert_eq!(usage.input_tokens, 2010);
        assert_eq!(usage.cached_input_tokens, Some(2000));
        assert_eq!(usage.output_tokens, 4);
    }

    #[test]
    fn a_stream_without_message_stop_fails() {
        let mut stream = Stream::default();
        stream
            .event(&event(
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}"#,
            ))
            .unwrap();
        assert!(stream.finish().unwrap_err().reason.contains("message_stop"));
    }

    #[test]
    fn an_overloaded_error_event_may_be_retried_others_not() {
        let mut stream = Stream::default();
        let overloaded = stream
            .event(&event(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ))
            .unwrap_err();
        assert!(overloaded.retry);
        let invalid = stream
            .event(&event(
                "error",
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"no"}}"#,
            ))
            .unwrap_err();
        assert!(!invalid.retry);
        assert!(stream.event(&event("x", "not json")).is_err());
    }
}
