//! `brief align` end to end, with request bodies written for these tests.

use std::path::Path;
use std::process::Output;

use crate::harness::assert_stderr_has;
use assert_cmd::Command;
use serde_json::Value;

const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZXNrLWFnZW50IiwiaWF0IjoxNzYyMTU3NzQyfQ.Zm9yLXRlc3RzLW9ubHktbm90LWEtcmVhbC1zaWduYXR1cmU";

fn brief() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_brief"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--color", "never", "align"]);
    cmd
}

fn fixture(name: &str) -> String {
    format!("fixtures/align/{name}.json")
}

fn run(args: &[&str]) -> Output {
    brief().args(args).output().expect("brief runs")
}

fn json(args: &[&str]) -> (Value, i32) {
    let output = brief()
        .arg("--json")
        .args(args)
        .output()
        .expect("brief runs");
    let value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    (value, output.status.code().expect("exit code"))
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8")
}

#[test]
fn a_conversation_that_only_grows_is_not_drift() {
    let files = ["openai-wake-1", "openai-wake-2", "openai-wake-3"].map(fixture);
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let (report, code) = json(&args);
    assert_eq!(code, 0);
    assert_eq!(report["status"], "ok");
    let wakes = report["wakes"].as_array().expect("wakes");
    assert_eq!(wakes.len(), 3);
    assert_eq!(wakes[0]["previous_hash"], Value::Null);
    assert_eq!(wakes[0]["compared_with"], "none");
    for wake in &wakes[1..] {
        assert_eq!(wake["drifted_parts"], serde_json::json!([]));
        assert_eq!(wake["prefix_changed"], false);
        assert_eq!(wake["previous_hash"], wakes[0]["stable_prefix_hash"]);
        assert_eq!(wake["first_difference"], Value::Null);
    }
    assert_eq!(wakes[2]["parts"]["messages"]["count"], 5);
    assert_eq!(report["totals"]["cacheable"], 2);
    assert_eq!(report["totals"]["compared"], 2);

    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!("stable_sequence", stdout(&output));
}

