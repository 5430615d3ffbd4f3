//! `brief align` over captures of every wire: Responses and Gemini bodies next to Chat
//! Completions and Messages, a JSONL capture mixing them (each wake compared with the
//! previous wake of its own wire), volatile-looking text that never changes (constant, not
//! a warning) and known client markers named in the drift report.

use std::path::{Path, PathBuf};

use crate::harness::field_strs;
use serde_json::{Value, json};

/// A tool whose description carries fixed example times, as a scheduling tool's does.
fn cron_tool_description() -> &'static str {
    "Schedule a prompt. Examples: \"every weekday at 9:00\", \"once at 2:30pm\"."
}

fn openai(turns: &[&str]) -> Value {
    let mut messages = vec![json!({"role": "system", "content": "You plan meetings."})];
    messages.extend(conversation(turns, "content"));
    json!({
        "model": "gpt-test",
        "tools": [{"type": "function", "function": {"name": "cron", "description": cron_tool_description(), "parameters": {"type": "object"}}}],
        "messages": messages,
    })
}

fn responses(turns: &[&str]) -> Value {
    json!({
        "model": "gpt-5-codex",
        "instructions": "You plan meetings.",
        "tools": [{"type": "function", "name": "cron", "description": cron_tool_description(), "parameters": {"type": "object"}, "strict": false}],
        "input": conversation(turns, "content"),
        "prompt_cache_key": "thread-1",
    })
}

fn anthropic(turns: &[&str], system_head: &str) -> Value {
    json!({
        "model": "claude-test",
        "max_tokens": 100,
        "system": [
            {"type": "text", "text": system_head},
            {"type": "text", "text": "You plan meetings.", "cache_control": {"type": "ephemeral"}},
        ],
        "tools": [{"name": "cron", "description": cron_tool_description(), "input_schema": {"type": "object"}}],
        "messages": conversation(turns, "content"),
    })
}

fn gemini(turns: &[&str]) -> Value {
    let contents: Vec<Value> = turns
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let role = if i % 2 == 0 { "user" } else { "model" };
            json!({"role": role, "parts": [{"text": text}]})
        })
        .collect();
    json!({
        "systemInstruction": {"parts": [{"text": "You plan meetings."}]},
        "tools": [{"functionDeclarations": [{"name": "cron", "description": cron_tool_description(), "parameters": {"type": "object"}}]}],
        "contents": contents,
    })
}

fn conversation(turns: &[&str], field: &str) -> Vec<Value> {
    turns
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let mut message = json!({"role": role});
            message[field] = json!(text);
            message
        })
        .collect()
}

const BILLING: &str = "x-anthropic-billing-header: cc_version=3.0.1.a1b; cc_entrypoint=cli;";

fn jsonl(dir: &Path, name: &str, bodies: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let text: String = bodies.iter().map(|b| format!("{b}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn align(args: &[&str]) -> (Value, i32, String) {
    let output = crate::common::brief()
        .args(["align", "--json"])
        .args(args)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (report, output.status.code().unwrap(), stderr)
}

#[test]
fn a_capture_mixing_all_four_wires_is_quiet_when_each_only_grows() {
    let dir = tempfile::tempdir().unwrap();
    let first = ["Book a slot for Friday."];
    let second = ["Book a slot for Friday.", "Done.", "And Monday."];
    let bodies = [
        openai(&first),
        responses(&first),
        anthropic(&first, BILLING),
        gemini(&first),
        openai(&second),
        responses(&second),
        anthropic(&second, BILLING),
        gemini(&second),
    ];
    let capture = jsonl(dir.path(), "capture.jsonl", &bodies);
    let (report, code, stderr) = align(&[capture.to_str().unwrap()]);
    assert_eq!(code, 0, "{report}\n{stderr}");
    let shapes: Vec<&str> = field_strs(&report["wakes"], "shape");
    assert_eq!(
        shapes,
        [
            "openai",
            "responses",
            "anthropic",
            "gemini",
            "openai",
            "responses",
            "anthropic",
            "gemini"
        ]
    );
    let totals = &report["totals"];
    assert_eq!(
        totals["compared"], 4,
        "each wire's second wake against its first"
    );
    assert_eq!(totals["drifted"], 0);
    assert_eq!(totals["warnings"], 0);
    // The example times in the tool description never change: constant, per wire.
    assert!(totals["constant_values"].as_u64().unwrap() >= 4, "{totals}");
    let first_responses = &report["wakes"][1];
    assert!(
        first_responses["constant_values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["location"] == "/tools/0/description" && c["sample"] == "2:30pm"),
        "{first_responses}"
    );
    assert!(first_responses["parts"]["tools"]["bytes"].as_u64().unwrap() > 0);
    assert_eq!(first_responses["parts"]["system"]["count"], 1);
}

#[test]
fn one_wake_keeps_its_volatile_looking_values_as_warnings() {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in [
        ("responses.json", responses(&["Book a slot."])),
        ("gemini.json", gemini(&["Book a slot."])),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, body.to_string()).unwrap();
        let (report, code, _) = align(&[path.to_str().unwrap()]);
        assert_eq!(code, 1, "{report}");
        let warnings = report["wakes"][0]["warnings"].as_array().unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w["sample"] == "2:30pm" && w["kind"] == "clock_time"),
            "{report}"
        );
    }
}

