//! The one stable-prefix identity: what a provider caches, taken from a request body exactly
//! as it is sent, and its one hash.
//!
//! A prompt cache serves a call only when the start of the prompt is byte-identical to an
//! earlier one, so the toolkit names that start once, here, and every command (`compose
//! --stats`, `brief.lock`, the ledger, `probe`, `align`, sessions, the proxy) takes its hash
//! from this module. Nothing else computes a prefix hash.
//!
//! # Layout of a request body
//! [`layout`] splits a request body into the parts in the order a prompt cache sees them.
//! Responses and Gemini bodies (told by their `input` and `contents`) are split by their
//! own modules, [`super::responses`] and [`super::gemini`], whose docs say how; an OpenAI
//! chat-completions or Anthropic messages body is split here:
//! - **tools**: `/tools`, every element.
//! - **system**: Anthropic: `/system` (the string, or one element per block). OpenAI: the
//!   leading `system`/`developer` messages.
//! - **examples**: worked examples (few-shot turns) that lead the conversation. OpenAI: the
//!   messages named `example_user` / `example_assistant` (OpenAI's few-shot convention)
//!   right after the first system message (or first, without one). Anthropic: the
//!   messages up to the first one with a breakpoint, when that one is an `assistant`
//!   message of text blocks with the breakpoint on its last block and every message before
//!   it has plain string content, alternating `user` and `assistant` from `user` (how
//!   `compose` writes them; a session's or a client's turns carry content blocks, though a
//!   client could write this shape too), and only when nothing live lies before them.
//! - **conversation**: every message after the system part and the examples.
//!
//! The **stable prefix** is the tools, the static system and the examples; the **live
//! zone** is the volatile part just after it, which may change on every call without being
//! drift:
//! - Anthropic: every tool or system block after the last `cache_control` breakpoint in
//!   `tools` + `system`. Without a breakpoint there, all of tools and system are stable (a
//!   breakpoint later in the conversation caches all of them). With examples, a `user`
//!   message of plain string content right after them (the brief's volatile part).
//! - OpenAI: the system/developer messages after the first one, before the first message of
//!   the conversation (with examples: right after the examples). The first system message,
//!   the tools and the examples are stable.
//!
//! `brief compose` lays its bodies out to match: Anthropic `system` is the static block
//! (with the breakpoint) then the volatile block; OpenAI `messages` is the static system
//! message, the examples, then the volatile one as a second system message. With examples,
//! Anthropic's volatile part follows them as a user message instead, since the provider
//! caches tools, then system, then messages: a volatile system block would spoil the
//! examples' cache on every call.
//!
//! # The bytes and the hash
//! Each stable element is serialised as sent: compact JSON, keys in the order they have in
//! the body (serde_json keeps insertion order here), numbers verbatim. A client whose
//! serialiser reorders keys therefore changes the hash, as it changes the provider's cache
//! key. The stable prefix text is the JSON document
//! `{"tools":[T0,T1,…],"system":S}` where `Ti` are the stable tools and `S` is the system
//! string, or `[B0,…]` for the stable system blocks or messages (an Anthropic `system`
//! string is its documented equivalent, one text block: see [`StablePrefix::of_layout`]); with examples it is
//! `{"tools":[…],"system":S,"examples":[M0,…]}` (the key is absent without examples, so a
//! body without them hashes as it always did). Its hash is the sha256 of that text
//! (lower-case hex) and its size the text's length in bytes.
//!
//! # Calling it
//! - A body as parsed JSON: [`StablePrefix::of_body`]; as bytes: [`StablePrefix::of_bytes`].
//! - The split itself (for per-element work, as `align` does): [`layout`], then
//!   [`StablePrefix::of_layout`].

use std::fmt;

use serde_json::Value;

use super::Wire;
use super::anthropic::leading_examples;
use super::canonical::sha256_hex;
use super::openai::is_example;

/// Why a JSON value is not a request body this module can split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotARequest(pub String);

impl fmt::Display for NotARequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One element of a part, with its JSON pointer in the body.
#[derive(Clone, Debug)]
pub struct Element<'a> {
    pub pointer: String,
    pub value: &'a Value,
}

