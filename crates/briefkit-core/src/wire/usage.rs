//! Token usage in one shape, whatever the provider reported.
//!
//! Providers disagree on what "input tokens" means: OpenAI's `prompt_tokens` includes the
//! cached part, Anthropic's `input_tokens` excludes both cache reads and cache writes. The
//! ledger and `brief probe` compare calls across providers, so every answer is normalised
//! here: `input_tokens` is all input, `cached_input_tokens` a subset of it, and
//! `output_tokens` all output, reasoning included. Each wire's module reads its own fields
//! ([`super::openai::usage`], [`super::responses::usage`], [`super::anthropic::usage`],
//! [`super::gemini::usage`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Wire;

#[derive(Serialize, Deserialize, Default, Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// All input tokens of the call, cached and cache-written ones included.
    pub input_tokens: u64,
    /// Input tokens served from the provider's prompt cache: a subset of `input_tokens`.
    /// `None` when the answer carried no cached-token field at all, which is different from
    /// a reported zero (a server that cannot tell us is not a cache miss).
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to the cache by this call (Anthropic
    /// `cache_creation_input_tokens`, OpenAI `cache_write_tokens`), also within
    /// `input_tokens`; `None` when not reported.
    pub cache_write_tokens: Option<u64>,
    /// All output tokens, reasoning (thinking) tokens included.
    pub output_tokens: u64,
    /// Of `cache_write_tokens`, those written for five minutes and for an hour (Anthropic
    /// `usage.cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`),
    /// which are priced differently; `None` when not reported.
    #[serde(default)]
    pub cache_write_5m_tokens: Option<u64>,
    #[serde(default)]
    pub cache_write_1h_tokens: Option<u64>,
    /// Of `output_tokens`, the model's reasoning (OpenAI `reasoning_tokens`, Gemini
    /// `thoughtsTokenCount`); `None` when not reported.
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// Normalises a `usage` object as `wire` reports it; `None` when it has no input count
    /// (a server that sent a placeholder).
    pub fn of(wire: Wire, usage: &Value) -> Option<Usage> {
        match wire {
            Wire::OpenAi => super::openai::usage(usage),
            Wire::Responses => super::responses::usage(usage),
            Wire::Anthropic => super::anthropic::usage(usage),
            Wire::Gemini => super::gemini::usage(usage),
        }
    }

    /// The usage of a whole answer (not streamed) as `wire` sends it: its `usage` object,
    /// Gemini's `usageMetadata` (of the last chunk that has one, for a JSON-array stream).
    pub fn of_answer(wire: Wire, answer: &Value) -> Option<Usage> {
        match wire {
            Wire::OpenAi => super::openai::answer_usage(answer),
            Wire::Responses => super::responses::answer_usage(answer),
            Wire::Anthropic => super::anthropic::answer_usage(answer),
            Wire::Gemini => super::gemini::answer_usage(answer),
        }
    }

    /// The share of input served from cache, when the provider said.
    pub fn cached_share(&self) -> Option<f64> {
        let cached = self.cached_input_tokens?;
        (self.input_tokens > 0).then(|| cached as f64 / self.input_tokens as f64)
    }
}

/// The whole number at `path` in `value`.
pub(crate) fn count(value: &Value, path: &[&str]) -> Option<u64> {
    path.iter()
        .try_fold(value, |value, key| value.get(key))?
        .as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A server's figures are not trusted to fit: Anthropic's three input counts are added
    /// saturating (it panicked in a debug build, and wrapped in a release one).
    #[test]
    fn anthropic_input_counts_that_overflow_saturate() {
        let usage = Usage::of(
            Wire::Anthropic,
            &json!({"input_tokens": u64::MAX, "cache_read_input_tokens": 105,
                    "cache_creation_input_tokens": 7, "output_tokens": 1}),
        )
        .unwrap();
        assert_eq!(usage.input_tokens, u64::MAX);
        assert_eq!(usage.cached_input_tokens, Some(105));
    }

    #[test]
    fn openai_cached_tokens_stay_inside_prompt_tokens() {
        let usage = Usage::of(
            Wire::OpenAi,
            &json!({
                "prompt_tokens": 2006, "completion_tokens": 1, "total_tokens": 2007,
                "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}
            }),
        )
        .unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 2006,
                cached_input_tokens: Some(1920),
                cache_write_tokens: None,
                output_tokens: 1,
                ..Usage::default()
            }
        );
        assert!((usage.cached_share().unwrap() - 1920.0 / 2006.0).abs() < 1e-9);
    }

    #[test]
    fn openai_without_a_cached_field_is_none_not_zero() {
        let usage = Usage::of(
            Wire::OpenAi,
            &json!({"prompt_tokens": 12, "completion_tokens": 3}),
        )
        .unwrap();
        assert_eq!(usage.cached_input_tokens, None);
        assert_eq!(usage.cached_share(), None);
        let zero = Usage::of(
            Wire::OpenAi,
            &json!({"prompt_tokens": 12, "completion_tokens": 3,
            "prompt_tokens_details": {"cached_tokens": 0}}),
        )
        .unwrap();
        assert_eq!(zero.cached_input_tokens, Some(0));
    }

    #[test]
    fn openai_cache_write_tokens_are_kept_apart() {
        let usage = Usage::of(
            Wire::OpenAi,
            &json!({"prompt_tokens": 3000, "completion_tokens": 1,
            "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 2900}}),
        )
        .unwrap();
        assert_eq!(usage.cache_write_tokens, Some(2900));
        assert_eq!(usage.input_tokens, 3000);
    }

    #[test]
    fn deepseek_hit_tokens_count_as_cached() {
        let usage = Usage::of(
            Wire::OpenAi,
            &json!({
                "prompt_tokens": 900, "completion_tokens": 1,
                "prompt_cache_hit_tokens": 640, "prompt_cache_miss_tokens": 260
            }),
        )
        .unwrap();
        assert_eq!(usage.input_tokens, 900);
        assert_eq!(usage.cached_input_tokens, Some(640));
    }

    #[test]
    fn anthropic_cache_reads_and_writes_are_added_to_input() {
        let usage = Usage::of(
            Wire::Anthropic,
            &json!({
                "input_tokens": 21, "cache_read_input_tokens": 1800,
                "cache_creation_input_tokens": 300, "output_tokens": 1
            }),
        )
        .unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 2121,
                cached_input_tokens: Some(1800),
                cache_write_tokens: Some(300),
                output_tokens: 1,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn a_usage_without_input_count_is_not_a_usage() {
        assert_eq!(
            Usage::of(Wire::OpenAi, &json!({"completion_tokens": 3})),
            None
        );
        assert_eq!(Usage::of(Wire::Anthropic, &json!(null)), None);
    }
}
