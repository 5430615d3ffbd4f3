//! Which wire format a call speaks, and the names (variables, default address) that go with it.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// OpenAI chat completions, or any server speaking that wire format.
    OpenAi,
    Anthropic,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    pub fn key_var(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    pub fn base_url_var(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OPENAI_BASE_URL",
            ProviderKind::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }

    /// The official endpoint's base. OpenAI's includes `/v1` (the path is appended to it),
    /// Anthropic's does not (`/v1/messages` is appended), as their SDKs expect.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(ProviderKind::OpenAi),
            "anthropic" => Ok(ProviderKind::Anthropic),
            other => Err(format!(
                "unknown provider `{other}` (expected `openai` or `anthropic`)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_kinds_round_trip() {
        for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
            assert_eq!(kind.to_string().parse::<ProviderKind>(), Ok(kind));
        }
        assert!("gemini".parse::<ProviderKind>().is_err());
    }
}
