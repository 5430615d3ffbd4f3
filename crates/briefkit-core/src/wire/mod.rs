//! Which provider wire format a request speaks: the one vocabulary every layer uses for it
//! (composition, the lock, provider calls, the proxy, the ledger), and what goes with each
//! wire by name — its word, its key and base-URL variables, its official base URL, the
//! path its calls go to and the header that carries the key.
//!
//! Below the enum, what goes on the wire: a prompt in provider-neutral form
//! ([`Prompt`]), and one module per wire with its request body, how its prefix is laid
//! out, its usage object and its streamed events ([`openai`], [`responses`],
//! [`anthropic`], [`gemini`]); the normalised [`Usage`], the one reader shape of a stream
//! ([`stream`]), the canonical JSON and hash ([`canonical`]) and the one stable-prefix
//! identity ([`prefix`]). `brief compose --format openai|responses|anthropic|gemini` prints
//! these bodies and the providers send them, so what an operator inspects is byte-for-byte
//! what goes on the wire (plus the per-call fields a provider adds: `stream`, `max_tokens`,
//! …).
//!
//! Deterministic bytes: a body is a `Value` whose keys are inserted in a fixed order (the
//! crate keeps insertion order), and every key of a tool's input schema is sorted by its
//! UTF-8 bytes, recursively, so reordering keys in a `.tool.yaml` file changes nothing on
//! the wire.
//!
//! Low in the crate: it imports nothing of it but the one sanitiser of text
//! (`text::sanitize`), so every layer (the brief's lock, composition, provider calls, the
//! proxy, the ledger) can use it without a circle. Adding a wire is adding a variant here
//! (the compiler then lists every `match` that must learn it) and one module for its body,
//! layout, usage and stream.

pub mod anthropic;
mod base_url;
pub mod canonical;
pub mod gemini;
pub mod openai;
pub mod prefix;
mod prompt;
pub mod responses;
pub mod stream;
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
    /// OpenAI Responses (`/v1/responses`): `instructions`, `input` items, flat function
    /// tools; what Codex CLI and the current OpenAI SDKs speak.
    #[serde(rename = "responses")]
    Responses,
    /// Anthropic Messages: a top-level `system` (a string or text blocks); tools with
    /// `input_schema`; `cache_control` breakpoints.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Google Gemini `generateContent`: `systemInstruction`, `contents` of `parts`,
    /// `functionDeclarations`; the model in the path.
    #[serde(rename = "gemini")]
    Gemini,
}

impl Wire {
    /// Every wire, in the order help texts and error messages list them.
    pub const ALL: [Wire; 4] = [Wire::OpenAi, Wire::Responses, Wire::Anthropic, Wire::Gemini];

    /// The wire's word: in `--provider`, `--format`, `brief.yaml`'s `model.provider`, the
    /// lock and the ledger's `provider`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAi => "openai",
            Wire::Responses => "responses",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
        }
    }

    /// Who serves the wire's official endpoint: `openai`, `anthropic` or `gemini` (the
    /// vendor word of `cache::facts`). Both OpenAI wires are OpenAI's.
    pub fn vendor(self) -> &'static str {
        match self {
            Wire::OpenAi | Wire::Responses => "openai",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
        }
    }

    /// The environment variable its key is read from.
    pub fn key_var(self) -> &'static str {
        match self {
            Wire::OpenAi | Wire::Responses => "OPENAI_API_KEY",
            Wire::Anthropic => "ANTHROPIC_API_KEY",
            Wire::Gemini => "GEMINI_API_KEY",
        }
    }

    /// The environment variable its base URL is read from (the SDKs' and CLIs' own).
    pub fn base_url_var(self) -> &'static str {
        match self {
            Wire::OpenAi | Wire::Responses => "OPENAI_BASE_URL",
            Wire::Anthropic => "ANTHROPIC_BASE_URL",
            Wire::Gemini => "GOOGLE_GEMINI_BASE_URL",
        }
    }

    /// The official endpoint's base. OpenAI's includes `/v1` (the path is appended to it),
    /// Anthropic's and Gemini's do not (`/v1/messages`, `/v1beta/models/…` are appended),
    /// as their SDKs expect.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Wire::OpenAi | Wire::Responses => "https://api.openai.com/v1",
            Wire::Anthropic => "https://api.anthropic.com",
            Wire::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The hosts of the official endpoints, where a call without a key cannot succeed.
    pub fn official_hosts() -> [&'static str; 3] {
        [
            "api.openai.com",
            "api.anthropic.com",
            "generativelanguage.googleapis.com",
        ]
    }

    /// The path a streamed model call to `model` takes below the base URL.
    pub fn call_path(self, model: &str) -> String {
        match self {
            Wire::OpenAi => "/chat/completions".into(),
            Wire::Responses => "/responses".into(),
            Wire::Anthropic => "/v1/messages".into(),
            Wire::Gemini => format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
        }
    }

    /// The path a client addresses a model call to on a server that serves the wire at its
    /// root (the proxy).
    pub fn root_call_path(self) -> &'static str {
        match self {
            Wire::OpenAi => "/v1/chat/completions",
            Wire::Responses => "/v1/responses",
            Wire::Anthropic => "/v1/messages",
            Wire::Gemini => "/v1beta/models/{model}:generateContent",
        }
    }

    /// The header the key travels in, and whether it is a bearer token.
    pub fn key_header(self) -> (&'static str, bool) {
        match self {
            Wire::OpenAi | Wire::Responses => ("authorization", true),
            Wire::Anthropic => ("x-api-key", false),
            Wire::Gemini => ("x-goog-api-key", false),
        }
    }

    /// The wire a request body is written in, read from its shape: `contents` is Gemini's,
    /// `input` without `messages` the Responses API's, `messages` Chat Completions' or
    /// Anthropic's (told apart by `wire::prefix::layout`). `None` when it is none of them.
    pub fn of_body(body: &serde_json::Value) -> Option<Wire> {
        let map = body.as_object()?;
        if gemini::is_body(map) {
            Some(Wire::Gemini)
        } else if map.contains_key("messages") {
            prefix::layout(body).ok().map(|l| l.wire)
        } else if map.contains_key("input") || map.contains_key("instructions") {
            Some(Wire::Responses)
        } else {
            None
        }
    }
}

