//! OpenAI-compatible chat completions: the streamed request and the reading of its chunks.
//!
//! Streaming with `stream_options.include_usage` is the one mode every compatible server
//! (OpenAI, vLLM, llama.cpp, Ollama, gateways) implements alike, and it is the only way to
//! see usage while still detecting a cut-off answer: the usage chunk (`choices: []`) and
//! `data: [DONE]` come last, so an answer without them was cut short.

use serde_json::{Value, json};

use super::dialect::Dialect;
use super::sse::Event;
use super::stream::{Collected, Failure, Flow, Parser, RawToolCall, describe_error, snippet};
use super::{CallOptions, Settings};
use crate::error::CallStatus;

/// The field that caps the answer's length.
///
/// OpenAI deprecated `max_tokens` for chat completions and rejects it on reasoning and
/// GPT-5 models; `max_completion_tokens` is the current field and vLLM and recent llama.cpp
/// accept it. Ollama and older local servers only know `max_tokens` and silently ignore the
/// other, which would make a one-token probe answer unbounded. So the official endpoint
/// gets `max_completion_tokens`, every other server `max_tokens`, and a 400 that names the
/// field makes the call retry once with the other one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenField {
    MaxTokens,
    MaxCompletionTokens,
}

impl TokenField {
    pub fn for_settings(settings: &Settings) -> TokenField {
        if settings.is_official_endpoint() {
            TokenField::MaxCompletionTokens
        } else {
            TokenField::MaxTokens
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TokenField::MaxTokens => "max_tokens",
            TokenField::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    pub fn other(self) -> TokenField {
        match self {
            TokenField::MaxTokens => TokenField::MaxCompletionTokens,
            TokenField::MaxCompletionTokens => TokenField::MaxTokens,
        }
    }

    /// Whether a 400's message is about the length field, so the other one may work.
    pub fn mentioned_in(message: &str) -> bool {
        message.contains("max_tokens") || message.contains("max_completion_tokens")
    }
}

/// The OpenAI-compatible dialect of a model call.
pub struct OpenAi;

impl Dialect for OpenAi {
    fn per_call(
        &self,
        settings: &Settings,
        body: Value,
        options: &CallOptions,
        field: TokenField,
    ) -> Value {
        per_call(settings, body, options, field)
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::<Stream>::default()
    }

    fn natural_stop(&self, finish_reason: &str) -> bool {
        finish_reason == "stop"
    }

    fn has_length_field_choice(&self) -> bool {
        true
    }
}

/// A body made elsewhere (a session's render) with the per-call fields set: the model
/// asked for, the length cap, streaming with usage.
pub fn per_call(
    settings: &Settings,
    mut body: Value,
    options: &CallOptions,
    field: TokenField,
) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("model".into(), json!(settings.model));
        if let Some(key) = &options.cache_key {
            map.insert("prompt_cache_key".into(), json!(key));
        }
        map.insert(field.name().into(), json!(options.max_tokens));
        if let Some(temperature) = options.temperature {
            map.insert("temperature".into(), json!(temperature));
        }
        map.insert("stream".into(), json!(true));
        map.insert("stream_options".into(), json!({"include_usage": true}));
    }
    body
}

#[derive(Debug, Default)]
pub struct Stream {
    collected: Collected,
    done: bool,
    events: usize,
    /// The stream's `index` of each entry of `collected.tool_calls`.
    tool_index: Vec<u64>,
}

impl Stream {
    /// A `delta.tool_calls` fragment: the first one of an index carries the id and name,
    /// later ones pieces of the arguments' JSON text.
    fn tool_delta(&mut self, part: &Value) {
        let index = part.get("index").and_then(Value::as_u64).unwrap_or(0);
        let at = match self.tool_index.iter().position(|&i| i == index) {
            Some(at) => at,
            None => {
                self.tool_index.push(index);
                self.collected.tool_calls.push(RawToolCall::default());
                self.collected.tool_calls.len() - 1
            }
        };
        let call = &mut self.collected.tool_calls[at];
        if let Some(id) = part
            .get("id")
            .and_then(Value::as_str)
            .filter(|i| !i.is_empty())
        {
            call.id = id.to_string();
        }
        if let Some(name) = part
            .pointer("/function/name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        {
            call.name.push_str(name);
        }
        if let Some(arguments) = part.pointer("/function/arguments").and_then(Value::as_str) {
            call.arguments.push_str(arguments);
        }
    }
}

