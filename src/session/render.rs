//! Rendering a session for the next model call: Tier 1, then Tier 2, then Tier 3 as the
//! last message, in an OpenAI (Chat Completions or Responses) or Anthropic request body or
//! as plain text.
//!
//! Tier 1 is the brief's stable prefix exactly as `compose` sends it, its worked examples
//! (message samples) included: they open the conversation, before Tier 2, with their own
//! breakpoint on Anthropic (three breakpoints at most: system or last tool, examples, Tier 2).
//!
//! Every Tier 2 entry becomes the same bytes in every render (its visible id first, its
//! text as stored), and entries are only ever added after it, so when only Tier 2 grew
//! the previous render's Tier 1 and Tier 2 are a byte-identical prefix of the new one.
//! Anthropic's second cache breakpoint sits on the last Tier 2 block and moves as Tier 2
//! grows; `brief align` leaves `cache_control` out of the conversation comparison, as the
//! provider's cache does.

use serde_json::{Map, Value, json};

use super::log::{Entry, Kind};
use crate::wire::{self, Message, Prompt, ToolDef};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Openai,
    /// OpenAI Responses: Tier 2 as `input` items, tool calls as `function_call` and their
    /// results as `function_call_output` items.
    Responses,
    Anthropic,
    /// Gemini generateContent: Tier 2 as `contents`, tool calls as `functionCall` parts and
    /// their results as `functionResponse` parts.
    Gemini,
    Text,
}

/// The text of an entry as the model reads it, its visible id first.
pub fn entry_text(entry: &Entry) -> String {
    match entry.kind {
        Kind::ToolCall => format!(
            "[{}] {} {}",
            entry.id,
            entry.name.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::Summary => format!("[{}] Summary: {}", entry.id, entry.text),
        _ => format!("[{}] {}", entry.id, entry.text),
    }
}

/// The line `brief session render --format text` shows, in the seed's stream notation.
pub fn entry_line(entry: &Entry) -> String {
    match entry.kind {
        Kind::User => format!("[{}] User: {}", entry.id, entry.text),
        Kind::Assistant => format!("[{}] AI: {}", entry.id, entry.text),
        Kind::ToolCall => format!(
            "[{}] AI -> {}: {}",
            entry.id,
            entry.name.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::ToolResult => format!(
            "[{}] System ({}): {}",
            entry.id,
            entry.call.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::Summary => format!("[{}] Summary: {}", entry.id, entry.text),
        Kind::State => format!("[{}] Compacted state: {}", entry.id, entry.text),
        Kind::Resume => format!("[{}] Resume: {}", entry.id, entry.text),
    }
}

/// Tier 2 entries grouped into messages: consecutive entries of one model answer (one
/// `group`) form one assistant message; every other entry is a message of its own.
fn messages<'a>(tier2: &[&'a Entry]) -> Vec<Vec<&'a Entry>> {
    let mut out: Vec<Vec<&Entry>> = Vec::new();
    for entry in tier2 {
        let joins = matches!(
            (out.last().and_then(|m| m.last()), &entry.group),
            (Some(last), Some(group)) if last.group.as_ref() == Some(group)
        );
        if joins {
            out.last_mut().expect("checked").push(entry);
        } else {
            out.push(vec![entry]);
        }
    }
    out
}

fn is_assistant(entry: &Entry) -> bool {
    matches!(entry.kind, Kind::Assistant | Kind::ToolCall)
}

fn openai_messages(group: &[&Entry]) -> Vec<Value> {
    let first = group[0];
    if first.kind == Kind::ToolResult {
        return vec![json!({
            "role": "tool",
            "tool_call_id": first.call.as_deref().unwrap_or(""),
            "content": entry_text(first),
        })];
    }
    if !is_assistant(first) {
        return vec![json!({"role": "user", "content": entry_text(first)})];
    }
    let text: Vec<String> = group
        .iter()
        .filter(|e| e.kind == Kind::Assistant)
        .map(|e| entry_text(e))
        .collect();
    let calls: Vec<Value> = group
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
    vec![Value::Object(message)]
}

/// Responses `input` items of one Tier 2 message: a tool call is a `function_call` item and
/// its result a `function_call_output`, both with the call's visible id as `call_id` (as
/// Chat Completions' `tool_call_id`); the entry's visible id opens its text, as everywhere.
fn responses_items(group: &[&Entry]) -> Vec<Value> {
    let first = group[0];
    if first.kind == Kind::ToolResult {
        return vec![json!({
            "type": "function_call_output",
            "call_id": first.call.as_deref().unwrap_or(""),
            "output": entry_text(first),
        })];
    }
    if !is_assistant(first) {
        return vec![json!({"role": "user", "content": entry_text(first)})];
    }
    let text: Vec<String> = group
        .iter()
        .filter(|e| e.kind == Kind::Assistant)
        .map(|e| entry_text(e))
        .collect();
    let mut items = Vec::new();
    if !text.is_empty() {
        items.push(json!({"role": "assistant", "content": text.join("\n")}));
    }
    items.extend(group.iter().filter(|e| e.kind == Kind::ToolCall).map(|e| {
        json!({
            "type": "function_call",
            "call_id": e.id,
            "name": e.name.as_deref().unwrap_or(""),
            "arguments": e.text,
        })
    }));
    items
}

