//! OpenAI Responses (`POST /v1/responses`, what Codex CLI and the current OpenAI SDKs
//! speak), as this toolkit writes and reads it: the request body of a composed prompt, how
//! its prefix is laid out, its usage object and its streamed events.
//!
//! Body: `instructions` is the static system text; `input` holds the worked examples as
//! plain `user` / `assistant` messages, then the volatile part as a `developer` message,
//! then the conversation; tools are flat function tools (`{"type": "function", "name",
//! "description", "parameters", "strict": false}` — the API enforces strict schemas unless
//! told not to, and a brief's schemas are ordinary JSON Schema).
//!
//! Layout (see `wire::prefix`): the tools; the system part is `instructions` (stable) and
//! the `system`/`developer` messages that lead `input` (live); without `instructions`, the
//! first leading one is stable and the rest live, as in Chat Completions. Messages carry no
//! marker of their own, so worked examples are recognised by where `compose` puts them:
//! after `instructions`, plain-text `user`/`assistant` messages alternating from `user`,
//! ending with `assistant`, and followed by a `developer` message (the volatile part).
//!
//! A stream is `response.created`, output items and text deltas, and one of
//! `response.completed`, `response.incomplete` or `response.failed`, which carries the
//! usage; there is no `[DONE]`.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::Wire;
use super::canonical;
use super::prefix::{Element, Layout, NotARequest, elements};
use super::prompt::Prompt;
use super::stream::{self, Carried, EventError, Flow, Reader, Streamed, StreamedCall, Unfinished};
use super::usage::{Usage, count};

/// A Responses request body: `instructions`, tools, then `input` (examples, the volatile
/// part as a `developer` message, the conversation).
pub fn body(prompt: &Prompt, model: Option<&str>, cache_key: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = model {
        body.insert("model".into(), json!(model));
    }
    if !prompt.static_system.is_empty() {
        body.insert("instructions".into(), json!(prompt.static_system));
    }
    if !prompt.tools.is_empty() {
        let tools = prompt
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": canonical::sorted(&tool.input_schema),
                    "strict": false,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut input = Vec::with_capacity(prompt.messages.len() + prompt.examples.len() + 1);
    for message in &prompt.examples {
        input.push(json!({"role": message.role.as_str(), "content": message.content}));
    }
    if let Some(volatile) = prompt.volatile_system.as_ref().filter(|v| !v.is_empty()) {
        input.push(json!({"role": "developer", "content": volatile}));
    }
    for message in &prompt.messages {
        input.push(json!({"role": message.role.as_str(), "content": message.content}));
    }
    body.insert("input".into(), Value::Array(input));
    if let Some(key) = cache_key {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    Value::Object(body)
}

/// The smallest `max_output_tokens` the API accepts.
pub const MIN_OUTPUT_TOKENS: u32 = 16;

/// A body with the per-call fields set: the model, the length cap (at least
/// [`MIN_OUTPUT_TOKENS`]), streaming, and `store: false` — a toolkit call keeps nothing on
/// the provider's side.
pub fn per_call(mut body: Value, fields: &super::CallFields) -> Value {
    if let Value::Object(map) = &mut body {
        map.insert("model".into(), json!(fields.model));
        if let Some(key) = fields.cache_key {
            map.insert("prompt_cache_key".into(), json!(key));
        }
        map.insert(
            "max_output_tokens".into(),
            json!(fields.max_tokens.max(MIN_OUTPUT_TOKENS)),
        );
        if let Some(temperature) = fields.temperature {
            map.insert("temperature".into(), json!(temperature));
        }
        map.insert("store".into(), json!(false));
        map.insert("stream".into(), json!(true));
    }
    body
}

/// Splits a Responses body (one with `input`, and no `messages`).
pub(crate) fn layout(map: &Map<String, Value>) -> Result<Layout<'_>, NotARequest> {
    let tools = match map.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tools)) => elements("/tools", 0, tools),
        Some(_) => return Err(NotARequest("`tools` is not an array".into())),
    };
    let instructions = match map.get("instructions") {
        None | Some(Value::Null) => None,
        Some(text @ Value::String(_)) => Some(text),
        Some(_) => return Err(NotARequest("`instructions` is not a string".into())),
    };
    let items: &[Value] = match map.get("input") {
        // A string input is one user message: all conversation.
        Some(text @ Value::String(_)) => std::slice::from_ref(text),
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => &[],
        Some(_) => return Err(NotARequest("`input` is neither a string nor items".into())),
    };
    let string_input = matches!(map.get("input"), Some(Value::String(_)));
    if let (false, Some(i)) = (string_input, items.iter().position(|m| !m.is_object())) {
        return Err(NotARequest(format!("input item {i} is not an object")));
    }
    let lead = if string_input {
        0
    } else {
        items.iter().take_while(|m| is_system(m)).count()
    };
    let mut system = Vec::new();
    let (stable_system, examples_end, after) = match instructions {
        Some(text) => {
            system.push(Element {
                pointer: "/instructions".into(),
                value: text,
            });
            let examples = if lead == 0 && !string_input {
                leading_examples(items)
            } else {
                0
            };
            let live = items[examples..]
                .iter()
                .take_while(|m| is_system(m))
                .count();
            system.extend(elements(
                "/input",
                examples,
                &items[examples..examples + live],
            ));
            (1, examples, examples + live)
        }
        None => {
            system.extend(elements("/input", 0, &items[..lead]));
            (lead.min(1), 0, lead)
        }
    };
    let conversation = if string_input {
        vec![Element {
            pointer: "/input".into(),
            value: &items[0],
        }]
    } else {
        elements("/input", after, &items[after..])
    };
    Ok(Layout {
        wire: Wire::Responses,
        stable_tools: tools.len(),
        tools,
        stable_system,
        system_is_string: instructions.is_some(),
        system,
        examples: elements("/input", 0, &items[..examples_end]),
        conversation,
    })
}

