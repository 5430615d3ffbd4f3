//! Which provider wire format a request speaks: the one vocabulary every layer uses for it
//! (composition, the lock, provider calls, the proxy, the ledger), and what goes with each
//! wire by name — its word, its key and base-URL variables, its official base URL, the
//! path its calls go to and the header that carries the key.
//!
//! Below the enum, what goes on the wire: a prompt in provider-neutral form
//! ([`Prompt`]), each wire's request body and usage fields (one module per wire:
//! [`openai`], [`anthropic`]), the normalised [`Usage`], the canonical JSON and hash ([`canonical`]) and the one stable-prefix
//! identity ([`prefix`]). `brief compose --format openai|anthropic` prints these bodies and
//! the providers send them, so what an operator inspects is byte-for-byte what goes on the
//! wire (plus the per-call fields a provider adds: `stream`, `max_tokens`, …).
//!
//! Deterministic bytes: a body is a `Value` whose keys are inserted in a fixed order (the
//! crate keeps insertion order), and every key of a tool's `input_schema` is sorted by its
//! UTF-8 bytes, recursively, so reordering keys in a `.tool.yaml` file changes nothing on
//! the wire.
//!
//! Low in the crate: it imports nothing of it, so every layer (the brief's lock,
//! composition, provider calls, the proxy, the ledger) can use it without a circle.
//! Adding a wire is adding a variant here (the compiler then lists every `match` that must
//! learn it) and one module per wire for its body and how its prefix is laid out.

pub mod anthropic;
mod base_url;
pub mod canonical;
pub mod openai;
pub mod prefix;
mod prompt;
mod usage;

use std::fmt;
use std::str::FromStr;

pub use base_url::BaseUrl;
pub use prompt::{Message, Prompt, Role, ToolDef};
pub use usage::Usage;

/// A provider API's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Wire {
    /// OpenAI Chat Completions, and every server speaking it (a gateway's compatible
    /// endpoint, vLLM, llama.cpp, Ollama): system (and developer) messages lead
    /// `messages`; tools as `{"type":"function","function":{…}}`.
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages: a top-level `system` (a string or text blocks); tools with
    /// `input_schema`; `cache_control` breakpoints.
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl Wire {
    /// Every wire, in the order help texts and error messages list them.
    pub const ALL: [Wire; 2] = [Wire::OpenAi, Wire::Anthropic];

    /// The wire's word: in `--provider`, `brief.yaml`'s `model.provider`, the lock and
    /// the ledger's `provider`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        }
    }

    /// The environment variable its key is read from.
    pub fn key_var(self) -> &'static str {
        match self {
            Wire::OpenAi => "OPENAI_API_KEY",
            Wire::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The environment variable its base URL is read from (the SDKs' own).
    pub fn base_url_var(self) -> &'static str {
        match self {
            Wire::OpenAi => "OPENAI_BASE_URL",
            Wire::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }

    /// The official endpoint's base. OpenAI's includes `/v1` (the path is appended to it),
    /// Anthropic's does not (`/v1/messages` is appended), as their SDKs expect.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Wire::OpenAi => "https://api.openai.com/v1",
            Wire::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The hosts of the official endpoints, where a call without a key cannot succeed.
    pub fn official_hosts() -> [&'static str; 2] {
        ["api.openai.com", "api.anthropic.com"]
    }

    /// The path a model call takes below the base URL.
    pub fn call_path(self) -> &'static str {
        match self {
            Wire::OpenAi => "/chat/completions",
            Wire::Anthropic => "/v1/messages",
        }
    }

    /// The path a client addresses a model call to on a server that serves the wire at its
    /// root (the proxy): `/v1` then the call path, for both.
    pub fn root_call_path(self) -> &'static str {
        match self {
            Wire::OpenAi => "/v1/chat/completions",
            Wire::Anthropic => "/v1/messages",
        }
    }

    /// The header the key travels in, and whether it is a bearer token.
    pub fn key_header(self) -> (&'static str, bool) {
        match self {
            Wire::OpenAi => ("authorization", true),
            Wire::Anthropic => ("x-api-key", false),
        }
    }
}

/// The request body of `prompt` in `wire`'s format; `cache_key` (OpenAI's
/// `prompt_cache_key`) is used by OpenAI only.
pub fn body(
    prompt: &Prompt,
    wire: Wire,
    model: Option<&str>,
    cache_key: Option<&str>,
) -> serde_json::Value {
    match wire {
        Wire::OpenAi => openai::body(prompt, model, cache_key),
        Wire::Anthropic => anthropic::body(prompt, model),
    }
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Wire {
    type Err = String;

    /// A wire's word in any letter case, spaces around it ignored.
    fn from_str(s: &str) -> Result<Self, String> {
        let word = s.trim().to_ascii_lowercase();
        Wire::ALL
            .into_iter()
            .find(|wire| wire.as_str() == word)
            .ok_or_else(|| {
                let names: Vec<String> = Wire::ALL.iter().map(|w| format!("`{w}`")).collect();
                format!(
                    "unknown provider `{word}` (expected {})",
                    names.join(" or ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompt::fixtures::prompt;

    #[test]
    fn schema_key_order_in_the_source_does_not_reach_the_wire() {
        let mut reordered = prompt();
        reordered.tools[0].input_schema = serde_json::from_str(
            r#"{"required":["a"],"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}"#,
        )
        .unwrap();
        let mut written = prompt();
        written.tools[0].input_schema = serde_json::from_str(
            r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}"#,
        )
        .unwrap();
        for wire in Wire::ALL {
            let a = serde_json::to_string(&body(&reordered, wire, None, None)).unwrap();
            let b = serde_json::to_string(&body(&written, wire, None, None)).unwrap();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn wires_round_trip_through_their_words() {
        for wire in Wire::ALL {
            assert_eq!(wire.to_string().parse::<Wire>(), Ok(wire));
            assert_eq!(serde_json::to_string(&wire).unwrap(), format!("\"{wire}\""));
        }
        assert_eq!(" OpenAI ".parse::<Wire>(), Ok(Wire::OpenAi));
        assert_eq!(
            "gemini".parse::<Wire>().unwrap_err(),
            "unknown provider `gemini` (expected `openai` or `anthropic`)"
        );
    }
}