/// What a model call sets on a body besides the prompt: the model, the answer's length cap
/// (in `length_field` where the wire has a choice), the temperature, the cache key; every
/// call streams.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallFields<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    pub temperature: Option<f64>,
    pub cache_key: Option<&'a str>,
    /// Chat Completions only: `max_tokens` or `max_completion_tokens`.
    pub length_field: &'a str,
}

impl Wire {
    /// `body` with the per-call fields set, as `wire` names them.
    pub fn per_call(self, body: serde_json::Value, fields: &CallFields) -> serde_json::Value {
        match self {
            Wire::OpenAi => openai::per_call(body, fields),
            Wire::Responses => responses::per_call(body, fields),
            Wire::Anthropic => anthropic::per_call(body, fields),
            Wire::Gemini => gemini::per_call(body, fields),
        }
    }

    /// Whether `finish_reason` is the model ending on its own (not cut by a length cap or
    /// a filter). Tool-call stops are judged apart.
    pub fn natural_stop(self, finish_reason: &str) -> bool {
        match self {
            Wire::OpenAi => finish_reason == "stop",
            Wire::Responses => finish_reason == "completed",
            Wire::Anthropic => matches!(finish_reason, "end_turn" | "stop_sequence"),
            Wire::Gemini => finish_reason == "STOP",
        }
    }

    /// Headers every request of this wire carries besides the key's (an API version).
    pub fn headers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Wire::Anthropic => &[("anthropic-version", anthropic::VERSION)],
            Wire::OpenAi | Wire::Responses | Wire::Gemini => &[],
        }
    }

    /// Whether servers disagree on the name of the length field (OpenAI-compatible chat
    /// servers: `max_tokens` or `max_completion_tokens`), so a 400 naming it is worth one
    /// retry with the other.
    pub fn has_length_field_choice(self) -> bool {
        self == Wire::OpenAi
    }
}

/// The request body of `prompt` in `wire`'s format; `cache_key` (OpenAI's
/// `prompt_cache_key`) is used by the OpenAI wires only, `model` by all but Gemini (whose
/// model is in the path).
pub fn body(
    prompt: &Prompt,
    wire: Wire,
    model: Option<&str>,
    cache_key: Option<&str>,
) -> serde_json::Value {
    match wire {
        Wire::OpenAi => openai::body(prompt, model, cache_key),
        Wire::Responses => responses::body(prompt, model, cache_key),
        Wire::Anthropic => anthropic::body(prompt, model),
        Wire::Gemini => gemini::body(prompt),
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
                let (last, rest) = names.split_last().expect("four wires");
                format!(
                    "unknown provider `{word}` (expected {} or {last})",
                    rest.join(", ")
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
            "bedrock".parse::<Wire>().unwrap_err(),
            "unknown provider `bedrock` (expected `openai`, `responses`, `anthropic` or `gemini`)"
        );
    }
}
