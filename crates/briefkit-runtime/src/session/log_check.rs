//! What a line of `log.jsonl` may say, checked on every read of the log (replay included)
//! and on every append.
//!
//! A session directory is shared with the agents that write it, so the log is input like
//! any other. Ids name directories (a delegated task's `subagents/<tool_call_N>/`) and
//! drive the counters new ids come from, and token counts are summed into the budget: an
//! id such as `../../outside/evil_2`, `msg_18446744073709551615` (whose successor would
//! wrap to `msg_0`) or a token count no call takes would send a write elsewhere, repeat
//! an id or make the gate lie. So every id has its visible form (`msg_N`, `tool_call_N`,
//! `tool_res_N`, `op_N`) with N at most [`ID_LIMIT`], and every token figure is at most
//! [`MAX_TOKENS`]; a line that breaks either is damage, named by its line (exit 2), and
//! an append whose ids would pass the limit is refused (the session is full).

use super::log::{Entry, Event, GateRecord, Kind};
use super::state::id_number;
pub use crate::wire::MAX_TOKENS;

/// The highest N of a visible id: 2^53, so every id is also exact in a JSON reader that
/// holds numbers as doubles, and counters plus anything added to them never wrap.
pub const ID_LIMIT: u64 = 1 << 53;

/// Why `event` cannot be a line of a session log, if it cannot.
pub fn problem(event: &Event) -> Option<String> {
    match event {
        Event::Append { entries, .. } => entries.iter().find_map(entry_problem),
        Event::Purge {
            ids,
            summary,
            before,
            ..
        } => ids
            .iter()
            .find_map(|id| tier2_problem("a purged id", id))
            .or_else(|| summary.as_ref().and_then(entry_problem))
            .or_else(|| before.as_ref().and_then(|id| tier2_problem("`before`", id))),
        Event::Compact {
            ids, state, resume, ..
        } => ids
            .iter()
            .find_map(|id| tier2_problem("a compacted id", id))
            .or_else(|| entry_problem(state))
            .or_else(|| entry_problem(resume)),
        Event::Gate { record, .. } => gate_problem(record),
    }
}

fn entry_problem(entry: &Entry) -> Option<String> {
    let prefix = format!("{}_", entry.kind.id_prefix());
    if !entry.id.starts_with(&prefix) {
        return Some(format!(
            "the {} entry's id `{}` does not start with `{prefix}`",
            entry.kind.as_str(),
            shown(&entry.id)
        ));
    }
    if let Some(problem) = tier2_problem("an entry's id", &entry.id) {
        return Some(problem);
    }
    if let Some(problem) = tokens_problem("the entry's `tokens`", entry.tokens) {
        return Some(format!("{}: {problem}", entry.id));
    }
    if entry.kind == Kind::ToolResult
        && let Some(call) = &entry.call
        && (!call.starts_with("tool_call_") || tier2_problem("", call).is_some())
    {
        return Some(format!(
            "{}: `call` is `{}`, not a tool_call_N",
            entry.id,
            shown(call)
        ));
    }
    if let Some(group) = &entry.group
        && let Some(problem) = tier2_problem("`group`", group)
    {
        return Some(format!("{}: {problem}", entry.id));
    }
    if let Some(op) = &entry.op
        && let Some(problem) = op_problem(op)
    {
        return Some(format!("{}: {problem}", entry.id));
    }
    None
}

fn gate_problem(record: &GateRecord) -> Option<String> {
    if let Some(problem) = op_problem(&record.op) {
        return Some(problem);
    }
    if let Some(call) = &record.call
        && (!call.starts_with("tool_call_") || tier2_problem("", call).is_some())
    {
        return Some(format!(
            "{}: `call` is `{}`, not a tool_call_N",
            record.op,
            shown(call)
        ));
    }
    [
        ("estimate", record.estimate),
        ("effective_estimate", record.effective_estimate),
        ("current_context_tokens", record.current_context_tokens),
        (
            "available_operation_tokens",
            record.available_operation_tokens,
        ),
    ]
    .into_iter()
    .find_map(|(name, value)| {
        tokens_problem(&format!("`{name}`"), value).map(|p| format!("{}: {p}", record.op))
    })
}

/// Why `id` is not a Tier 2 id within the limit.
fn tier2_problem(what: &str, id: &str) -> Option<String> {
    if !super::state::is_tier2_id(id) {
        return Some(format!(
            "{what} `{}` is not a msg_N, tool_call_N or tool_res_N",
            shown(id)
        ));
    }
    number_problem(id)
}

fn op_problem(op: &str) -> Option<String> {
    let digits = op.strip_prefix("op_").unwrap_or("");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Some(format!("the operation id `{}` is not an op_N", shown(op)));
    }
    number_problem(op)
}

fn number_problem(id: &str) -> Option<String> {
    match id_number(id) {
        Some(n) if n <= ID_LIMIT => None,
        Some(_) | None => Some(format!(
            "the id `{}` is past the highest id a session holds ({})",
            shown(id),
            ID_LIMIT
        )),
    }
}

fn tokens_problem(what: &str, value: u64) -> Option<String> {
    (value > MAX_TOKENS).then(|| {
        format!("{what} ({value}) is more than any context holds (the limit is {MAX_TOKENS})")
    })
}

fn shown(text: &str) -> String {
    crate::text::sanitize::one_line(text, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(id: &str, kind: Kind, tokens: u64) -> Event {
        Event::Append {
            at: "t".into(),
            entries: vec![Entry {
                id: id.into(),
                kind,
                text: String::new(),
                tokens,
                name: None,
                call: None,
                group: None,
                source: None,
                op: None,
                over_budget: false,
            }],
        }
    }

    #[test]
    fn ids_and_counts_are_held_to_their_form_and_limit() {
        assert_eq!(problem(&append("msg_1", Kind::User, 3)), None);
        assert_eq!(problem(&append("tool_call_9", Kind::ToolCall, 3)), None);
        for bad in [
            append("../../outside/evil_2", Kind::ToolCall, 1),
            append("tool_call_01", Kind::ToolCall, 1),
            append("msg_18446744073709551615", Kind::User, 1),
            append("msg_9007199254740993", Kind::User, 1),
            append("msg_1", Kind::ToolCall, 1),
            append("msg_1", Kind::User, u64::MAX),
        ] {
            assert!(problem(&bad).is_some(), "{bad:?}");
        }
        assert_eq!(
            problem(&append(&format!("msg_{ID_LIMIT}"), Kind::User, MAX_TOKENS)),
            None
        );
    }
}
