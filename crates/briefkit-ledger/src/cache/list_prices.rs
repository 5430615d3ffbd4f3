//! List prices of well-known models, so `brief usage` can price traffic that no brief
//! describes (an agent behind `brief proxy`) and show its cost and savings.
//!
//! A dated table: prices change, so every row says where its figures come from and when
//! they were read, and anything more specific wins over it — `--price-*` flags, then the
//! `pricing:` of the brief a call was made for. Only the base input and output prices are
//! here; cached reads and cache writes (per bucket) follow from them through the provider's
//! multipliers in [`super::facts`]. A model not in the table stays unpriced: the toolkit
//! says so rather than guessing.

/// Base prices of a model family, per million tokens (US dollars).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListPrice {
    /// Model-name prefix the row covers (lower case), as `facts` matches them.
    pub family: &'static str,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Where the figures come from, and when they were read.
    pub source: &'static str,
}

const ANTHROPIC: &str = "docs.electronhub.ai prompt-caching pricing table (Anthropic list \
                         prices), read 2026-12-01";
const OPENAI: &str = "chatgptpricing-akr.pages.dev/api-pricing, quoting \
                      developers.openai.com/api/docs/pricing, read 2026-12-01";
const OPENAI_41: &str = "OpenAI API pricing as quoted by deploybase.ai/articles/gpt-4.1-pricing \
                         (March 2026) and losclouds.com (verified 2026-04-02), read 2026-12-02";
const OPENAI_REASONING: &str = "OpenAI API pricing page (platform.openai.com/docs/pricing) \
                                list prices of the o-series, as of 2025-08; read 2026-12-02";
const GEMINI: &str = "ai.google.dev/gemini-api/docs/pricing (paid tier, prompts up to 200k \
                      tokens), as quoted by the gemini-cost crate 0.1.0, read 2026-12-02";
const ANTHROPIC_46: &str = "deploybase.ai/articles/claude-api-pricing-2026 (January 2026): Opus 4.6 \
                            at $5/$25, Sonnet 4.6 as Sonnet 4.5; read 2026-12-02";
const ANTHROPIC_47: &str = "studioglobal.ai on Claude Opus 4.7 API pricing, quoting Anthropic's \
                            pricing page (Opus 4.7 at Opus 4.6's $5/$25); read 2026-12-02";
const ANTHROPIC_LEGACY: &str = "Anthropic list prices (docs.anthropic.com/en/docs/about-claude/pricing) \
                                for Claude 3 Haiku, read 2026-12-02";

/// The table; the longest matching family wins.
pub static LIST_PRICES: &[ListPrice] = &[
    row("claude-opus-4-5", 5.0, 25.0, ANTHROPIC),
    // Without their own rows, `claude-opus-4` priced them at Opus 4's $15/$75.
    row("claude-opus-4-6", 5.0, 25.0, ANTHROPIC_46),
    row("claude-opus-4-7", 5.0, 25.0, ANTHROPIC_47),
    row("claude-opus-4-1", 15.0, 75.0, ANTHROPIC),
    row("claude-opus-4", 15.0, 75.0, ANTHROPIC),
    row("claude-sonnet-4", 3.0, 15.0, ANTHROPIC),
    row("claude-3-7-sonnet", 3.0, 15.0, ANTHROPIC),
    row("claude-haiku-4-5", 1.0, 5.0, ANTHROPIC),
    row("claude-3-5-haiku", 0.8, 4.0, ANTHROPIC),
    row("claude-3-haiku", 0.25, 1.25, ANTHROPIC_LEGACY),
    row("gpt-5-mini", 0.25, 2.0, OPENAI),
    row("gpt-5", 1.25, 10.0, OPENAI),
    row("gpt-4o-mini", 0.15, 0.6, OPENAI),
    row("gpt-4o", 2.5, 10.0, OPENAI),
    row("gpt-4.1", 2.0, 8.0, OPENAI_41),
    row("gpt-4.1-mini", 0.4, 1.6, OPENAI_41),
    row("gpt-4.1-nano", 0.1, 0.4, OPENAI_41),
    row("o1", 15.0, 60.0, OPENAI_REASONING),
    row("o3", 2.0, 8.0, OPENAI_REASONING),
    row("o3-mini", 1.1, 4.4, OPENAI_REASONING),
    row("o4-mini", 1.1, 4.4, OPENAI_REASONING),
    row("gemini-2.5-pro", 1.25, 10.0, GEMINI),
    row("gemini-2.5-flash", 0.3, 2.5, GEMINI),
    row("gemini-2.5-flash-lite", 0.1, 0.4, GEMINI),
];

const fn row(family: &'static str, input: f64, output: f64, source: &'static str) -> ListPrice {
    ListPrice {
        family,
        input_per_mtok: input,
        output_per_mtok: output,
        source,
    }
}

/// The list price of `model`, if the table knows its family. A dated snapshot suffix
/// (`-20250929`) or a gateway prefix (`anthropic/…`) does not matter; a family only matches
/// at a word boundary, so `gpt-5` does not price `gpt-50`.
pub fn lookup(model: &str) -> Option<&'static ListPrice> {
    let model = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    LIST_PRICES
        .iter()
        .filter(|p| {
            model
                .strip_prefix(p.family)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.', '@', ':']))
        })
        .max_by_key(|p| p.family.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_match_at_word_boundaries_and_the_longest_wins() {
        let price = |m: &str| lookup(m).map(|p| (p.input_per_mtok, p.output_per_mtok));
        assert_eq!(price("claude-sonnet-4-5-20250929"), Some((3.0, 15.0)));
        assert_eq!(price("anthropic/claude-opus-4-5"), Some((5.0, 25.0)));
        assert_eq!(price("claude-opus-4-1-20250805"), Some((15.0, 75.0)));
        assert_eq!(price("claude-opus-4-6"), Some((5.0, 25.0)));
        assert_eq!(price("claude-opus-4-7-20260416"), Some((5.0, 25.0)));
        assert_eq!(price("claude-sonnet-4-6"), Some((3.0, 15.0)));
        assert_eq!(price("gpt-5-mini"), Some((0.25, 2.0)));
        assert_eq!(price("gpt-5-codex"), Some((1.25, 10.0)));
        assert_eq!(price("gpt-50"), None);
        assert_eq!(price("gpt-test"), None);
        // Issue 33: the bundled example's own model was unpriced.
        assert_eq!(price("gpt-4.1-mini-2025-04-14"), Some((0.4, 1.6)));
        assert_eq!(price("gpt-4.1"), Some((2.0, 8.0)));
        assert_eq!(price("gemini-2.5-flash-lite"), Some((0.1, 0.4)));
        assert_eq!(price("models/gemini-2.5-pro"), Some((1.25, 10.0)));
    }
}
