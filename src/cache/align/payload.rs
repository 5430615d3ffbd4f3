//! Reading one provider request body into the three parts a prompt cache sees: tools,
//! system and the conversation. OpenAI chat completions and Anthropic messages bodies are
//! told apart by their shape.

use serde_json::Value;

use crate::error::{Error, Result};
use crate::prompt::canonical;

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
        match map.get("system").filter(|s| !s.is_null()) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn leading_system_and_developer_messages_are_the_openai_system_part() {
        let body = json!({"messages": [
            {"role": "system", "content": "a"},
            {"role": "developer", "content": "b"},
            {"role": "user", "content": "c"},
            {"role": "system", "content": "d"}
        ]});
        let request = Request::parse("x.json", &body).unwrap();
        assert_eq!(request.shape, Shape::OpenAi);
        assert_eq!(request.system.len(), 2);
        let pointers: Vec<_> = request
            .messages
            .iter()
            .map(|m| m.pointer.as_str())
            .collect();
        assert_eq!(pointers, ["/messages/2", "/messages/3"]);
        assert_eq!(request.tools_text(), "");
    }

    #[test]
    fn a_top_level_system_string_is_anthropic_and_hashes_as_the_string() {
        let body = json!({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]});
        let request = Request::parse("x.json", &body).unwrap();
        assert_eq!(request.shape, Shape::Anthropic);
        assert_eq!(request.system_text(), "\"Be brief.\"");
        assert_eq!(request.system[0].pointer, "/system");
    }

    #[test]
    fn anthropic_tools_without_a_system_are_recognised() {
        let body =
            json!({"system": null, "tools": [{"name": "t", "input_schema": {}}], "messages": []});
        assert_eq!(
            Request::parse("x.json", &body).unwrap().shape,
            Shape::Anthropic
        );
    }

    #[test]
    fn cache_control_is_left_out_of_the_conversation_comparison_only() {
        let marked = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
        ]}]});
        let plain =
            json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]});
        let marked = Request::parse("a", &marked).unwrap();
        let plain = Request::parse("b", &plain).unwrap();
        assert_eq!(marked.message_hashes(), plain.message_hashes());
        assert_ne!(marked.messages_text(), plain.messages_text());
    }

    #[test]
    fn bodies_that_are_not_requests_are_named_errors() {
        for body in [
            json!([1, 2]),
            json!({"input": "hi"}),
            json!({"messages": [], "tools": {}}),
            json!({"messages": ["hi"]}),
            json!({"messages": [], "system": 3}),
        ] {
            let err = Request::parse("w.json", &body).unwrap_err();
            assert!(err.message.starts_with("w.json: "), "{}", err.message);
        }
    }
}