impl Parser for Stream {
    fn event(&mut self, event: &Event) -> Result<Flow, Failure> {
        self.events += 1;
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|_| {
            Failure::fatal(format!(
                "the server sent an event that is not JSON: {}",
                snippet(data)
            ))
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(Failure::fatal(format!(
                "the server reported an error mid-stream: {}",
                describe_error(error)
            )));
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        let usage = chunk.get("usage").filter(|u| u.is_object());
        if choices.is_none() && usage.is_none() {
            return Err(Failure::fatal(format!(
                "the server sent an unexpected event: {}",
                snippet(data)
            )));
        }
        // Azure's first chunk (prompt filter results) carries an empty model.
        if let Some(model) = chunk
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
        {
            self.collected.model = Some(model.to_string());
        }
        if let Some(usage) = usage {
            self.collected.raw_usage = Some(usage.clone());
        }
        // One answer was asked for (`n` unset); other indexes are not ours.
        let first = choices
            .into_iter()
            .flatten()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
        if let Some(choice) = first {
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str) {
                self.collected.text.push_str(text);
            }
            let parts = choice
                .pointer("/delta/tool_calls")
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                self.tool_delta(part);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.collected.finish_reason = Some(reason.to_string());
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self) -> Result<Collected, Failure> {
        let collected = std::mem::take(&mut self.collected);
        match (&collected.finish_reason, self.done) {
            (Some(_), true) => {}
            (None, true) => {
                return Err(Failure::fatal(
                    "the stream ended with [DONE] but the model never gave a finish reason",
                ));
            }
            (Some(_), false) => {
                return Err(Failure::fatal(
                    "the stream was cut off after the finish reason, before [DONE]",
                )
                .with_class(CallStatus::TruncatedStream));
            }
            (None, false) => {
                return Err(Failure::fatal(format!(
                    "the stream was cut off before the model finished ({} events, {} characters received)",
                    self.events,
                    collected.text.chars().count()
                ))
                .with_class(CallStatus::TruncatedStream));
            }
        }
        Ok(collected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Message, Prompt, Role, Wire};

    fn event(data: &str) -> Event {
        Event {
            name: None,
            data: data.to_string(),
        }
    }

    #[test]
    fn the_body_streams_with_usage_and_caps_the_answer() {
        let settings = Settings::new(Wire::OpenAi, "m", "http://x/v1");
        let prompt = Prompt {
            static_system: "sys".into(),
            messages: vec![Message {
                role: Role::User,
                content: "hi".into(),
            }],
            ..Prompt::default()
        };
        let options = CallOptions {
            temperature: Some(0.2),
            ..CallOptions::probe()
        };
        let body = per_call(
            &settings,
            crate::wire::openai::body(&prompt, Some(&settings.model), None),
            &options,
            TokenField::for_settings(&settings),
        );
        assert_eq!(body["model"], "m");
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["max_tokens"], 1);
        assert!(body.get("max_completion_tokens").is_none());
        assert_eq!(serde_json::to_string(&body["temperature"]).unwrap(), "0.2");
        assert_eq!(body["messages"][0]["content"], "sys");
    }

    #[test]
    fn the_official_endpoint_gets_max_completion_tokens() {
        let settings = Settings::new(Wire::OpenAi, "m", "https://api.openai.com/v1");
        assert_eq!(
            TokenField::for_settings(&settings),
            TokenField::MaxCompletionTokens
        );
    }

    #[test]
    fn deltas_finish_reason_and_the_usage_chunk_are_collected() {
        let mut stream = Stream::default();
        for data in [
            r#"{"model":"m-2024","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
        ] {
            assert_eq!(stream.event(&event(data)).unwrap(), Flow::Continue);
        }
        assert_eq!(stream.event(&event("[DONE]")).unwrap(), Flow::Done);
        let collected = stream.finish().unwrap();
        assert_eq!(collected.text, "Hello");
        assert_eq!(collected.finish_reason.as_deref(), Some("stop"));
        assert_eq!(collected.model.as_deref(), Some("m-2024"));
        assert_eq!(collected.raw_usage.unwrap()["prompt_tokens"], 5);
    }

    #[test]
    fn a_stream_without_done_or_finish_reason_fails() {
        let mut stream = Stream::default();
        stream
            .event(&event(r#"{"choices":[{"delta":{"content":"Hel"}}]}"#))
            .unwrap();
        assert!(stream.finish().unwrap_err().reason.contains("cut off"));
        let mut stream = Stream::default();
        stream
            .event(&event(
                r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            ))
            .unwrap();
        assert!(
            stream
                .finish()
                .unwrap_err()
                .reason
                .contains("before [DONE]")
        );
    }

    #[test]
    fn error_and_unexpected_events_fail() {
        let mut stream = Stream::default();
        let err = stream
            .event(&event(r#"{"error":{"message":"model overloaded"}}"#))
            .unwrap_err();
        assert!(err.reason.contains("model overloaded"));
        assert!(stream.event(&event("<html>")).is_err());
        assert!(stream.event(&event(r#"{"id":"x"}"#)).is_err());
    }
}
