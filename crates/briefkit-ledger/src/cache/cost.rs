//! What a brief costs to re-send: tokens per item, the stable prefix, the share of the
//! context window, and the price of 1,000 turns with and without the provider's cache.
//!
//! Everything comes from one pass over the items: each body is compacted (and the
//! compaction proven) once; the prefix and the volatile template are assembled from those
//! same compacted texts. Counting goes through one [`tokens::Counter`]: each distinct word
//! (segment) is counted once, a compacted text costs only the words compaction changed,
//! and the prefix and template totals come from the items' counts plus the words around
//! each join (exact: equal to counting the whole text, which `tests` checks).

use serde::Serialize;

use crate::brief::{Brief, Item, Tier, fill_placeholders, unescape_braces};
use crate::cache::facts::{self, Facts};
use crate::compact::compact_markdown;
use crate::prompt::compose::{Prefix, prefix_of, tools_json};
use crate::text::volatile;
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

    /// A share of `total` compacted tokens, in percent. The caller sums the total once:
    /// summing it per item made `stats` quadratic in the item count.
    pub fn share(tokens: usize, total: usize) -> f64 {
        match total {
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
    let mut counter = tokens::Counter::new(brief.manifest.tokenizer);
    let mut items = Vec::with_capacity(brief.items.len());
    let mut unproven = Vec::new();
    // Each static and volatile item's text as it goes into the prompt, with its count.
    let mut static_texts = Vec::new();
    let mut static_counts = Vec::new();
    let mut volatile_texts = Vec::new();
    let mut volatile_counts = Vec::new();
    let mut volatile_hits = 0;
    for item in &brief.items {
        if let Some(tool) = &item.tool {
            let text = tools_json(std::slice::from_ref(tool));
            let tokens = counter.count(&text);
            items.push(ItemCost {
                item,
                bytes: text.len(),
                tokens,
                tokens_compacted: tokens,
            });
            continue;
        }
        let body = crate::text::constant::strip(item.body());
        let body = body.as_ref();
        let compaction = compact_markdown(body);
        let tokens = counter.count(body);
        // Compaction often leaves a body as it was: then its count is already known.
        let tokens_compacted = if compaction.text == body {
            tokens
        } else {
            counter.count(&compaction.text)
        };
        items.push(ItemCost {
            item,
            bytes: body.len(),
            tokens,
            tokens_compacted,
        });
        let mut text = compaction.text;
        let trimmed = text.trim_end_matches(['\n', '\r']).len();
        let text_tokens = counter.count_prefix(&text, tokens_compacted, trimmed);
        text.truncate(trimmed);
        match item.tier {
            Tier::Static => {
                if !compaction.proven {
                    unproven.push(item.id.clone());
                }
                let raw = item.body();
                volatile_hits += volatile::scan(raw)
                    .iter()
                    .filter(|hit| !crate::text::constant::line_is_marked(raw, hit.start))
                    .count();
                static_texts.push(text);
                // A message sample is not in the system text: its messages are examples.
                static_counts.push(item.messages().is_none().then_some(text_tokens));
            }
            Tier::Volatile => {
                volatile_texts.push(text);
                volatile_counts.push(text_tokens);
            }
        }
    }
    let system_parts = system_parts(brief, &static_texts, &static_counts, &mut counter);
    let prefix = prefix_of(brief, static_texts, unproven);
    // As `Prefix::static_tokens` counts it: the system text, then each example's content.
    let mut prefix_tokens = joined_tokens(&mut counter, &system_parts, &prefix.static_system);
    for message in &prefix.examples {
        prefix_tokens += counter.count(&message.content);
    }
    if !prefix.tools.is_empty() {
        prefix_tokens += counter.count(&tools_json(&prefix.tools));
    }
    let volatile_parts: Vec<(&str, usize)> = volatile_texts
        .iter()
        .map(String::as_str)
        .zip(volatile_counts)
        .collect();
    let volatile_tokens = counter.count_joined(&volatile_parts, "\n\n");
    let cache = brief
        .manifest
        .model
        .as_ref()
        .map(|m| facts::lookup(m.provider.as_str(), &m.name));
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

/// The static items' texts as `prefix_of` puts them into the system text (build-time
/// `vars` filled, escaped braces unescaped, empty texts and message samples left out),
/// with their counts: a text the filling left as it was keeps the count already made.
fn system_parts(
    brief: &Brief,
    texts: &[String],
    counts: &[Option<usize>],
    counter: &mut tokens::Counter,
) -> Vec<(String, usize)> {
    texts
        .iter()
        .zip(counts)
        .filter_map(|(text, &tokens)| {
            let tokens = tokens?;
            let filled = if brief.manifest.vars.is_empty() {
                unescape_braces(text)
            } else {
                fill_placeholders(text, &brief.manifest.vars).0
            };
            if filled.trim().is_empty() {
                return None;
            }
            let tokens = if filled == *text {
                tokens
            } else {
                counter.count(&filled)
            };
            Some((filled, tokens))
        })
        .collect()
}

/// Tokens of `system`, from its parts' counts when the parts joined by blank lines are
/// exactly `system` (checked byte for byte, cheaply), else by counting it whole.
fn joined_tokens(counter: &mut tokens::Counter, parts: &[(String, usize)], system: &str) -> usize {
    const SEPARATOR: &str = "\n\n";
    let mut rest = system;
    let mut same = true;
    for (i, (text, _)) in parts.iter().enumerate() {
        if i > 0 {
            match rest.strip_prefix(SEPARATOR) {
                Some(after) => rest = after,
                None => same = false,
            }
        }
        match rest.strip_prefix(text.as_str()) {
            Some(after) if same => rest = after,
            _ => same = false,
        }
        if !same {
            break;
        }
    }
    if same && rest.is_empty() {
        let parts: Vec<(&str, usize)> = parts.iter().map(|(t, n)| (t.as_str(), *n)).collect();
        counter.count_joined(&parts, SEPARATOR)
    } else {
        counter.count(system)
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
