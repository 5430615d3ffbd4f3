//! What each provider's prompt cache needs and how it reports a hit, in one table.
//!
//! `brief probe` uses it to explain a miss ("the prefix is under this model's minimum"),
//! `brief stats` to say whether a brief's prefix can be cached at all, and `brief usage` to
//! estimate a cached or cache-write price when the brief's `pricing` names only the input
//! price. The figures change over time and sources disagree, so every row names its source;
//! where they conflict the row takes the figure observed on live traffic and says so.
//! Multipliers are of the model's base input price. `None` means "not known": the toolkit
//! then says it does not know rather than guessing.

/// Prompt-cache facts for one provider and model family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts {
    /// Who runs the model: `openai`, `anthropic`, `deepseek`, `gemini`; `openai-compatible`
    /// for an unknown model behind an OpenAI-compatible server; `unknown`.
    pub vendor: &'static str,
    /// Model-name prefix the row covers (lower case); empty for "any model of the vendor".
    pub family: &'static str,
    /// Human name of the row, for messages.
    pub label: &'static str,
    /// The shortest prefix, in tokens, the provider caches at all; shorter ones are
    /// silently not cached.
    pub min_cacheable_tokens: Option<u64>,
    /// Where the vendor's own API reports cached input tokens.
    pub cached_field: Option<&'static str>,
    /// Where it reports tokens written to the cache, if it does.
    pub write_field: Option<&'static str>,
    /// Whether the cached count is part of the reported input count (`true`) or reported
    /// beside it (`false`, Anthropic). The ledger always stores all input as `input_tokens`.
    pub cached_inside_input: bool,
    /// Price of a cached (read) input token, as a multiple of the base input price.
    pub read_multiplier: Option<f64>,
    /// Price of a token written to the cache, as a multiple of the base input price (1.0:
    /// no premium); for Anthropic, a 5-minute write.
    pub write_multiplier: Option<f64>,
    /// Price of a token written to the cache for an hour (Anthropic's
    /// `ephemeral_1h_input_tokens`), as a multiple of the base input price; `None` where
    /// the provider has no such bucket.
    pub write_1h_multiplier: Option<f64>,
    /// Whether caching needs an explicit marker in the request (`cache_control`).
    pub needs_marker: bool,
}

const OPENAI_CACHED: Option<&str> = Some("usage.prompt_tokens_details.cached_tokens");
const ANTHROPIC_CACHED: Option<&str> = Some("usage.cache_read_input_tokens");
const ANTHROPIC_WRITE: Option<&str> = Some("usage.cache_creation_input_tokens");

const fn openai(family: &'static str, label: &'static str, read: Option<f64>) -> Facts {
    Facts {
        vendor: "openai",
        family,
        label,
        // developers.openai.com/api/docs/guides/prompt-caching: automatic for prompts of at
        // least 1024 tokens; cached_tokens is part of prompt_tokens (research §2.1).
        min_cacheable_tokens: Some(1024),
        cached_field: OPENAI_CACHED,
        write_field: None,
        cached_inside_input: true,
        read_multiplier: read,
        // Same guide: caching has "no additional fees" (writes free) before GPT-5.6.
        write_multiplier: Some(1.0),
        write_1h_multiplier: None,
        needs_marker: false,
    }
}

const fn anthropic(family: &'static str, label: &'static str, min: u64) -> Facts {
    Facts {
        vendor: "anthropic",
        family,
        label,
        min_cacheable_tokens: Some(min),
        // Anthropic usage: input_tokens counts only tokens after the last breakpoint; total
        // input = input + cache_read + cache_creation (research §2.2, awesome-ai-gateway §3.6).
        cached_field: ANTHROPIC_CACHED,
        write_field: ANTHROPIC_WRITE,
        cached_inside_input: false,
        // Read 0.1x, 5-minute write 1.25x (1-hour write 2x) of base input: Anthropic pricing
        // page as quoted by electronhub.ai, apiyi and awesome-ai-gateway §2.1.
        read_multiplier: Some(0.1),
        write_multiplier: Some(1.25),
        write_1h_multiplier: Some(2.0),
        needs_marker: true,
    }
}

