//! Regressions of issue 25.3, named after what broke: tool calls appended one at a time
//! rendered as two assistant messages before their results (OpenAI refuses that), a purge
//! summary landed between a call and its result, and a result could name no call. Each
//! render is also checked against its provider's ordering rules by the validator.

use std::path::Path;

use briefkit::session::render::{self, Format};
use serde_json::Value;

use crate::common::{run_in, stderr};
use crate::harness::{argv, argv_then, assert_stderr_has, new_session, ok, session};

fn render(root: &Path, format: &str) -> Value {
    let body: Value =
        serde_json::from_str(&ok(root, &["session", "render", "s", "--format", format])).unwrap();
    let wire = if format == "openai" {
        Format::Openai
    } else {
        Format::Anthropic
    };
    let violations = render::check(wire, &body);
    assert!(violations.is_empty(), "{format}: {violations:?}\n{body}");
    body
}

/// Roles of the messages, with what each one carries: `assistant[call,call]`,
/// `tool(call)`, `user[tool_result(call),text]`.
fn shape(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap().to_string();
            if let Some(calls) = m["tool_calls"].as_array() {
                let ids: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
                return format!("{role}[{}]", ids.join(","));
            }
            if role == "tool" {
                return format!("tool({})", m["tool_call_id"].as_str().unwrap());
            }
            match m["content"].as_array() {
                Some(blocks) => {
                    let kinds: Vec<String> = blocks
                        .iter()
                        .map(|b| match b["type"].as_str().unwrap() {
                            "tool_use" => format!("tool_use({})", b["id"].as_str().unwrap()),
                            "tool_result" => {
                                format!("tool_result({})", b["tool_use_id"].as_str().unwrap())
                            }
                            other => other.to_string(),
                        })
                        .collect();
                    format!("{role}[{}]", kinds.join(","))
                }
                None => role,
            }
        })
        .collect()
}

fn two_calls_appended_one_at_a_time(root: &Path) {
    new_session(root, &["--context-limit", "100000"]);
    session(root).user("Two slots?");
    for day in ["a", "b"] {
        let args = format!(r#"{{"day":"{day}"}}"#);
        session(root).tool_call("find_slot", &args);
    }
    // Answered in the other order.
    for (call, text) in [("tool_call_3", "b is free"), ("tool_call_2", "a is free")] {
        session(root).tool_result(call, text);
    }
}

#[test]
fn calls_appended_one_at_a_time_render_as_one_assistant_message_before_their_results() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    two_calls_appended_one_at_a_time(root);
    let openai = shape(&render(root, "openai"));
    assert_eq!(
        openai[1..5],
        [
            "user",
            "assistant[tool_call_2,tool_call_3]",
            "tool(tool_call_3)",
            "tool(tool_call_2)"
        ],
        "{openai:?}"
    );
    let anthropic = shape(&render(root, "anthropic"));
    assert_eq!(anthropic[0], "user[text]", "{anthropic:?}");
    assert_eq!(
        anthropic[1],
        "assistant[tool_use(tool_call_2),tool_use(tool_call_3)]"
    );
    assert!(
        anthropic[2].starts_with("user[tool_result(tool_call_3),tool_result(tool_call_2)"),
        "{anthropic:?}"
    );
}

#[test]
fn a_purge_summary_never_lands_between_a_call_and_its_result() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    two_calls_appended_one_at_a_time(root);
    // tool_call_3 and its result stood inside the group: the summary goes after the group.
    ok(
        root,
        &argv("session purge s --ids tool_call_3,tool_res_4 --summary 'b was free'"),
    );
    let openai = shape(&render(root, "openai"));
    assert_eq!(
        openai[1..5],
        [
            "user",
            "assistant[tool_call_2]",
            "tool(tool_call_2)",
            "user"
        ],
        "{openai:?}"
    );
    let anthropic = shape(&render(root, "anthropic"));
    assert_eq!(anthropic[1], "assistant[tool_use(tool_call_2)]");
    assert!(
        anthropic[2].starts_with("user[tool_result(tool_call_2),text"),
        "{anthropic:?}"
    );
}

#[test]
fn a_result_of_no_open_call_is_refused_at_append_time() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    two_calls_appended_one_at_a_time(root);
    let log = std::fs::read(root.join("s/log.jsonl")).unwrap();
    for call in ["tool_call_9", "tool_call_2", "msg_1"] {
        let out = run_in(
            root,
            &argv_then("session append s --tool-result", &[call, "--text", "x"]),
        );
        assert_eq!(out.status.code(), Some(2), "{call}: {}", stderr(&out));
        assert_stderr_has(&out, call);
    }
    assert_eq!(
        std::fs::read(root.join("s/log.jsonl")).unwrap(),
        log,
        "nothing written"
    );
}
