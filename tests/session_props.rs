//! Properties of random sessions (through the library, as a Rust orchestrator links it):
//! user and assistant messages, parallel tool calls appended together or one at a time and
//! answered in any order, purges with and without a summary, compactions. Whatever the
//! sequence:
//! - every id is new;
//! - every render the session gives passes its provider's ordering rules (for every wire
//!   the project speaks), and a session with an unanswered call renders for none;
//! - appends keep renders append-only (a message may grow only while the assistant's
//!   answer is appended in pieces).

use std::collections::{BTreeMap, HashSet};

use briefkit::session::render::{self, Format};
use briefkit::session::{NewEntry, NewSession, RenderedBody, Session, flow::Side};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::workspace;
use crate::session::assert_grew;

const WIRES: [Format; 4] = [
    Format::Openai,
    Format::Responses,
    Format::Anthropic,
    Format::Gemini,
];

#[derive(Debug, Clone)]
enum Op {
    User(String),
    Assistant(String),
    /// Tool calls appended one at a time.
    Calls(usize),
    /// A model answer: text and parallel calls, appended together.
    Answered(String, usize),
    /// Answer the open call at this index (completion order, not call order).
    Answer(usize, String),
    /// Purge the live entries at these indexes (with their calls or results).
    Purge(Vec<usize>, Option<String>),
    Compact,
}

fn op() -> impl Strategy<Value = Op> {
    let text = "[a-zA-Z0-9\\u{e9}][a-zA-Z0-9 ,.\\n\\u{e9}\\u{4e2d}\"{}]{0,30}";
    prop_oneof![
        3 => text.prop_map(Op::User),
        2 => text.prop_map(Op::Assistant),
        2 => (1usize..4).prop_map(Op::Calls),
        2 => (text, 1usize..4).prop_map(|(t, n)| Op::Answered(t, n)),
        5 => (0usize..4, text).prop_map(|(i, t)| Op::Answer(i, t)),
        2 => (proptest::collection::vec(0usize..12, 1..4), proptest::option::of(text))
            .prop_map(|(ids, s)| Op::Purge(ids, s)),
        1 => Just(Op::Compact),
    ]
}

fn body(session: &Session, format: Format) -> Option<Value> {
    match session.render(format, &BTreeMap::new()) {
        Ok(rendered) => match rendered.body {
            RenderedBody::Json(v) => Some(v),
            RenderedBody::Text(_) => unreachable!(),
        },
        Err(_) => None,
    }
}

fn call(name: &str, n: usize) -> NewEntry {
    NewEntry::ToolCall {
        name: name.into(),
        arguments: json!({ "n": n }),
        call_id: None,
    }
}

/// What the op appends, when the session's flow lets it append anything.
fn batches(session: &Session, op: &Op) -> Vec<Vec<NewEntry>> {
    let state = session.state().unwrap();
    let open: Vec<String> = state.flow.open.iter().map(|c| c.id.clone()).collect();
    match op {
        Op::User(t) => vec![vec![NewEntry::User(t.clone())]],
        Op::Assistant(t) => vec![vec![NewEntry::Assistant(t.clone())]],
        Op::Calls(n) => (0..*n).map(|i| vec![call("find_slot", i)]).collect(),
        Op::Answered(t, n) => {
            let mut batch = vec![NewEntry::Assistant(t.clone())];
            batch.extend((0..*n).map(|i| call("lookup", i)));
            vec![batch]
        }
        Op::Answer(i, t) if !open.is_empty() => vec![vec![NewEntry::ToolResult {
            call: open[i % open.len()].clone(),
            text: t.clone(),
            source: "text".into(),
        }]],
        _ => Vec::new(),
    }
}

fn run_op(session: &Session, op: &Op, seen: &mut HashSet<String>) -> Result<(), TestCaseError> {
    match op {
        Op::Purge(picks, summary) => {
            let state = session.state().unwrap();
            let live: Vec<_> = state.tier2().collect();
            if live.is_empty() {
                return Ok(());
            }
            let mut ids: Vec<String> = Vec::new();
            for &p in picks {
                let e = live[p % live.len()];
                ids.push(e.id.clone());
                // A call goes with its result and a result with its call.
                if let Some(call) = &e.call
                    && e.kind == briefkit::session::Kind::ToolResult
                {
                    ids.push(call.clone());
                }
                if let Some(result) = state.live_result_of(&e.id) {
                    ids.push(result.id.clone());
                }
            }
            ids.sort();
            ids.dedup();
            let before = session.state().unwrap().entries.len();
            if let Ok(report) = session.purge(&ids, summary.as_deref())
                && let Some(id) = report.summary_id
            {
                prop_assert!(seen.insert(id));
            } else {
                prop_assert!(session.state().unwrap().entries.len() >= before);
            }
        }
        Op::Compact => {
            let state = session.state().unwrap();
            let expected: Vec<String> = state.tier2().map(|e| e.id.clone()).collect();
            if expected.is_empty() {
                return Ok(());
            }
            let value = json!({"project_summary": "p", "established_context": [], "key_decisions": [], "completed_tasks": [], "current_tasks": [], "blockers": [], "affected_files": []});
            let report = session
                .apply_compaction(&expected, &value, "go on", None)
                .unwrap();
            prop_assert!(seen.insert(report.state_id));
            prop_assert!(seen.insert(report.resume_id));
        }
        _ => {
            for batch in batches(session, op) {
                let tail = session.state().unwrap().flow.side;
                let before: Vec<Option<Value>> = WIRES.iter().map(|&w| body(session, w)).collect();
                let Ok(entries) = session.append(batch) else {
                    // Refused by the flow (a message between a call and its result, an
                    // assistant message first): nothing appended.
                    continue;
                };
                for entry in &entries {
                    prop_assert!(seen.insert(entry.id.clone()), "{} reused", entry.id);
                }
                // A message may grow only while the assistant's answer comes in pieces.
                let grows_a_message = tail == Side::Assistant
                    && entries
                        .first()
                        .is_some_and(|e| briefkit::session::flow::is_assistant(e.kind));
                for (i, &wire) in WIRES.iter().enumerate() {
                    if let (Some(before), Some(after)) = (&before[i], body(session, wire))
                        && !grows_a_message
                    {
                        assert_grew(before, &after);
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn every_render_of_any_session_keeps_its_providers_rules(ops in proptest::collection::vec(op(), 1..24)) {
        let ws = workspace("clinic");
        let mut new = NewSession::new(ws.path().join("clinic"));
        new.vars = [("patient", "Ada"), ("last_visit", "May")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        new.framework_tools = true;
        let session = Session::create(&ws.path().join("s"), new).unwrap();
        let mut seen = HashSet::new();
        for op in &ops {
            run_op(&session, op, &mut seen)?;
            let open = !session.state().unwrap().flow.open.is_empty();
            for wire in WIRES {
                match body(&session, wire) {
                    Some(body) => {
                        prop_assert!(!open, "{wire:?} rendered with an open call");
                        let violations = render::check(wire, &body);
                        prop_assert!(violations.is_empty(), "{wire:?} after {op:?}: {violations:?}\n{body}");
                    }
                    None => prop_assert!(open, "{wire:?} refused to render after {op:?}"),
                }
            }
        }
    }
}
