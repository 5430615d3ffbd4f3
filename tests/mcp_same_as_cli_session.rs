//! The MCP session tools and their commands are one library operation each
//! (`crate::session::api`): `gate`, `purge`, `compact_context` and `subagent` (finished and
//! waiting, on a loopback model) answer with the text the command prints with `--json`,
//! byte for byte: the documents as printed, the gate's object on its one line. Each pair
//! runs on identical copies of one session, named by the same path.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{brief, copy_dir, stderr, stdout, workspace};
use crate::harness::{Workspace, argv, argv_then, assert_exit, new_session, session};
use crate::loopback::Server;
use crate::loopback::model::{answer, say};
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

/// [`both`], where the command exits 0 and prints each of `says`, and the tool's result is
/// the same bytes.
fn same_after_success(root: &Path, args: &[&str], name: &str, arguments: Value, says: &[&str]) {
    let (exit, printed, tool) = both(root, args, name, arguments);
    assert_eq!(exit, Some(0), "{printed}");
    for said in says {
        assert!(printed.contains(said), "{printed}");
    }
    assert_same_bytes(&printed, &tool);
}

/// The tool's structured content, printed as the command prints it (a document pretty, a
/// gate's answer on one line), is the bytes the command printed, key for key in the same
/// order. Its text is the short form: a document's status and summary (the document is
/// sent once: issue 38); a gate's one-line answer is its own short form.
fn assert_same_bytes(printed: &str, tool: &Value) {
    let document = &tool["structuredContent"];
    let rendered = if printed.starts_with("{\n") {
        serde_json::to_string_pretty(document).unwrap()
    } else {
        serde_json::to_string(document).unwrap()
    };
    assert_eq!(rendered + "\n", printed);
    let text = tool["content"][0]["text"].as_str().unwrap();
    match document["summary"].as_str() {
        Some(summary) => assert_eq!(
            text,
            format!("{}: {summary}", document["status"].as_str().unwrap())
        ),
        None => assert_eq!(text, printed),
    }
}

#[test]
fn mcp_gate_returns_the_line_session_gate_json_prints_byte_for_byte() {
    let ws = Workspace::clinic_session(&["--context-limit", "20000"]);
    let root = ws.root();
    for (estimate, code) in [("100", 0), ("900000", 1)] {
        let (exit, printed, tool) = both(
            root,
            &argv_then(
                "session gate SESSION --estimate",
                &[estimate, "--kind", "tool", "--json"],
            ),
            "gate",
            json!({"estimate": estimate.parse::<u64>().unwrap(), "kind": "tool"}),
        );
        assert_eq!(exit, Some(code), "{printed}");
        assert_eq!(printed.lines().count(), 1, "{printed}");
        assert_same_bytes(&printed, &tool);
    }
}

#[test]
fn mcp_purge_returns_the_document_session_purge_json_prints() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Book Ada on Tuesday.");
    session(root).assistant("Booked for 10:30.");
    same_after_success(
        root,
        &argv("session purge SESSION --ids msg_1 --summary 'Ada: Tuesday 10:30.' --json"),
        "purge",
        json!({"ids": ["msg_1"], "summary": "Ada: Tuesday 10:30."}),
        &["\"removed_ids\""],
    );
}

#[test]
fn mcp_compact_context_returns_the_document_session_compact_json_prints() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Book Ada on 2026-12-01.");
    let state = crate::harness::command::compacted_state();
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
        .args(argv_then(
            "--provider openai --model test-model --base-url",
            &[&base],
        ))
        .output()
        .unwrap();
    assert_exit(&printed, 0);
    fs::remove_dir_all(&session).unwrap();
    fs::rename(&before, &session).unwrap();
    let answers = mcp_with(
        root,
        &argv_then("--provider openai --model test-model --base-url", &[&base]),
        &[("OPENAI_API_KEY", KEY)],
        &[call(
            1,
            "compact_context",
            json!({"session": path, "resume_instruction": "Book it."}),
        )],
    );
    let tool = &answers[0]["result"];
    assert_ne!(tool["isError"], true, "{tool}");
    assert_same_bytes(&stdout(&printed), tool);
    assert_eq!(model.requests().len(), 2);
}

/// A session whose Tier 2 ends with a `delegate_task` call, its model a loopback one.
fn session_with_delegate(root: &Path, model: &Server) {
    let base = format!("{}/v1", model.url());
    new_session(
        root,
        &argv_then(
            "--framework-tools --context-limit 100000 --provider openai --model test-model --base-url",
            &[&base],
        ),
    );
    session(root).user("Find Ada a slot.");
    let goal = json!({"goal": "Find a free slot on 2026-12-01", "constraints": "mornings only"});
    session(root).tool_call("delegate_task", &goal.to_string());
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
    same_after_success(
        root,
        &args,
        "subagent",
        json!({"tool_call_id": "tool_call_2"}),
        &["\"status\": \"waiting\""],
    );

    // Done: the child answers with its envelope at once.
    let ws = workspace("clinic");
    let root = ws.path();
    let done =
        json!({"status": "completed", "summary": "10:30 on 2026-12-01 is free."}).to_string();
    let model = Server::start(vec![say("openai", &done), say("openai", &done)]);
    session_with_delegate(root, &model);
    same_after_success(
        root,
        &args,
        "subagent",
        json!({"tool_call_id": "tool_call_2"}),
        &["\"result_id\": \"tool_res_3\""],
    );
}

#[test]
fn mcp_session_status_text_is_the_bytes_session_status_json_prints() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Book Ada on Tuesday.");
    same_after_success(
        root,
        &["session", "status", "SESSION", "--json"],
        "session_status",
        json!({}),
        &[],
    );
}
