//! Google Gemini `generateContent`, as this toolkit writes and reads it: the request body
//! of a composed prompt, how its prefix is laid out, its `usageMetadata` and its streamed
//! chunks (`:streamGenerateContent?alt=sse`, and the JSON-array stream without it).
//!
//! Body: `systemInstruction` holds the static system text as its first part and the
//! volatile part as its second; tools are one `functionDeclarations` list, each schema in
//! `parametersJsonSchema` (plain JSON Schema, which a brief's tool schemas are — the older
//! `parameters` field takes only an OpenAPI subset); `contents` are the worked examples and
//! the conversation, roles `user` and `model`, text in `parts`. The model is not in the
//! body: it is in the path (`/v1beta/models/{model}:generateContent`).
//!
//! Contents carry no marker and many models want them to alternate `user` and `model`, so
//! the volatile part cannot follow the worked examples as a turn of its own: it is the last
//! part of `systemInstruction`, and the worked examples open `contents` as conversation
//! (compared append-only, never dropped from the prefix the provider caches).
//!
//! Layout (see `wire::prefix`): the tools (each function declaration an element); the
//! system part is the parts of `systemInstruction`, the first stable and the rest live, as
//! the leading system messages of Chat Completions; the conversation is `contents`.
//! Field names are read in both spellings the API accepts (`systemInstruction` and
//! `system_instruction`, …).

use serde_json::{Map, Value, json};

use super::Wire;
use super::canonical;
use super::prefix::{Element, Layout, NotARequest, elements};
use super::prompt::{Message, Prompt, Role};
use super::stream::{self, EventError, Flow, Reader, Streamed, StreamedCall, Unfinished};
use super::usage::{Usage, count};

/// The role a message has in `contents`.
pub fn role(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "model",
    }
}

fn content(message: &Message) -> Value {
    json!({"role": role(message.role), "parts": [{"text": message.content}]})
}

/// A `generateContent` request body (without the model, which goes in the path).
pub fn body(prompt: &Prompt) -> Value {
    let mut body = Map::new();
    let mut parts = Vec::new();
    if !prompt.static_system.is_empty() {
        parts.push(json!({"text": prompt.static_system}));
    }
    if let Some(volatile) = prompt.volatile_system.as_ref().filter(|v| !v.is_empty()) {
        parts.push(json!({"text": volatile}));
    }
    if !parts.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": parts}));
    }
    if !prompt.tools.is_empty() {
        let declarations: Vec<Value> = prompt
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": canonical::sorted(&tool.input_schema),
                })
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    let contents: Vec<Value> = prompt
        .examples
        .iter()
        .chain(&prompt.messages)
        .map(content)
        .collect();
    body.insert("contents".into(), Value::Array(contents));
    Value::Object(body)
}

/// A body with the per-call fields set: the length cap and temperature in
/// `generationConfig` (the model is in the path, streaming is the path's `alt=sse`).
pub fn per_call(mut body: Value, fields: &super::CallFields) -> Value {
    if let Value::Object(map) = &mut body {
        let mut config = Map::new();
        config.insert("maxOutputTokens".into(), json!(fields.max_tokens.max(1)));
        if let Some(temperature) = fields.temperature {
            config.insert("temperature".into(), json!(temperature));
        }
        map.insert("generationConfig".into(), Value::Object(config));
    }
    body
}

/// A member in either spelling the API accepts.
fn member<'a>(map: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    map.get(camel)
        .or_else(|| map.get(snake))
        .filter(|v| !v.is_null())
}

/// Whether a body is Gemini's: it has `contents`.
pub(crate) fn is_body(map: &Map<String, Value>) -> bool {
    map.contains_key("contents")
}

/// Splits a Gemini body.
pub(crate) fn layout(map: &Map<String, Value>) -> Result<Layout<'_>, NotARequest> {
    let contents = match map.get("contents") {
        Some(Value::Array(contents)) => contents,
        _ => return Err(NotARequest("`contents` is not an array".into())),
    };
    if let Some(i) = contents.iter().position(|c| !c.is_object()) {
        return Err(NotARequest(format!("content {i} is not an object")));
    }
    let mut tools = Vec::new();
    match map.get("tools") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, tool) in list.iter().enumerate() {
                let declarations = tool.as_object().and_then(|t| {
                    member(t, "functionDeclarations", "function_declarations")
                        .map(|d| (d, t.contains_key("functionDeclarations")))
                });
                match declarations {
                    Some((Value::Array(declared), camel)) => {
                        let name = if camel {
                            "functionDeclarations"
                        } else {
                            "function_declarations"
                        };
                        tools.extend(elements(&format!("/tools/{i}/{name}"), 0, declared));
                    }
                    _ => tools.push(Element {
                        pointer: format!("/tools/{i}"),
                        value: tool,
                    }),
                }
            }
        }
        Some(_) => return Err(NotARequest("`tools` is not an array".into())),
    }
    let (system, system_is_string) = match map
        .get("systemInstruction")
        .map(|v| ("systemInstruction", v))
        .or_else(|| {
            map.get("system_instruction")
                .map(|v| ("system_instruction", v))
        }) {
        None | Some((_, Value::Null)) => (Vec::new(), false),
        Some((name, text @ Value::String(_))) => (
            vec![Element {
                pointer: format!("/{name}"),
                value: text,
            }],
            true,
        ),
        Some((name, Value::Object(instruction))) => match instruction.get("parts") {
            Some(Value::Array(parts)) => (elements(&format!("/{name}/parts"), 0, parts), false),
            _ => return Err(NotARequest(format!("`{name}` has no `parts` array"))),
        },
        Some((name, _)) => return Err(NotARequest(format!("`{name}` is not a content"))),
    };
    Ok(Layout {
        wire: Wire::Gemini,
        stable_tools: tools.len(),
        tools,
        stable_system: system.len().min(1),
        system_is_string,
        system,
        examples: Vec::new(),
        conversation: elements("/contents", 0, contents),
    })
}