const fn gemini(family: &'static str, label: &'static str, min: Option<u64>) -> Facts {
    Facts {
        vendor: "gemini",
        family,
        label,
        min_cacheable_tokens: min,
        // ai.google.dev UsageMetadata: promptTokenCount "is still the total effective prompt
        // size" when cached content is used, so the cached count is inside it.
        cached_field: Some("usageMetadata.cachedContentTokenCount"),
        write_field: None,
        cached_inside_input: true,
        // docs.cloud.google.com context-cache overview: implicit caching gives a 90% discount
        // on cached tokens; implicit caching has no write charge.
        read_multiplier: Some(0.1),
        write_multiplier: Some(1.0),
        write_1h_multiplier: None,
        needs_marker: false,
    }
}

/// The table. A model matches the row with the longest `family` it starts with; rows with
/// an empty family are the vendor's fallback.
pub static FACTS: &[Facts] = &[
    // GPT-5.6 and later report prompt_tokens_details.cache_write_tokens, billed 1.25x; reads
    // 0.1x (mindroom-ai/mindroom PR #2134 quoting OpenAI's docs; awesome-ai-gateway §3.1).
    Facts {
        write_field: Some("usage.prompt_tokens_details.cache_write_tokens"),
        write_multiplier: Some(1.25),
        write_1h_multiplier: None,
        ..openai("gpt-5.6", "OpenAI GPT-5.6", Some(0.1))
    },
    // GPT-5 family: cached input at 10% of input (OpenAI pricing page via the apiyi guide of
    // June 2026 and adk-model's pricing table, March 2026).
    openai("gpt-5", "OpenAI GPT-5", Some(0.1)),
    // GPT-4.1 family: 75% off cached input (adk-model pricing table; gpt-4.1 $2.00 input,
    // $0.50 cached in the oG-Memory rate card).
    openai("gpt-4.1", "OpenAI GPT-4.1", Some(0.25)),
    // GPT-4o family: 50% off (openai-models crate: gpt-4o $2.50 / $1.25 cached, from
    // openai.com/api/pricing).
    openai("gpt-4o", "OpenAI GPT-4o", Some(0.5)),
    // o1: $15.00 input / $7.50 cached (openai-models crate, openai.com/api/pricing).
    openai("o1", "OpenAI o1", Some(0.5)),
    // o3-mini: the o-series 50% tier (adk-model pricing table).
    openai("o3-mini", "OpenAI o3-mini", Some(0.5)),
    // o3 $10.00 / $2.50 cached and o4-mini $1.10 / $0.275 at launch (Roo-Code PR #2691
    // citing platform.openai.com/docs/models).
    openai("o3", "OpenAI o3", Some(0.25)),
    openai("o4-mini", "OpenAI o4-mini", Some(0.25)),
    // Any other OpenAI model: the 1024 minimum holds, the discount varies by model.
    openai("", "OpenAI", None),
    // Anthropic minimums vary by model and are not monotonic: awesome-ai-gateway (2026-07-29)
    // and LiteLLM docs/completion/prompt_caching (2026-10-07) agree on these; anthropic-sdk-
    // python issue #1194 lists the documented 4096 for Opus 4.5/4.6 and Haiku 4.5.
    anthropic("claude-opus-4-5", "Anthropic Claude Opus 4.5", 4096),
    anthropic("claude-opus-4-6", "Anthropic Claude Opus 4.6", 4096),
    anthropic("claude-haiku-4-5", "Anthropic Claude Haiku 4.5", 4096),
    anthropic("claude-opus-4-7", "Anthropic Claude Opus 4.7", 2048),
    anthropic("claude-opus-4-8", "Anthropic Claude Opus 4.8", 1024),
    // Documented 1024, but caching was observed only from about 2048 (anthropic-sdk-python
    // issue #1194; orq.ai lists 2048): the observed figure explains a miss, so it wins.
    anthropic("claude-sonnet-4-6", "Anthropic Claude Sonnet 4.6", 2048),
    // Haiku 3 and 3.5: 2048 (truefoundry and LlamaIndex docs, LiteLLM).
    anthropic("claude-3-5-haiku", "Anthropic Claude Haiku 3.5", 2048),
    anthropic("claude-3-haiku", "Anthropic Claude Haiku 3", 2048),
    // Opus 5: 512 (awesome-ai-gateway, 2026-07-29).
    anthropic("claude-opus-5", "Anthropic Claude Opus 5", 512),
    // Everything else (Sonnet 5, 4.5, 4, 3.7, 3.5; Opus 4.1, 4, 3): 1024 (same sources).
    anthropic("claude-", "Anthropic Claude", 1024),
    anthropic("", "Anthropic", 1024),
    // DeepSeek: caching on disk by default; "content less than 64 tokens will not be
    // cached"; prompt_cache_hit_tokens + prompt_cache_miss_tokens = prompt_tokens; storage
    // free (api-docs.deepseek.com/guides/kv_cache). The read price differs per model
    // generation (0.02x on V4-Flash, about 0.0083x on V4-Pro: awesome-ai-gateway §3.1), and
    // the names deepseek-chat/-reasoner move between generations, so it is left unknown.
    Facts {
        vendor: "deepseek",
        family: "deepseek-",
        label: "DeepSeek",
        min_cacheable_tokens: Some(64),
        cached_field: Some("usage.prompt_cache_hit_tokens"),
        write_field: None,
        cached_inside_input: true,
        read_multiplier: None,
        write_multiplier: Some(1.0),
        write_1h_multiplier: None,
        needs_marker: false,
    },
    // Gemini minimums have changed between captures of ai.google.dev/gemini-api/docs/caching.
    // 2.5 Flash: the docs now say 2048 but the API enforces 1024, and 2.5 Flash-Lite 2048
    // (discuss.ai.google.dev thread 178942, quoting the API's own 400 answers).
    gemini(
        "gemini-2.5-flash-lite",
        "Google Gemini 2.5 Flash-Lite",
        Some(2048),
    ),
    gemini("gemini-2.5-flash", "Google Gemini 2.5 Flash", Some(1024)),
    // 2.5 Pro: 2048 on the page updated 2026-10-13 (4096 on older captures).
    gemini("gemini-2.5-pro", "Google Gemini 2.5 Pro", Some(2048)),
    // 3.x: 4096 for 3.1 Pro Preview and 3.5-3.8 Flash on the 2026-10-13 page.
    gemini("gemini-3", "Google Gemini 3", Some(4096)),
    gemini("gemini-", "Google Gemini", None),
    // An OpenAI-compatible server running some other model (vLLM, llama.cpp, Ollama, a
    // gateway): the field is the OpenAI one if the server reports it at all.
    Facts {
        vendor: "openai-compatible",
        family: "",
        label: "an OpenAI-compatible server",
        min_cacheable_tokens: None,
        cached_field: OPENAI_CACHED,
        write_field: None,
        cached_inside_input: true,
        read_multiplier: None,
        write_multiplier: None,
        write_1h_multiplier: None,
        needs_marker: false,
    },
];

