//! The MCP tools and their commands are one library operation each. `compose`: for every format
//! the tool's `output` is the bytes the command prints (a body exactly as sent, not a
//! re-serialisation), and its `prefix_hash` is the one `compose --json` reports for that
//! body's wire. `guard` and the session tools (`session_status`, `gate`, `purge`,
//! `compact_context`, `subagent` finished and waiting): the tool returns the document the
//! command prints with `--json`, key for key in the same order; the gate's one-line object
//! byte for byte.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{brief, copy_dir, json, run_in, stderr, stdout, workspace};
use crate::loopback::Server;
use crate::loopback::model::{answer, say};
use crate::session::{new_session, ok};
use crate::session_mcp::{call, mcp_with};

const KEY: &str = "sk-test-same-bytes-0123456789";

/// Runs the same operation on the same session twice: `brief ARGS` (with `SESSION` in
/// `args` standing for the session's absolute path) on a copy of the session as it is now,
/// then the MCP tool `name` on another copy, so both start from identical bytes and the
/// same path. Returns the command's exit code and stdout, and the tool's result.
fn both(root: &Path, args: &[&str], name: &str, arguments: Value) -> (Option<i32>, String, Value) {
    let session = root.join("s");
    let before = root.join("s.before");
    copy_dir(&session, &before);
    let path = session.to_str().unwrap();
    let args: Vec<&str> = args
        .iter()
        .map(|a| if *a == "SESSION" { path } else { a })
        .collect();
    let printed = brief()
        .current_dir(root)
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .env("OPENAI_API_KEY", KEY)
        .args(&args)
        .output()
        .unwrap();
    fs::remove_dir_all(&session).unwrap();
    fs::rename(&before, &session).unwrap();
    let mut arguments = arguments;
    arguments["session"] = json!(path);
    let answers = mcp_with(
        root,
        &[],
        &[("OPENAI_API_KEY", KEY)],
        &[call(1, name, arguments)],
    );
    let result = answers[0]["result"].clone();
    assert_ne!(
        result["isError"],
        true,
        "{name}: {result}\ncommand: {}",
        stderr(&printed)
    );
    (printed.status.code(), stdout(&printed), result)
}

/// The tool's text is the document the command printed: the same keys in the same order
/// with the same values (the command prints it indented for people).
fn assert_same_document(printed: &str, tool: &Value) {
    let text = tool["content"][0]["text"].as_str().unwrap();
    let printed: Value = serde_json::from_str(printed).unwrap();
    assert_eq!(text, serde_json::to_string(&printed).unwrap());
    assert_eq!(
        serde_json::to_string(&tool["structuredContent"]).unwrap(),
        text
    );
}

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
    let printed: Value =
        serde_json::from_str(&ok(root, &["session", "status", "s", "--json"])).unwrap();
    assert_eq!(printed["status"], "ok");
    assert!(printed["pending_operations"].is_array(), "{printed}");
    assert_eq!(
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&printed).unwrap()
    );
}

#[test]
fn mcp_gate_returns_the_line_session_gate_json_prints_byte_for_byte() {
    let ws = workspace("clinic");
    let root = ws.path();
    new_session(root, &["--context-limit", "20000"]);
    for (estimate, code) in [("100", 0), ("900000", 1)] {
        let (exit, printed, tool) = both(
            root,
            &[
                "session",
                "gate",
                "SESSION",
                "--estimate",
                estimate,
                "--kind",
                "tool",
                "--json",
            ],
            "gate",
            json!({"estimate": estimate.parse::<u64>().unwrap(), "kind": "tool"}),
        );
        assert_eq!(exit, Some(code), "{printed}");
        assert_eq!(
            tool["content"][0]["text"].as_str().unwrap(),
            printed.strip_suffix('\n').unwrap()
        );
    }
}

#[test]
fn mcp_purge_returns_the_document_session_purge_json_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    new_session(root, &[]);
    ok(
        root,
        &["session", "append", "s", "--user", "Book Ada on Tuesday."],
    );
    ok(
        root,
        &["session", "append", "s", "--assistant", "Booked for 10:30."],
    );
    let (exit, printed, tool) = both(
        root,
        &[
            "session",
            "purge",
            "SESSION",
            "--ids",
            "msg_1",
            "--summary",
            "Ada: Tuesday 10:30.",
            "--json",
        ],
        "purge",
        json!({"ids": ["msg_1"], "summary": "Ada: Tuesday 10:30."}),
    );
    assert_eq!(exit, Some(0), "{printed}");
    assert!(printed.contains("\"removed_ids\""), "{printed}");
    assert_same_document(&printed, &tool);
}