/// A request body split into the parts a prompt cache sees, borrowed from the body.
#[derive(Clone, Debug)]
pub struct Layout<'a> {
    pub wire: Wire,
    /// Every tool, in order.
    pub tools: Vec<Element<'a>>,
    /// How many of `tools` belong to the stable prefix (the rest are live).
    pub stable_tools: usize,
    /// Every system element (Anthropic: the string or the blocks; OpenAI: the leading
    /// system/developer messages).
    pub system: Vec<Element<'a>>,
    /// How many of `system` belong to the stable prefix (the rest are live).
    pub stable_system: usize,
    /// Whether the system part is one plain string (Anthropic `system`, Responses
    /// `instructions`): then its first element is that string.
    pub system_is_string: bool,
    /// Worked examples: the leading messages that are few-shot turns, part of the stable
    /// prefix (see the module doc for how they are recognised).
    pub examples: Vec<Element<'a>>,
    /// The conversation: every message after the system part and the examples.
    pub conversation: Vec<Element<'a>>,
}

impl<'a> Layout<'a> {
    /// The live-zone elements: tools and system elements after the stable prefix.
    pub fn live(&self) -> impl Iterator<Item = &Element<'a>> {
        self.tools[self.stable_tools..]
            .iter()
            .chain(&self.system[self.stable_system..])
    }
}

/// Splits a request body into tools, system (stable and live) and conversation.
pub fn layout(body: &Value) -> Result<Layout<'_>, NotARequest> {
    let bad = |what: &str| Err(NotARequest(what.to_string()));
    let Value::Object(map) = body else {
        return bad("not a JSON object");
    };
    if super::gemini::is_body(map) {
        return super::gemini::layout(map);
    }
    let Some(Value::Array(messages)) = map.get("messages") else {
        if !map.contains_key("messages")
            && (map.contains_key("input") || map.contains_key("instructions"))
        {
            return super::responses::layout(map);
        }
        return bad("no `messages` array (nor a Responses `input` or a Gemini `contents` array)");
    };
    if let Some(i) = messages.iter().position(|m| !m.is_object()) {
        return Err(NotARequest(format!("message {i} is not an object")));
    }
    let tools = match map.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tools)) => elements("/tools", 0, tools),
        Some(_) => return bad("`tools` is not an array"),
    };
    let system_value = map.get("system").filter(|s| !s.is_null());
    let (wire, system, system_is_string, lead) = match system_value {
        Some(system @ Value::String(_)) => (
            Wire::Anthropic,
            vec![Element {
                pointer: "/system".into(),
                value: system,
            }],
            true,
            0,
        ),
        Some(Value::Array(blocks)) => (Wire::Anthropic, elements("/system", 0, blocks), false, 0),
        Some(_) => return bad("`system` is neither a string nor blocks"),
        None => {
            let lead = messages.iter().take_while(|m| is_system(m)).count();
            let anthropic_tools = tools.iter().any(|t| t.value.get("input_schema").is_some());
            // Without system and tools, Anthropic worked examples (a breakpoint in
            // `messages`, which OpenAI has not) still tell the wire.
            let anthropic = anthropic_tools || leading_examples(messages) > 0;
            let wire = if lead == 0 && anthropic {
                Wire::Anthropic
            } else {
                Wire::OpenAi
            };
            (
                wire,
                elements("/messages", 0, &messages[..lead]),
                false,
                lead,
            )
        }
    };
    let (stable_tools, stable_system) = match wire {
        // (Only these two wires have `messages`.)
        Wire::OpenAi | Wire::Responses | Wire::Gemini => (tools.len(), lead.min(1)),
        Wire::Anthropic => {
            let marked = |e: &Element| e.value.get("cache_control").is_some_and(|c| !c.is_null());
            match system.iter().rposition(marked) {
                Some(i) => (tools.len(), i + 1),
                None => match tools.iter().rposition(marked) {
                    Some(i) => (i + 1, 0),
                    None => (tools.len(), system.len()),
                },
            }
        }
    };
    let mut system = system;
    let (examples_end, after) = match wire {
        // Examples follow the stable system message directly; the system messages right
        // after them are the live zone.
        Wire::OpenAi if lead <= 1 => {
            let end = lead
                + messages[lead..]
                    .iter()
                    .take_while(|m| is_example(m))
                    .count();
            let live = messages[end..].iter().take_while(|m| is_system(m)).count();
            if end > lead {
                system.extend(elements("/messages", end, &messages[end..end + live]));
                (end, end + live)
            } else {
                (lead, lead)
            }
        }
        // Examples are stable only when nothing live lies before them.
        Wire::Anthropic if stable_tools == tools.len() && stable_system == system.len() => {
            let end = lead + leading_examples(&messages[lead..]);
            // The brief's volatile part, sent after the examples as a user message of
            // plain text (a session's or a client's turns carry content blocks).
            let live = usize::from(
                end > lead
                    && messages.get(end).is_some_and(|m| {
                        m.get("role").and_then(Value::as_str) == Some("user")
                            && m["content"].is_string()
                    }),
            );
            system.extend(elements("/messages", end, &messages[end..end + live]));
            (end, end + live)
        }
        _ => (lead, lead),
    };
    Ok(Layout {
        wire,
        tools,
        stable_tools,
        system,
        stable_system,
        system_is_string,
        examples: elements("/messages", lead, &messages[lead..examples_end]),
        conversation: elements("/messages", after, &messages[after..]),
    })
}

