//! Gemini generateContent: the session's request body and the provider's rules for it.
//!
//! Tier 2 becomes `contents`: an assistant run is one `model` turn holding its text parts
//! and one `functionCall` part per tool call (the call's visible id as `id`); a user-side
//! run is one `user` turn, the `functionResponse` parts of its results first (each naming
//! its call's function and id), then its texts. Tier 3 joins the last user turn, so turns
//! alternate. Rules held by [`check`] (Gemini's function-calling guide and its documented
//! 400 errors): roles are `user` or `model` and alternate, starting with `user`; every
//! `functionCall` of a model turn is answered by a `functionResponse` with its name in the
//! user turn right after it; no part is empty; the contents end with a user turn.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{Parts, Run, Violation, entry_text, has_text, runs, tier1_prompt, violation};
use crate::session::log::{Entry, Kind};
use crate::wire;

fn model_turn(run: &[&Entry]) -> Value {
    let parts: Vec<Value> = run
        .iter()
        .map(|e| match e.kind {
            Kind::ToolCall => json!({"functionCall": {
                "id": e.id,
                "name": e.name.as_deref().unwrap_or(""),
                "args": e.arguments(),
            }}),
            _ => json!({"text": entry_text(e)}),
        })
        .collect();
    json!({"role": "model", "parts": parts})
}

fn user_turn(run: &[&Entry], names: &HashMap<&str, &str>) -> Value {
    let mut parts: Vec<Value> = run
        .iter()
        .filter(|e| e.kind == Kind::ToolResult)
        .map(|e| {
            let call = e.call.as_deref().unwrap_or("");
            json!({"functionResponse": {
                "id": call,
                "name": names.get(call).copied().unwrap_or(""),
                "response": {"output": entry_text(e)},
            }})
        })
        .collect();
    parts.extend(
        run.iter()
            .filter(|e| e.kind != Kind::ToolResult)
            .map(|e| json!({"text": entry_text(e)})),
    );
    json!({"role": "user", "parts": parts})
}

pub fn body(parts: &Parts) -> Value {
    let mut body = wire::gemini::body(&tier1_prompt(parts));
    let names: HashMap<&str, &str> = parts
        .tier2
        .iter()
        .filter(|e| e.kind == Kind::ToolCall)
        .map(|e| (e.id.as_str(), e.name.as_deref().unwrap_or("")))
        .collect();
    if !body.get("contents").is_some_and(Value::is_array) {
        body["contents"] = json!([]);
    }
    let contents = body["contents"].as_array_mut().expect("an array");
    for run in runs(&parts.tier2) {
        match run {
            Run::Assistant(run) => contents.push(model_turn(&run)),
            Run::User(run) => contents.push(user_turn(&run, &names)),
        }
    }
    let tier3 = json!({"text": parts.tier3});
    match contents.last_mut() {
        Some(last) if last["role"] == "user" => {
            if let Some(parts) = last["parts"].as_array_mut() {
                parts.push(tier3);
            }
        }
        _ => contents.push(json!({"role": "user", "parts": [tier3]})),
    }
    body
}

/// Every way `body` breaks the rules above.
pub fn check(body: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(contents) = body.get("contents").and_then(Value::as_array) else {
        return vec![violation(
            "/contents".into(),
            "contents",
            "must be a non-empty array".into(),
        )];
    };
    if contents.is_empty() {
        out.push(violation(
            "/contents".into(),
            "contents",
            "must not be empty".into(),
        ));
    }
    // The calls of the model turn before, by id, with their function names.
    let mut waiting: Vec<(String, String)> = Vec::new();
    let mut previous = "";
    for (i, content) in contents.iter().enumerate() {
        let at = format!("/contents/{i}");
        let role = content.get("role").and_then(Value::as_str).unwrap_or("");
        if role != "user" && role != "model" {
            out.push(violation(
                format!("{at}/role"),
                "roles",
                format!("role `{role}` is not user or model"),
            ));
        }
        if (i == 0 && role != "user") || (i > 0 && role == previous) {
            out.push(violation(
                format!("{at}/role"),
                "turns_alternate",
                format!(
                    "a {role} turn follows {}",
                    if i == 0 { "nothing" } else { previous }
                ),
            ));
        }
        let parts = content.get("parts").and_then(Value::as_array);
        let parts = parts.map_or(&[][..], Vec::as_slice);
        if parts.is_empty() {
            out.push(violation(
                format!("{at}/parts"),
                "no_empty_content",
                format!("a {role} turn needs parts"),
            ));
        }
        let mut answered: Vec<(String, String)> = Vec::new();
        let mut calls = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            if let Some(call) = part.get("functionCall") {
                let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                calls.push((id.to_string(), name.to_string()));
            } else if let Some(response) = part.get("functionResponse") {
                let id = response.get("id").and_then(Value::as_str).unwrap_or("");
                let name = response.get("name").and_then(Value::as_str).unwrap_or("");
                answered.push((id.to_string(), name.to_string()));
            } else if !part.get("text").is_some_and(has_text) {
                out.push(violation(
                    format!("{at}/parts/{k}"),
                    "no_empty_content",
                    "a part needs text, a functionCall or a functionResponse".into(),
                ));
            }
        }
        for (id, name) in &answered {
            if !waiting.iter().any(|(w, n)| w == id && n == name) {
                out.push(violation(
                    format!("{at}/parts"),
                    "response_answers_a_call",
                    format!("no functionCall `{name}` ({id}) in the model turn before"),
                ));
            }
        }
        let missing: Vec<&str> = waiting
            .iter()
            .filter(|w| !answered.contains(w))
            .map(|(id, _)| id.as_str())
            .collect();
        if !missing.is_empty() {
            out.push(violation(
                at.clone(),
                "tool_results_follow_calls",
                format!("calls {} are not answered in this turn", missing.join(", ")),
            ));
        }
        waiting = calls;
        previous = role;
    }
    if !waiting.is_empty() || contents.last().is_some_and(|c| c["role"] != "user") {
        out.push(violation(
            "/contents".into(),
            "ends_with_user",
            "the contents must end with a user turn that answers every call".into(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(contents: Value) -> Vec<&'static str> {
        check(&json!({ "contents": contents }))
            .iter()
            .map(|v| v.rule)
            .collect()
    }

    #[test]
    fn a_call_answered_in_the_next_user_turn_is_accepted() {
        let contents = json!([
            {"role": "user", "parts": [{"text": "book it"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "book", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c1", "name": "book", "response": {"output": "ok"}}},
                {"text": "and now?"}]},
        ]);
        assert!(rules(contents).is_empty());
    }

    #[test]
    fn turns_that_do_not_alternate_or_a_response_to_another_function_are_refused() {
        let twice = json!([
            {"role": "user", "parts": [{"text": "a"}]},
            {"role": "user", "parts": [{"text": "b"}]},
        ]);
        assert_eq!(rules(twice), ["turns_alternate"]);
        let wrong = json!([
            {"role": "user", "parts": [{"text": "a"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "book", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c1", "name": "cancel", "response": {}}}]},
        ]);
        assert_eq!(
            rules(wrong),
            ["response_answers_a_call", "tool_results_follow_calls"]
        );
    }

    #[test]
    fn an_unanswered_call_at_the_end_and_an_empty_part_are_refused() {
        let contents = json!([
            {"role": "user", "parts": [{"text": " "}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]},
        ]);
        assert_eq!(rules(contents), ["no_empty_content", "ends_with_user"]);
    }
}