#[test]
fn a_timestamp_at_the_top_of_the_system_prompt_is_system_drift_and_a_warning() {
    let (report, code) = json(&[
        &fixture("openai-wake-2"),
        &fixture("openai-timestamp-in-system"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(report["status"], "failed");
    let wake = &report["wakes"][1];
    assert_eq!(wake["drifted_parts"], serde_json::json!(["system"]));
    assert_eq!(wake["prefix_changed"], true);
    let diff = &wake["first_difference"];
    assert_eq!(diff["part"], "system");
    assert_eq!(diff["pointer"], "/messages/0");
    assert_eq!(diff["offset"], 29);
    assert!(
        diff["current"]
            .as_str()
            .expect("context")
            .contains("Current time")
    );
    let warnings = wake["warnings"].as_array().expect("warnings");
    let timestamp = warnings
        .iter()
        .find(|w| w["kind"] == "timestamp")
        .expect("a timestamp warning");
    assert_eq!(timestamp["location"], "/messages/0/content");
    assert_eq!(timestamp["sample"], "2025-11-03T08:15:42Z");
    assert!(warnings.iter().any(|w| w["kind"] == "current_time_phrase"));
    assert!(
        report["summary"]
            .as_str()
            .expect("summary")
            .contains("broken by system 1")
    );

    let output = run(&[
        &fixture("openai-wake-2"),
        &fixture("openai-timestamp-in-system"),
    ]);
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!("timestamp_in_system", stdout(&output));
}

#[test]
fn reordered_tools_drift_in_tools_only() {
    let (report, code) = json(&[
        &fixture("openai-wake-2"),
        &fixture("openai-tools-reordered"),
    ]);
    assert_eq!(code, 1);
    let wake = &report["wakes"][1];
    assert_eq!(wake["drifted_parts"], serde_json::json!(["tools"]));
    assert_eq!(wake["prefix_changed"], true);
    assert_eq!(wake["first_difference"]["pointer"], "/tools/0");
    assert_eq!(wake["warnings"], serde_json::json!([]));
}

/// Hashing only the system prompt misses this: the cached prefix breaks at the first turn.
#[test]
fn an_edited_first_user_message_drifts_in_messages_only() {
    let (report, code) = json(&[
        &fixture("openai-wake-2"),
        &fixture("openai-first-user-edited"),
    ]);
    assert_eq!(code, 1);
    let wake = &report["wakes"][1];
    assert_eq!(wake["drifted_parts"], serde_json::json!(["messages"]));
    assert_eq!(wake["prefix_changed"], false);
    assert_eq!(wake["previous_hash"], wake["stable_prefix_hash"]);
    let diff = &wake["first_difference"];
    assert_eq!(diff["pointer"], "/messages/1");
    assert!(
        diff["previous"]
            .as_str()
            .expect("context")
            .contains("TB-4471")
    );
    assert!(
        diff["current"]
            .as_str()
            .expect("context")
            .contains("TB-4472")
    );
    assert_eq!(report["totals"]["broken_by_messages"], 1);
}

#[test]
fn a_jwt_in_the_system_is_flagged_and_never_printed_whole() {
    let (report, code) = json(&[&fixture("anthropic-jwt-in-system")]);
    assert_eq!(code, 1);
    let warnings = report["wakes"][0]["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["kind"], "jwt");
    assert_eq!(warnings[0]["location"], "/system/0/text");
    assert_eq!(warnings[0]["sample"], "eyJhbGci…");
    assert!(!report.to_string().contains(&JWT[..20]));

    // The drift context around the token is cut too.
    let output = run(&[
        &fixture("anthropic-wake-1"),
        &fixture("anthropic-jwt-in-system"),
    ]);
    let text = stdout(&output);
    assert!(text.contains("eyJhbGci…"), "{text}");
    assert!(!text.contains(&JWT[..20]), "{text}");
}

#[test]
fn a_sliding_cache_control_marker_in_the_conversation_is_not_drift() {
    let (report, code) = json(&[&fixture("anthropic-wake-1"), &fixture("anthropic-wake-2")]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["wakes"][0]["shape"], "anthropic");
    assert_eq!(report["wakes"][1]["drifted_parts"], serde_json::json!([]));
}

#[test]
fn a_moved_cache_control_marker_in_the_system_is_drift() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut body: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture("anthropic-wake-2")),
        )
        .expect("fixture"),
    )
    .expect("json");
    body["system"][0]
        .as_object_mut()
        .expect("block")
        .remove("cache_control");
    let moved = dir.path().join("moved.json");
    std::fs::write(&moved, body.to_string()).expect("write");
    let (report, code) = json(&[&fixture("anthropic-wake-2"), moved.to_str().expect("utf-8")]);
    assert_eq!(code, 1);
    assert_eq!(
        report["wakes"][1]["drifted_parts"],
        serde_json::json!(["system"])
    );
}

#[test]
fn a_shorter_conversation_is_drift() {
    let (report, code) = json(&[&fixture("openai-wake-3"), &fixture("openai-wake-2")]);
    assert_eq!(code, 1);
    assert_eq!(
        report["wakes"][1]["drifted_parts"],
        serde_json::json!(["messages"])
    );
    assert_eq!(
        report["wakes"][1]["first_difference"]["pointer"],
        "/messages/4"
    );
}