static UNKNOWN: Facts = Facts {
    vendor: "unknown",
    family: "",
    label: "an unknown provider",
    min_cacheable_tokens: None,
    cached_field: None,
    write_field: None,
    cached_inside_input: true,
    read_multiplier: None,
    write_multiplier: None,
    write_1h_multiplier: None,
    needs_marker: false,
};

/// The model name without a gateway's routing prefix (`openai/gpt-4o-mini`,
/// `models/gemini-2.5-flash`, `anthropic.claude-…` on Bedrock), in lower case.
fn bare_model(model: &str) -> String {
    let model = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    match model.find("claude-") {
        Some(at) if at > 0 => model[at..].to_string(),
        _ => model,
    }
}

/// The facts for a model called through `provider` (the wire protocol: `openai` or
/// `anthropic`). The model name decides first, since an OpenAI-compatible endpoint may
/// serve anyone's model; then the provider's fallback row.
pub fn lookup(provider: &str, model: &str) -> &'static Facts {
    let model = bare_model(model);
    let by_model = FACTS
        .iter()
        .filter(|f| !f.family.is_empty() && model.starts_with(f.family))
        .max_by_key(|f| f.family.len());
    if let Some(facts) = by_model {
        return facts;
    }
    let vendor = match provider.to_ascii_lowercase().as_str() {
        // Both OpenAI wires (Chat Completions, Responses) are OpenAI's.
        "openai" | "responses" if model.starts_with("gpt-") => "openai",
        "openai" | "responses" => "openai-compatible",
        other => {
            return FACTS
                .iter()
                .find(|f| f.family.is_empty() && f.vendor == other)
                .unwrap_or(&UNKNOWN);
        }
    };
    FACTS
        .iter()
        .find(|f| f.family.is_empty() && f.vendor == vendor)
        .unwrap_or(&UNKNOWN)
}

