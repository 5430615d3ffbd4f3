//! OpenAI Chat Completions, as this toolkit writes and reads it: the request body of a
//! composed prompt, how worked examples are marked in it, its usage object and its
//! streamed chunks.
//!
//! Streaming with `stream_options.include_usage` is the one mode every compatible server
//! (OpenAI, vLLM, llama.cpp, Ollama, gateways) implements alike, and it is the only way to
//! see usage while still detecting a cut-off answer: the usage chunk (`choices: []`) and
//! `data: [DONE]` come last, so an answer without them was cut short.
//!
//! Layout (see `wire::prefix` for why): tools; the static system text as the first system
//! message; the worked examples as messages named `example_user` / `example_assistant`
//! (OpenAI's few-shot convention); the volatile part as a second system message; then the
//! conversation.

use serde_json::{Map, Value, json};

use super::canonical;
use super::prompt::{Message, Prompt, Role};
use super::stream::{self, EventError, Flow, Reader, Streamed, StreamedCall, Unfinished};
use super::usage::{Usage, count};

/// An OpenAI chat-completions request body: the static system message, the volatile one as
/// a second system message, then the conversation; tools as `{"type": "function",
/// "function": {name, description, parameters}}`.
pub fn body(prompt: &Prompt, model: Option<&str>, cache_key: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = model {
        body.insert("model".into(), json!(model));
    }
    let mut messages = Vec::with_capacity(prompt.messages.len() + prompt.examples.len() + 2);
    if !prompt.static_system.is_empty() {
        messages.push(json!({"role": "system", "content": prompt.static_system}));
    }
    messages.extend(prompt.examples.iter().map(example));
    if let Some(volatile) = prompt.volatile_system.as_ref().filter(|v| !v.is_empty()) {
        messages.push(json!({"role": "system", "content": volatile}));
    }
    for message in &prompt.messages {
        messages.push(json!({"role": message.role.as_str(), "content": message.content}));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !prompt.tools.is_empty() {
        let tools = prompt
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": canonical::sorted(&tool.input_schema),
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(key) = cache_key {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    Value::Object(body)
}

/// The `name` OpenAI's few-shot convention gives a worked example's message, and the
/// marker `wire::prefix` reads examples by.
pub fn example_name(role: Role) -> &'static str {
    match role {
        Role::User => "example_user",
        Role::Assistant => "example_assistant",
    }
}

fn example(message: &Message) -> Value {
    json!({
        "role": message.role.as_str(),
        "name": example_name(message.role),
        "content": message.content,
    })
}

/// An OpenAI message named as a worked example (OpenAI's few-shot convention).
pub(crate) fn is_example(message: &Value) -> bool {
    matches!(
        message.get("name").and_then(Value::as_str),
        Some("example_user" | "example_assistant")
    )
}

/// Normalises an OpenAI-compatible `usage` object. `None` when it has no
/// `prompt_tokens` (a server that sent a placeholder).
///
/// The cached count comes from `prompt_tokens_details.cached_tokens` (OpenAI, vLLM,
/// many gateways) or DeepSeek's `prompt_cache_hit_tokens`; both count tokens inside
/// `prompt_tokens`.
pub fn usage(usage: &Value) -> Option<Usage> {
    let input_tokens = count(usage, &["prompt_tokens"])?;
    let cached_input_tokens = count(usage, &["prompt_tokens_details", "cached_tokens"])
        .or_else(|| count(usage, &["prompt_cache_hit_tokens"]));
    Some(Usage {
        input_tokens,
        cached_input_tokens,
        cache_write_tokens: count(usage, &["prompt_tokens_details", "cache_write_tokens"]),
        output_tokens: count(usage, &["completion_tokens"]).unwrap_or(0),
        reasoning_tokens: count(usage, &["completion_tokens_details", "reasoning_tokens"]),
        ..Usage::default()
    })
}

/// A body with the per-call fields set: the model asked for, the length cap, streaming
/// with usage.
pub fn per_call(mut body: Value, fields: &super::CallFields) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("model".into(), json!(fields.model));
        if let Some(key) = fields.cache_key {
            map.insert("prompt_cache_key".into(), json!(key));
        }
        map.insert(fields.length_field.into(), json!(fields.max_tokens));
        if let Some(temperature) = fields.temperature {
            map.insert("temperature".into(), json!(temperature));
        }
        map.insert("stream".into(), json!(true));
        map.insert("stream_options".into(), json!({"include_usage": true}));
    }
    body
}

/// The usage of a whole (not streamed) answer.
pub fn answer_usage(answer: &Value) -> Option<Usage> {
    usage(answer.get("usage")?)
}

/// The streamed chunks of a chat completion.
#[derive(Debug, Default)]
pub struct Stream {
    streamed: Streamed,
    events: usize,
    /// The stream's `index` of each entry of `streamed.tool_calls`.
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
                self.streamed.tool_calls.push(StreamedCall::default());
                self.streamed.tool_calls.len() - 1
            }
        };
        let call = &mut self.streamed.tool_calls[at];
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

