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
    #[serde(default, deserialize_with = "token_limit")]
    pub context_limit: Option<u64>,
    /// `brief check` fails when the composed brief is larger than this.
    #[serde(default, deserialize_with = "token_limit")]
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
    #[serde(deserialize_with = "price")]
    pub input_per_mtok: f64,
    #[serde(default, deserialize_with = "optional_price")]
    pub cached_input_per_mtok: Option<f64>,
    /// A cache write (Anthropic: a 5-minute write).
    #[serde(default, deserialize_with = "optional_price")]
    pub cache_write_per_mtok: Option<f64>,
    /// A one-hour cache write (Anthropic's `ephemeral_1h_input_tokens`), priced apart.
    #[serde(default, deserialize_with = "optional_price")]
    pub cache_write_1h_per_mtok: Option<f64>,
    #[serde(default, deserialize_with = "optional_price")]
    pub output_per_mtok: Option<f64>,
    /// The currency of these prices (an ISO 4217 code); every cost computed from them
    /// carries it. US dollars unless the manifest says otherwise.
    #[serde(default = "usd", deserialize_with = "currency_code")]
    pub currency: String,
}

fn usd() -> String {
    "USD".to_string()
}

/// The largest token count a budget may name: ten times the largest context window of
/// any model today. A larger number is a typo, and would make every ratio meaningless.
pub const MAX_TOKEN_LIMIT: u64 = 1_000_000_000;

/// The largest price per million tokens accepted: far above any model's, far below where
/// a cost in floating point stops being exact to the cent.
pub const MAX_PRICE_PER_MTOK: f64 = 1_000_000.0;

/// A budget's token count: a whole number from 1 to [`MAX_TOKEN_LIMIT`] (a limit of 0
/// makes every brief over budget and every ratio infinite). Checked inside the scalar's
/// own deserialisation so that the error carries the number's line and column.
fn token_limit<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct Limit;
    impl serde::de::Visitor<'_> for Limit {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a token count from 1 to {MAX_TOKEN_LIMIT}")
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<u64, E> {
            if n == 0 || n > MAX_TOKEN_LIMIT {
                return Err(E::invalid_value(serde::de::Unexpected::Unsigned(n), &self));
            }
            Ok(n)
        }
        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<u64, E> {
            match u64::try_from(n) {
                Ok(n) => self.visit_u64(n),
                Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(n), &self)),
            }
        }
    }
    struct Optional;
    impl<'de> serde::de::Visitor<'de> for Optional {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            Limit.expecting(f)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<u64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
            d.deserialize_u64(Limit).map(Some)
        }
    }
    deserializer.deserialize_option(Optional)
}

/// A price per million tokens: a finite number from 0 to [`MAX_PRICE_PER_MTOK`]
/// (a negative price makes caching look like a loss; `.inf` or `1e308` prints as `inf` and
/// serialises as `null`).
struct Price;

impl serde::de::Visitor<'_> for Price {
    type Value = f64;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "a price per million tokens from 0 to {MAX_PRICE_PER_MTOK}"
        )
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<f64, E> {
        if !n.is_finite() || !(0.0..=MAX_PRICE_PER_MTOK).contains(&n) {
            // `1e308` written out in full would be 300 digits long.
            let shown = if n.abs() >= 1e9 {
                format!("{n:e}")
            } else {
                n.to_string()
            };
            return Err(E::custom(format_args!(
                "invalid value: `{shown}`, expected {}",
                Expecting(&self)
            )));
        }
        Ok(n)
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<f64, E> {
        if n as f64 > MAX_PRICE_PER_MTOK {
            return Err(E::invalid_value(serde::de::Unexpected::Unsigned(n), &self));
        }
        Ok(n as f64)
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<f64, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(n), &self)),
        }
    }
}

/// A visitor's `expecting` as a `Display`, for a message built by hand.
struct Expecting<'a, V>(&'a V);

impl<'de, V: serde::de::Visitor<'de>> std::fmt::Display for Expecting<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
}

/// A currency code: three capital letters (`USD`, `EUR`), as ISO 4217 spells them.
fn currency_code<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let code = String::deserialize(deserializer)?;
    if code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(code)
    } else {
        Err(serde::de::Error::custom(
            "pricing.currency: expected a three-letter ISO 4217 code such as USD or EUR",
        ))
    }
}

fn price<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    deserializer.deserialize_f64(Price)
}

fn optional_price<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    struct Optional;
    impl<'de> serde::de::Visitor<'de> for Optional {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            Price.expecting(f)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<f64>, D::Error> {
            d.deserialize_f64(Price).map(Some)
        }
    }
    deserializer.deserialize_option(Optional)
}
