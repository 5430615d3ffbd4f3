//! OpenAI Chat Completions, as this toolkit writes and reads it: the request body of a
//! composed prompt, and how worked examples are marked in it.
//!
//! Layout (see `wire::prefix` for why): tools; the static system text as the first system
//! message; the worked examples as messages named `example_user` / `example_assistant`
//! (OpenAI's few-shot convention); the volatile part as a second system message; then the
//! conversation.

use serde_json::{Map, Value, json};

use super::canonical;
use super::prompt::{Message, Prompt, Role};
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::prompt::fixtures::{prompt, with_examples};

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
