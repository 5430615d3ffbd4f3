//! Anthropic Messages, as this toolkit writes and reads it: the request body of a composed
//! prompt with its `cache_control` breakpoints, and how worked examples are recognised in
//! a body.
//!
//! Layout (see `wire::prefix` for why): tools; `system` as text blocks, the breakpoint on
//! the last static block; the worked examples opening `messages`, the last one with a
//! second breakpoint; the volatile part after them; then the conversation.

use serde_json::{Map, Value, json};

use super::canonical;
use super::prompt::{Message, Prompt};
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::prompt::fixtures::{prompt, with_examples};

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
