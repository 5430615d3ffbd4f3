//! `brief session status --json` and the MCP `session_status` tool print one document:
//! `status`, `summary` (the telemetry line), the budget figures, the live entries and the
//! operations the gate blocked. Both build it here, so the two cannot drift apart.

use serde::Serialize;

use super::{Figures, Status};

/// The figures after `status` and `summary`.
#[derive(Debug, Serialize)]
pub struct StatusFields<'a> {
    #[serde(flatten)]
    pub figures: &'a Figures,
    pub live_entries: u64,
    /// Operations the gate blocked that were not resumed yet.
    pub pending_operations: &'a [String],
}

/// The whole document.
#[derive(Debug, Serialize)]
pub struct StatusReport<'a> {
    pub status: &'static str,
    pub summary: &'a str,
    #[serde(flatten)]
    pub fields: StatusFields<'a>,
}

impl Status {
    /// The figures as reports print them after `status` and `summary`.
    pub fn fields(&self) -> StatusFields<'_> {
        StatusFields {
            figures: &self.figures,
            live_entries: self.live_entries,
            pending_operations: &self.pending,
        }
    }

    /// The whole document (`status` is always `ok`; the level says how full it is).
    pub fn report(&self) -> StatusReport<'_> {
        StatusReport {
            status: "ok",
            summary: &self.figures.telemetry,
            fields: self.fields(),
        }
    }
}
