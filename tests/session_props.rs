//! Property: whatever sequence of appends a session sees, every render's Tier 1 and Tier 2
//! are a prefix of the next one's, and every id is new (through the library, as a Rust
//! orchestrator links it).

use std::collections::{BTreeMap, HashSet};

use briefkit::session::render::Format;
use briefkit::session::{NewEntry, NewSession, RenderedBody, Session};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::workspace;
use crate::session::assert_grew;

#[derive(Debug, Clone)]
enum Op {
    User(String),
    Assistant(String),
    Call(String),
    Answer(String),
    /// A model answer: text and two parallel calls, appended together.
    Answered(String),
}

fn op() -> impl Strategy<Value = Op> {
    let text = "[a-zA-Z0-9\\u{e9}][a-zA-Z0-9 ,.\\n\\u{e9}\\u{4e2d}\"{}]{0,40}";
    prop_oneof![
        text.prop_map(Op::User),
        text.prop_map(Op::Assistant),
        "[a-z_]{1,12}".prop_map(Op::Call),
        text.prop_map(Op::Answer),
        text.prop_map(Op::Answered),
    ]
}

fn body(session: &Session, format: Format) -> Value {
    match session.render(format, &BTreeMap::new()).unwrap().body {
        RenderedBody::Json(v) => v,
        RenderedBody::Text(_) => unreachable!(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn appends_keep_renders_append_only_and_ids_unique(ops in proptest::collection::vec(op(), 1..10)) {
        let ws = workspace("clinic");
        let mut new = NewSession::new(ws.path().join("clinic"));
        new.vars = [("patient", "Ada"), ("last_visit", "May")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        new.framework_tools = true;
        let session = Session::create(&ws.path().join("s"), new).unwrap();
        let mut seen = HashSet::new();
        let mut last_n = 0u64;
        let mut before = (body(&session, Format::Openai), body(&session, Format::Anthropic));
        for op in ops {
            let open: Vec<String> = session.state().unwrap().unanswered_calls().iter().map(|e| e.id.clone()).collect();
            let batch = match op {
                Op::User(t) => vec![NewEntry::User(t)],
                Op::Assistant(t) => vec![NewEntry::Assistant(t)],
                Op::Call(name) => vec![NewEntry::ToolCall { name, arguments: json!({"q": 1}), call_id: None }],
                Op::Answer(t) => match open.first() {
                    Some(call) => vec![NewEntry::ToolResult { call: call.clone(), text: t, source: "text".into() }],
                    None => vec![NewEntry::User(t)],
                },
                Op::Answered(t) => vec![
                    NewEntry::Assistant(t),
                    NewEntry::ToolCall { name: "find_slot".into(), arguments: json!({}), call_id: Some("call_x".into()) },
                    NewEntry::ToolCall { name: "find_slot".into(), arguments: json!({"day": 2}), call_id: Some("call_y".into()) },
                ],
            };
            for entry in session.append(batch).unwrap() {
                prop_assert!(seen.insert(entry.id.clone()), "{} reused", entry.id);
                let n: u64 = entry.id.rsplit('_').next().unwrap().parse().unwrap();
                prop_assert!(n > last_n);
                last_n = n;
            }
            let after = (body(&session, Format::Openai), body(&session, Format::Anthropic));
            assert_grew(&before.0, &after.0);
            assert_grew(&before.1, &after.1);
            before = after;
        }
    }
}
