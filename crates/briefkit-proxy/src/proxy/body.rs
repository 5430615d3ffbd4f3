//! The members of a request body the digest reads — `model`, `tools`, the system part
//! (`system`, `instructions`, `systemInstruction`), the conversation (`messages`, `input`,
//! `contents`) and the client's own session id (`prompt_cache_key`, `metadata`) —
//! borrowed from the body's bytes in one pass, without a tree.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The top-level members the digest reads, borrowed from the body; the last of a key given
/// twice wins, as in a parsed JSON tree.
#[derive(Default)]
pub struct Top<'a> {
    pub model: Option<&'a RawValue>,
    pub tools: Option<&'a RawValue>,
    pub system: Option<&'a RawValue>,
    pub messages: Option<Messages<'a>>,
    /// Responses: `instructions` and `input` (items, or one string).
    pub instructions: Option<&'a RawValue>,
    pub input: Option<&'a RawValue>,
    /// Gemini: `systemInstruction` (either spelling) and `contents`.
    pub system_instruction: Option<(&'static str, &'a RawValue)>,
    pub contents: Option<&'a RawValue>,
    /// OpenAI's `prompt_cache_key` and Anthropic's `metadata`, which may name the client's
    /// session.
    pub prompt_cache_key: Option<&'a RawValue>,
    pub metadata: Option<&'a RawValue>,
}

/// `messages` read in the same pass as the rest: each message's bytes, or "not an array".
pub enum Messages<'a> {
    Array(Vec<&'a RawValue>),
    NotAnArray,
}

impl<'de> Deserialize<'de> for Messages<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Messages<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Messages<'de>, A::Error> {
        let mut messages = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(message) = seq.next_element::<&'de RawValue>()? {
            messages.push(message);
        }
        Ok(Messages::Array(messages))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Messages<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Messages::NotAnArray)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }

    fn visit_str<E>(self, _: &str) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }

    fn visit_unit<E>(self) -> Result<Messages<'de>, E> {
        Ok(Messages::NotAnArray)
    }
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut top = Top::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "model" => &mut top.model,
                "tools" => &mut top.tools,
                "system" => &mut top.system,
                "instructions" => &mut top.instructions,
                "input" => &mut top.input,
                "contents" => &mut top.contents,
                "prompt_cache_key" => &mut top.prompt_cache_key,
                "metadata" => &mut top.metadata,
                name @ ("systemInstruction" | "system_instruction") => {
                    let name = if name == "systemInstruction" {
                        "systemInstruction"
                    } else {
                        "system_instruction"
                    };
                    top.system_instruction = Some((name, map.next_value()?));
                    continue;
                }
                "messages" => {
                    top.messages = Some(map.next_value()?);
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(top)
    }
}
