//! Regressions from the adversarial run of the runtime (issue 21): a model's or a client's
//! escape sequences reached the terminal through `session turn`, `session show` and
//! `usage`. The stored log keeps the text as it came; every human rendering shows it
//! through the one sanitiser; `--json` stays exact data.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{Workspace, argv, argv_then, assert_exit, assert_stdout_has};
use crate::loopback::{Reply, Server};

/// A title, a hyperlink whose target is not its text, clear-screen, the alternate screen,
/// an 8-bit CSI, an 8-bit OSC, a cursor move and a right-to-left override.
const HOSTILE: &str = "Booked.\u{1b}]0;owned title\u{7} \u{1b}]8;;http://evil.example/\u{1b}\\click here\u{1b}]8;;\u{1b}\\ \u{1b}[2J\u{1b}[H\u{1b}[?1049h\u{9b}31mred\u{9d}2;t\u{9c} \u{1b}[3A done \u{202e}exe.txt\u{2066}x\u{2069}";

/// What a terminal must never receive from a model or a client.
fn assert_terminal_safe(what: &str, text: &str) {
    for (c, name) in [
        ('\u{1b}', "ESC"),
        ('\u{9b}', "8-bit CSI"),
        ('\u{9d}', "8-bit OSC"),
        ('\u{9c}', "8-bit ST"),
        ('\u{7}', "BEL"),
        ('\u{202e}', "RLO"),
        ('\u{2066}', "LRI"),
        ('\u{2069}', "PDI"),
    ] {
        assert!(
            !text.contains(c),
            "{what}: {name} reached the terminal: {text:?}"
        );
    }
    assert!(
        !text.contains("evil.example"),
        "{what}: the link target: {text:?}"
    );
    assert!(!text.contains("owned title"), "{what}: the title: {text:?}");
}

fn hostile_stream(text: &str, model: &str) -> Reply {
    let body = crate::loopback::model::openai(Some(text), &[], true)
        .replace("\"test-model\"", &serde_json::to_string(model).unwrap());
    Reply::sse(&body, &[])
}

#[test]
fn a_models_escape_sequences_reach_neither_session_turn_nor_session_show() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    let server = Server::start(vec![hostile_stream(
        HOSTILE,
        "gpt\u{1b}]0;model title\u{7}-x\u{202e}",
    )]);
    let out = brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("OPENAI_API_KEY", "sk-test-display-0000")
        .args(argv("session turn s --user 'Book it' --provider openai"))
        .args(argv_then(
            "--model test-model --base-url",
            &[&format!("{}/v1", server.url())],
        ))
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let shown = stdout(&out);
    assert_terminal_safe("turn stdout", &shown);
    assert_terminal_safe("turn stderr", &stderr(&out));
    assert!(shown.contains("click here"), "{shown}");
    assert!(
        shown.contains("<U+202E>exe.txt<U+2066>x<U+2069>"),
        "{shown}"
    );

    // The log keeps the answer as it came.
    let log = fs::read_to_string(root.join("s/log.jsonl")).unwrap();
    let kept: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|e| e["entries"].as_array().cloned().unwrap_or_default())
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    assert!(kept.iter().any(|t| t == HOSTILE), "{kept:?}");
    assert!(
        !log.contains('\u{1b}'),
        "the log holds a raw escape (JSON escapes it)"
    );

    let id = "msg_2";
    let show = run_in(root, &["session", "show", "s", id]);
    assert_exit(&show, 0);
    assert_terminal_safe("session show", &stdout(&show));
    assert_stdout_has(&show, "<U+202E>");
    let exact = json(&run_in(root, &["session", "show", "s", id, "--json"]));
    assert_eq!(exact["entry"]["text"], HOSTILE);

    let rendered = run_in(root, &["session", "render", "s", "--format", "text"]);
    assert_terminal_safe("session render --format text", &stdout(&rendered));
    let body = run_in(root, &["session", "render", "s", "--format", "openai"]);
    assert!(
        stdout(&body).contains("\\u001b]0;owned title"),
        "the request body is exact"
    );
    let listed = run_in(root, &["session", "log", "s"]);
    assert_terminal_safe("session log", &stdout(&listed));
}

fn ledger_line(model: &str, session: &str, brief_name: &str) -> String {
    serde_json::json!({
        "time": "2026-12-03T10:00:00.000Z", "command": "proxy", "provider": "openai",
        "model": model, "brief": brief_name, "brief_dir": null, "item": null,
        "session": session, "prefix_hash": "ab".repeat(32), "input_tokens": 2000,
        "cached_input_tokens": 1000, "cache_write_tokens": null, "output_tokens": 10,
        "latency_ms": 5, "attempts": 1, "status": "ok", "error": null,
    })
    .to_string()
}

fn usage(path: &Path, by: &str, json_out: bool) -> std::process::Output {
    let mut cmd = brief();
    cmd.args(["usage", "--by", by, "--ledger"]).arg(path);
    if json_out {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
}

#[test]
fn client_names_in_the_ledger_reach_usage_tables_without_their_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let model = "gpt-4o\u{1b}]0;owned title\u{7}\u{1b}[2J\u{202e}ini";
    let session = "agent\u{1b}]8;;http://evil.example/\u{1b}\\1\u{1b}]8;;\u{1b}\\\u{9b}31m";
    let brief_name = "clinic\u{1b}[?1049h";
    fs::write(
        &path,
        format!(
            "{}\n{}\n",
            ledger_line(model, session, brief_name),
            ledger_line("plain-model", "plain-session", "plain")
        ),
    )
    .unwrap();
    for by in ["model", "session", "brief", "prefix"] {
        let out = usage(&path, by, false);
        assert_eq!(out.status.code(), Some(0), "{by}: {}", stderr(&out));
        assert_terminal_safe(&format!("usage --by {by}"), &stdout(&out));
        assert_terminal_safe(&format!("usage --by {by} (stderr)"), &stderr(&out));
    }
    let table = stdout(&usage(&path, "model", false));
    assert!(table.contains("gpt-4o<U+202E>ini"), "{table}");
    // JSON is exact data.
    let exact = json(&usage(&path, "model", true));
    let keys: Vec<&str> = exact["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["key"].as_str())
        .collect();
    assert!(keys.iter().any(|k| k.ends_with(model)), "{keys:?}");
}