/// One Gemini `contents` entry of a Tier 2 message: a model turn holds its text and its
/// `functionCall` parts (with the call's visible id as `id`); a tool result is a user turn
/// with a `functionResponse` naming the call's function (looked up in `names`) and id.
fn gemini_content(group: &[&Entry], names: &std::collections::HashMap<&str, &str>) -> Value {
    let first = group[0];
    if first.kind == Kind::ToolResult {
        let call = first.call.as_deref().unwrap_or("");
        return json!({"role": "user", "parts": [{"functionResponse": {
            "id": call,
            "name": names.get(call).copied().unwrap_or(""),
            "response": {"output": entry_text(first)},
        }}]});
    }
    if !is_assistant(first) {
        return json!({"role": "user", "parts": [{"text": entry_text(first)}]});
    }
    let parts: Vec<Value> = group
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

fn anthropic_message(group: &[&Entry]) -> Value {
    let first = group[0];
    let role = if is_assistant(first) {
        "assistant"
    } else {
        "user"
    };
    let blocks: Vec<Value> = group
        .iter()
        .map(|e| match e.kind {
            Kind::ToolCall => json!({
                "type": "tool_use",
                "id": e.id,
                "name": e.name.as_deref().unwrap_or(""),
                "input": e.arguments(),
            }),
            Kind::ToolResult => json!({
                "type": "tool_result",
                "tool_use_id": e.call.as_deref().unwrap_or(""),
                "content": entry_text(e),
            }),
            _ => json!({"type": "text", "text": entry_text(e)}),
        })
        .collect();
    json!({"role": role, "content": blocks})
}

/// What a render is made of.
pub struct Parts<'a> {
    pub static_system: &'a str,
    /// The brief's worked examples, sent right after the static system as compose sends
    /// them (same bytes, so the session's prefix hash is compose's).
    pub examples: &'a [Message],
    pub tools: &'a [ToolDef],
    pub tier2: Vec<&'a Entry>,
    pub tier3: &'a str,
    pub model: Option<&'a str>,
}

fn tier1_prompt(parts: &Parts) -> Prompt {
    Prompt {
        static_system: parts.static_system.to_string(),
        examples: parts.examples.to_vec(),
        volatile_system: None,
        tools: parts.tools.to_vec(),
        messages: Vec::new(),
    }
}

pub fn openai(parts: &Parts) -> Value {
    let mut body = wire::openai::body(&tier1_prompt(parts), parts.model, None);
    let messages = body["messages"]
        .as_array_mut()
        .expect("wire makes an array");
    for group in messages_of(parts) {
        messages.extend(openai_messages(&group));
    }
    messages.push(json!({"role": "user", "content": parts.tier3}));
    body
}

pub fn responses(parts: &Parts) -> Value {
    let mut body = wire::responses::body(&tier1_prompt(parts), parts.model, None);
    let input = body["input"].as_array_mut().expect("wire makes an array");
    for group in messages_of(parts) {
        input.extend(responses_items(&group));
    }
    input.push(json!({"role": "user", "content": parts.tier3}));
    body
}

pub fn gemini(parts: &Parts) -> Value {
    let mut body = wire::gemini::body(&tier1_prompt(parts));
    let names: std::collections::HashMap<&str, &str> = parts
        .tier2
        .iter()
        .filter(|e| e.kind == Kind::ToolCall)
        .map(|e| (e.id.as_str(), e.name.as_deref().unwrap_or("")))
        .collect();
    let contents = body["contents"]
        .as_array_mut()
        .expect("wire makes an array");
    for group in messages_of(parts) {
        contents.push(gemini_content(&group, &names));
    }
    contents.push(json!({"role": "user", "parts": [{"text": parts.tier3}]}));
    body
}

fn messages_of<'a>(parts: &Parts<'a>) -> Vec<Vec<&'a Entry>> {
    messages(&parts.tier2)
}

pub fn anthropic(parts: &Parts) -> Value {
    let mut body = wire::anthropic::body(&tier1_prompt(parts), parts.model);
    if parts.static_system.is_empty()
        && let Some(last) = body
            .get_mut("tools")
            .and_then(Value::as_array_mut)
            .and_then(|t| t.last_mut())
    {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut tier2: Vec<Value> = messages_of(parts)
        .iter()
        .map(|group| anthropic_message(group))
        .collect();
    if let Some(block) = tier2
        .last_mut()
        .and_then(|m| m["content"].as_array_mut())
        .and_then(|blocks| blocks.last_mut())
    {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    // The worked examples (with their own breakpoint) come first, as compose sends them.
    let mut messages = match body["messages"].take() {
        Value::Array(examples) => examples,
        _ => Vec::new(),
    };
    messages.extend(tier2);
    messages.push(json!({"role": "user", "content": [{"type": "text", "text": parts.tier3}]}));
    body["messages"] = Value::Array(messages);
    body
}

pub fn text(parts: &Parts) -> String {
    let mut out = String::from("=== Tier 1: static ===\n");
    if !parts.static_system.is_empty() {
        out.push_str(parts.static_system);
        out.push('\n');
    }
    if !parts.examples.is_empty() {
        out.push_str(&crate::prompt::examples::readable(parts.examples));
        out.push('\n');
    }
    for tool in parts.tools {
        out.push_str(&format!("tool {}: {}\n", tool.name, tool.description));
    }
    out.push_str("\n=== Tier 2: memory ===\n");
    for entry in &parts.tier2 {
        out.push_str(&entry_line(entry));
        out.push('\n');
    }
    out.push_str("\n=== Tier 3: volatile ===\n");
    out.push_str(parts.tier3);
    out.push('\n');
    out
}
