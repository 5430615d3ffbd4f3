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

use crate::wire::{Message, Role};

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
            // A deliberate constant's marker is for `brief check`, never for the model.
            let content = crate::text::constant::strip(&m.content);
            let text = if compact {
                let compaction = compact_markdown(&content);
                proven &= compaction.proven;
                compaction.text
            } else {
                content.into_owned()
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