#[test]
fn changed_instructions_and_system_instruction_are_system_drift_where_they_changed() {
    let dir = tempfile::tempdir().unwrap();
    let mut changed = responses(&["Book a slot.", "Done.", "More."]);
    changed["instructions"] = json!("You plan meetings. Today is Tuesday.");
    let mut gemini_changed = gemini(&["Book a slot.", "Done.", "More."]);
    gemini_changed["systemInstruction"]["parts"][0]["text"] = json!("You plan trips.");
    let capture = jsonl(
        dir.path(),
        "capture.jsonl",
        &[
            responses(&["Book a slot."]),
            gemini(&["Book a slot."]),
            changed,
            gemini_changed,
        ],
    );
    let (report, code, _) = align(&[capture.to_str().unwrap()]);
    assert_eq!(code, 1);
    let wakes = report["wakes"].as_array().unwrap();
    assert_eq!(wakes[2]["drifted_parts"], json!(["system"]));
    assert_eq!(wakes[2]["first_difference"]["pointer"], "/instructions");
    assert_eq!(wakes[3]["drifted_parts"], json!(["system"]));
    assert_eq!(
        wakes[3]["first_difference"]["pointer"],
        "/systemInstruction/parts/0"
    );
}

#[test]
fn claude_codes_billing_block_is_named_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let other = BILLING.replace("a1b", "9f2");
    let capture = jsonl(
        dir.path(),
        "claude.jsonl",
        &[
            anthropic(&["say pong"], BILLING),
            anthropic(&["say hi"], &other),
        ],
    );
    let path = capture.to_str().unwrap();
    let (report, code, _) = align(&["--wakes", path]);
    assert_eq!(code, 1);
    let diff = &report["wakes"][1]["first_difference"];
    assert_eq!(diff["part"], "system");
    assert_eq!(diff["pointer"], "/system/0");
    assert_eq!(diff["client_marker"]["client"], "Claude Code", "{diff}");
    assert!(
        diff["client_marker"]["meaning"]
            .as_str()
            .unwrap()
            .contains("conversation")
    );
    let output = crate::common::brief()
        .args(["--color", "never", "align", "--wakes", path])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("Claude Code's cc_version billing block"),
        "{text}"
    );
}

#[test]
fn responses_item_ids_that_change_per_conversation_are_not_drift() {
    // Regression: Codex CLI names each input item with a fresh id in every conversation;
    // align called its identical developer message system drift.
    let dir = tempfile::tempdir().unwrap();
    let with_ids = |conversation: &str| {
        let mut body = responses(&["Book a slot."]);
        body["input"].as_array_mut().unwrap().insert(
            0,
            json!({"type": "message", "role": "developer", "content": "Be terse."}),
        );
        for (i, item) in body["input"].as_array_mut().unwrap().iter_mut().enumerate() {
            item["id"] = json!(format!("msg_{conversation}_{i}"));
        }
        body
    };
    let capture = jsonl(dir.path(), "codex.jsonl", &[with_ids("a1"), with_ids("b2")]);
    let (report, code, _) = align(&[capture.to_str().unwrap()]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["wakes"][1]["drifted_parts"], json!([]));
    assert_eq!(
        report["wakes"][0]["stable_prefix_hash"],
        report["wakes"][1]["stable_prefix_hash"]
    );
    // Content still counts.
    let mut changed = with_ids("c3");
    changed["instructions"] = json!("You plan trips.");
    let capture = jsonl(dir.path(), "codex2.jsonl", &[with_ids("a1"), changed]);
    let (report, code, _) = align(&[capture.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(report["wakes"][1]["drifted_parts"][0], "system");
}