/// Normalises a Gemini `usageMetadata`. `promptTokenCount` already includes the cached
/// tokens (`cachedContentTokenCount`); tool-use prompt tokens are input too. Output is
/// `candidatesTokenCount` plus `thoughtsTokenCount` (both billed as output). A missing
/// `cachedContentTokenCount` stays unknown (`None`), as the ledger says of every absent
/// field: the API leaves it out both when nothing was cached and when caching does not
/// apply, and the toolkit does not guess which.
pub fn usage(usage: &Value) -> Option<Usage> {
    let get = |camel: &str, snake: &str| count(usage, &[camel]).or_else(|| count(usage, &[snake]));
    let prompt = get("promptTokenCount", "prompt_token_count")?;
    let tool_prompt = get("toolUsePromptTokenCount", "tool_use_prompt_token_count").unwrap_or(0);
    let thoughts = get("thoughtsTokenCount", "thoughts_token_count");
    let candidates = get("candidatesTokenCount", "candidates_token_count").unwrap_or(0);
    Some(Usage {
        input_tokens: prompt.saturating_add(tool_prompt),
        cached_input_tokens: get("cachedContentTokenCount", "cached_content_token_count"),
        cache_write_tokens: None,
        output_tokens: candidates.saturating_add(thoughts.unwrap_or(0)),
        reasoning_tokens: thoughts,
        ..Usage::default()
    })
}

fn metadata(chunk: &Value) -> Option<&Value> {
    chunk
        .get("usageMetadata")
        .or_else(|| chunk.get("usage_metadata"))
        .filter(|u| u.is_object())
}

/// The usage of a whole answer, or of a JSON-array stream (its last chunk with usage).
pub fn answer_usage(answer: &Value) -> Option<Usage> {
    match answer {
        Value::Array(chunks) => chunks.iter().rev().find_map(metadata).and_then(usage),
        other => usage(metadata(other)?),
    }
}

/// The chunks of a streamed answer (`alt=sse`: one `GenerateContentResponse` per event).
#[derive(Debug, Default)]
pub struct Stream {
    streamed: Streamed,
    events: usize,
}

impl Stream {
    fn candidate(&mut self, candidate: &Value) {
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
            if let Some(text) = part.get("text").and_then(Value::as_str)
                && !thought
            {
                self.streamed.text.push_str(text);
            }
            let call = part
                .get("functionCall")
                .or_else(|| part.get("function_call"));
            if let Some(call) = call {
                let n = self.streamed.tool_calls.len() + 1;
                let field = |name: &str| call.get(name).and_then(Value::as_str);
                self.streamed.tool_calls.push(StreamedCall {
                    // Older models give no id; one is made so the call can be answered.
                    id: field("id")
                        .filter(|i| !i.is_empty())
                        .map_or_else(|| format!("call_{n}"), str::to_string),
                    name: field("name").unwrap_or_default().to_string(),
                    arguments: call
                        .get("args")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "{}".into()),
                });
            }
        }
        let reason = candidate
            .get("finishReason")
            .or_else(|| candidate.get("finish_reason"))
            .and_then(Value::as_str);
        if let Some(reason) = reason {
            self.streamed.finish_reason = Some(reason.to_string());
            self.streamed.ended = true;
        }
    }
}

impl Reader for Stream {
    fn event(&mut self, _name: Option<&str>, data: &str) -> Result<Flow, EventError> {
        self.events += 1;
        let chunk = stream::json(data)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream::carried(error));
        }
        if !chunk.is_object() {
            return Err(EventError::Malformed(format!(
                "the server sent an unexpected event: {}",
                stream::snippet(data)
            )));
        }
        if let Some(model) = chunk
            .get("modelVersion")
            .or_else(|| chunk.get("model_version"))
            .and_then(Value::as_str)
        {
            self.streamed.model = Some(model.to_string());
        }
        if let Some(usage) = metadata(&chunk) {
            self.streamed.usage = Some(usage.clone());
        }
        let first = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        if let Some(candidate) = first {
            self.candidate(candidate);
        }
        // A blocked prompt has no candidates, only the reason.
        if let Some(blocked) = chunk
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            self.streamed.finish_reason = Some(blocked.to_string());
            self.streamed.ended = true;
        }
        // No end marker: the usage comes with (or after) the finish reason, and the stream
        // ends when the server closes it.
        Ok(Flow::Continue)
    }

    stream::streamed_field!();

    fn unfinished(&self) -> Option<Unfinished> {
        stream::unless_ended("the model's finish reason", self.events, &self.streamed)
    }
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;
