//! Which provider wire format a request speaks: the one vocabulary every layer uses for it
//! (composition, the lock, provider calls, the proxy, the ledger), and what goes with each
//! wire by name — its word, its key and base-URL variables, its official base URL, the
//! path its calls go to and the header that carries the key.
//!
//! A leaf: it imports nothing of the crate, so every module can use it without a circle.
//! Adding a wire is adding a variant here (the compiler then lists every `match` that must
//! learn it) and one module per wire where its body, usage and stream live.

mod base_url;

use std::fmt;
use std::str::FromStr;

pub use base_url::BaseUrl;

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
