//! The verdict of `brief probe`: did the provider serve the repeated prefix from its cache,
//! and if not, the likeliest reason, with the figures that show it.
//!
//! Kept apart from the command so the reasoning can be tested on usage figures alone, the
//! way each provider reports them, without a server.

use crate::cache::facts::Facts;

pub mod run;

/// What one call's answer said about its input, normalised (see `crate::cache::ledger::Entry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Observed {
    /// All input tokens; cached and cache-written ones included.
    pub input_tokens: u64,
    /// `None`: the answer had no cached-token field.
    pub cached_input_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
}

/// Why the repeat was not served from cache.
#[derive(Debug, Clone, PartialEq)]
pub enum Miss {
    /// The cacheable part is shorter than the provider caches at all.
    UnderMinimum {
        tokens: u64,
        /// How `tokens` was measured, for the message.
        measured: &'static str,
        minimum: u64,
        label: &'static str,
    },
    /// The answers carry no cached-token field (or no usage at all): this server cannot
    /// show a hit.
    NoCachedField { no_usage: bool },
    /// The provider could have cached it (first call wrote it, or reported the field) and
    /// did not serve it to the repeat.
    NotServedAgain {
        written: Option<u64>,
        minimum_known: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A repeat was served from cache: its cached tokens and share of its input.
    Cached {
        call: usize,
        tokens: u64,
        share: f64,
    },
    NotCached(Miss),
}

impl Verdict {
    pub fn cached(&self) -> bool {
        matches!(self, Verdict::Cached { .. })
    }

    /// One sentence for the report.
    pub fn sentence(&self) -> String {
        match self {
            Verdict::Cached { call, tokens, share } => format!(
                "served from cache: call {call} read {tokens} cached input tokens ({:.1}% of its input)",
                share * 100.0
            ),
            Verdict::NotCached(Miss::UnderMinimum { tokens, measured, minimum, label }) => format!(
                "not served from cache: the prefix is {tokens} tokens ({measured}), under the {minimum}-token minimum of {label}; the provider skips caching it without an error"
            ),
            Verdict::NotCached(Miss::NoCachedField { no_usage: true }) => {
                "not known: the provider's answers carry no usage at all, so a cache hit cannot be seen".to_string()
            }
            Verdict::NotCached(Miss::NoCachedField { no_usage: false }) => {
                "not known: the provider's answer has no cached-token field, so a cache hit cannot be seen".to_string()
            }
            Verdict::NotCached(Miss::NotServedAgain { written, minimum_known }) => {
                let mut text = match written {
                    Some(w) if *w > 0 => format!("not served from cache: the first call wrote {w} tokens to the cache, and no repeat read them"),
                    _ => "not served from cache: the prefix was sent again, byte for byte, and no repeat was served from cache".to_string(),
                };
                if !minimum_known {
                    text.push_str(" (this model's minimum cacheable length is not known; the prefix may be under it)");
                }
                text
            }
        }
    }
}

/// Decides the verdict from each call's usage (`None`: the answer reported no usage), in
/// order, the first call being the one that may write the cache.
///
/// `prefix_tokens` is the brief's stable prefix counted locally. For a provider that caches
/// only up to a marker (Anthropic) that is what must reach the minimum; for the others any
/// prompt prefix is cached, so the smallest input the provider reported is compared.
pub fn verdict(
    calls: &[Option<Observed>],
    facts: &Facts,
    prefix_tokens: u64,
    tokenizer: &str,
) -> Verdict {
    let repeats = calls.get(1..).unwrap_or_default();
    let best = repeats
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.and_then(|o| Some((i + 2, o.cached_input_tokens?, o.input_tokens))))
        // The most cached tokens; on a tie the earliest repeat.
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)));
    if let Some((call, tokens, input)) = best.filter(|&(_, cached, _)| cached > 0) {
        let share = if input == 0 {
            0.0
        } else {
            tokens as f64 / input as f64
        };
        return Verdict::Cached {
            call,
            tokens,
            share,
        };
    }
    if let Some(minimum) = facts.min_cacheable_tokens {
        let reported = calls.iter().flatten().map(|o| o.input_tokens).min();
        let (tokens, measured) = match reported {
            Some(input) if !facts.needs_marker => {
                (input, "the whole input, as the provider counted it")
            }
            _ => (prefix_tokens, tokenizer_note(tokenizer)),
        };
        if tokens < minimum {
            return Verdict::NotCached(Miss::UnderMinimum {
                tokens,
                measured,
                minimum,
                label: facts.label,
            });
        }
    }
    if repeats.iter().all(Option::is_none) {
        return Verdict::NotCached(Miss::NoCachedField { no_usage: true });
    }
    if repeats
        .iter()
        .flatten()
        .all(|o| o.cached_input_tokens.is_none())
    {
        return Verdict::NotCached(Miss::NoCachedField { no_usage: false });
    }
    let written = calls
        .first()
        .copied()
        .flatten()
        .and_then(|o| o.cache_write_tokens);
    Verdict::NotCached(Miss::NotServedAgain {
        written,
        minimum_known: facts.min_cacheable_tokens.is_some(),
    })
}