#[test]
fn a_value_is_reported_once_per_run_not_on_every_wake() {
    // The timestamp changes in the second wake: flagged where it appears, once.
    let (report, code) = json(&[
        &fixture("openai-wake-2"),
        &fixture("openai-timestamp-in-system"),
        &fixture("openai-timestamp-in-system"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        report["wakes"][1]["warnings"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(report["wakes"][2]["warnings"], serde_json::json!([]));
    assert_eq!(report["wakes"][2]["drifted_parts"], serde_json::json!([]));
}

#[test]
fn a_volatile_looking_value_identical_in_every_wake_is_constant_not_a_warning() {
    let repeated = fixture("openai-timestamp-in-system");
    let (report, code) = json(&[&repeated, &repeated]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["status"], "ok");
    assert_eq!(report["wakes"][0]["warnings"], serde_json::json!([]));
    let constant = report["wakes"][0]["constant_values"].as_array().unwrap();
    assert_eq!(constant.len(), 2);
    assert!(constant.iter().any(|c| c["kind"] == "timestamp"));
    assert_eq!(report["totals"]["warnings"], 0);
    assert_eq!(report["totals"]["constant_values"], 2);
    // With one wake nothing says it is constant: it stays a warning.
    let (report, code) = json(&[&repeated]);
    assert_eq!(code, 1);
    assert_eq!(report["totals"]["warnings"], 2);
    assert_eq!(report["wakes"][0]["constant_values"], serde_json::json!([]));
}

#[test]
fn state_carries_the_last_wake_across_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("align-state.json");
    let state_arg = state.to_str().expect("utf-8");

    let (first, code) = json(&["--state", state_arg, &fixture("openai-wake-1")]);
    assert_eq!(code, 0);
    assert_eq!(first["wakes"][0]["compared_with"], "none");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("state written"))
            .expect("json");
    assert_eq!(saved["version"], 2);
    assert_eq!(saved["messages"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        saved["stable_prefix_hash"],
        first["wakes"][0]["stable_prefix_hash"]
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");

    let (second, code) = json(&["--state", state_arg, &fixture("openai-wake-2")]);
    assert_eq!(code, 0);
    assert_eq!(second["wakes"][0]["compared_with"], "state_file");
    assert_eq!(
        second["wakes"][0]["previous_hash"],
        first["wakes"][0]["stable_prefix_hash"]
    );
    assert_eq!(second["totals"]["cacheable"], 1);

    let (third, code) = json(&["--state", state_arg, &fixture("openai-tools-reordered")]);
    assert_eq!(code, 1);
    let wake = &third["wakes"][0];
    assert_eq!(wake["drifted_parts"], serde_json::json!(["tools"]));
    assert_eq!(wake["first_difference"]["pointer"], "/tools/0");
    assert_eq!(wake["first_difference"]["offset"], Value::Null);
    // The state now holds the reordered tools: the same body again is clean.
    let (fourth, code) = json(&["--state", state_arg, &fixture("openai-tools-reordered")]);
    assert_eq!(code, 0, "{fourth:#}");
}

#[test]
fn a_corrupt_state_file_is_bad_input_and_is_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state.json");
    for content in [
        "{not json",
        r#"{"version": 7}"#,
        r#"{"version": 1, "stable_prefix_hash": "x"}"#,
    ] {
        std::fs::write(&state, content).expect("write");
        let output = run(&[
            "--state",
            state.to_str().expect("utf-8"),
            &fixture("openai-wake-1"),
        ]);
        assert_eq!(output.status.code(), Some(2), "{content}");
        assert_stderr_has(&output, "state.json");
        assert!(stdout(&output).is_empty());
        assert_eq!(std::fs::read_to_string(&state).expect("read"), content);
    }
}

#[test]
fn a_bad_payload_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"model": "x", "prompt": "hello"}"#).expect("write");
    let output = run(&[
        "--state",
        state.to_str().expect("utf-8"),
        &fixture("openai-wake-1"),
        bad.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "bad.json: no `messages` array (nor a Responses `input` or a Gemini `contents` array)"
        ),
        "{}",
        stderr(&output)
    );
    assert!(!state.exists());

    let output = run(&["fixtures/align/missing.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("missing.json"));
}

#[test]
fn stdin_json_lines_are_wakes_and_a_bad_line_is_named() {
    let read = |name: &str| {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture(name)))
                .expect("fixture");
        serde_json::from_str::<Value>(&text)
            .expect("json")
            .to_string()
    };
    let lines = format!("{}\n\n{}\n", read("openai-wake-1"), read("openai-wake-2"));
    let output = brief()
        .args(["--json", "-"])
        .write_stdin(lines)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(report["wakes"][1]["source"], "<stdin>:3");

    let lines = format!("{}\n[1, 2\n", read("openai-wake-1"));
    let output = brief().arg("-").write_stdin(lines).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert_stderr_has(&output, "<stdin>:2");
}