fn is_system(message: &Value) -> bool {
    matches!(
        message.get("role").and_then(Value::as_str),
        Some("system" | "developer")
    )
}

/// The elements of `values`, which sit at `base/first`, `base/first+1`, … in the body.
pub(crate) fn elements<'a>(base: &str, first: usize, values: &'a [Value]) -> Vec<Element<'a>> {
    values
        .iter()
        .enumerate()
        .map(|(i, value)| Element {
            pointer: format!("{base}/{}", first + i),
            value,
        })
        .collect()
}

/// The live zone: what follows the stable prefix and may change on every call.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveZone {
    /// JSON pointers of the live tools and system elements.
    pub pointers: Vec<String>,
    /// Their size as sent (compact JSON).
    pub bytes: usize,
}

/// The stable prefix of one request body, its hash and the live zone after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StablePrefix {
    pub wire: Wire,
    /// The stable tools as sent: `[T0,T1,…]` (`[]` when there are none).
    pub tools_text: String,
    /// The stable system as sent: the string, or `[B0,…]`.
    pub system_text: String,
    /// The worked examples as sent, `[M0,…]`; `None` when the body has none (then the
    /// prefix text has no `examples` key, as before examples existed).
    pub examples_text: Option<String>,
    /// sha256 of [`StablePrefix::text`].
    pub hash: String,
    pub tools_hash: String,
    pub system_hash: String,
    pub examples_hash: Option<String>,
    pub live: LiveZone,
}

impl StablePrefix {
    /// Of a parsed body.
    pub fn of_body(body: &Value) -> Result<StablePrefix, NotARequest> {
        Ok(StablePrefix::of_layout(&layout(body)?))
    }

    /// Of a body as bytes (parsed keeping key order).
    pub fn of_bytes(bytes: &[u8]) -> Result<StablePrefix, NotARequest> {
        let body: Value = serde_json::from_slice(bytes)
            .map_err(|e| NotARequest(format!("not valid JSON: {e}")))?;
        StablePrefix::of_body(&body)
    }

    pub fn of_layout(layout: &Layout) -> StablePrefix {
        let wire = layout.wire;
        let tools_text = array_text(wire, &layout.tools[..layout.stable_tools]);
        let system_text = if layout.system_is_string && layout.stable_system == 1 {
            system_string_text(wire, layout.system[0].value)
        } else {
            array_text(wire, &layout.system[..layout.stable_system])
        };
        let examples_text =
            (!layout.examples.is_empty()).then(|| array_text(wire, &layout.examples));
        let text = framed(&tools_text, &system_text, examples_text.as_deref());
        let live = LiveZone {
            pointers: layout.live().map(|e| e.pointer.clone()).collect(),
            bytes: layout.live().map(|e| as_sent(e.value).len()).sum(),
        };
        StablePrefix {
            wire: layout.wire,
            hash: sha256_hex(text.as_bytes()),
            tools_hash: sha256_hex(tools_text.as_bytes()),
            system_hash: sha256_hex(system_text.as_bytes()),
            examples_hash: examples_text.as_deref().map(|t| sha256_hex(t.as_bytes())),
            tools_text,
            system_text,
            examples_text,
            live,
        }
    }

    /// The stable prefix text whose sha256 is [`StablePrefix::hash`].
    pub fn text(&self) -> String {
        framed(
            &self.tools_text,
            &self.system_text,
            self.examples_text.as_deref(),
        )
    }

