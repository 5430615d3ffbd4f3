//! One request body digested for comparison: the stable prefix (from `wire::prefix`, the
//! one identity), one hash per element, and the texts a byte offset is taken in.
//!
//! Everything here is built from one body and dropped with it, so a run holds one body at a
//! time plus the hashes of the previous one.

use serde_json::Value;

use crate::wire::Wire;
use crate::wire::canonical::sha256_hex;
use crate::wire::prefix::{
    self, Element, Layout, NotARequest, StablePrefix, as_sent, element_text,
};

use super::{Part, PartStats, Parts, Zone};

/// A body split and hashed.
pub struct Digested<'a> {
    pub layout: Layout<'a>,
    pub stable: StablePrefix,
    /// How many conversation messages are compared (the rest is the volatile tail).
    pub compared: usize,
    pub tool_hashes: Vec<String>,
    pub system_hashes: Vec<String>,
    /// One per worked example, as sent.
    pub example_hashes: Vec<String>,
    /// One per compared message, `cache_control` markers left out.
    pub message_hashes: Vec<String>,
    pub texts: Texts,
    pub parts: Parts,
    pub live_zone: Zone,
    pub volatile_tail: Zone,
}

/// The texts of the compared parts, for the byte offset of a first difference.
#[derive(Clone, Debug, Default)]
pub struct Texts {
    pub tools: String,
    pub system: String,
    pub examples: String,
    pub messages: String,
}

impl Texts {
    pub fn of(&self, part: Part) -> &str {
        match part {
            Part::Tools => &self.tools,
            Part::System => &self.system,
            Part::Examples => &self.examples,
            Part::Messages => &self.messages,
        }
    }
}

/// Splits and hashes `body`; the last `volatile_tail` messages are left out of the
/// comparison.
pub fn digest(body: &Value, volatile_tail: usize) -> Result<Digested<'_>, NotARequest> {
    let layout = prefix::layout(body)?;
    let stable = StablePrefix::of_layout(&layout);
    let conversation = &layout.conversation;
    let compared = conversation.len() - volatile_tail.min(conversation.len());
    let wire = layout.wire;
    let tool_hashes = element_hashes(wire, &layout.tools[..layout.stable_tools]);
    let system_hashes = element_hashes(wire, &layout.system[..layout.stable_system]);
    let example_hashes = element_hashes(wire, &layout.examples);
    let mut messages = String::from("[");
    let mut message_hashes = Vec::with_capacity(compared);
    for (i, message) in conversation[..compared].iter().enumerate() {
        let text = comparison_text(wire, message.value);
        message_hashes.push(sha256_hex(text.as_bytes()));
        if i > 0 {
            messages.push(',');
        }
        messages.push_str(&text);
    }
    messages.push(']');
    let parts = Parts {
        tools: stats(&stable.tools_text, &stable.tools_hash, layout.stable_tools),
        system: stats(
            &stable.system_text,
            &stable.system_hash,
            layout.stable_system,
        ),
        examples: stable.examples_text.as_ref().map(|text| {
            stats(
                text,
                stable.examples_hash.as_deref().unwrap_or_default(),
                layout.examples.len(),
            )
        }),
        messages: stats(&messages, &sha256_hex(messages.as_bytes()), compared),
    };
    let live: Vec<&Element> = layout.live().collect();
    let live_zone = zone(&live);
    let tail: Vec<&Element> = conversation[compared..].iter().collect();
    let volatile_tail = zone(&tail);
    let texts = Texts {
        tools: stable.tools_text.clone(),
        system: stable.system_text.clone(),
        examples: stable.examples_text.clone().unwrap_or_default(),
        messages,
    };
    Ok(Digested {
        layout,
        stable,
        compared,
        tool_hashes,
        system_hashes,
        example_hashes,
        message_hashes,
        texts,
        parts,
        live_zone,
        volatile_tail,
    })
}

fn element_hashes(wire: Wire, elements: &[Element]) -> Vec<String> {
    elements
        .iter()
        .map(|e| sha256_hex(element_text(wire, e.value).as_bytes()))
        .collect()
}

/// A conversation message as a prompt cache reads it: the one notion of "the same message"
/// for `align`, the proxy's drift and `probe`. It is the message as sent, except for what
/// the provider documents as not part of the prompt, or as the same prompt:
/// - `cache_control` markers are left out: the documented way to cache a growing
///   conversation slides one marker to the newest message on every call, and the provider
///   leaves markers out of the cache key;
/// - a Responses input item's `id` is left out (see [`element_text`]);
/// - a shorthand is read as the form it stands for: a message whose `content` is one text
///   block with nothing else (`[{"type": "text", "text": s}]`; Responses: `input_text` or
///   `output_text`) is the same as `content: s` — Anthropic's Messages API ("a single string
///   … is shorthand for an array of one content block of type text"), Chat Completions'
///   (content "string or array of content parts", rendered alike) and the Responses API's
///   input messages document the two as one — and a Responses `input` that is a string is
///   its documented equivalent, one `user` message with that content. Checked against the
///   providers' API references (Anthropic Messages `content`, OpenAI Chat Completions
///   `messages[].content`, OpenAI Responses `input`), 2026-12; Gemini's REST API has no
///   string shorthand for `parts`.
pub fn comparison_text(wire: Wire, message: &Value) -> String {
    if let Value::String(text) = message {
        // A Responses string `input`: one user message.
        let mut one = serde_json::Map::new();
        one.insert("role".into(), Value::String("user".into()));
        one.insert("content".into(), Value::String(text.clone()));
        return as_sent(&Value::Object(one));
    }
    let mut text = element_text(wire, message);
    let marked = text.contains("\"cache_control\"");
    let short = shorthand(wire, message).is_some();
    if marked || short {
        let mut value = if marked {
            without_cache_control(message)
        } else {
            message.clone()
        };
        if let Some(block) = shorthand(wire, &value)
            && let Value::Object(map) = &mut value
        {
            map.insert("content".into(), Value::String(block));
        }
        text = element_text(wire, &value);
    }
    text
}

/// The text of a message's `content` when it is one text block and nothing else (markers
/// aside): the block form of the plain string.
fn shorthand(wire: Wire, message: &Value) -> Option<String> {
    let [block] = message.get("content")?.as_array()?.as_slice() else {
        return None;
    };
    let block = block.as_object()?;
    let kind = block.get("type")?.as_str()?;
    let text_kind = match wire {
        Wire::Responses => matches!(kind, "input_text" | "output_text"),
        _ => kind == "text",
    };
    let only = block
        .keys()
        .all(|k| matches!(k.as_str(), "type" | "text" | "cache_control"));
    (text_kind && only)
        .then(|| block.get("text")?.as_str().map(str::to_string))
        .flatten()
}

fn without_cache_control(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| key.as_str() != "cache_control")
                .map(|(key, item)| (key.clone(), without_cache_control(item)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_cache_control).collect()),
        other => other.clone(),
    }
}

fn stats(text: &str, sha256: &str, count: usize) -> PartStats {
    PartStats {
        bytes: text.len(),
        tokens_est: crate::tokens::estimate(text),
        sha256: sha256.to_string(),
        count,
    }
}

/// Size of some elements as sent.
fn zone(elements: &[&Element]) -> Zone {
    let mut bytes = 0;
    let mut tokens_est = 0;
    for element in elements {
        let text = as_sent(element.value);
        bytes += text.len();
        tokens_est += crate::tokens::estimate(&text);
    }
    Zone {
        count: elements.len(),
        bytes,
        tokens_est,
        pointers: elements.iter().map(|e| e.pointer.clone()).collect(),
    }
}
