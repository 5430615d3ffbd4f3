//! What a brief costs to re-send: tokens per item, the stable prefix, the share of the
//! context window, and the price of 1,000 turns with and without the provider's cache.
//!
//! Everything comes from one pass over the items: each body is compacted (and the
//! compaction proven) once and each text counted once; the prefix and the volatile
//! template are assembled from those same compacted texts. Counting twice and compacting
//! twice made `brief stats` several times slower than the tokenizer it wraps.

use serde::Serialize;

use crate::brief::{Brief, Item, Tier};
use crate::cache::facts::{self, Facts};
use crate::cache::volatile;
use crate::compact::compact_markdown;
use crate::prompt::compose::{Prefix, prefix_of, tools_json};
use crate::tokens;

/// One item's figures: as written and as compacted.
#[derive(Debug, Clone, Serialize)]
pub struct ItemCost<'a> {
    #[serde(skip)]
    pub item: &'a Item,
    pub bytes: usize,
    pub tokens: usize,
    pub tokens_compacted: usize,
}

/// Price of 1,000 turns of input.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TurnCost {
    pub without_caching: f64,
    /// `None` when the brief has no cached-input price.
    pub with_caching: Option<f64>,
}

/// All the figures `brief stats` shows.
#[derive(Debug)]
pub struct Measured<'a> {
    pub items: Vec<ItemCost<'a>>,
    pub prefix: Prefix,
    pub prefix_tokens: usize,
    pub volatile_tokens: usize,
    /// Volatile-looking values in the static tier.
    pub volatile_hits: usize,
    /// The model's cache facts, when the brief names a model.
    pub cache: Option<&'static Facts>,
    pub cost: Option<TurnCost>,
}

impl Measured<'_> {
    /// Tokens of the composed brief: prefix plus volatile templates.
    pub fn brief_tokens(&self) -> usize {
        self.prefix_tokens + self.volatile_tokens
    }

    pub fn total_bytes(&self) -> usize {
        self.items.iter().map(|f| f.bytes).sum()
    }

    pub fn total_tokens(&self) -> usize {
        self.items.iter().map(|f| f.tokens).sum()
    }

    pub fn total_compacted(&self) -> usize {
        self.items.iter().map(|f| f.tokens_compacted).sum()
    }

    /// An item's share of all compacted tokens, in percent.
    pub fn share(&self, tokens: usize) -> f64 {
        match self.total_compacted() {
            0 => 0.0,
            total => 100.0 * tokens as f64 / total as f64,
        }
    }

    /// The composed brief's share of `budget.context_limit`, in percent.
    pub fn context_percent(&self, brief: &Brief) -> Option<f64> {
        let limit = brief.manifest.budget.context_limit?;
        Some(100.0 * self.brief_tokens() as f64 / limit.max(1) as f64)
    }
}

/// Warning level for a share of the context window: 80, 90 and 95%.
pub fn context_level(percent: f64) -> Option<&'static str> {
    if percent >= 95.0 {
        Some("critical")
    } else if percent >= 90.0 {
        Some("high")
    } else if percent >= 80.0 {
        Some("warning")
    } else {
        None
    }
}

/// Measures a loaded brief, compacting as `compose` does by default.
pub fn measure(brief: &Brief) -> Measured<'_> {
    let encoding = brief.manifest.tokenizer;
    let mut items = Vec::with_capacity(brief.items.len());
    let mut unproven = Vec::new();
    let mut static_texts = Vec::new();
    let mut volatile_texts = Vec::new();
    let mut volatile_hits = 0;
    for item in &brief.items {
        if let Some(tool) = &item.tool {
            let text = tools_json(std::slice::from_ref(tool));
            let tokens = tokens::count(encoding, &text);
            items.push(ItemCost {
                item,
                bytes: text.len(),
                tokens,
                tokens_compacted: tokens,
            });
            continue;
        }
        let body = item.body();
        let compaction = compact_markdown(body);
        let tokens = tokens::count(encoding, body);
        // Compaction often leaves a body as it was: then its count is already known.
        let tokens_compacted = if compaction.text == body {
            tokens
        } else {
            tokens::count(encoding, &compaction.text)
        };
        items.push(ItemCost {
            item,
            bytes: body.len(),
            tokens,
            tokens_compacted,
        });
        let text = compaction.text.trim_end_matches(['\n', '\r']).to_string();
        match item.tier {
            Tier::Static => {
                if !compaction.proven {
                    unproven.push(item.id.clone());
                }
                volatile_hits += volatile::scan(body).len();
                static_texts.push(text);
            }
            Tier::Volatile => volatile_texts.push(text),
        }
    }
    let prefix = prefix_of(brief, static_texts, unproven);
    let mut prefix_tokens = prefix.static_tokens(encoding);
    if !prefix.tools.is_empty() {
        prefix_tokens += tokens::count(encoding, &tools_json(&prefix.tools));
    }
    let volatile_tokens = tokens::count(encoding, &volatile_texts.join("\n\n"));
    let cache = brief
        .manifest
        .model
        .as_ref()
        .map(|m| facts::lookup(&m.provider, &m.name));
    let cost = turn_cost(brief, cache, prefix_tokens, volatile_tokens);
    Measured {
        items,
        prefix,
        prefix_tokens,
        volatile_tokens,
        volatile_hits,
        cache,
        cost,
    }
}

/// The input price of 1,000 turns. With caching, the first turn writes the prefix to the
/// cache and the other 999 read it; a prefix under the provider's minimum is never
/// cached, so it costs full price every turn.
fn turn_cost(
    brief: &Brief,
    cache: Option<&Facts>,
    prefix_tokens: usize,
    volatile_tokens: usize,
) -> Option<TurnCost> {
    let p = brief.manifest.pricing.as_ref()?;
    let turns = 1000.0;
    let per = |tokens: usize, price: f64| tokens as f64 * price / 1e6;
    let without = turns * per(prefix_tokens + volatile_tokens, p.input_per_mtok);
    let cacheable = cache.and_then(|f| f.reaches_minimum(prefix_tokens as u64)) != Some(false);
    let with = if cacheable {
        p.cached_input_per_mtok.map(|cached| {
            per(
                prefix_tokens,
                p.cache_write_per_mtok.unwrap_or(p.input_per_mtok),
            ) + (turns - 1.0) * per(prefix_tokens, cached)
                + turns * per(volatile_tokens, p.input_per_mtok)
        })
    } else {
        Some(without)
    };
    Some(TurnCost {
        without_caching: without,
        with_caching: with,
    })
}
