//! What `brief session subagent --json` prints and the MCP `subagent` tool returns: the
//! status word and summary of a finished or waiting run, built once here so the two edges
//! give the same document.

use serde::Serialize;

use super::{DelegateReport, SubagentReport};
use crate::document::Document;
use crate::session::budget::thousands;
use crate::session::turn::PendingCall;

/// A delegated task waiting for the tool calls its child session handed back.
#[derive(Debug, Clone, Serialize)]
pub struct SubagentWaiting {
    /// The sub-agent's call in the parent session (`tool_call_N`).
    pub call: String,
    pub delegate: DelegateReport,
    /// The child's calls to run and answer in its own session.
    pub tool_calls: Vec<PendingCall>,
}

impl Document for SubagentWaiting {
    fn status(&self) -> &str {
        "waiting"
    }

    fn summary(&self) -> String {
        let n = self.tool_calls.len();
        format!(
            "{}: the delegated task waits for {n} tool call{} in {} (turn {} of at most {})",
            self.call,
            if n == 1 { "" } else { "s" },
            self.delegate.session.display(),
            self.delegate.turns,
            self.delegate.turn_cap
        )
    }
}

impl Document for SubagentReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{} {} ({}): appended {} ({} tokens{}); {} model call{}",
            self.call,
            self.name,
            self.outcome,
            self.result_id,
            thousands(self.tokens),
            if self.over_budget {
                ", over the budget: the next model call waits for a purge or compaction"
            } else {
                ""
            },
            self.model_calls,
            if self.model_calls == 1 { "" } else { "s" }
        )
    }
}
