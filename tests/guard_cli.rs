//! `brief guard` as operators and CI use it: human report, JSON, exit codes, stdin.

use std::process::Output;

use crate::harness::{assert_exit, assert_stderr_has, assert_stdout_has};
use assert_cmd::Command;
use serde_json::Value;

const ORIGINAL: &str = "fixtures/guard/refunds.md";
const FAITHFUL: &str = "fixtures/guard/refunds.faithful.md";
const LOSSY: &str = "fixtures/guard/refunds.lossy.md";

fn brief(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_brief"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .args(args);
    cmd
}

fn run(args: &[&str]) -> Output {
    match brief(args).output() {
        Ok(output) => output,
        Err(err) => panic!("cannot run brief: {err}"),
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(output: &Output) -> Value {
    match serde_json::from_slice(&output.stdout) {
        Ok(value) => value,
        Err(err) => panic!(
            "stdout is not one JSON document ({err}):\n{}",
            stdout(output)
        ),
    }
}

#[test]
fn a_lossy_rewrite_is_reported_and_exits_1() {
    let output = run(&["--color", "never", "guard", ORIGINAL, LOSSY]);
    assert_exit(&output, 1);
    insta::assert_snapshot!("guard_lossy_human", stdout(&output));
}

#[test]
fn a_faithful_rewrite_is_clean_and_exits_0() {
    let output = run(&["--color", "never", "guard", ORIGINAL, FAITHFUL]);
    assert_exit(&output, 0);
    insta::assert_snapshot!("guard_faithful_human", stdout(&output));
}

#[test]
fn json_lists_each_dropped_and_introduced_fact_with_its_position() {
    let output = run(&["guard", ORIGINAL, LOSSY, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let keys: Vec<&str> = report
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "status",
            "summary",
            "dropped",
            "changed",
            "dropped_instructions",
            "introduced",
            "counts",
            "coverage",
            "context_dropped"
        ]
    );
    assert_eq!(report["status"], "flagged");
    assert_eq!(
        report["summary"],
        "flagged: 3 of 8 facts dropped (1 url, 1 price, 1 number); 1 introduced (1 price)"
    );
    let dropped = &report["dropped"];
    assert_eq!(dropped.as_array().map(Vec::len), Some(3));
    assert_eq!(
        dropped[0],
        serde_json::json!({"kind": "price", "value": "$250.00", "line": 7, "column": 16})
    );
    assert_eq!(dropped[1]["kind"], "number");
    assert_eq!(dropped[1]["value"], "110%");
    assert_eq!(dropped[2]["kind"], "url");
    assert_eq!(
        dropped[2]["value"],
        "https://wiki.northwind.example/refunds/escalation"
    );
    assert_eq!(
        (dropped[2]["line"].as_u64(), dropped[2]["column"].as_u64()),
        (Some(20), Some(1))
    );
    assert_eq!(
        report["introduced"],
        serde_json::json!([{"kind": "price", "value": "$300", "line": 5, "column": 9}])
    );
    assert_eq!(
        report["counts"],
        serde_json::json!({
            "code_block": 1, "inline_code": 1, "url": 1, "email": 1,
            "price": 1, "time": 1, "number": 2
        })
    );
}

#[test]
fn json_of_a_clean_rewrite_says_clean_and_exits_0() {
    let output = run(&["guard", ORIGINAL, FAITHFUL, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    assert_eq!(report["status"], "clean");
    assert_eq!(report["dropped"], serde_json::json!([]));
    assert_eq!(report["changed"], serde_json::json!([]));
    assert_eq!(report["introduced"], serde_json::json!([]));
}

#[test]
fn either_text_may_come_from_stdin() {
    let lossy = std::fs::read_to_string(format!("{}/{LOSSY}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_default();
    let output = brief(&["guard", ORIGINAL, "-", "--json"])
        .write_stdin(lossy)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)["dropped"].as_array().map(Vec::len), Some(3));

    let output = brief(&["--color", "never", "guard", "-", FAITHFUL])
        .write_stdin("Call `issue_refund` at most 2 times.\n")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(1));
    assert_stdout_has(&output, "<stdin>:1:29");
}

#[test]
fn both_texts_from_stdin_is_bad_usage() {
    let output = run(&["guard", "-", "-"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_stderr_has(&output, "both `-`");
}

#[test]
fn a_missing_file_is_bad_input_naming_the_path() {
    let output = run(&[
        "guard",
        ORIGINAL,
        "fixtures/guard/no-such-file.md",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    // Under --json the error is also one JSON object on stdout (the output contract).
    let error: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(error["status"], "error");
    assert_eq!(error["error"]["kind"], "input");
    assert_stderr_has(&output, "fixtures/guard/no-such-file.md: no such file");
}

#[test]
fn a_file_that_is_not_utf8_is_bad_input_with_its_line() {
    let output = run(&["guard", "fixtures/guard/latin1.txt", ORIGINAL]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("fixtures/guard/latin1.txt:1: not UTF-8 text"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn dropped_facts_are_red_when_colour_is_forced() {
    let output = run(&["--color", "always", "guard", ORIGINAL, LOSSY]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("\u{1b}[31"),
        "{:?}",
        stdout(&output)
    );
}

#[test]
fn a_dropped_instruction_is_named_with_its_line_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let original = write(
        "original.md",
        "Be friendly.\nNever promise a delivery date to the customer.\nUse the customer's first name.\n",
    );
    let proposal = write(
        "proposal.md",
        "Be friendly.\nUse the customer's first name.\n",
    );
    let output = run(&["--color", "never", "guard", &original, &proposal]);
    assert_exit(&output, 1);
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "{original}:2:1  instruction  Never promise a delivery date to the customer"
        )),
        "{text}"
    );
    assert!(text.contains("instructions kept: 2 of 3"), "{text}");
    assert!(text.ends_with("flagged: 1 instruction dropped\n"), "{text}");
    let report = json(&run(&["guard", &original, &proposal, "--json"]));
    assert_eq!(
        report["dropped_instructions"],
        serde_json::json!([{
            "text": "Never promise a delivery date to the customer",
            "line": 2,
            "column": 1,
            "items": [],
            "reason": "no counterpart in the proposal (the nearest keeps 18% of its words)",
            "confidence": "high",
            "missing": ["date", "promis", "deliveri"]
        }])
    );
    assert_eq!(report["coverage"]["share"], serde_json::json!(0.667));
}