fn role(item: &Value) -> Option<&str> {
    item.get("role").and_then(Value::as_str)
}

fn is_system(item: &Value) -> bool {
    matches!(role(item), Some("system" | "developer"))
}

/// How many leading items are worked examples (see the module doc); 0 when they are not.
fn leading_examples(items: &[Value]) -> usize {
    let run = items
        .iter()
        .enumerate()
        .take_while(|(i, m)| {
            let expected = if i % 2 == 0 { "user" } else { "assistant" };
            role(m) == Some(expected) && m.get("content").is_some_and(Value::is_string)
        })
        .count();
    // Whole exchanges only, and the volatile part right after them.
    let k = run - run % 2;
    if k > 0 && items.get(k).is_some_and(is_system) {
        k
    } else {
        0
    }
}

/// Normalises a Responses `usage` object: `input_tokens` includes the cached ones
/// (`input_tokens_details.cached_tokens`) and those written to the cache
/// (`input_tokens_details.cache_write_tokens`, on models that report it);
/// `output_tokens` includes `output_tokens_details.reasoning_tokens`.
pub fn usage(usage: &Value) -> Option<Usage> {
    Some(Usage {
        input_tokens: count(usage, &["input_tokens"])?,
        cached_input_tokens: count(usage, &["input_tokens_details", "cached_tokens"]),
        cache_write_tokens: count(usage, &["input_tokens_details", "cache_write_tokens"]),
        output_tokens: count(usage, &["output_tokens"]).unwrap_or(0),
        reasoning_tokens: count(usage, &["output_tokens_details", "reasoning_tokens"]),
        ..Usage::default()
    })
}

/// The usage of a whole answer: a response, or a compaction (`/v1/responses/compact`).
pub fn answer_usage(answer: &Value) -> Option<Usage> {
    usage(answer.get("usage")?)
}

/// The events of a streamed response.
#[derive(Debug, Default)]
pub struct Stream {
    streamed: Streamed,
    events: usize,
    /// The output item id (or index) of each entry of `streamed.tool_calls`.
    call_items: Vec<String>,
    /// Message items whose text came as deltas (their `done` item adds nothing).
    delta_items: HashSet<String>,
}

/// The key of an output item in events: its id, else its index.
fn item_key(value: &Value) -> String {
    value
        .get("item_id")
        .or_else(|| value.pointer("/item/id"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            value
                .get("output_index")
                .and_then(Value::as_u64)
                .map(|i| format!("#{i}"))
        })
        .unwrap_or_default()
}

