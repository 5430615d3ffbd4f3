//! `compression_strategy`: the closed set of paths that put entries into the CCR store.
//!
//! The strategy is written by the producer at `put` time and is the only authority on how
//! an entry was made; nothing infers it from what the original looks like. The set is
//! closed and only ever extended by adding names, so every name ever written stays readable.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Stored by hand with `brief ccr put` (its default).
    Manual,
    /// A tool, file or search output cut to its head, tail and error/warning lines.
    ToolOutputHeadTail,
    /// A JSON array crushed to its schema, count, first/last items and field statistics.
    JsonCrush,
    /// A compact summary stands in the digest; the store keeps the full text.
    SummaryBacking,
    /// A verbatim summary stands in the digest; the store keeps the backing detail.
    VerbatimBacking,
    /// A session entry removed by `purge`; the store keeps what was removed.
    SessionPurge,
    /// Session entries replaced by `compact_context`; the store keeps the replaced entries.
    SessionCompact,
}

impl Strategy {
    /// Every strategy, in the order they are documented and listed.
    pub const ALL: [Strategy; 7] = [
        Strategy::Manual,
        Strategy::ToolOutputHeadTail,
        Strategy::JsonCrush,
        Strategy::SummaryBacking,
        Strategy::VerbatimBacking,
        Strategy::SessionPurge,
        Strategy::SessionCompact,
    ];

    /// The name stored in the database, printed and accepted by `--strategy`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Manual => "manual",
            Strategy::ToolOutputHeadTail => "tool_output_head_tail",
            Strategy::JsonCrush => "json_crush",
            Strategy::SummaryBacking => "summary_backing",
            Strategy::VerbatimBacking => "verbatim_backing",
            Strategy::SessionPurge => "session_purge",
            Strategy::SessionCompact => "session_compact",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                Error::input(format!("unknown compression strategy `{s}`"))
                    .with_hint(format!("use one of: {}", names.join(", ")))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>().unwrap(), strategy);
            assert_eq!(
                serde_json::to_value(strategy).unwrap(),
                serde_json::json!(strategy.name())
            );
        }
        assert_eq!("shape".parse::<Strategy>().unwrap_err().exit_code(), 2);
    }
}
