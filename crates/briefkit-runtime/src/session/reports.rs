//! The typed answers of the session operations that have no report of their own in the
//! module that does the work: `new`, `append`, `log`, `show` and a turn. Each holds the
//! data, its status word and its summary ([`Document`]); the CLI adds the human form and
//! prints the document for `--json`, which is what the MCP tools return.

use std::path::PathBuf;

use serde::Serialize;

use super::budget::thousands;
use super::log::Entry;
use super::state::{Removal, State};
use super::turn::TurnReport;
use crate::document::Document;

/// `session new`: the session made and the settings it keeps.
#[derive(Debug, Clone, Serialize)]
pub struct Made {
    pub dir: PathBuf,
    pub brief: PathBuf,
    pub context_limit: u64,
    pub reserved_completion_tokens: u64,
    pub protocol_overhead_tokens: u64,
    pub safety_margin_tokens: u64,
    pub framework_tools: bool,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The brief's name (from its manifest).
    #[serde(skip)]
    pub brief_name: String,
    /// The tools in Tier 1.
    #[serde(skip)]
    pub tools: usize,
}

impl Document for Made {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "session {} for brief {}",
            self.dir.display(),
            self.brief_name
        )
    }
}

/// `session append`: the new entry's visible id.
#[derive(Debug, Clone, Serialize)]
pub struct Appended {
    pub id: String,
    pub kind: &'static str,
    pub tokens: u64,
    /// The entry was kept whole over the budget: the next model call waits for a purge or
    /// a compaction. Only present when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
}

impl Document for Appended {
    fn status(&self) -> &str {
        if self.over_budget {
            "over_budget"
        } else {
            "ok"
        }
    }

    fn summary(&self) -> String {
        let over = if self.over_budget {
            "; it is over the context budget, kept whole: purge or compact before the next model call (`brief session status`)"
        } else {
            ""
        };
        format!(
            "appended {} ({}){over}",
            self.id,
            crate::numbers::count(self.tokens, "token", "tokens")
        )
    }
}

/// `session log`: every entry ever appended, with its state.
#[derive(Debug, Clone, Serialize)]
pub struct LogReport {
    pub entries: Vec<LogEntry>,
    #[serde(skip)]
    pub live: usize,
    #[serde(skip)]
    pub tier2_tokens: u64,
}

/// One line of [`LogReport`].
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub id: String,
    pub kind: &'static str,
    pub tokens: u64,
    /// `live`, `purged` or `compacted`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_budget: Option<bool>,
}

impl LogReport {
    pub fn of(state: &State) -> LogReport {
        let entries = state
            .entries
            .iter()
            .map(|e| LogEntry {
                id: e.id.clone(),
                kind: e.kind.as_str(),
                tokens: e.tokens,
                state: state.entry_state(&e.id),
                source: e.source.clone(),
                over_budget: e.over_budget.then_some(true),
            })
            .collect();
        LogReport {
            entries,
            live: state.live.len(),
            tier2_tokens: state.tier2_tokens,
        }
    }
}

impl Document for LogReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{}, {} live, {} tokens in Tier 2",
            crate::numbers::count(self.entries.len() as u64, "entry", "entries"),
            self.live,
            thousands(self.tier2_tokens)
        )
    }
}

/// `session show`: one entry and the event that removed it from Tier 2.
#[derive(Debug, Clone, Serialize)]
pub struct EntryReport {
    pub entry: Entry,
    pub state: &'static str,
    pub removed_by: Option<Removal>,
}

impl Document for EntryReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{} ({}, {})",
            self.entry.id,
            self.entry.kind.as_str(),
            self.state
        )
    }
}

/// A finished turn: `ok`, or `context_budget_exceeded` when the gate held tool calls back.
impl Document for TurnReport {
    fn status(&self) -> &str {
        if self.blocked.is_empty() {
            "ok"
        } else {
            "context_budget_exceeded"
        }
    }

    fn summary(&self) -> String {
        let r = self;
        let mut ids = Vec::new();
        if let Some(user) = &r.user_id {
            ids.push(user.clone());
        }
        ids.extend(r.appended_ids.iter().cloned());
        let usage = match &r.usage {
            Some(u) => format!(
                "{} input tokens ({} cached), {} output",
                thousands(u.input_tokens),
                u.cached_input_tokens
                    .map_or_else(|| "no cache figure".to_string(), thousands),
                thousands(u.output_tokens)
            ),
            None => "no usage reported".to_string(),
        };
        let calls = r.tool_calls.len();
        let mut text = format!(
            "{}{}: appended {}; {calls} tool call{} to run; {} ({usage})",
            r.operation_id,
            if r.finished_interrupted {
                " (finished after an interruption)"
            } else {
                ""
            },
            if ids.is_empty() {
                "nothing".to_string()
            } else {
                ids.join(", ")
            },
            if calls == 1 { "" } else { "s" },
            r.model,
        );
        if !r.blocked.is_empty() {
            let ids: Vec<&str> = r.blocked.iter().map(|b| b.id.as_str()).collect();
            text.push_str(&format!("; held back by the gate: {}", ids.join(", ")));
        }
        for run in &r.framework {
            text.push_str(&format!("; {} {} {}", run.name, run.id, run.outcome));
        }
        text
    }
}
