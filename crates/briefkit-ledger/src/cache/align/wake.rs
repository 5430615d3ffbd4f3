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
        let text = if wire == Wire::Responses {
            element_text(wire, message.value)
        } else {
            comparison_text(message.value)
        };
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

/// A message as sent, without `cache_control` markers: the documented way to cache a
/// growing conversation slides one marker to the newest message on every call, and the
/// provider leaves markers out of the cache key.
pub fn comparison_text(message: &Value) -> String {
    let text = as_sent(message);
    if text.contains("\"cache_control\"") {
        as_sent(&without_cache_control(message))
    } else {
        text
    }
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
