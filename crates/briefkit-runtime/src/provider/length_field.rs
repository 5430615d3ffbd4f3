//! The field that caps a Chat Completions answer's length.
//!
//! OpenAI deprecated `max_tokens` for chat completions and rejects it on reasoning and
//! GPT-5 models; `max_completion_tokens` is the current field and vLLM and recent llama.cpp
//! accept it. Ollama and older local servers only know `max_tokens` and silently ignore the
//! other, which would make a one-token probe answer unbounded. So the official endpoint
//! gets `max_completion_tokens`, every other server `max_tokens`, and a 400 that names the
//! field makes the call retry once with the other one (`Wire::has_length_field_choice`).

use super::Settings;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenField {
    MaxTokens,
    MaxCompletionTokens,
}

impl TokenField {
    pub fn for_settings(settings: &Settings) -> TokenField {
        if settings.is_official_endpoint() {
            TokenField::MaxCompletionTokens
        } else {
            TokenField::MaxTokens
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TokenField::MaxTokens => "max_tokens",
            TokenField::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    pub fn other(self) -> TokenField {
        match self {
            TokenField::MaxTokens => TokenField::MaxCompletionTokens,
            TokenField::MaxCompletionTokens => TokenField::MaxTokens,
        }
    }

    /// Whether a 400's message is about the length field, so the other one may work.
    pub fn mentioned_in(message: &str) -> bool {
        message.contains("max_tokens") || message.contains("max_completion_tokens")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Wire;

    #[test]
    fn the_official_endpoint_gets_max_completion_tokens() {
        let settings = Settings::new(Wire::OpenAi, "m", "https://api.openai.com/v1");
        assert_eq!(
            TokenField::for_settings(&settings),
            TokenField::MaxCompletionTokens
        );
        let local = Settings::new(Wire::OpenAi, "m", "http://127.0.0.1:8080/v1");
        assert_eq!(TokenField::for_settings(&local), TokenField::MaxTokens);
    }
}
