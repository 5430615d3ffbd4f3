//! OpenAI Chat Completions: the session's request body and the provider's rules for it.
//!
//! Rules held by [`check`] (OpenAI's API reference for `messages` and its documented
//! 400 errors): an assistant message with `tool_calls` is followed at once by one `tool`
//! message per call id, before any other message; a `tool` message answers a call of the
//! assistant message before it; call ids are unique; a call's `arguments` is a JSON object
//! as a string; no message is empty (an assistant message may leave `content` null only
//! when it has tool calls); the request ends with the user's side (a user or tool message).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{
    Parts, Run, Violation, content_ok, entry_text, has_text, runs, tier1_prompt, violation,
};
use crate::session::log::{Entry, Kind};
use crate::wire;

fn assistant_message(run: &[&Entry]) -> Value {
    let text: Vec<String> = run
        .iter()
        .filter(|e| e.kind == Kind::Assistant)
        .map(|e| entry_text(e))
        .collect();
    let calls: Vec<Value> = run
        .iter()
        .filter(|e| e.kind == Kind::ToolCall)
        .map(|e| {
            json!({
                "id": e.id,
                "type": "function",
                "function": {"name": e.name.as_deref().unwrap_or(""), "arguments": e.text},
            })
        })
        .collect();
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text.join("\n"))
        },
    );
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(message)
}

fn user_message(entry: &Entry) -> Value {
    if entry.kind == Kind::ToolResult {
        json!({
            "role": "tool",
            "tool_call_id": entry.call.as_deref().unwrap_or(""),
            "content": entry_text(entry),
        })
    } else {
        json!({"role": "user", "content": entry_text(entry)})
    }
}

pub fn body(parts: &Parts) -> Value {
    let mut body = wire::openai::body(&tier1_prompt(parts), parts.model, None);
    let messages = body["messages"]
        .as_array_mut()
        .expect("wire makes an array");
    for run in runs(&parts.tier2) {
        match run {
            Run::Assistant(run) => messages.push(assistant_message(&run)),
            Run::User(run) => messages.extend(run.iter().map(|e| user_message(e))),
        }
    }
    messages.push(json!({"role": "user", "content": parts.tier3}));
    body
}

/// Every way `body` breaks the rules above.
pub fn check(body: &Value) -> Vec<Violation> {
    let (messages, mut out) = match super::messages_of(body) {
        Ok(found) => found,
        Err(violations) => return violations,
    };
    let mut ids = HashSet::new();
    // Calls of the last assistant message still waiting for their tool message.
    let mut waiting: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let at = format!("/messages/{i}");
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        if role != "tool" && !waiting.is_empty() {
            out.push(violation(
                at.clone(),
                "tool_results_follow_calls",
                format!(
                    "a {role} message comes before the tool messages of {}",
                    waiting.join(", ")
                ),
            ));
            waiting.clear();
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        match role {
            "system" | "developer" | "user" => {
                if !content_ok(content) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        format!("a {role} message needs content"),
                    ));
                }
            }
            "assistant" => {
                let calls = message.get("tool_calls");
                let calls = match calls {
                    None | Some(Value::Null) => &[][..],
                    Some(Value::Array(calls)) if !calls.is_empty() => calls.as_slice(),
                    Some(_) => {
                        out.push(violation(
                            format!("{at}/tool_calls"),
                            "tool_calls",
                            "must be a non-empty array when present".into(),
                        ));
                        &[][..]
                    }
                };
                if calls.is_empty() && !content_ok(content) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        "an assistant message without tool calls needs content".into(),
                    ));
                }
                if !content.is_null() && !calls.is_empty() && !content_ok(content) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        "content is null or has text".into(),
                    ));
                }
                for (j, call) in calls.iter().enumerate() {
                    let call_at = format!("{at}/tool_calls/{j}");
                    let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                    if id.is_empty() || !ids.insert(id.to_string()) {
                        out.push(violation(
                            format!("{call_at}/id"),
                            "unique_call_ids",
                            format!("call id `{id}` is empty or used twice"),
                        ));
                    }
                    let function = call.get("function").unwrap_or(&Value::Null);
                    if !has_text(function.get("name").unwrap_or(&Value::Null)) {
                        out.push(violation(
                            format!("{call_at}/function/name"),
                            "tool_calls",
                            "a call needs a function name".into(),
                        ));
                    }
                    let arguments = function.get("arguments").and_then(Value::as_str);
                    let object = arguments
                        .and_then(|a| serde_json::from_str::<Value>(a).ok())
                        .is_some_and(|v| v.is_object());
                    if !object {
                        out.push(violation(
                            format!("{call_at}/function/arguments"),
                            "tool_calls",
                            "arguments must be a JSON object, as a string".into(),
                        ));
                    }
                    waiting.push(id.to_string());
                }
            }
            "tool" => {
                let id = message
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match waiting.iter().position(|w| w == id) {
                    Some(k) => {
                        waiting.remove(k);
                    }
                    None => out.push(violation(
                        format!("{at}/tool_call_id"),
                        "tool_results_follow_calls",
                        format!(
                            "the tool message for `{id}` does not answer a call of the assistant message before it"
                        ),
                    )),
                }
                if !content_ok(content) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        "a tool message needs content".into(),
                    ));
                }
            }
            other => out.push(violation(
                format!("{at}/role"),
                "roles",
                format!("unknown role `{other}`"),
            )),
        }
    }
    if !waiting.is_empty() {
        out.push(violation(
            "/messages".into(),
            "tool_results_follow_calls",
            format!("no tool message answers {}", waiting.join(", ")),
        ));
    }
    match messages
        .last()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
    {
        Some("user" | "tool") | None => {}
        Some(role) => out.push(violation(
            format!("/messages/{}", messages.len() - 1),
            "ends_with_user",
            format!("the request ends with a {role} message"),
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(body: Value) -> Vec<&'static str> {
        check(&body).iter().map(|v| v.rule).collect()
    }

    #[test]
    fn a_message_between_a_call_and_its_result_is_refused() {
        let call =
            json!({"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}});
        let good = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": null, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {"role": "user", "content": "status"},
        ]});
        assert!(check(&good).is_empty(), "{:?}", check(&good));
        let bad = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": null, "tool_calls": [call]},
            {"role": "user", "content": "summary"},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ]});
        assert_eq!(
            rules(bad),
            ["tool_results_follow_calls", "tool_results_follow_calls"]
        );
        let empty = json!({"messages": [{"role": "user", "content": " "}, {"role": "assistant", "content": null}]});
        assert_eq!(
            rules(empty),
            ["no_empty_content", "no_empty_content", "ends_with_user"]
        );
    }
}