fn tokenizer_note(tokenizer: &str) -> &'static str {
    match tokenizer {
        "cl100k_base" => "tools and static system, counted with cl100k_base",
        _ => "tools and static system, counted with o200k_base",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::facts::lookup;

    fn seen(input: u64, cached: Option<u64>, write: Option<u64>) -> Option<Observed> {
        Some(Observed {
            input_tokens: input,
            cached_input_tokens: cached,
            cache_write_tokens: write,
        })
    }

    #[test]
    fn an_openai_repeat_with_cached_tokens_is_a_hit() {
        let facts = lookup("openai", "gpt-4.1-mini");
        let v = verdict(
            &[seen(1800, Some(0), None), seen(1800, Some(1664), None)],
            facts,
            1700,
            "o200k_base",
        );
        assert_eq!(
            v,
            Verdict::Cached {
                call: 2,
                tokens: 1664,
                share: 1664.0 / 1800.0
            }
        );
        assert!(v.sentence().contains("92.4%"));
    }

    #[test]
    fn an_anthropic_write_then_read_is_a_hit_and_a_write_without_read_is_not() {
        let facts = lookup("anthropic", "claude-sonnet-4-5");
        let hit = verdict(
            &[
                seen(2300, Some(0), Some(2280)),
                seen(2300, Some(2280), Some(0)),
            ],
            facts,
            2250,
            "o200k_base",
        );
        assert!(hit.cached());
        let miss = verdict(
            &[
                seen(2300, Some(0), Some(2280)),
                seen(2300, Some(0), Some(2280)),
            ],
            facts,
            2250,
            "o200k_base",
        );
        assert_eq!(
            miss,
            Verdict::NotCached(Miss::NotServedAgain {
                written: Some(2280),
                minimum_known: true
            })
        );
        assert!(miss.sentence().contains("wrote 2280 tokens"));
    }

    #[test]
    fn a_prefix_under_the_minimum_names_the_figures() {
        let haiku = lookup("anthropic", "claude-3-5-haiku-20241022");
        let v = verdict(
            &[seen(1500, Some(0), Some(0)), seen(1500, Some(0), Some(0))],
            haiku,
            1450,
            "o200k_base",
        );
        let text = v.sentence();
        assert!(
            text.contains("1450 tokens") && text.contains("2048-token minimum"),
            "{text}"
        );
        // OpenAI caches any prefix of the prompt: the provider's own input count decides.
        let openai = lookup("openai", "gpt-4o");
        let v = verdict(
            &[seen(900, Some(0), None), seen(900, Some(0), None)],
            openai,
            850,
            "o200k_base",
        );
        assert!(
            matches!(
                v,
                Verdict::NotCached(Miss::UnderMinimum {
                    tokens: 900,
                    minimum: 1024,
                    ..
                })
            ),
            "{v:?}"
        );
    }

    #[test]
    fn no_cached_field_is_not_a_miss() {
        let local = lookup("openai", "llama3.1:8b");
        let v = verdict(
            &[seen(3000, None, None), seen(3000, None, None)],
            local,
            2900,
            "o200k_base",
        );
        assert_eq!(
            v,
            Verdict::NotCached(Miss::NoCachedField { no_usage: false })
        );
        assert!(v.sentence().contains("no cached-token field"));
        let v = verdict(&[None, None], local, 2900, "o200k_base");
        assert_eq!(
            v,
            Verdict::NotCached(Miss::NoCachedField { no_usage: true })
        );
    }

    #[test]
    fn a_zero_cached_field_above_the_minimum_is_served_once_not_again() {
        let facts = lookup("openai", "gpt-5-mini");
        let v = verdict(
            &[
                seen(2000, Some(0), None),
                seen(2000, Some(0), None),
                seen(2000, Some(0), None),
            ],
            facts,
            1900,
            "o200k_base",
        );
        assert_eq!(
            v,
            Verdict::NotCached(Miss::NotServedAgain {
                written: None,
                minimum_known: true
            })
        );
        let unknown = lookup("openai", "llama3.1:8b");
        let v = verdict(
            &[seen(2000, Some(0), None), seen(2000, Some(0), None)],
            unknown,
            1900,
            "o200k_base",
        );
        assert!(v.sentence().contains("not known"));
    }

    #[test]
    fn the_first_of_equal_repeats_is_reported() {
        let facts = lookup("anthropic", "claude-sonnet-4-5");
        let v = verdict(
            &[
                seen(2300, Some(0), Some(2280)),
                seen(2300, Some(2280), Some(0)),
                seen(2300, Some(2280), Some(0)),
            ],
            facts,
            2250,
            "o200k_base",
        );
        assert!(matches!(v, Verdict::Cached { call: 2, .. }), "{v:?}");
    }

    #[test]
    fn the_best_repeat_is_reported() {
        let facts = lookup("openai", "gpt-4.1");
        let v = verdict(
            &[
                seen(2000, Some(0), None),
                seen(2000, Some(0), None),
                seen(2000, Some(1920), None),
            ],
            facts,
            1900,
            "o200k_base",
        );
        assert!(matches!(
            v,
            Verdict::Cached {
                call: 3,
                tokens: 1920,
                ..
            }
        ));
    }
}
