//! Anthropic Messages: the session's request body and the provider's rules for it.
//!
//! Rules held by [`check`] (the Messages API reference and its documented 400 errors, in
//! their strictest form, which Bedrock and Vertex still enforce): the first message is the
//! user's and the roles alternate; every `tool_use` of an assistant message is answered by
//! a `tool_result` in the very next message, a user message whose `tool_result` blocks come
//! before anything else; a `tool_result` answers a `tool_use` of the message before it;
//! tool-use ids are unique; no message or text block is empty; at most four
//! `cache_control` breakpoints; the request ends with the user's turn.
//!
//! So the body joins what is consecutive on one side: an assistant run is one message, a
//! user-side run (results first) is one user turn, and Tier 3 joins the last user turn.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::{Parts, Run, Violation, entry_text, has_text, runs, tier1_prompt, violation};
use crate::session::log::{Entry, Kind};
use crate::wire;

fn block(entry: &Entry) -> Value {
    match entry.kind {
        Kind::ToolCall => json!({
            "type": "tool_use",
            "id": entry.id,
            "name": entry.name.as_deref().unwrap_or(""),
            "input": entry.arguments(),
        }),
        Kind::ToolResult => json!({
            "type": "tool_result",
            "tool_use_id": entry.call.as_deref().unwrap_or(""),
            "content": entry_text(entry),
        }),
        _ => json!({"type": "text", "text": entry_text(entry)}),
    }
}

fn blocks(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => vec![other],
    }
}

/// Joins consecutive messages of one role into one turn (the examples' last message may
/// meet Tier 2's first, Tier 2's last meets Tier 3).
fn alternate(messages: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    for mut message in messages {
        if let Some(last) = out.last_mut()
            && last["role"] == message["role"]
        {
            let mut joined = blocks(last["content"].take());
            joined.extend(blocks(message["content"].take()));
            last["content"] = Value::Array(joined);
            continue;
        }
        out.push(message);
    }
    out
}

