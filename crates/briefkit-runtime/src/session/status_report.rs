//! `brief session status --json` and the MCP `session_status` tool give one document:
//! `status`, `summary` (the telemetry line), the budget figures, the live entries and the
//! operations the gate blocked. Both take it from [`StatusReport`], so they cannot drift
//! apart.

use serde::{Serialize, Serializer};

use super::{Figures, Status};
use crate::document::Document;

/// The figures after `status` and `summary`.
#[derive(Debug, Serialize)]
pub struct StatusFields<'a> {
    #[serde(flatten)]
    pub figures: &'a Figures,
    pub live_entries: u64,
    /// Operations the gate blocked that were not resumed yet.
    pub pending_operations: &'a [String],
    /// Estimates of tool calls the gate let through whose results are still to come.
    pub reserved_operation_tokens: u64,
    /// The next model call waits for a purge or a compaction.
    pub over_budget: bool,
    /// Live results appended over the budget (kept whole).
    pub over_budget_entries: &'a [String],
    /// Live tool calls waiting for their result.
    pub open_calls: &'a [String],
}

/// What `status` answers: the session's figures. `status` is `over_budget` when the next
/// model call waits for a purge or a compaction, `critical` at the critical level, else
/// `ok` (the level says how full the context is).
#[derive(Debug, Clone)]
pub struct StatusReport {
    pub status: Status,
}

impl Status {
    /// The figures as reports print them after `status` and `summary`.
    pub fn fields(&self) -> StatusFields<'_> {
        StatusFields {
            figures: &self.figures,
            live_entries: self.live_entries,
            pending_operations: &self.pending,
            reserved_operation_tokens: self.reserved_operation_tokens,
            over_budget: self.over_budget,
            over_budget_entries: &self.over_budget_entries,
            open_calls: &self.open_calls,
        }
    }
}

impl Serialize for StatusReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.status.fields().serialize(serializer)
    }
}

impl Document for StatusReport {
    fn status(&self) -> &str {
        if self.status.over_budget {
            "over_budget"
        } else if self.status.figures.level == super::budget::Level::Critical {
            "critical"
        } else {
            "ok"
        }
    }

    fn summary(&self) -> String {
        self.status.figures.telemetry.clone()
    }
}
