//! OpenAI Responses: the session's request body and the provider's rules for it.
//!
//! Tier 2 becomes `input` items: an assistant run is its text as one assistant message, then
//! one `function_call` item per tool call (the call's visible id as `call_id`); a result is a
//! `function_call_output` item with that `call_id`; other user-side entries are user
//! messages. Rules held by [`check`] (OpenAI's Responses reference and its documented 400
//! errors, "No tool output found for function call"): every `function_call_output` answers
//! a `function_call` before it; every `function_call` is answered before the next message;
//! call ids are unique; a call's `arguments` is a JSON object as a string; no message is
//! empty; the input ends with the user's side (a user message or a call's output).

use std::collections::HashSet;

use serde_json::{Value, json};

use super::{Parts, Run, Violation, content_ok, entry_text, runs, tier1_prompt, violation};
use crate::session::log::{Entry, Kind};
use crate::wire;

fn assistant_items(run: &[&Entry]) -> Vec<Value> {
    let text: Vec<String> = run
        .iter()
        .filter(|e| e.kind == Kind::Assistant)
        .map(|e| entry_text(e))
        .collect();
    let mut items = Vec::new();
    if !text.is_empty() {
        items.push(json!({"role": "assistant", "content": text.join("\n")}));
    }
    items.extend(run.iter().filter(|e| e.kind == Kind::ToolCall).map(|e| {
        json!({
            "type": "function_call",
            "call_id": e.id,
            "name": e.name.as_deref().unwrap_or(""),
            "arguments": e.text,
        })
    }));
    items
}

fn user_item(entry: &Entry) -> Value {
    if entry.kind == Kind::ToolResult {
        json!({
            "type": "function_call_output",
            "call_id": entry.call.as_deref().unwrap_or(""),
            "output": entry_text(entry),
        })
    } else {
        json!({"role": "user", "content": entry_text(entry)})
    }
}

pub fn body(parts: &Parts) -> Value {
    let mut body = wire::responses::body(&tier1_prompt(parts), parts.model, None);
    if !body.get("input").is_some_and(Value::is_array) {
        body["input"] = json!([]);
    }
    let input = body["input"].as_array_mut().expect("an array");
    for run in runs(&parts.tier2) {
        match run {
            Run::Assistant(run) => input.extend(assistant_items(&run)),
            Run::User(run) => input.extend(run.iter().map(|e| user_item(e))),
        }
    }
    input.push(json!({"role": "user", "content": parts.tier3}));
    body
}

/// Every way `body` breaks the rules above.
pub fn check(body: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(input) = body.get("input").and_then(Value::as_array) else {
        return vec![violation(
            "/input".into(),
            "input",
            "must be a non-empty array".into(),
        )];
    };
    if input.is_empty() {
        out.push(violation(
            "/input".into(),
            "input",
            "must not be empty".into(),
        ));
    }
    let mut ids = HashSet::new();
    let mut waiting: Vec<String> = Vec::new();
    for (i, item) in input.iter().enumerate() {
        let at = format!("/input/{i}");
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        match kind {
            "function_call" => {
                let id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
                if id.is_empty() || !ids.insert(id.to_string()) {
                    out.push(violation(
                        format!("{at}/call_id"),
                        "unique_call_ids",
                        format!("call id `{id}` is empty or used twice"),
                    ));
                }
                let arguments = item.get("arguments").and_then(Value::as_str);
                let object = arguments
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .is_some_and(|v| v.is_object());
                if !object {
                    out.push(violation(
                        format!("{at}/arguments"),
                        "arguments_json_object",
                        "a call's arguments must be a JSON object as a string".into(),
                    ));
                }
                waiting.push(id.to_string());
            }
            "function_call_output" => {
                let id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
                if let Some(k) = waiting.iter().position(|w| w == id) {
                    waiting.remove(k);
                } else {
                    out.push(violation(
                        format!("{at}/call_id"),
                        "output_answers_a_call",
                        format!("no function_call with call id `{id}` is waiting for it"),
                    ));
                }
            }
            _ => {
                let role = item.get("role").and_then(Value::as_str).unwrap_or("");
                if !waiting.is_empty() {
                    out.push(violation(
                        at.clone(),
                        "tool_results_follow_calls",
                        format!(
                            "a {role} message comes before the outputs of {}",
                            waiting.join(", ")
                        ),
                    ));
                    waiting.clear();
                }
                if !content_ok(item.get("content").unwrap_or(&Value::Null)) {
                    out.push(violation(
                        format!("{at}/content"),
                        "no_empty_content",
                        format!("a {role} message needs content"),
                    ));
                }
            }
        }
    }
    if !waiting.is_empty() {
        out.push(violation(
            "/input".into(),
            "tool_results_follow_calls",
            format!("calls {} have no output", waiting.join(", ")),
        ));
    }
    let last_user_side = input.last().is_some_and(|item| {
        item.get("type").and_then(Value::as_str) == Some("function_call_output")
            || item.get("role").and_then(Value::as_str) == Some("user")
    });
    if !input.is_empty() && !last_user_side {
        out.push(violation(
            format!("/input/{}", input.len() - 1),
            "ends_with_user",
            "the input must end with a user message or a call's output".into(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(input: Value) -> Vec<&'static str> {
        check(&json!({ "input": input }))
            .iter()
            .map(|v| v.rule)
            .collect()
    }

    #[test]
    fn a_call_answered_before_the_next_message_is_accepted() {
        let input = json!([
            {"role": "user", "content": "book it"},
            {"type": "function_call", "call_id": "c1", "name": "book", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "done"},
            {"role": "user", "content": "thanks"},
        ]);
        assert!(rules(input).is_empty());
    }

    #[test]
    fn an_output_without_its_call_and_a_call_without_its_output_are_refused() {
        let orphan = json!([
            {"role": "user", "content": "hi"},
            {"type": "function_call_output", "call_id": "c9", "output": "x"},
        ]);
        assert_eq!(rules(orphan), ["output_answers_a_call"]);
        let unanswered = json!([
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"role": "user", "content": "next"},
        ]);
        assert_eq!(rules(unanswered), ["tool_results_follow_calls"]);
    }

    #[test]
    fn bad_arguments_a_reused_id_and_an_empty_message_are_refused() {
        let input = json!([
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "[1]"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            {"role": "user", "content": "  "},
        ]);
        assert_eq!(
            rules(input),
            [
                "arguments_json_object",
                "unique_call_ids",
                "no_empty_content"
            ]
        );
    }
}
