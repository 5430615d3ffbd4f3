//! Every entry point that calls a provider resolves its settings the one way, so each takes
//! `--timeout` (the idle timeout) and honours it: the commands, the session commands (their
//! model flags could not take it before) and the MCP server for its `compact_context`.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::mcp::Mcp;
use serde_json::json;

use crate::common::{brief, stderr};
use crate::harness::{Workspace, argv, argv_then, session};
use crate::loopback::{Reply, Server};

/// A server that answers with an event-stream head and then says nothing for 5 s.
fn silent() -> Server {
    Server::answering(|_| Reply::sse("", &[]).hang(Duration::from_secs(5)))
}

const SAID: &str = "no data from the server for 300 ms (idle timeout";

#[test]
fn every_command_that_calls_a_model_takes_timeout() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("Book Ada.");
    let server = silent();
    let base = format!("{}/v1", server.url());
    let commands: [&[&str]; 4] = [
        &["compress", "clinic", "booking"],
        &argv("probe clinic --var patient=Ada --var last_visit=May"),
        &["session", "turn", "s"],
        &["session", "compact", "s", "--resume", "Go on."],
    ];
    for args in commands {
        let started = Instant::now();
        let out = brief()
            .current_dir(root)
            .env("XDG_STATE_HOME", root.join("state"))
            .env("BRIEF_RETRY_BASE_MS", "1")
            .env("BRIEF_TIMEOUT", "20s")
            .args(args)
            .args(["--model", "m", "--base-url", &base, "--timeout", "300ms"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(SAID), "{args:?}: {}", stderr(&out));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} waited for the server instead of its --timeout"
        );
    }
}

#[test]
fn the_mcp_server_takes_timeout_for_its_model_calls() {
    let ws = Workspace::clinic_session(&["--framework-tools"]);
    let root = ws.root();
    session(root).user("Book Ada.");
    let server = silent();
    let base = format!("{}/v1", server.url());
    let mut mcp = Mcp::start(
        Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(argv_then(
                "mcp --model m --base-url",
                &[&base, "--timeout", "300ms"],
            ))
            .current_dir(root)
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
            .env("BRIEF_RETRY_BASE_MS", "1")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL"),
    );
    let started = Instant::now();
    let answer = mcp.ask(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "compact_context",
        "arguments": {"session": "s", "resume_instruction": "Go on."}}}),
    );
    mcp.finish();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(SAID), "{text}");
    assert!(started.elapsed() < Duration::from_secs(5));
}