#[test]
fn mcp_compact_context_returns_the_document_session_compact_json_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    new_session(root, &[]);
    ok(
        root,
        &[
            "session",
            "append",
            "s",
            "--user",
            "Book Ada on 2026-12-01.",
        ],
    );
    let state = json!({
        "project_summary": "Booking Ada.", "established_context": [], "key_decisions": [],
        "completed_tasks": [], "current_tasks": ["book 2026-12-01"], "blockers": [],
        "affected_files": []
    })
    .to_string();
    let model = Server::start(vec![say("openai", &state), say("openai", &state)]);
    let base = format!("{}/v1", model.url());
    // The tool may name the operator's base URL: the server is started with it.
    let session = root.join("s");
    let before = root.join("s.before");
    copy_dir(&session, &before);
    let path = session.to_str().unwrap();
    let printed = brief()
        .current_dir(root)
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("OPENAI_API_KEY", KEY)
        .args(["session", "compact", path, "--resume", "Book it.", "--json"])
        .args([
            "--provider",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            &base,
        ])
        .output()
        .unwrap();
    assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
    fs::remove_dir_all(&session).unwrap();
    fs::rename(&before, &session).unwrap();
    let answers = mcp_with(
        root,
        &[
            "--provider",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            &base,
        ],
        &[("OPENAI_API_KEY", KEY)],
        &[call(
            1,
            "compact_context",
            json!({"session": path, "resume_instruction": "Book it."}),
        )],
    );
    let tool = &answers[0]["result"];
    assert_ne!(tool["isError"], true, "{tool}");
    assert_same_document(&stdout(&printed), tool);
    assert_eq!(model.requests().len(), 2);
}

/// A session whose Tier 2 ends with a `delegate_task` call, its model a loopback one.
fn session_with_delegate(root: &Path, model: &Server) {
    let base = format!("{}/v1", model.url());
    new_session(
        root,
        &[
            "--framework-tools",
            "--context-limit",
            "100000",
            "--provider",
            "openai",
            "--model",
            "test-model",
            "--base-url",
            &base,
        ],
    );
    ok(
        root,
        &["session", "append", "s", "--user", "Find Ada a slot."],
    );
    let goal = json!({"goal": "Find a free slot on 2026-12-01", "constraints": "mornings only"});
    ok(
        root,
        &[
            "session",
            "append",
            "s",
            "--tool-call",
            "delegate_task",
            "--args",
            &goal.to_string(),
        ],
    );
}

#[test]
fn mcp_subagent_returns_the_document_session_subagent_json_prints_when_done_and_waiting() {
    // Waiting: the child session hands back a call of its own.
    let ws = workspace("clinic");
    let root = ws.path();
    let asks = || {
        answer(
            "openai",
            Some("Checking."),
            &[("find_slot", json!({"day": "2026-12-01"}))],
        )
    };
    let model = Server::start(vec![asks(), asks()]);
    session_with_delegate(root, &model);
    let args = ["session", "subagent", "SESSION", "tool_call_2", "--json"];
    let (exit, printed, tool) = both(
        root,
        &args,
        "subagent",
        json!({"tool_call_id": "tool_call_2"}),
    );
    assert_eq!(exit, Some(0), "{printed}");
    assert!(printed.contains("\"status\": \"waiting\""), "{printed}");
    assert_same_document(&printed, &tool);

    // Done: the child answers with its envelope at once.
    let ws = workspace("clinic");
    let root = ws.path();
    let done =
        json!({"status": "completed", "summary": "10:30 on 2026-12-01 is free."}).to_string();
    let model = Server::start(vec![say("openai", &done), say("openai", &done)]);
    session_with_delegate(root, &model);
    let (exit, printed, tool) = both(
        root,
        &args,
        "subagent",
        json!({"tool_call_id": "tool_call_2"}),
    );
    assert_eq!(exit, Some(0), "{printed}");
    assert!(
        printed.contains("\"result_id\": \"tool_res_3\""),
        "{printed}"
    );
    assert_same_document(&printed, &tool);
}
