//! `brief stats` as one call and a typed report: the figures of [`super::cost::measure`]
//! with the brief's budget, in the order scripts read them (after `status` and `summary`),
//! and the exact figures the human form rounds itself.

use std::path::Path;

use serde::Serialize;

use super::cost::{Measured, context_level};
use super::facts::Facts;
use crate::brief::{Brief, Problem};
use crate::error::Result;

/// Measures the brief at `path` (a directory or its brief.yaml), passing the loader's
/// warnings to `warn` first.
pub fn stats(path: &Path, warn: &mut dyn FnMut(&Problem)) -> Result<StatsReport> {
    let brief = Brief::load(path)?;
    brief.warnings.iter().for_each(&mut *warn);
    let measured = super::cost::measure(&brief);
    Ok(StatsReport::new(&brief, &measured))
}

#[derive(Debug, Serialize)]
pub struct StatsReport {
    /// `warning` when a context threshold, the brief budget or a volatile value in the
    /// static tier needs attention; else `ok`.
    #[serde(skip)]
    pub status: &'static str,
    #[serde(skip)]
    pub summary: String,
    pub brief: String,
    pub tokenizer: String,
    pub items: Vec<ItemRow>,
    pub total: Total,
    pub prefix: PrefixFigures,
    pub cache: Option<CacheFigures>,
    pub context: Context,
    pub volatile_in_static: usize,
    pub budget: Option<Budget>,
    pub cost_per_1000_turns: Option<TurnCost>,
}

#[derive(Debug, Serialize)]
pub struct ItemRow {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: crate::brief::ItemType,
    pub tier: crate::brief::Tier,
    pub policy: crate::brief::Policy,
    pub bytes: usize,
    pub tokens: usize,
    pub tokens_compacted: usize,
    /// Percent of all compacted tokens, one decimal.
    pub share: f64,
    /// The same, unrounded.
    #[serde(skip)]
    pub share_exact: f64,
}

#[derive(Debug, Serialize)]
pub struct Total {
    pub bytes: usize,
    pub tokens: usize,
    pub tokens_compacted: usize,
    /// The composed brief (prefix and volatile template): the figure budgets apply to.
    pub brief_tokens: usize,
    pub max_brief_tokens: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct PrefixFigures {
    pub hash: String,
    pub tokens: usize,
    pub bytes: usize,
}

#[derive(Debug, Serialize)]
pub struct CacheFigures {
    pub provider: &'static str,
    pub model: String,
    pub min_cacheable_tokens: Option<u64>,
    pub reaches_minimum: Option<bool>,
    /// The model's cache facts, for the sentence that explains them.
    #[serde(skip)]
    pub facts: &'static Facts,
}

#[derive(Debug, Serialize)]
pub struct Context {
    pub tokens: usize,
    pub limit: Option<u64>,
    pub percent: Option<f64>,
    pub level: Option<&'static str>,
    /// The percentage, unrounded.
    #[serde(skip)]
    pub percent_exact: Option<f64>,
}

/// The composed brief against `budget.max_brief_tokens` (the figure `brief check` fails
/// on): the limit, the tokens counted, and how far under or over it they are.
#[derive(Debug, Serialize)]
pub struct Budget {
    pub max_brief_tokens: u64,
    pub tokens: u64,
    pub over: bool,
    pub under_by: u64,
    pub over_by: u64,
}

impl Budget {
    pub fn new(tokens: u64, max: u64) -> Self {
        Budget {
            max_brief_tokens: max,
            tokens,
            over: tokens > max,
            under_by: max.saturating_sub(tokens),
            over_by: tokens.saturating_sub(max),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct TurnCost {
    pub without_caching: f64,
    pub with_caching: Option<f64>,
    /// The currency of both (the manifest's `pricing.currency`).
    pub currency: String,
    /// Both prices, unrounded.
    #[serde(skip)]
    pub exact: super::cost::TurnCost,
}

fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

impl StatsReport {
    pub fn new(brief: &Brief, measured: &Measured<'_>) -> Self {
        let brief_tokens = measured.brief_tokens();
        let total_compacted = measured.total_compacted();
        let percent = measured.context_percent(brief);
        let level = percent.and_then(context_level);
        let max = brief.manifest.budget.max_brief_tokens;
        let budget = max.map(|max| Budget::new(brief_tokens as u64, max));
        let over = budget.as_ref().is_some_and(|b| b.over);
        let prefix = &measured.prefix;
        StatsReport {
            status: if level.is_some() || measured.volatile_hits > 0 || over {
                "warning"
            } else {
                "ok"
            },
            summary: format!(
                "{}, {}, stable prefix {}",
                crate::numbers::count(measured.items.len() as u64, "item", "items"),
                crate::numbers::count(brief_tokens as u64, "token", "tokens"),
                crate::numbers::count(measured.prefix_tokens as u64, "token", "tokens")
            ),
            brief: brief.manifest.name.clone(),
            tokenizer: brief.manifest.tokenizer.to_string(),
            items: measured
                .items
                .iter()
                .map(|f| ItemRow {
                    id: f.item.id.clone(),
                    kind: f.item.kind,
                    tier: f.item.tier,
                    policy: f.item.policy,
                    bytes: f.bytes,
                    tokens: f.tokens,
                    tokens_compacted: f.tokens_compacted,
                    share: round(Measured::share(f.tokens_compacted, total_compacted), 1),
                    share_exact: Measured::share(f.tokens_compacted, total_compacted),
                })
                .collect(),
            total: Total {
                bytes: measured.total_bytes(),
                tokens: measured.total_tokens(),
                tokens_compacted: total_compacted,
                brief_tokens,
                max_brief_tokens: max,
            },
            prefix: PrefixFigures {
                hash: prefix.hashes.prefix.clone(),
                tokens: measured.prefix_tokens,
                bytes: prefix.hashes.prefix_bytes(),
            },
            cache: brief
                .manifest
                .model
                .as_ref()
                .zip(measured.cache)
                .map(|(model, facts)| CacheFigures {
                    provider: model.provider.as_str(),
                    model: model.name.clone(),
                    min_cacheable_tokens: facts.min_cacheable_tokens,
                    reaches_minimum: facts.reaches_minimum(measured.prefix_tokens as u64),
                    facts,
                }),
            context: Context {
                tokens: brief_tokens,
                limit: brief.manifest.budget.context_limit,
                percent: percent.map(|p| round(p, 1)),
                level,
                percent_exact: percent,
            },
            volatile_in_static: measured.volatile_hits,
            budget,
            cost_per_1000_turns: measured.cost.map(|c| TurnCost {
                without_caching: round(c.without_caching, 6),
                with_caching: c.with_caching.map(|w| round(w, 6)),
                currency: brief
                    .manifest
                    .pricing
                    .as_ref()
                    .map_or_else(|| "USD".to_string(), |p| p.currency.clone()),
                exact: c,
            }),
        }
    }
}
