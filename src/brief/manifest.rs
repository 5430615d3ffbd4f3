//! `brief.yaml`: the manifest that names a brief, orders its items and sets its budget,
//! default model and prices.

use serde::{Deserialize, Serialize};

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
    /// `openai` (any OpenAI-compatible server) or `anthropic`.
    pub provider: String,
    pub name: String,
    #[serde(default)]
    pub base_url: Option<String>,
}

/// Prices in currency units per million tokens.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    pub input_per_mtok: f64,
    #[serde(default)]
    pub cached_input_per_mtok: Option<f64>,
    #[serde(default)]
    pub cache_write_per_mtok: Option<f64>,
    #[serde(default)]
    pub output_per_mtok: Option<f64>,
}
