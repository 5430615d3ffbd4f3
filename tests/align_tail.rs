//! `brief align --volatile-tail N` and `--wakes` on hand-made bodies with a session's
//! layout: system and tools, a conversation that grows append-only, and one trailing
//! volatile message that changes on every render.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{json, run_in};
use crate::harness::{argv, argv_then};

fn system() -> Value {
    json!([{"type": "text", "text": "You are a careful assistant.", "cache_control": {"type": "ephemeral"}}])
}

fn tools() -> Value {
    json!([{"name": "purge", "description": "Drop entries", "input_schema": {"type": "object"}}])
}

fn message(role: &str, text: &str) -> Value {
    json!({"role": role, "content": text})
}

/// A render: the conversation, then the status line as the last message.
fn render(conversation: &[Value], status: &str) -> Value {
    let mut messages = conversation.to_vec();
    messages.push(message("user", status));
    json!({"model": "m", "system": system(), "tools": tools(), "messages": messages})
}

fn write(dir: &Path, name: &str, body: &Value) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, serde_json::to_string(body).unwrap()).unwrap();
    path
}

fn align(dir: &Path, extra: &[&str], files: &[PathBuf]) -> (Value, i32) {
    let mut args = vec!["align".to_string(), "--json".to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    // Relative names, so the report (and its snapshot) does not name a temporary path.
    args.extend(
        files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_in(dir, &args);
    (json(&out), out.status.code().unwrap())
}

fn renders(dir: &Path) -> Vec<PathBuf> {
    let m1 = message("user", "[msg_1] Find the auth errors.");
    let m2 = message("assistant", "[msg_2] Looking.");
    let m3 = message("user", "[msg_3] Only today's.");
    vec![
        write(
            dir,
            "r1.json",
            &render(
                std::slice::from_ref(&m1),
                "Status: Context: 1,000 / 128,000 (1%)",
            ),
        ),
        write(
            dir,
            "r2.json",
            &render(
                &[m1.clone(), m2.clone()],
                "Status: Context: 1,200 / 128,000 (1%)",
            ),
        ),
        write(
            dir,
            "r3.json",
            &render(&[m1, m2, m3], "Status: Context: 1,500 / 128,000 (1%)"),
        ),
    ]
}

#[test]
fn successive_renders_with_a_volatile_tail_of_one_are_no_drift() {
    let dir = tempfile::tempdir().unwrap();
    let files = renders(dir.path());
    let (report, code) = align(dir.path(), &["--volatile-tail", "1"], &files);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["totals"]["drifted"], 0);
    for wake in report["wakes"].as_array().unwrap() {
        let tail = &wake["volatile_tail"];
        assert_eq!(tail["count"], 1);
        assert!(tail["bytes"].as_u64().unwrap() > 30);
        assert_eq!(wake["warnings"], json!([]));
    }
    assert_eq!(report["wakes"][2]["parts"]["messages"]["count"], 3);
    insta::assert_snapshot!(
        "volatile_tail_json",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

#[test]
fn without_the_tail_the_changing_status_line_is_drift() {
    let dir = tempfile::tempdir().unwrap();
    let files = renders(dir.path());
    let (report, code) = align(dir.path(), &[], &files);
    assert_eq!(code, 1);
    assert_eq!(report["wakes"][1]["drifted_parts"], json!(["messages"]));
}

#[test]
fn a_purge_in_the_middle_is_drift_even_with_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let m1 = message("user", "[msg_1] Find the auth errors.");
    let m2 = message("assistant", "[msg_2] Here are 400 lines of logs.");
    let m3 = message("user", "[msg_3] Thanks.");
    let summary = message(
        "user",
        "[msg_4] Summary: the logs showed two expired tokens.",
    );
    let files = vec![
        write(
            dir.path(),
            "a.json",
            &render(&[m1.clone(), m2, m3.clone()], "Status: 90%"),
        ),
        write(
            dir.path(),
            "b.json",
            &render(&[m1, summary, m3], "Status: 40%"),
        ),
    ];
    let (report, code) = align(dir.path(), &["--volatile-tail", "1"], &files);
    assert_eq!(code, 1, "{report:#}");
    let wake = &report["wakes"][1];
    assert_eq!(wake["drifted_parts"], json!(["messages"]));
    assert_eq!(wake["first_difference"]["pointer"], "/messages/1");
    assert_eq!(wake["prefix_changed"], false);
}

#[test]
fn wakes_compare_the_stable_prefix_only() {
    let dir = tempfile::tempdir().unwrap();
    let a = render(&[message("user", "first task")], "s");
    let b = render(&[message("user", "an unrelated task")], "t");
    let files = vec![
        write(dir.path(), "a.json", &a),
        write(dir.path(), "b.json", &b),
    ];
    let (report, code) = align(dir.path(), &["--wakes"], &files);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["wakes"][1]["drifted_parts"], json!([]));
    let (report, code) = align(dir.path(), &[], &files);
    assert_eq!(code, 1);
    assert_eq!(report["wakes"][1]["drifted_parts"], json!(["messages"]));
}

/// Runs `brief ARGS` in `dir` and returns stdout, failing the test on a non-zero exit.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn session_renders_stay_cache_aligned_until_a_purge() {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path();
    let support = format!("{}/briefs/support", env!("CARGO_MANIFEST_DIR"));
    let vars = [
        "--var",
        "date=2026-11-30",
        "--var",
        "customer_name=Ada",
        "--var",
        "plan=Pro",
    ];
    let mut new = argv_then(
        "session new s --brief",
        &[support.as_str(), "--framework-tools"],
    );
    new.extend(vars);
    ok(dir, &new);
    for format in ["openai", "anthropic"] {
        let mut renders = Vec::new();
        for (i, turn) in ["--user", "--assistant", "--user"].iter().enumerate() {
            ok(
                dir,
                &argv_then(
                    "session append s",
                    &[turn, &format!("turn {i} of {format}")],
                ),
            );
            let body = ok(dir, &["session", "render", "s", "--format", format]);
            let name = format!("{format}{i}.json");
            fs::write(dir.join(&name), body).unwrap();
            renders.push(name);
        }
        let mut args: Vec<&str> = vec!["align", "--json", "--volatile-tail", "1"];
        args.extend(renders.iter().map(String::as_str));
        let report: Value = serde_json::from_str(&ok(dir, &args)).unwrap();
        for wake in report["wakes"].as_array().unwrap() {
            assert_eq!(wake["drifted_parts"], json!([]), "{format}: {wake}");
        }
    }
    let before = ok(dir, &["session", "render", "s", "--format", "openai"]);
    fs::write(dir.join("before.json"), before).unwrap();
    ok(
        dir,
        &argv("session purge s --ids msg_1 --summary 'the first turn'"),
    );
    let after = ok(dir, &["session", "render", "s", "--format", "openai"]);
    fs::write(dir.join("after.json"), after).unwrap();
    let out = run_in(
        dir,
        &argv("align --json --volatile-tail 1 before.json after.json"),
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["wakes"][1]["drifted_parts"],
        json!(["messages"]),
        "{report}"
    );
}
