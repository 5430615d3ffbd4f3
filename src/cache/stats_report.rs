//! `brief stats --json` as a typed report: the figures of [`super::cost::measure`] with the
//! brief's budget, in the order scripts read them (`status` and `summary` first).

use serde::Serialize;

use super::cost::{Measured, context_level};
use crate::brief::Brief;

#[derive(Debug, Serialize)]
pub struct StatsReport<'a> {
    /// `warning` when a context threshold, the brief budget or a volatile value in the
    /// static tier needs attention; else `ok`.
    pub status: &'static str,
    pub summary: String,
    pub brief: &'a str,
    pub tokenizer: String,
    pub items: Vec<ItemRow<'a>>,
    pub total: Total,
    pub prefix: PrefixFigures<'a>,
    pub cache: Option<CacheFigures<'a>>,
    pub context: Context,
    pub volatile_in_static: usize,
    pub budget: Option<Budget>,
    pub cost_per_1000_turns: Option<TurnCost>,
}

#[derive(Debug, Serialize)]
pub struct ItemRow<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: crate::brief::ItemType,
    pub tier: crate::brief::Tier,
    pub policy: crate::brief::Policy,
    pub bytes: usize,
    pub tokens: usize,
    pub tokens_compacted: usize,
    /// Percent of all compacted tokens, one decimal.
    pub share: f64,
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
pub struct PrefixFigures<'a> {
    pub hash: &'a str,
    pub tokens: usize,
    pub bytes: usize,
}

#[derive(Debug, Serialize)]
pub struct CacheFigures<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub min_cacheable_tokens: Option<u64>,
    pub reaches_minimum: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct Context {
    pub tokens: usize,
    pub limit: Option<u64>,
    pub percent: Option<f64>,
    pub level: Option<&'static str>,
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
}

fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

impl<'a> StatsReport<'a> {
    pub fn new(brief: &'a Brief, measured: &'a Measured<'a>) -> Self {
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
                "{} items, {brief_tokens} tokens, stable prefix {} tokens",
                measured.items.len(),
                measured.prefix_tokens
            ),
            brief: &brief.manifest.name,
            tokenizer: brief.manifest.tokenizer.to_string(),
            items: measured
                .items
                .iter()
                .map(|f| ItemRow {
                    id: &f.item.id,
                    kind: f.item.kind,
                    tier: f.item.tier,
                    policy: f.item.policy,
                    bytes: f.bytes,
                    tokens: f.tokens,
                    tokens_compacted: f.tokens_compacted,
                    share: round(Measured::share(f.tokens_compacted, total_compacted), 1),
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
                hash: &prefix.hashes.prefix,
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
                    model: &model.name,
                    min_cacheable_tokens: facts.min_cacheable_tokens,
                    reaches_minimum: facts.reaches_minimum(measured.prefix_tokens as u64),
                }),
            context: Context {
                tokens: brief_tokens,
                limit: brief.manifest.budget.context_limit,
                percent: percent.map(|p| round(p, 1)),
                level,
            },
            volatile_in_static: measured.volatile_hits,
            budget,
            cost_per_1000_turns: measured.cost.map(|c| TurnCost {
                without_caching: round(c.without_caching, 6),
                with_caching: c.with_caching.map(|w| round(w, 6)),
            }),
        }
    }
}
