//! The order providers accept, kept as Tier 2 grows: what may be appended next, and where
//! a purge's summary may stand.
//!
//! Every wire groups Tier 2 the same way: a run of consecutive assistant-side entries
//! (assistant text, tool calls) is one assistant message, and the tool calls in it must be
//! answered right after it, before anything else (OpenAI: the `tool` messages follow the
//! assistant message with `tool_calls`; Anthropic: the `tool_result` blocks open the next
//! user turn). So while a call is unanswered only its results, or another call of the same
//! assistant message (parallel calls appended one at a time), may be appended; and Tier 2
//! never opens with an assistant message (Anthropic, Bedrock and Vertex require the first
//! message to be the user's).
//!
//! [`Flow`] is that rule's state: which side the last entry is on and which calls wait for a
//! result. The full [`super::State`] and the derived cache's summary both keep one, so an
//! append is checked without reading the log.

use serde::{Deserialize, Serialize};

use super::log::{Entry, Kind};
use crate::error::{Error, Result, Topic};

/// Which side of the conversation the last Tier 2 entry is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Tier 2 is empty.
    #[default]
    Empty,
    /// A user message, a summary, a compacted state or a resume instruction.
    User,
    /// Assistant text or a tool call: an assistant message that may still grow.
    Assistant,
    /// A tool result.
    Result,
}

/// Whether an entry of this kind is said by the assistant.
pub fn is_assistant(kind: Kind) -> bool {
    matches!(kind, Kind::Assistant | Kind::ToolCall)
}

fn side_of(kind: Kind) -> Side {
    match kind {
        Kind::Assistant | Kind::ToolCall => Side::Assistant,
        Kind::ToolResult => Side::Result,
        _ => Side::User,
    }
}

/// A live tool call without a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenCall {
    pub id: String,
    pub name: String,
}

/// The ordering state of Tier 2.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    pub side: Side,
    /// Live tool calls without a result, in order.
    pub open: Vec<OpenCall>,
}

impl Flow {
    /// The flow of a Tier 2, entry by entry.
    pub fn of<'a>(tier2: impl IntoIterator<Item = &'a Entry>) -> Flow {
        let mut flow = Flow::default();
        for entry in tier2 {
            flow.push(entry);
        }
        flow
    }

    /// Brings the flow forward by one appended entry.
    pub fn push(&mut self, entry: &Entry) {
        match entry.kind {
            Kind::ToolCall => self.open.push(OpenCall {
                id: entry.id.clone(),
                name: entry.name.clone().unwrap_or_default(),
            }),
            Kind::ToolResult => {
                let call = entry.call.as_deref().unwrap_or_default();
                self.open.retain(|c| c.id != call);
            }
            _ => {}
        }
        self.side = side_of(entry.kind);
    }

    pub fn is_open(&self, call: &str) -> bool {
        self.open.iter().any(|c| c.id == call)
    }

    /// Whether an entry of `kind` may come next; a result's call must be open (an unknown,
    /// removed or answered call is refused elsewhere, with the reason).
    pub fn check(&self, kind: Kind) -> Result<()> {
        let waiting = || {
            let first = &self.open[0];
            let more = self.open.len() - 1;
            format!(
                "{} (`{}`){} has no result yet",
                first.id,
                first.name,
                match more {
                    0 => String::new(),
                    1 => " and 1 more call".into(),
                    n => format!(" and {n} more calls"),
                }
            )
        };
        match kind {
            Kind::ToolResult => Ok(()),
            Kind::ToolCall if !self.open.is_empty() && self.side != Side::Assistant => {
                Err(Error::input(format!(
                    "{}, and results of its assistant message have started: a new tool call cannot join that message, and providers refuse anything between a call and its result",
                    waiting()
                ))
                .with_hint(format!("append the result of {} first", self.open[0].id)))
            }
            _ if self.side == Side::Empty && is_assistant(kind) => Err(Error::input(
                "Tier 2 would open with an assistant message; providers require the conversation to open with the user's message",
            )
            .with_hint("append the user's message first")),
            Kind::ToolCall => Ok(()),
            _ if !self.open.is_empty() => Err(Error::input(format!(
                "{}: providers refuse anything between a tool call and its result",
                waiting()
            ))
            .with_hint(format!("append the result of {} first", self.open[0].id))
            .with_topic(Topic::OpenCall {
                call: self.open[0].id.clone(),
            })),
            _ => Ok(()),
        }
    }
}

