//! Provider wire formats for a composed prompt, in one place.
//!
//! `brief compose --format openai|anthropic` prints these bodies and the providers send
//! them, so what an operator inspects is byte-for-byte what goes on the wire (plus the
//! per-call fields a provider adds: `stream`, `max_tokens`, …).
//!
//! Cache layout: tools first, then the static system text, then the worked examples (few-shot
//! turns), then the volatile part. The static part is one block (Anthropic) or the first
//! system message (OpenAI), the examples the first messages after it, and the volatile part
//! a later block or a system message after the examples (Anthropic with examples: a user
//! message after them, see [`anthropic_body`]), so that the stable prefix
//! `prompt::prefix` finds in these bodies changes only when the brief's static items change,
//! and the volatile part lands in its live zone.
//!
//! Deterministic bytes: the body is a `Value` whose keys are inserted in a fixed order (the
//! crate keeps insertion order), and every key of a tool's `input_schema` is sorted by its
//! UTF-8 bytes, recursively, so reordering keys in a `.tool.yaml` file changes nothing on
//! the wire. `serde_json::to_string` of the body is what `compose` prints and what the
//! provider layer sends.

use serde_json::{Map, Value, json};

use crate::prompt::canonical;
use crate::wire::Wire;

/// A tool as the brief declares it; rendered per provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// A prompt in provider-neutral form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prompt {
    /// The static system text: the cacheable prefix (with the tools).
    pub static_system: String,
    /// Worked examples (`format: messages` samples, in manifest order): few-shot turns sent
    /// right after the static system text, inside the stable prefix.
    pub examples: Vec<Message>,
    /// The volatile system text, rebuilt every turn; sent after the prefix.
    pub volatile_system: Option<String>,
    pub tools: Vec<ToolDef>,
    pub messages: Vec<Message>,
}

impl Prompt {
    /// The whole system text as one string: static, a blank line, volatile.
    pub fn system_text(&self) -> String {
        match &self.volatile_system {
            Some(volatile) if !volatile.is_empty() => {
                if self.static_system.is_empty() {
                    volatile.clone()
                } else {
                    format!("{}\n\n{}", self.static_system, volatile)
                }
            }
            _ => self.static_system.clone(),
        }
    }
}

/// The body for `wire`; `cache_key` is used by OpenAI only.
pub fn body(prompt: &Prompt, wire: Wire, model: Option<&str>, cache_key: Option<&str>) -> Value {
    match wire {
        Wire::OpenAi => openai_body(prompt, model, cache_key),
        Wire::Anthropic => anthropic_body(prompt, model),
    }
}

/// A tool's input schema in the one documented key order: sorted, recursively.
fn schema(tool: &ToolDef) -> Value {
    canonical::sorted(&tool.input_schema)
}

/// An OpenAI chat-completions request body: the static system message, the volatile one as
/// a second system message, then the conversation; tools as `{"type": "function",
/// "function": {name, description, parameters}}`.
pub fn openai_body(prompt: &Prompt, model: Option<&str>, cache_key: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = model {
        body.insert("model".into(), json!(model));
    }
    let mut messages = Vec::with_capacity(prompt.messages.len() + prompt.examples.len() + 2);
    if !prompt.static_system.is_empty() {
        messages.push(json!({"role": "system", "content": prompt.static_system}));
    }
    messages.extend(prompt.examples.iter().map(openai_example));
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
                        "parameters": schema(tool),
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
/// marker `prompt::prefix` reads examples by.
pub fn example_name(role: Role) -> &'static str {
    match role {
        Role::User => "example_user",
        Role::Assistant => "example_assistant",
    }
}

fn openai_example(message: &Message) -> Value {
    json!({
        "role": message.role.as_str(),
        "name": example_name(message.role),
        "content": message.content,
    })
}

/// The Anthropic messages of the worked examples: plain string content, except the last
/// message, one text block carrying the breakpoint that caches tools, system and examples.
fn anthropic_examples(examples: &[Message]) -> Vec<Value> {
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
pub fn anthropic_body(prompt: &Prompt, model: Option<&str>) -> Value {
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
    let mut messages = anthropic_examples(&prompt.examples);
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
                    "input_schema": schema(tool),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Prompt {
        Prompt {
            static_system: "You are a helper.".into(),
            examples: Vec::new(),
            volatile_system: Some("Customer: Ada".into()),
            tools: vec![ToolDef {
                name: "lookup".into(),
                description: "Find an order".into(),
                input_schema: json!({"type": "object"}),
            }],
            messages: vec![Message {
                role: Role::User,
                content: "hi".into(),
            }],
        }
    }

    #[test]
    fn openai_has_the_static_then_the_volatile_system_message() {
        let body = openai_body(&prompt(), Some("m"), Some("k"));
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][0]["content"], "You are a helper.");
        assert_eq!(body["messages"][1]["role"], "system");
        assert_eq!(body["messages"][1]["content"], "Customer: Ada");
        assert_eq!(body["messages"][2]["content"], "hi");
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
        assert_eq!(body["prompt_cache_key"], "k");
    }

    #[test]
    fn anthropic_marks_only_the_static_block_for_caching() {
        let body = anthropic_body(&prompt(), None);
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["system"][1].get("cache_control").is_none());
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
        assert!(body.get("model").is_none());
    }

    #[test]
    fn schema_key_order_in_the_source_does_not_reach_the_wire() {
        let mut reordered = prompt();
        reordered.tools[0].input_schema = serde_json::from_str(
            r#"{"required":["a"],"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}"#,
        )
        .unwrap();
        let mut written = prompt();
        written.tools[0].input_schema = serde_json::from_str(
            r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}"#,
        )
        .unwrap();
        for wire in [Wire::OpenAi, Wire::Anthropic] {
            let a = serde_json::to_string(&body(&reordered, wire, None, None)).unwrap();
            let b = serde_json::to_string(&body(&written, wire, None, None)).unwrap();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn without_static_text_the_anthropic_breakpoint_is_on_the_last_tool() {
        let mut volatile_only = prompt();
        volatile_only.static_system.clear();
        let body = anthropic_body(&volatile_only, None);
        assert_eq!(body["tools"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["system"][0].get("cache_control").is_none());
    }

    fn with_examples() -> Prompt {
        let mut prompt = prompt();
        prompt.examples = vec![
            Message {
                role: Role::User,
                content: "q".into(),
            },
            Message {
                role: Role::Assistant,
                content: "a".into(),
            },
        ];
        prompt
    }

    #[test]
    fn openai_examples_are_named_and_sit_between_the_system_messages() {
        let body = openai_body(&with_examples(), None, None);
        let roles: Vec<(&str, Option<&str>)> = body["messages"]
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

    #[test]
    fn anthropic_examples_carry_the_second_breakpoint_and_precede_the_volatile_part() {
        let body = anthropic_body(&with_examples(), None);
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text.matches("cache_control").count(),
            2,
            "at most 4 allowed"
        );
        assert_eq!(body["system"].as_array().unwrap().len(), 1);
        assert_eq!(body["messages"][0]["content"], "q");
        assert_eq!(
            body["messages"][1]["content"][0]["cache_control"]["type"],
            "ephemeral"
        );
        assert_eq!(body["messages"][2]["content"], "Customer: Ada");
        assert_eq!(body["messages"][3]["content"], "hi");
        // Without static text the tools' breakpoint and the examples': still two.
        let mut no_static = with_examples();
        no_static.static_system.clear();
        let text = serde_json::to_string(&anthropic_body(&no_static, None)).unwrap();
        assert_eq!(text.matches("cache_control").count(), 2);
    }
}
