//! A composed brief as it leaves briefkit: the system prompt as text, or a provider's
//! request body as the bytes sent, with the stable prefix's hashes taken in that body's
//! wire format. `brief compose` prints what this returns and the MCP `compose` tool
//! returns it, so the two cannot drift apart.

use serde::Serialize;

use crate::brief::Brief;
use crate::prompt::compose::{Composed, PrefixHashes};
use crate::wire::Wire;
use crate::wire::prefix::{as_sent, cache_key};

/// What a composed brief is rendered as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The system prompt as a person reads it.
    Text,
    /// An OpenAI chat completions request body.
    Openai,
    /// An OpenAI Responses request body.
    Responses,
    /// An Anthropic messages request body.
    Anthropic,
    /// A Gemini generateContent request body.
    Gemini,
}

impl Format {
    /// The name callers pass (`text`, or a wire's word).
    pub fn as_str(self) -> &'static str {
        self.wire().map_or("text", Wire::as_str)
    }

    /// The format named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.as_str() == name)
    }

    /// Every format, in the order they are offered.
    pub const ALL: [Format; 5] = [
        Format::Text,
        Format::Openai,
        Format::Responses,
        Format::Anthropic,
        Format::Gemini,
    ];

    /// The wire a body is in; `None` for text.
    pub fn wire(self) -> Option<Wire> {
        match self {
            Format::Text => None,
            Format::Openai => Some(Wire::OpenAi),
            Format::Responses => Some(Wire::Responses),
            Format::Anthropic => Some(Wire::Anthropic),
            Format::Gemini => Some(Wire::Gemini),
        }
    }
}

/// A wire's request body.
impl From<Wire> for Format {
    fn from(wire: Wire) -> Format {
        match wire {
            Wire::OpenAi => Format::Openai,
            Wire::Responses => Format::Responses,
            Wire::Anthropic => Format::Anthropic,
            Wire::Gemini => Format::Gemini,
        }
    }
}

/// How to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    pub format: Format,
    /// Add `prompt_cache_key` (derived from the prefix hash) to an OpenAI (Chat Completions
    /// or Responses) body; ignored for the other formats.
    pub cache_key: bool,
    /// Compute the prefix's hashes. Serialising and hashing the static part costs a tenth
    /// of composing a large brief, so a caller that prints only the text leaves this off.
    pub hashes: bool,
}

/// A rendered brief.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The text, or the request body's JSON exactly as the provider layer sends it.
    pub output: String,
    /// The stable prefix's hashes: in the body's wire for a body, in the brief's wire
    /// (`brief_wire`) for text. `None` unless asked for.
    pub hashes: Option<PrefixHashes>,
}

/// Renders `composed` (a composition of `brief`, whose manifest names the model put in a
/// body of its provider's wire).
pub fn render(brief: &Brief, composed: &Composed, options: RenderOptions) -> Rendered {
    let Some(wire) = options.format.wire() else {
        return Rendered {
            output: composed.text(),
            hashes: options.hashes.then(|| composed.hashes().clone()),
        };
    };
    let model = brief
        .manifest
        .model
        .as_ref()
        .filter(|m| m.provider == wire)
        .map(|m| m.name.as_str());
    let with_key = options.cache_key && matches!(wire, Wire::OpenAi | Wire::Responses);
    let stable = (with_key || options.hashes).then(|| composed.stable_prefix(wire));
    let key = stable
        .as_ref()
        .filter(|_| with_key)
        .map(|stable| cache_key(&stable.hash));
    let body = composed.body(wire, model, key.as_deref());
    Rendered {
        output: as_sent(&body),
        hashes: stable
            .as_ref()
            .filter(|_| options.hashes)
            .map(PrefixHashes::of),
    }
}