impl Reader for Stream {
    fn event(&mut self, _name: Option<&str>, data: &str) -> Result<Flow, EventError> {
        self.events += 1;
        let data = data.trim();
        if data == "[DONE]" {
            self.streamed.ended = true;
            return Ok(Flow::Done);
        }
        let chunk = stream::json(data)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream::carried(error));
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        let usage = chunk.get("usage").filter(|u| u.is_object());
        if choices.is_none() && usage.is_none() {
            return Err(EventError::Malformed(format!(
                "the server sent an unexpected event: {}",
                stream::snippet(data)
            )));
        }
        // Azure's first chunk (prompt filter results) carries an empty model.
        if let Some(model) = chunk
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
        {
            self.streamed.model = Some(model.to_string());
        }
        if let Some(usage) = usage {
            self.streamed.usage = Some(usage.clone());
        }
        // One answer was asked for (`n` unset); other indexes are not ours.
        let first = choices
            .into_iter()
            .flatten()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
        if let Some(choice) = first {
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str) {
                self.streamed.text.push_str(text);
            }
            let parts = choice
                .pointer("/delta/tool_calls")
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                self.tool_delta(part);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.streamed.finish_reason = Some(reason.to_string());
            }
        }
        Ok(Flow::Continue)
    }

    stream::streamed_field!();

    fn unfinished(&self) -> Option<Unfinished> {
        let s = &self.streamed;
        match (&s.finish_reason, s.ended) {
            (Some(_), true) => None,
            (None, true) => Some(Unfinished {
                reason: "the stream ended with [DONE] but the model never gave a finish reason"
                    .into(),
                truncated: false,
            }),
            (Some(_), false) => Some(Unfinished {
                reason: "the stream was cut off after the finish reason, before [DONE]".into(),
                truncated: true,
            }),
            (None, false) => Some(stream::cut_off("the model finished", self.events, s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::prompt::fixtures::{prompt, with_examples};

    fn read(stream: &mut Stream, data: &str) -> Result<Flow, EventError> {
        stream.event(None, data)
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
            assert_eq!(read(&mut stream, data).unwrap(), Flow::Continue);
        }
        assert_eq!(read(&mut stream, "[DONE]").unwrap(), Flow::Done);
        assert_eq!(stream.unfinished(), None);
        let streamed = stream.take();
        assert_eq!(streamed.text, "Hello");
        assert_eq!(streamed.finish_reason.as_deref(), Some("stop"));
        assert_eq!(streamed.model.as_deref(), Some("m-2024"));
        assert_eq!(streamed.usage.unwrap()["prompt_tokens"], 5);
    }

    #[test]
    fn a_stream_without_done_or_finish_reason_is_unfinished() {
        let mut stream = Stream::default();
        read(&mut stream, r#"{"choices":[{"delta":{"content":"Hel"}}]}"#).unwrap();
        assert!(stream.unfinished().unwrap().reason.contains("cut off"));
        let mut stream = Stream::default();
        read(
            &mut stream,
            r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
        )
        .unwrap();
        assert!(
            stream
                .unfinished()
                .unwrap()
                .reason
                .contains("before [DONE]")
        );
    }

    #[test]
    fn error_and_unexpected_events_are_told_apart() {
        let mut stream = Stream::default();
        let err = read(&mut stream, r#"{"error":{"message":"model overloaded"}}"#).unwrap_err();
        assert!(matches!(err, EventError::Carried(c) if c.message.contains("model overloaded")));
        assert!(matches!(
            read(&mut stream, "<html>"),
            Err(EventError::Malformed(_))
        ));
        assert!(matches!(
            read(&mut stream, r#"{"id":"x"}"#),
            Err(EventError::Malformed(_))
        ));
    }

    #[test]
    fn openai_has_the_static_then_the_volatile_system_message() {
        let sent = body(&prompt(), Some("m"), Some("k"));
        assert_eq!(sent["messages"][0]["role"], "system");
        assert_eq!(sent["messages"][0]["content"], "You are a helper.");
        assert_eq!(sent["messages"][1]["role"], "system");
        assert_eq!(sent["messages"][1]["content"], "Customer: Ada");
        assert_eq!(sent["messages"][2]["content"], "hi");
        assert_eq!(sent["tools"][0]["function"]["parameters"]["type"], "object");
        assert_eq!(sent["prompt_cache_key"], "k");
    }

    #[test]
    fn openai_examples_are_named_and_sit_between_the_system_messages() {
        let sent = body(&with_examples(), None, None);
        let roles: Vec<(&str, Option<&str>)> = sent["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["name"].as_str()))
            .collect();
        assert_eq!(
            roles,
            [
                ("system", None),
                ("user", Some("example_user")),
                ("assistant", Some("example_assistant")),
                ("system", None),
                ("user", None),
            ]
        );
    }
}
