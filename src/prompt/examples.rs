//! Worked examples in a composed prompt: the messages of `format: messages` samples,
//! compacted one message at a time, and their readable form for `--format text`.
//!
//! A message's content is Markdown like any body, so it gets the same lossless compaction
//! (proven per message; an item with a message that cannot be proven is reported once and
//! that message is sent as written), the manifest's build-time `vars`, and the `\{{`
//! unescaping; then its trailing newlines go, as an item's do.

use std::collections::BTreeMap;

use crate::brief::{Item, fill_placeholders, unescape_braces};
use crate::compact::compact_markdown;
use serde_json::Value;

use crate::prompt::wire::{Message, Role};

/// The messages of a `format: messages` item as they are sent (`None` for a Markdown
/// item). `unproven` gets the item's id once when a message could not be compacted.
pub fn item_messages(
    item: &Item,
    compact: bool,
    vars: &BTreeMap<String, String>,
    unproven: &mut Vec<String>,
) -> Option<Vec<Message>> {
    let messages = item.messages()?;
    let mut proven = true;
    let sent = messages
        .iter()
        .map(|m| {
            let text = if compact {
                let compaction = compact_markdown(&m.content);
                proven &= compaction.proven;
                compaction.text
            } else {
                m.content.clone()
            };
            let text = text.trim_end_matches(['\n', '\r']);
            let content = if vars.is_empty() {
                unescape_braces(text)
            } else {
                fill_placeholders(text, vars).0
            };
            Message {
                role: m.role,
                content,
            }
        })
        .collect();
    if !proven {
        unproven.push(item.id.clone());
    }
    Some(sent)
}

/// The examples as `--format text` shows them in the system prompt, at the item's place:
/// `User: …` and `Assistant: …` turns, one blank line apart.
pub fn readable(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|m| {
            let who = match m.role {
                Role::User => "User",
                Role::Assistant => "Assistant",
            };
            format!("{who}: {}", m.content)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// An OpenAI message named as a worked example (OpenAI's few-shot convention).
pub(crate) fn openai_example(message: &Value) -> bool {
    matches!(
        message.get("name").and_then(Value::as_str),
        Some("example_user" | "example_assistant")
    )
}

/// How many leading Anthropic messages are worked examples: up to and including the first
/// message with a breakpoint, when it is an `assistant` message of text blocks with the
/// breakpoint on its last block, and every message before it has plain string content,
/// alternating `user` and `assistant` from `user` (how `compose` writes them; a session's
/// or a client's turns carry content blocks). 0 when they are not.
pub(crate) fn anthropic_examples(messages: &[Value]) -> usize {
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