pub fn body(parts: &Parts) -> Value {
    let mut body = wire::anthropic::body(&tier1_prompt(parts), parts.model);
    if parts.static_system.is_empty()
        && let Some(last) = body
            .get_mut("tools")
            .and_then(Value::as_array_mut)
            .and_then(|t| t.last_mut())
    {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut tier2: Vec<Value> = runs(&parts.tier2)
        .into_iter()
        .map(|run| match run {
            Run::Assistant(run) => {
                json!({"role": "assistant", "content": run.iter().map(|e| block(e)).collect::<Vec<_>>()})
            }
            Run::User(run) => {
                // Results open the turn; the order of each kind is kept.
                let (results, rest): (Vec<&&Entry>, Vec<&&Entry>) =
                    run.iter().partition(|e| e.kind == Kind::ToolResult);
                let content: Vec<Value> = results.into_iter().chain(rest).map(|e| block(e)).collect();
                json!({"role": "user", "content": content})
            }
        })
        .collect();
    if let Some(last) = tier2
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|blocks| blocks.last_mut())
    {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    // The worked examples (with their own breakpoint) come first, as compose sends them.
    let mut messages = match body["messages"].take() {
        Value::Array(examples) => examples,
        _ => Vec::new(),
    };
    messages.extend(tier2);
    messages.push(json!({"role": "user", "content": [{"type": "text", "text": parts.tier3}]}));
    body["messages"] = Value::Array(alternate(messages));
    body
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn count_breakpoints(value: &Value) -> usize {
    match value {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control"))
                + map.values().map(count_breakpoints).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_breakpoints).sum(),
        _ => 0,
    }
}

/// Every way `body` breaks the rules above.
pub fn check(body: &Value) -> Vec<Violation> {
    let (messages, mut out) = match super::messages_of(body) {
        Ok(found) => found,
        Err(violations) => return violations,
    };
    let breakpoints = count_breakpoints(body);
    if breakpoints > 4 {
        out.push(violation(
            String::new(),
            "cache_breakpoints",
            format!("{breakpoints} cache_control breakpoints; at most 4"),
        ));
    }
    let mut ids = HashSet::new();
    let mut asked: Vec<String> = Vec::new();
    let mut previous = "";
    for (i, message) in messages.iter().enumerate() {
        let at = format!("/messages/{i}");
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        if !matches!(role, "user" | "assistant") {
            out.push(violation(
                format!("{at}/role"),
                "roles",
                format!("role `{role}` is neither user nor assistant"),
            ));
        }
        if i == 0 && role != "user" {
            out.push(violation(
                at.clone(),
                "first_message_user",
                format!("the first message is the {role}'s"),
            ));
        }
        if i > 0 && role == previous {
            out.push(violation(
                at.clone(),
                "alternation",
                format!("two {role} messages in a row"),
            ));
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        let list: Vec<&Value> = match content {
            Value::String(_) => {
                if !has_text(content) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        "empty text".into(),
                    ));
                }
                Vec::new()
            }
            Value::Array(items) if !items.is_empty() => items.iter().collect(),
            _ => {
                out.push(violation(
                    format!("{at}/content"),
                    "no_empty_content",
                    "a message needs content".into(),
                ));
                Vec::new()
            }
        };
        let mut answered: Vec<String> = Vec::new();
        let mut seen_other = false;
        for (j, block) in list.iter().enumerate() {
            let block_at = format!("{at}/content/{j}");
            match block_type(block) {
                "text" if !has_text(block.get("text").unwrap_or(&Value::Null)) => {
                    out.push(violation(
                        format!("{block_at}/text"),
                        "no_empty_content",
                        "a text block needs non-whitespace text".into(),
                    ));
                }
                "tool_use" => {
                    let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                    if role != "assistant" {
                        out.push(violation(
                            block_at.clone(),
                            "tool_use_in_assistant",
                            "tool_use outside an assistant message".into(),
                        ));
                    }
                    if id.is_empty() || !ids.insert(id.to_string()) {
                        out.push(violation(
                            format!("{block_at}/id"),
                            "unique_call_ids",
                            format!("tool_use id `{id}` is empty or used twice"),
                        ));
                    }
                    if !block.get("input").is_some_and(Value::is_object) {
                        out.push(violation(
                            format!("{block_at}/input"),
                            "tool_use_input",
                            "input must be an object".into(),
                        ));
                    }
                }
                "tool_result" => {
                    let id = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if seen_other {
                        out.push(violation(
                            block_at.clone(),
                            "tool_results_first",
                            "a tool_result comes after other content in its turn".into(),
                        ));
                    }
                    match asked.iter().position(|a| a == id) {
                        Some(k) if role == "user" => {
                            answered.push(asked.remove(k));
                        }
                        _ => out.push(violation(
                            format!("{block_at}/tool_use_id"),
                            "tool_results_follow_calls",
                            format!(
                                "the tool_result for `{id}` does not answer a tool_use of the message before it"
                            ),
                        )),
                    }
                    continue;
                }
                _ => {}
            }
            seen_other = true;
        }
        if !asked.is_empty() {
            out.push(violation(
                at.clone(),
                "tool_results_follow_calls",
                format!(
                    "this message does not answer {} of the message before it",
                    asked.join(", ")
                ),
            ));
        }
        asked = if role == "assistant" {
            list.iter()
                .filter(|b| block_type(b) == "tool_use")
                .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_string))
                .collect()
        } else {
            Vec::new()
        };
        previous = role;
    }
    if !asked.is_empty() {
        out.push(violation(
            "/messages".into(),
            "tool_results_follow_calls",
            format!("no tool_result answers {}", asked.join(", ")),
        ));
    }
    if previous == "assistant" {
        out.push(violation(
            format!("/messages/{}", messages.len() - 1),
            "ends_with_user",
            "the request ends with the assistant's turn".into(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(messages: Value) -> Vec<&'static str> {
        check(&json!({ "messages": messages }))
            .iter()
            .map(|v| v.rule)
            .collect()
    }

    #[test]
    fn results_must_open_the_next_turn_and_turns_alternate() {
        let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]});
        let result = json!({"type": "tool_result", "tool_use_id": "t1", "content": "r"});
        let text = json!({"type": "text", "text": "status"});
        assert!(rules(json!([{"role": "user", "content": "q"}, call, {"role": "user", "content": [result, text]}])).is_empty());
        assert_eq!(
            rules(
                json!([{"role": "user", "content": "q"}, call, {"role": "user", "content": [text, result]}])
            ),
            ["tool_results_first"]
        );
        assert_eq!(
            rules(
                json!([{"role": "user", "content": "q"}, call, {"role": "user", "content": [text]}, {"role": "user", "content": [result]}])
            ),
            [
                "tool_results_follow_calls",
                "alternation",
                "tool_results_follow_calls"
            ]
        );
        assert_eq!(
            rules(json!([{"role": "assistant", "content": "hi"}, {"role": "user", "content": ""}])),
            ["first_message_user", "no_empty_content"]
        );
    }
}
