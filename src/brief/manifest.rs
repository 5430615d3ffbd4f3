//! `brief.yaml`: the manifest that names a brief, orders its items and sets its budget,
//! default model and prices.

use serde::{Deserialize, Deserializer, Serialize};

use crate::wire::Wire;

use crate::tokens::Encoding;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default = "default_tokenizer")]
    pub tokenizer: Encoding,
    /// Composition order of the items, by id.
    pub items: Vec<String>,
    #[serde(default)]
    pub budget: Budget,
    #[serde(default)]
    pub model: Option<ModelConfig>,
    #[serde(default)]
    pub pricing: Option<Pricing>,
    /// Build-time values that static items may use as `{{name}}`: filled in when the brief
    /// is composed, so they are part of the stable prefix (and its hash in the lock):
    /// changing one is a prefix change that `brief check` reports until `brief lock`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub vars: std::collections::BTreeMap<String, String>,
}

fn default_tokenizer() -> Encoding {
    Encoding::O200kBase
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// The model's context window, in tokens.
    #[serde(default)]
    pub context_limit: Option<u64>,
    /// `brief check` fails when the composed brief is larger than this.
    #[serde(default)]
    pub max_brief_tokens: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// `openai` (any OpenAI-compatible server), `responses`, `anthropic` or `gemini`, in
    /// any letter case, checked
    /// when the brief is loaded (a misspelled provider is a load error at its line).
    #[serde(deserialize_with = "provider_name")]
    pub provider: Wire,
    pub name: String,
    #[serde(default)]
    pub base_url: Option<String>,
}

fn provider_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Wire, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse::<Wire>().map_err(serde::de::Error::custom)
}

/// Prices in currency units per million tokens.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    pub input_per_mtok: f64,
    #[serde(default)]
    pub cached_input_per_mtok: Option<f64>,
    /// A cache write (Anthropic: a 5-minute write).
    #[serde(default)]
    pub cache_write_per_mtok: Option<f64>,
    /// A one-hour cache write (Anthropic's `ephemeral_1h_input_tokens`), priced apart.
    #[serde(default)]
    pub cache_write_1h_per_mtok: Option<f64>,
    #[serde(default)]
    pub output_per_mtok: Option<f64>,
}
