//! The MCP server's `compact_context` tool (issue 14) over stdio with the real binary: it
//! is listed last in the fixed order and runs the same compaction as `brief session
//! compact`, against a scripted loopback model.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::loopback::Server;
use crate::loopback::model::say;
use crate::session::{new_session, ok};

/// Sends `requests` (JSON-RPC, one per line) after the handshake; returns the answers.
fn mcp(root: &std::path::Path, requests: &[Value]) -> Vec<Value> {
    mcp_with(root, &[], &[], requests)
}

/// [`mcp`] with more arguments for `brief mcp` and more environment variables.
pub fn mcp_with(
    root: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
    requests: &[Value],
) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .arg("mcp")
        .args(args)
        .current_dir(root)
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |value: Value| {
        writeln!(stdin, "{value}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let _ = lines.next();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut answers = Vec::new();
    for request in requests {
        send(request.clone());
        let line = lines.next().unwrap().unwrap();
        answers.push(serde_json::from_str(&line).unwrap());
    }
    drop(stdin);
    let _ = child.wait();
    answers
}

pub fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[test]
fn compact_context_is_served_in_the_fixed_order_and_compacts_through_the_library() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    new_session(root, &["--framework-tools"]);
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
    });
    let server = Server::start(vec![say("openai", &state.to_string())]);
    let base = format!("{}/v1", server.url());
    let answers = mcp(
        root,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            call(2, "compact_context", json!({"session": "s"})),
            call(
                3,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it."}),
            ),
            call(
                4,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it.", "provider": "openai",
                       "model": "test-model", "base_url": base}),
            ),
        ],
    );
    let names: Vec<&str> = answers[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "retrieve",
            "compose",
            "guard",
            "session_status",
            "gate",
            "purge",
            "compact_context",
            "subagent",
            "compress",
            "digest",
            "ccr_put"
        ]
    );
    let missing = &answers[1];
    assert!(
        missing["result"]["isError"] == true || missing.get("error").is_some(),
        "{missing}"
    );
    let no_model = &answers[2]["result"];
    assert_eq!(no_model["isError"], true, "{no_model}");
    assert!(no_model.to_string().contains("model"), "{no_model}");
    let done = &answers[3]["result"]["structuredContent"];
    assert_eq!(done["status"], "ok", "{}", answers[3]);
    assert_eq!(done["state_id"], "msg_2");
    assert_eq!(done["resume_id"], "msg_3");
    let log = ok(root, &["session", "log", "s"]);
    assert!(log.contains("compacted"), "{log}");
    let ledger = std::fs::read_to_string(root.join("ledger.jsonl")).unwrap();
    assert!(ledger.contains(r#""command":"compact""#), "{ledger}");
    assert_eq!(server.requests().len(), 1);
}
