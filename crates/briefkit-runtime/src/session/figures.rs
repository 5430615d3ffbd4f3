//! A session's figures: tokens per tier, what is left for operations, and the telemetry
//! line Tier 3 ends with (`status`, the gate and every render use them). The line reports
//! a total that includes its own tokens, so it is counted until the figure settles.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Session;
use super::budget::{self, Level};
use super::cache::{self, Cache, Memo};
use crate::error::Result;
use crate::prompt::compose;

/// The figures of one render: tokens per tier and the budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    pub tier1_tokens: u64,
    pub tier2_tokens: u64,
    pub tier3_tokens: u64,
    pub current_context_tokens: u64,
    pub context_limit: u64,
    pub reserved_completion_tokens: u64,
    pub protocol_overhead_tokens: u64,
    pub safety_margin_tokens: u64,
    pub available_operation_tokens: u64,
    pub percent: u64,
    pub level: Level,
    pub telemetry: String,
    /// The whole Tier 3 text: volatile items, telemetry line, advice.
    #[serde(skip)]
    pub tier3: String,
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    #[serde(flatten)]
    pub figures: Figures,
    pub live_entries: u64,
    /// Operations the gate blocked that were not resumed yet.
    pub pending: Vec<String>,
    /// Estimates of tool calls the gate let through whose results are still to come.
    pub reserved_operation_tokens: u64,
    /// The context leaves nothing for operations: the next model call waits for a purge or
    /// a compaction.
    pub over_budget: bool,
    /// Live results appended over the budget (kept whole).
    pub over_budget_entries: Vec<String>,
    /// Live tool calls waiting for their result.
    pub open_calls: Vec<String>,
}

impl Session {
    fn tier3_text(volatile: &str, current: u64, limit: u64) -> String {
        let level = Level::of(current, limit);
        let mut parts = vec![];
        if !volatile.is_empty() {
            parts.push(volatile.to_string());
        }
        let mut status = budget::telemetry_line(current, limit);
        if let Some(advice) = level.advice() {
            status.push('\n');
            status.push_str(advice);
        }
        parts.push(status);
        parts.join("\n\n")
    }

    /// Tokens of Tier 1 as counted for the budget: the static text and the tools' JSON.
    pub(super) fn tier1_tokens(&self, memo: &mut Memo) -> u64 {
        memo.count(self.encoding, &self.prefix.static_system)
            + self
                .prefix
                .examples
                .iter()
                .map(|m| memo.count(self.encoding, &m.content))
                .sum::<u64>()
            + memo.count(self.encoding, &compose::tools_json(&self.tools))
    }

    /// The figures for a Tier 2 of `tier2_tokens`. The telemetry line reports a total that
    /// includes its own tokens, found by counting until the figure stops changing.
    pub(super) fn figures_with(
        &self,
        tier2_tokens: u64,
        vars: &BTreeMap<String, String>,
        memo: &mut Memo,
    ) -> Result<Figures> {
        let volatile = self.volatile_text(&self.vars(vars))?;
        let limit = self.config.context_limit;
        let tier1 = self.tier1_tokens(memo);
        let mut tier3 = memo.count(self.encoding, &volatile);
        let mut text = String::new();
        for _ in 0..4 {
            text = Self::tier3_text(&volatile, tier1 + tier2_tokens + tier3, limit);
            let counted = memo.count(self.encoding, &text);
            if counted == tier3 {
                break;
            }
            tier3 = counted;
        }
        let current = tier1 + tier2_tokens + tier3;
        let text = if memo.count(self.encoding, &text) == tier3 {
            text
        } else {
            Self::tier3_text(&volatile, current, limit)
        };
        let limits = self.limits();
        Ok(Figures {
            tier1_tokens: tier1,
            tier2_tokens,
            tier3_tokens: tier3,
            current_context_tokens: current,
            context_limit: limit,
            reserved_completion_tokens: limits.reserved_completion_tokens,
            protocol_overhead_tokens: limits.protocol_overhead_tokens,
            safety_margin_tokens: limits.safety_margin_tokens,
            available_operation_tokens: limits.available(current, limits.safety_margin_tokens),
            percent: (current as u128 * 100 / limit as u128) as u64,
            level: Level::of(current, limit),
            telemetry: budget::telemetry_line(current, limit),
            tier3: text,
        })
    }

    /// Figures from the derived cache when it is fresh, else from a replay.
    pub fn status(&self, vars: &BTreeMap<String, String>) -> Result<Status> {
        self.warn_unknown_vars(vars);
        let mut cache = Cache::read(&self.dir)?;
        let summary = match cache.fresh_summary(&self.log_path()).cloned() {
            Some(summary) => summary,
            None => cache::Summary::of(&self.state()?, 0, String::new()),
        };
        let figures = self.figures_with(summary.tier2_tokens, vars, &mut cache.memo)?;
        Ok(Status {
            over_budget: self.limits().over(figures.current_context_tokens),
            figures,
            live_entries: summary.live_entries,
            pending: summary.pending.iter().map(|p| p.id.clone()).collect(),
            reserved_operation_tokens: summary.reserved(),
            over_budget_entries: summary.over_budget.clone(),
            open_calls: summary.flow.open.iter().map(|c| c.id.clone()).collect(),
        })
    }
}
