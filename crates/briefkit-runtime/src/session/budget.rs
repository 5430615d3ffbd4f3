//! The budget: the telemetry line of Tier 3, its pressure levels, and the gate that every
//! operation passes before it starts.
//!
//! `available = context_limit - current - reserved_completion - protocol_overhead -
//! safety_margin`. From 90% a tool or sub-agent estimate is multiplied by
//! [`CONSERVATIVE_FACTOR`] and the safety margin by [`HIGH_RISK_MARGIN_FACTOR`]: such
//! results are the ones that overshoot. From 95% a high-volume operation is refused
//! whatever it would fit, until the memory was reduced.

use serde::Serialize;

/// How much larger a tool or sub-agent result is assumed to be from 90% on.
pub const CONSERVATIVE_FACTOR: f64 = 1.5;
/// How much larger the safety margin is from 90% on.
pub const HIGH_RISK_MARGIN_FACTOR: u64 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Optimal,
    Warning,
    HighRisk,
    Critical,
}

impl Level {
    pub fn of(current: u64, limit: u64) -> Level {
        let (current, limit) = (current as u128 * 100, limit as u128);
        if current >= limit * 95 {
            Level::Critical
        } else if current >= limit * 90 {
            Level::HighRisk
        } else if current >= limit * 80 {
            Level::Warning
        } else {
            Level::Optimal
        }
    }

    /// As the telemetry line shows it.
    pub fn label(self) -> &'static str {
        match self {
            Level::Optimal => "Optimal",
            Level::Warning => "Warning",
            Level::HighRisk => "High risk",
            Level::Critical => "Critical",
        }
    }

    /// As JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Optimal => "optimal",
            Level::Warning => "warning",
            Level::HighRisk => "high_risk",
            Level::Critical => "critical",
        }
    }

    /// What the model is told at this level, after the telemetry line.
    pub fn advice(self) -> Option<&'static str> {
        match self {
            Level::Optimal => None,
            Level::Warning => Some(
                "Warning: the context is filling up. Keep new output lean and consider `purge` for entries you no longer need.",
            ),
            Level::HighRisk => Some(
                "High risk: tool and sub-agent results are now budgeted conservatively with a larger safety margin. Purge finished or bulky entries before large operations.",
            ),
            Level::Critical => Some(
                "Critical: high-volume operations are refused until you call `purge` or `compact_context`.",
            ),
        }
    }
}

pub use crate::numbers::thousands;

/// `Status: Context: 112,000 / 128,000 (87%) | System Status: Warning`.
pub fn telemetry_line(current: u64, limit: u64) -> String {
    let percent = (current as u128 * 100 / limit.max(1) as u128) as u64;
    format!(
        "Status: Context: {} / {} ({percent}%) | System Status: {}",
        thousands(current),
        thousands(limit),
        Level::of(current, limit).label()
    )
}

/// The figures the gate works with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub context_limit: u64,
    pub reserved_completion_tokens: u64,
    pub protocol_overhead_tokens: u64,
    pub safety_margin_tokens: u64,
}

impl Limits {
    /// Whether a context of `current` tokens leaves nothing for operations: what was
    /// appended past the budget must be purged or compacted before the next model call.
    pub fn over(&self, current: u64) -> bool {
        current
            .saturating_add(self.reserved_completion_tokens)
            .saturating_add(self.protocol_overhead_tokens)
            .saturating_add(self.safety_margin_tokens)
            > self.context_limit
    }

    /// The seed's formula, never below zero.
    pub fn available(&self, current: u64, margin: u64) -> u64 {
        self.context_limit
            .saturating_sub(current)
            .saturating_sub(self.reserved_completion_tokens)
            .saturating_sub(self.protocol_overhead_tokens)
            .saturating_sub(margin)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Model,
    Tool,
    Subagent,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Model => "model",
            OpKind::Tool => "tool",
            OpKind::Subagent => "subagent",
        }
    }

    pub fn parse(text: &str) -> Option<OpKind> {
        match text {
            "model" => Some(OpKind::Model),
            "tool" => Some(OpKind::Tool),
            "subagent" => Some(OpKind::Subagent),
            _ => None,
        }
    }
}

/// One gate decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub level: Level,
    /// The estimate as judged (after the conservative factor).
    pub effective_estimate: u64,
    pub available: u64,
    /// Why it was blocked: `insufficient_budget` or `critical_high_volume`.
    pub reason: Option<&'static str>,
}

pub fn decide(
    limits: &Limits,
    current: u64,
    estimate: u64,
    kind: OpKind,
    high_volume: bool,
) -> Decision {
    let level = Level::of(current, limits.context_limit);
    let cautious = level >= Level::HighRisk && kind != OpKind::Model;
    let effective_estimate = if cautious {
        (estimate as f64 * CONSERVATIVE_FACTOR).ceil() as u64
    } else {
        estimate
    };
    let margin = if cautious {
        limits.safety_margin_tokens * HIGH_RISK_MARGIN_FACTOR
    } else {
        limits.safety_margin_tokens
    };
    let available = limits.available(current, margin);
    let reason = if level == Level::Critical && high_volume {
        Some("critical_high_volume")
    } else if effective_estimate > available {
        Some("insufficient_budget")
    } else {
        None
    };
    Decision {
        allowed: reason.is_none(),
        level,
        effective_estimate,
        available,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            context_limit: 128_000,
            reserved_completion_tokens: 4_000,
            protocol_overhead_tokens: 0,
            safety_margin_tokens: 0,
        }
    }

    #[test]
    fn the_seed_example_reads_as_the_seed_shows_it() {
        assert_eq!(
            telemetry_line(112_000, 128_000),
            "Status: Context: 112,000 / 128,000 (87%) | System Status: Warning"
        );
        assert_eq!(Level::of(102_399, 128_000), Level::Optimal);
        assert_eq!(Level::of(102_400, 128_000), Level::Warning);
        assert_eq!(Level::of(115_200, 128_000), Level::HighRisk);
        assert_eq!(Level::of(121_600, 128_000), Level::Critical);
    }

    #[test]
    fn an_estimate_that_does_not_fit_is_blocked_at_any_level() {
        let d = decide(&limits(), 1_000, 200_000, OpKind::Model, false);
        assert!(!d.allowed);
        assert_eq!(d.level, Level::Optimal);
        assert_eq!(d.available, 123_000);
    }

    #[test]
    fn high_risk_is_conservative_for_tools_only_and_critical_blocks_high_volume() {
        let model = decide(&limits(), 116_000, 100, OpKind::Model, false);
        let tool = decide(&limits(), 116_000, 100, OpKind::Tool, false);
        assert_eq!(model.effective_estimate, 100);
        assert_eq!(tool.effective_estimate, 150);
        let blocked = decide(&limits(), 122_000, 1, OpKind::Tool, true);
        assert_eq!(blocked.reason, Some("critical_high_volume"));
        assert!(decide(&limits(), 122_000, 1, OpKind::Tool, false).allowed);
    }
}