impl Facts {
    /// Whether a prefix of `tokens` reaches the minimum; `None` when the minimum is unknown.
    pub fn reaches_minimum(&self, tokens: u64) -> Option<bool> {
        self.min_cacheable_tokens.map(|min| tokens >= min)
    }

    /// One sentence on whether a prefix of `tokens` can be cached for `model`.
    pub fn minimum_sentence(&self, model: &str, tokens: u64) -> String {
        match (self.min_cacheable_tokens, self.reaches_minimum(tokens)) {
            (Some(min), Some(true)) => format!(
                "the {tokens}-token prefix reaches the {min}-token minimum of {} ({model})",
                self.label
            ),
            (Some(min), _) => format!(
                "the {tokens}-token prefix is under the {min}-token minimum of {} ({model}): it will not be cached",
                self.label
            ),
            (None, _) => format!(
                "the minimum cacheable length of {} ({model}) is not known; `brief probe` measures it",
                self.label
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_family_wins() {
        assert_eq!(lookup("openai", "gpt-4.1-mini").read_multiplier, Some(0.25));
        assert_eq!(
            lookup("openai", "gpt-4o-mini-2024-07-18").read_multiplier,
            Some(0.5)
        );
        assert_eq!(lookup("openai", "o3-mini").read_multiplier, Some(0.5));
        assert_eq!(lookup("openai", "o3").read_multiplier, Some(0.25));
        assert_eq!(
            lookup("openai", "gpt-5.6-mini").write_multiplier,
            Some(1.25)
        );
        assert_eq!(lookup("openai", "gpt-5-mini").write_multiplier, Some(1.0));
        assert_minimums(&[
            ("anthropic", "claude-3-5-haiku-20241022", 2048),
            ("anthropic", "claude-haiku-4-5", 4096),
            ("anthropic", "claude-sonnet-4-5-20250929", 1024),
            ("anthropic", "claude-opus-4-20250514", 1024),
        ]);
    }

    /// Each `(provider, model, minimum)`: the minimum cacheable length `lookup` finds.
    fn assert_minimums(cases: &[(&str, &str, u64)]) {
        for &(provider, model, minimum) in cases {
            assert_eq!(
                lookup(provider, model).min_cacheable_tokens,
                Some(minimum),
                "{provider} {model}"
            );
        }
    }

    #[test]
    fn the_model_decides_over_the_wire_protocol() {
        assert_minimums(&[
            ("openai", "deepseek-chat", 64),
            ("openai", "google-ai-studio/gemini-2.5-flash", 1024),
        ]);
        assert_eq!(
            lookup("openai", "anthropic/claude-3-haiku").vendor,
            "anthropic"
        );
        assert_eq!(
            lookup("anthropic", "us.anthropic.claude-3-haiku-20240307-v1:0").min_cacheable_tokens,
            Some(2048)
        );
    }

    #[test]
    fn unknown_models_fall_back_to_the_provider_then_to_unknown() {
        let local = lookup("openai", "llama3.1:8b");
        assert_eq!(local.vendor, "openai-compatible");
        assert_eq!(local.min_cacheable_tokens, None);
        assert_eq!(local.reaches_minimum(10), None);
        assert_eq!(lookup("openai", "gpt-9").min_cacheable_tokens, Some(1024));
        assert_eq!(
            lookup("anthropic", "something-new").min_cacheable_tokens,
            Some(1024)
        );
        assert_eq!(lookup("mistral", "mistral-large").vendor, "unknown");
    }

    #[test]
    fn every_row_is_consistent() {
        for facts in FACTS {
            assert_eq!(facts.family, facts.family.to_ascii_lowercase());
            assert!(
                facts.needs_marker == (facts.vendor == "anthropic"),
                "{}",
                facts.label
            );
            assert!(
                facts.cached_inside_input == (facts.vendor != "anthropic"),
                "{}",
                facts.label
            );
            for m in [facts.read_multiplier, facts.write_multiplier]
                .into_iter()
                .flatten()
            {
                assert!((0.0..=2.0).contains(&m), "{}", facts.label);
            }
        }
    }
}