/// Where a purge's summary stands in `tier2` (the live entries once the purged ones left):
/// the index it goes before. `wanted` is where the first purged entry stood. A summary never
/// splits an assistant message or separates a call from its results: inside such a group it
/// goes after the group; at the end of a group still waiting for results, before it.
pub fn summary_position(tier2: &[&Entry], wanted: usize) -> usize {
    let len = tier2.len();
    let valid = |p: usize| {
        if p < len {
            let here = tier2[p].kind;
            let splits = p > 0 && is_assistant(tier2[p - 1].kind) && is_assistant(here);
            here != Kind::ToolResult && !splits
        } else {
            // At the end: only after a group that has all its results.
            Flow::of(tier2.iter().copied()).open.is_empty()
        }
    };
    let wanted = wanted.min(len);
    if let Some(p) = (wanted..=len).find(|&p| valid(p)) {
        return p;
    }
    // The group at the end still waits for results: before its assistant message.
    let mut p = len;
    while p > 0 && !is_assistant(tier2[p - 1].kind) {
        p -= 1;
    }
    while p > 0 && is_assistant(tier2[p - 1].kind) {
        p -= 1;
    }
    p.min(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, kind: Kind, call: Option<&str>) -> Entry {
        Entry {
            id: id.into(),
            kind,
            text: "x".into(),
            tokens: 1,
            name: (kind == Kind::ToolCall).then(|| "t".to_string()),
            call: call.map(str::to_string),
            group: None,
            source: None,
            op: None,
            over_budget: false,
        }
    }

    #[test]
    fn only_results_or_calls_of_the_same_message_follow_an_open_call() {
        let mut flow = Flow::default();
        assert!(
            flow.check(Kind::Assistant).is_err(),
            "opens with the assistant"
        );
        flow.push(&entry("msg_1", Kind::User, None));
        flow.push(&entry("tool_call_2", Kind::ToolCall, None));
        assert!(flow.check(Kind::ToolCall).is_ok());
        assert!(flow.check(Kind::User).is_err());
        assert!(flow.check(Kind::Assistant).is_err());
        flow.push(&entry("tool_call_3", Kind::ToolCall, None));
        flow.push(&entry("tool_res_4", Kind::ToolResult, Some("tool_call_3")));
        assert!(flow.check(Kind::ToolCall).is_err(), "results have started");
        flow.push(&entry("tool_res_5", Kind::ToolResult, Some("tool_call_2")));
        assert!(flow.open.is_empty());
        assert!(flow.check(Kind::User).is_ok());
        assert!(flow.check(Kind::ToolCall).is_ok());
    }

    #[test]
    fn a_summary_goes_after_the_group_it_would_split() {
        let e = [
            entry("msg_1", Kind::User, None),
            entry("tool_call_2", Kind::ToolCall, None),
            entry("tool_res_5", Kind::ToolResult, Some("tool_call_2")),
            entry("msg_6", Kind::User, None),
        ];
        let tier2: Vec<&Entry> = e.iter().collect();
        // tool_call_3 and its result stood at index 2: the summary goes after tool_res_5.
        assert_eq!(summary_position(&tier2, 2), 3);
        assert_eq!(summary_position(&tier2, 1), 1);
        assert_eq!(summary_position(&tier2, 0), 0);
        let open: Vec<&Entry> = e[..2].iter().collect();
        assert_eq!(summary_position(&open, 2), 1, "before the waiting group");
    }
}
