//! The MCP tools and their commands are one library operation each. `compose`: for every format
//! the tool's `output` is the bytes the command prints (a body exactly as sent, not a
//! re-serialisation), and its `prefix_hash` is the one `compose --json` reports for that
//! body's wire. `guard` and `session_status`: the tool returns the document the command prints with
//! `--json`.

use std::fs;

use serde_json::json;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::session::{new_session, ok};
use crate::session_mcp::{call, mcp_with};

#[test]
fn mcp_compose_returns_the_bytes_and_hash_the_cli_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    // A model in the manifest goes into the body of its provider's wire only.
    let manifest = root.join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{text}model: {{ provider: anthropic, name: claude-sonnet-4-5 }}\n"),
    )
    .unwrap();
    let vars = ["patient=Ada", "last_visit=May"];
    let formats = ["text", "openai", "anthropic"];
    let requests: Vec<_> = formats
        .iter()
        .enumerate()
        .map(|(i, format)| {
            call(
                i as u64 + 1,
                "compose",
                json!({"brief": "clinic", "format": format, "vars": {"patient": "Ada", "last_visit": "May"}}),
            )
        })
        .collect();
    let answers = mcp_with(root, &[], &[], &requests);
    for (format, answer) in formats.iter().zip(&answers) {
        let tool = &answer["result"]["structuredContent"];
        assert_eq!(tool["status"], "ok", "{format}: {answer}");
        let mut args = vec!["compose", "clinic", "--format", format];
        for var in &vars {
            args.extend(["--var", var]);
        }
        let printed = run_in(root, &args);
        assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
        let printed = stdout(&printed);
        assert_eq!(
            tool["output"].as_str().unwrap(),
            printed.strip_suffix('\n').unwrap(),
            "{format}: the tool returns the bytes the command prints"
        );
        args.push("--json");
        let report = json(&run_in(root, &args));
        assert_eq!(tool["prefix_hash"], report["prefix"]["hash"], "{format}");
        assert_eq!(report["body"], tool["output"], "{format}");
    }
    // The bodies are the provider's own: the model sits in the anthropic one only.
    let anthropic = answers[2]["result"]["structuredContent"]["output"]
        .as_str()
        .unwrap();
    let openai = answers[1]["result"]["structuredContent"]["output"]
        .as_str()
        .unwrap();
    assert!(
        anthropic.contains("\"model\":\"claude-sonnet-4-5\""),
        "{anthropic}"
    );
    assert!(!openai.contains("claude-sonnet-4-5"), "{openai}");
}

#[test]
fn mcp_guard_returns_the_document_brief_guard_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let original =
        "Refunds within 30 days at https://a.example/refunds. You must not promise more.";
    let proposal = "Refunds within 14 days. You may promise more.";
    fs::write(root.join("original.md"), original).unwrap();
    fs::write(root.join("proposal.md"), proposal).unwrap();
    let answers = mcp_with(
        root,
        &[],
        &[],
        &[call(
            1,
            "guard",
            json!({"original": original, "proposal": proposal}),
        )],
    );
    let tool = &answers[0]["result"]["structuredContent"];
    let printed = run_in(root, &["guard", "original.md", "proposal.md", "--json"]);
    assert_eq!(printed.status.code(), Some(1), "{}", stderr(&printed));
    let report = json(&printed);
    assert_eq!(report["status"], "flagged");
    // The same document, key for key and in the same order.
    assert_eq!(
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&report).unwrap()
    );
}

#[test]
fn mcp_session_status_returns_the_document_session_status_json_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    new_session(root, &[]);
    ok(
        root,
        &["session", "append", "s", "--user", "Book Ada on Tuesday."],
    );
    let answers = mcp_with(
        root,
        &[],
        &[],
        &[call(1, "session_status", json!({"session": "s"}))],
    );
    let tool = &answers[0]["result"]["structuredContent"];
    let printed: serde_json::Value =
        serde_json::from_str(&ok(root, &["session", "status", "s", "--json"])).unwrap();
    assert_eq!(printed["status"], "ok");
    assert!(printed["pending_operations"].is_array(), "{printed}");
    assert_eq!(
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&printed).unwrap()
    );
}