impl Stream {
    fn call_at(&mut self, key: &str) -> Option<&mut StreamedCall> {
        let at = self.call_items.iter().position(|k| k == key)?;
        self.streamed.tool_calls.get_mut(at)
    }

    fn item(&mut self, value: &Value, done: bool) {
        let Some(item) = value.get("item") else {
            return;
        };
        let key = item_key(value);
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let field = |name: &str| {
                    item.get(name)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let (id, name, arguments) = (field("call_id"), field("name"), field("arguments"));
                match self.call_at(&key) {
                    Some(call) => {
                        if done {
                            call.arguments = arguments;
                        }
                        if call.id.is_empty() {
                            call.id = id;
                        }
                        if call.name.is_empty() {
                            call.name = name;
                        }
                    }
                    None => {
                        self.call_items.push(key);
                        self.streamed.tool_calls.push(StreamedCall {
                            id,
                            name,
                            arguments,
                        });
                    }
                }
            }
            Some("message") if done && !self.delta_items.contains(&key) => {
                // No deltas for this message: its text is in the finished item.
                let parts = item.get("content").and_then(Value::as_array);
                for part in parts.into_iter().flatten() {
                    if part.get("type").and_then(Value::as_str) == Some("output_text")
                        && let Some(text) = part.get("text").and_then(Value::as_str)
                    {
                        self.streamed.text.push_str(text);
                    }
                }
            }
            _ => {}
        }
    }

    /// A terminal event: the response with its status and usage.
    fn finished(&mut self, value: &Value) {
        let response = value.get("response").unwrap_or(&Value::Null);
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            self.streamed.usage = Some(usage.clone());
        }
        if let Some(model) = response.get("model").and_then(Value::as_str) {
            self.streamed.model = Some(model.to_string());
        }
        let status = response
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("completed");
        let reason = match status {
            "incomplete" => response
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .unwrap_or("incomplete"),
            other => other,
        };
        self.streamed.finish_reason = Some(reason.to_string());
        self.streamed.ended = true;
    }
}

impl Reader for Stream {
    fn event(&mut self, name: Option<&str>, data: &str) -> Result<Flow, EventError> {
        self.events += 1;
        let value = stream::json(data)?;
        let kind = stream::kind(&value, name, data)?;
        match kind {
            "response.created" | "response.in_progress" => {
                if let Some(model) = value.pointer("/response/model").and_then(Value::as_str) {
                    self.streamed.model = Some(model.to_string());
                }
            }
            "response.output_text.delta" => {
                if let Some(delta) = value.get("delta").and_then(Value::as_str) {
                    self.streamed.text.push_str(delta);
                }
                self.delta_items.insert(item_key(&value));
            }
            "response.output_item.added" => self.item(&value, false),
            "response.output_item.done" => self.item(&value, true),
            "response.function_call_arguments.delta" => {
                let key = item_key(&value);
                let delta = value.get("delta").and_then(Value::as_str).unwrap_or("");
                if let Some(call) = self.call_at(&key) {
                    call.arguments.push_str(delta);
                }
            }
            "response.function_call_arguments.done" => {
                let key = item_key(&value);
                if let (Some(call), Some(arguments)) = (
                    self.call_at(&key),
                    value.get("arguments").and_then(Value::as_str),
                ) {
                    call.arguments = arguments.to_string();
                }
            }
            "response.completed" | "response.incomplete" => {
                self.finished(&value);
                return Ok(Flow::Done);
            }
            "response.failed" => {
                self.finished(&value);
                let error = value.pointer("/response/error").unwrap_or(&Value::Null);
                let retry = matches!(
                    error.get("code").and_then(Value::as_str),
                    Some("server_error" | "rate_limit_exceeded")
                );
                return Err(EventError::Carried(Carried {
                    message: if error.is_null() {
                        "the response failed".to_string()
                    } else {
                        stream::describe_error(error)
                    },
                    retry,
                }));
            }
            "error" => {
                let error = value.get("error").unwrap_or(&value);
                return Err(stream::carried(error));
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    stream::streamed_field!();

    fn unfinished(&self) -> Option<Unfinished> {
        stream::unless_ended("response.completed", self.events, &self.streamed)
    }
}

#[cfg(test)]
#[path = "responses_tests.rs"]
mod tests;