    /// Size of [`StablePrefix::text`] in bytes.
    pub fn bytes(&self) -> usize {
        let examples = self
            .examples_text
            .as_ref()
            .map_or(0, |t| ",\"examples\":".len() + t.len());
        "{\"tools\":,\"system\":}".len() + self.tools_text.len() + self.system_text.len() + examples
    }
}

/// A value as sent: compact JSON, keys in body order.
pub fn as_sent(value: &Value) -> String {
    // Serialising a `Value` cannot fail: its keys are strings.
    serde_json::to_string(value).unwrap_or_default()
}

/// An element's text as the cache sees it: as sent, except that a Responses input item's
/// `id` is left out. Codex CLI names every item it sends with a fresh id per conversation
/// (`msg_<uuid>`); the id names the item for the client's bookkeeping and is not part of
/// the text the model reads, so two conversations with the same instructions are the same
/// prefix.
pub fn element_text(wire: Wire, value: &Value) -> String {
    if wire == Wire::Responses
        && let Value::Object(map) = value
        && map.contains_key("id")
        && map.contains_key("role")
    {
        let kept: serde_json::Map<String, Value> = map
            .iter()
            .filter(|(key, _)| key.as_str() != "id")
            .map(|(key, item)| (key.clone(), item.clone()))
            .collect();
        return as_sent(&Value::Object(kept));
    }
    as_sent(value)
}

/// A system given as one string, as the cache sees it. Anthropic documents a `system`
/// string as shorthand for an array of one text block (Messages API reference, `system`:
/// "string or array of text blocks", read 2026-12), so a string is taken as that block —
/// `[{"type":"text","text":S}]` — and a client that sends the same text either way has one
/// prefix, never a drift. `brief compose` always sends blocks, so its hashes are as before.
/// Other wires keep the string as sent: Responses `instructions` is a string only, and
/// Gemini's REST API has no such shorthand.
fn system_string_text(wire: Wire, value: &Value) -> String {
    match (wire, value) {
        (Wire::Anthropic, Value::String(text)) => {
            let mut block = serde_json::Map::new();
            block.insert("type".into(), Value::String("text".into()));
            block.insert("text".into(), Value::String(text.clone()));
            format!("[{}]", as_sent(&Value::Object(block)))
        }
        _ => as_sent(value),
    }
}

fn array_text(wire: Wire, elements: &[Element]) -> String {
    let mut out = String::from("[");
    for (i, element) in elements.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&element_text(wire, element.value));
    }
    out.push(']');
    out
}

fn framed(tools_text: &str, system_text: &str, examples_text: Option<&str>) -> String {
    match examples_text {
        None => format!("{{\"tools\":{tools_text},\"system\":{system_text}}}"),
        Some(examples) => {
            format!("{{\"tools\":{tools_text},\"system\":{system_text},\"examples\":{examples}}}")
        }
    }
}

/// The stable prefix's identity in one wire format, as `wire::prefix` defines it: hashes
/// (full sha256 hex) and sizes of what is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixHashes {
    /// The wire format the bytes were taken in.
    pub wire: Wire,
    /// Over the stable tools as sent.
    pub tools: String,
    /// Over the stable system part as sent (the static system block or message).
    pub system: String,
    /// The stable prefix hash: over `{"tools":…,"system":…}` as sent.
    pub prefix: String,
    pub tools_bytes: usize,
    pub system_bytes: usize,
    /// Over the worked examples as sent, and their size; `None` without examples.
    pub examples: Option<(String, usize)>,
    bytes: usize,
}

impl PrefixHashes {
    pub fn of(stable: &StablePrefix) -> PrefixHashes {
        PrefixHashes {
            wire: stable.wire,
            tools: stable.tools_hash.clone(),
            system: stable.system_hash.clone(),
            prefix: stable.hash.clone(),
            tools_bytes: stable.tools_text.len(),
            system_bytes: stable.system_text.len(),
            examples: stable
                .examples_hash
                .clone()
                .zip(stable.examples_text.as_ref().map(String::len)),
            bytes: stable.bytes(),
        }
    }

    /// Size of the stable prefix text in bytes.
    pub fn prefix_bytes(&self) -> usize {
        self.bytes
    }
}

/// OpenAI's `prompt_cache_key` for a prefix: the same for every request that shares it.
pub fn cache_key(prefix_hash: &str) -> String {
    format!("brief-{}", &prefix_hash[..prefix_hash.len().min(32)])
}

#[cfg(test)]
#[path = "prefix_tests.rs"]
mod tests;
