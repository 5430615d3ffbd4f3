//! Reading one provider request body into the three parts a prompt cache sees: tools,
//! system and the conversation. OpenAI chat completions and Anthropic messages bodies are
//! told apart by their shape.

use serde_json::Value;

use crate::canonical;
use crate::error::{Error, Result};

/// Which provider API a request body is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Chat completions: system (and developer) messages lead `messages`.
    #[serde(rename = "openai")]
    OpenAi,
    /// Messages API: a top-level `system`, a string or text blocks.
    Anthropic,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::OpenAi => "openai",
            Shape::Anthropic => "anthropic",
        }
    }
}

/// One element of a part, with the JSON pointer it has in the request body.
#[derive(Clone, Debug)]
pub struct Element {
    pub pointer: String,
    pub value: Value,
}

/// A request body split into the parts a prompt cache sees, in the order it sees them.
#[derive(Clone, Debug)]
pub struct Request {
    /// Where the body came from: a path, or `<stdin>:LINE`.
    pub source: String,
    pub shape: Shape,
    pub tools: Vec<Element>,
    /// OpenAI: the leading system/developer messages. Anthropic: `/system`, either the
    /// whole string or one element per block.
    pub system: Vec<Element>,
    /// The conversation: every message after the system part.
    pub messages: Vec<Element>,
    /// Whether the Anthropic `system` was a plain string (its canonical form is the string).
    system_is_string: bool,
}

impl Request {
    /// Splits a parsed request body; `source` names it in error messages.
    pub fn parse(source: &str, body: &Value) -> Result<Request> {
        let bad = |what: String| {
            Error::input(format!("{source}: {what}")).with_hint(
                "pass an OpenAI chat completions or Anthropic messages request body \
                 (a JSON object with a `messages` array)",
            )
        };
        let Value::Object(map) = body else {
            return Err(bad("not a JSON object".to_string()));
        };
        let Some(Value::Array(messages)) = map.get("messages") else {
            return Err(bad("no `messages` array".to_string()));
        };
        let tools = match map.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tools)) => elements("/tools", 0, tools),
            Some(_) => return Err(bad("`tools` is not an array".to_string())),
        };
        if let Some(i) = messages.iter().position(|m| !m.is_object()) {
            return Err(bad(format!("message {i} is not an object")));
        }
        match map.get("system") {
            Some(system) => {
                let (system, system_is_string) = match system {
                    Value::String(_) => (vec![element("/system".to_string(), system)], true),
                    Value::Array(blocks) => (elements("/system", 0, blocks), false),
                    _ => return Err(bad("`system` is neither a string nor blocks".to_string())),
                };
                Ok(Request {
                    source: source.to_string(),
                    shape: Shape::Anthropic,
                    tools,
                    system,
                    messages: elements("/messages", 0, messages),
                    system_is_string,
                })
            }
            None => {
                let lead = messages
                    .iter()
                    .take_while(|m| {
                        matches!(
                            m.get("role").and_then(Value::as_str),
                            Some("system" | "developer")
                        )
                    })
                    .count();
                let anthropic_tools = map
                    .get("tools")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.iter().any(|t| t.get("input_schema").is_some()));
                Ok(Request {
                    source: source.to_string(),
                    shape: if lead == 0 && anthropic_tools {
                        Shape::Anthropic
                    } else {
                        Shape::OpenAi
                    },
                    tools,
                    system: elements("/messages", 0, &messages[..lead]),
                    messages: elements("/messages", lead, &messages[lead..]),
                    system_is_string: false,
                })
            }
        }
    }

    /// The canonical JSON of the tools as sent; empty when there are none.
    pub fn tools_text(&self) -> String {
        array_text(&self.tools)
    }

    /// The canonical JSON of the system part as sent; empty when there is none.
    pub fn system_text(&self) -> String {
        match (self.system_is_string, self.system.first()) {
            (true, Some(only)) => canonical::to_string(&only.value),
            _ => array_text(&self.system),
        }
    }

    /// The canonical JSON of the conversation as sent.
    pub fn messages_text(&self) -> String {
        array_text(&self.messages)
    }

    /// The conversation in the form compared across wakes: `cache_control` markers removed,
    /// because the documented way to cache a growing conversation slides one marker to the
    /// newest message on every call, and the provider leaves markers out of the cache key.
    pub fn messages_comparison_text(&self) -> String {
        let stripped: Vec<Value> = self
            .messages
            .iter()
            .map(|m| without_cache_control(&m.value))
            .collect();
        canonical::to_string(&Value::Array(stripped))
    }

    /// One hash per conversation message, in the comparison form.
    pub fn message_hashes(&self) -> Vec<String> {
        self.messages
            .iter()
            .map(|m| {
                canonical::sha256_hex(
                    canonical::to_string(&without_cache_control(&m.value)).as_bytes(),
                )
            })
            .collect()
    }
}

/// One hash per element, over its canonical JSON as sent.
pub fn element_hashes(elements: &[Element]) -> Vec<String> {
    elements
        .iter()
        .map(|e| canonical::sha256_hex(canonical::to_string(&e.value).as_bytes()))
        .collect()
}

fn element(pointer: String, value: &Value) -> Element {
    Element {
        pointer,
        value: value.clone(),
    }
}

fn elements(base: &str, first_index: usize, values: &[Value]) -> Vec<Element> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| element(format!("{base}/{}", first_index + i), v))
        .collect()
}

fn array_text(elements: &[Element]) -> String {
    if elements.is_empty() {
        return String::new();
    }
    let values = elements.iter().map(|e| e.value.clone()).collect();
    canonical::to_string(&Value::Array(values))
}

fn without_cache_control(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| key.as_str() != "cache_control")
                .map(|(key, item)| (key.clone(), without_cache_control(item)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_cache_control).collect()),
        other => other.clone(),
    }
}
