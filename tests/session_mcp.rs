//! The MCP server's `compact_context` tool (issue 14) over stdio with the real binary: it
//! is listed last in the fixed order and runs the same compaction as `brief session
//! compact`, against a scripted loopback model.

use std::process::{Command, Stdio};

use crate::harness::command::compacted_state;
use crate::harness::mcp::Mcp;
use serde_json::{Value, json};

use crate::harness::{Workspace, new_session, ok, session};
use crate::loopback::Server;
use crate::loopback::model::say;

/// Starts `brief mcp FLAGS` with `env` and sends `requests` (JSON-RPC, one per line) after
/// the handshake; returns the answers.
pub(crate) fn mcp_with(
    root: &std::path::Path,
    flags: &[&str],
    env: &[(&str, &str)],
    requests: &[Value],
) -> Vec<Value> {
    let mut mcp = Mcp::start(
        Command::new(env!("CARGO_BIN_EXE_brief"))
            .arg("mcp")
            .args(flags)
            .current_dir(root)
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
            .env("BRIEF_RETRY_BASE_MS", "1")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_BASE_URL")
            .envs(env.iter().copied()),
    );
    let answers = requests.iter().map(|request| mcp.ask(request)).collect();
    mcp.finish();
    answers
}

/// Calls one tool of a fresh `brief mcp` in `root` (no flags, no extra environment) and
/// gives its answer.
pub(crate) fn call_tool(root: &std::path::Path, name: &str, arguments: Value) -> Value {
    mcp_with(root, &[], &[], &[call(1, name, arguments)]).remove(0)
}

pub(crate) fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

#[test]
fn compact_context_is_served_in_the_fixed_order_and_compacts_through_the_library() {
    let ws = Workspace::clinic_session(&["--framework-tools"]);
    let root = ws.root();
    session(root).user("Book Ada on 2026-12-01.");
    let state = compacted_state();
    let server = Server::start(vec![say("openai", &state)]);
    let base = format!("{}/v1", server.url());
    let answers = mcp_with(
        root,
        &["--allow-base-url", &base],
        &[],
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
            "ccr_put",
            "session_run",
            "resume",
            "cancel"
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

fn session_with_one_message(root: &std::path::Path) {
    new_session(root, &["--framework-tools"]);
    session(root).user("Book Ada on 2026-12-01.");
}

/// Issue 21, defect 1: a tool call that named its own host received the server's key. The
/// caller's `base_url` is refused now, before any request, and the refusal says how the
/// operator allows one; the session is unchanged.
#[test]
fn mcp_compact_context_never_sends_the_key_to_a_caller_named_base_url() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    session_with_one_message(root);
    let before = std::fs::read(root.join("s/log.jsonl")).unwrap();
    let attacker = Server::start(vec![say("openai", &compacted_state())]);
    let operator = Server::start(vec![say("openai", &compacted_state())]);
    let key = "sk-test-server-SECRET-7f3a";
    let answers = mcp_with(
        root,
        &[],
        &[
            ("OPENAI_API_KEY", key),
            ("OPENAI_BASE_URL", &format!("{}/v1", operator.url())),
        ],
        &[
            call(
                1,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it.", "model": "m",
                       "base_url": format!("{}/v1", attacker.url())}),
            ),
            call(
                2,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it.", "model": "m",
                       "provider": "openai", "base_url": format!("{}/v1/", attacker.url())}),
            ),
        ],
    );
    for answer in &answers {
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{answer}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("refused"), "{text}");
        assert!(text.contains("--allow-base-url"), "{text}");
        assert!(!text.contains(key), "{text}");
    }
    assert!(
        attacker.requests().is_empty(),
        "no request reached the caller's host"
    );
    assert!(
        operator.requests().is_empty(),
        "a refused call makes no request at all"
    );
    assert_eq!(std::fs::read(root.join("s/log.jsonl")).unwrap(), before);
}

/// Without a caller `base_url` the key goes where the operator pointed the server; a caller
/// naming that same base URL is not redirecting anything and is served too.
#[test]
fn mcp_compact_context_sends_the_key_only_to_the_operators_base_url() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    session_with_one_message(root);
    let operator = Server::start(vec![
        say("openai", &compacted_state()),
        say("openai", &compacted_state()),
    ]);
    let key = "sk-test-server-SECRET-7f3a";
    let base = format!("{}/v1", operator.url());
    let answers = mcp_with(
        root,
        &["--model", "m"],
        &[("OPENAI_API_KEY", key), ("OPENAI_BASE_URL", &base)],
        &[
            call(
                1,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it."}),
            ),
            call(
                2,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Go on.", "base_url": base}),
            ),
        ],
    );
    for answer in &answers {
        assert_eq!(
            answer["result"]["structuredContent"]["status"], "ok",
            "{answer}"
        );
    }
    let requests = operator.requests();
    assert_eq!(requests.len(), 2);
    for request in requests {
        assert_eq!(
            request.header("authorization").as_deref(),
            Some(format!("Bearer {key}").as_str())
        );
    }
}

/// An allow-listed base URL is the operator's decision: the key goes there.
#[test]
fn mcp_allow_base_url_lets_a_tool_call_name_that_host() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    session_with_one_message(root);
    let allowed = Server::start(vec![say("openai", &compacted_state())]);
    let other = Server::start(vec![]);
    let key = "sk-test-server-SECRET-7f3a";
    let base = format!("{}/v1", allowed.url());
    let answers = mcp_with(
        root,
        &[
            "--allow-base-url",
            &base,
            "--allow-base-url",
            "https://gateway.example/v1",
        ],
        &[("OPENAI_API_KEY", key)],
        &[
            call(
                1,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it.", "model": "m",
                       "base_url": format!("{}/v1", other.url())}),
            ),
            call(
                2,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Book it.", "model": "m",
                       "base_url": base}),
            ),
        ],
    );
    assert_eq!(answers[0]["result"]["isError"], true, "{}", answers[0]);
    assert!(other.requests().is_empty());
    assert_eq!(
        answers[1]["result"]["structuredContent"]["status"], "ok",
        "{}",
        answers[1]
    );
    let requests = allowed.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization").as_deref(),
        Some(format!("Bearer {key}").as_str())
    );
}

/// A malformed allow-list entry stops the server before it serves anything (exit 2).
#[test]
fn mcp_refuses_to_start_with_a_bad_allow_base_url() {
    let ws = crate::common::workspace("clinic");
    let out = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(["mcp", "--allow-base-url", "gateway.example:8080"])
        .current_dir(ws.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("gateway.example:8080"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 23: hints are in the words of the edge that shows them. The same errors the
/// command line answers with flags (`--var`, `--ids`, `--model`) come back to an MCP
/// caller naming its own tool arguments.
#[test]
fn mcp_hints_name_tool_arguments_not_command_line_flags() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("Find a slot.");
    let tool_call = r#"{"day": "2026-12-01"}"#;
    session(root).tool_call("find_slot", tool_call);
    session(root).tool_result("tool_call_2", "10:00");
    let answers = mcp_with(
        root,
        &[],
        &[],
        &[
            call(1, "compose", json!({"brief": "clinic"})),
            call(2, "purge", json!({"session": "s", "ids": ["tool_call_2"]})),
            call(
                3,
                "compact_context",
                json!({"session": "s", "resume_instruction": "Go on."}),
            ),
            call(4, "session_status", json!({"session": "nowhere"})),
        ],
    );
    let texts: Vec<String> = answers
        .iter()
        .map(|a| {
            assert_eq!(a["result"]["isError"], true, "{a}");
            a["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        texts[0].contains("`vars`") && texts[0].contains("\"patient\""),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains(r#""ids": ["tool_call_2", "tool_res_3"]"#),
        "{}",
        texts[1]
    );
    assert!(texts[2].contains("`model`"), "{}", texts[2]);
    assert!(texts[3].contains("session directory"), "{}", texts[3]);
    for text in &texts {
        for flag in ["--var", "--ids", "--model", "--brief"] {
            assert!(!text.contains(flag), "{flag} in an MCP hint: {text}");
        }
    }
    // The command line says the same with its flags.
    let out = crate::common::run_in(root, &["compose", "clinic"]);
    assert!(crate::common::stderr(&out).contains("hint: pass --var"));
    let out = crate::common::run_in(root, &["session", "purge", "s", "--ids", "tool_call_2"]);
    assert!(
        crate::common::stderr(&out).contains("purge both: --ids tool_call_2,tool_res_3"),
        "{}",
        crate::common::stderr(&out)
    );
}

/// The session's own errors carry what they are about, and each edge words the advice:
/// a sub-agent call in a session made without the framework's tools, and a purge that
/// names no entry (both reached by MCP tools) say no command-line flag over MCP and the
/// same as before on the command line.
#[test]
fn session_errors_reached_by_mcp_tools_name_no_command_line_flags() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Read the plans page.");
    // A model may name a framework tool this session was made without (`session append
    // --tool-call` refuses that name, issue 36): the call as a turn records it.
    let url = json!({"url": "https://example.com/plans"}).to_string();
    let line = json!({"event": "append", "at": "2026-12-02T06:14:11.625Z", "entries": [
        {"id": "tool_call_2", "kind": "tool_call", "text": url, "tokens": 18, "name": "fetch_url"}
    ]});
    let log = root.join("s/log.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(&format!("{line}\n"));
    std::fs::write(&log, text).unwrap();
    let answers = mcp_with(
        root,
        &[],
        &[],
        &[
            call(
                1,
                "subagent",
                json!({"session": "s", "tool_call_id": "tool_call_2"}),
            ),
            call(2, "purge", json!({"session": "s", "ids": [" "]})),
        ],
    );
    let texts: Vec<&str> = answers
        .iter()
        .map(|a| {
            assert_eq!(a["result"]["isError"], true, "{a}");
            a["result"]["content"][0]["text"].as_str().unwrap()
        })
        .collect();
    assert!(texts[0].contains("framework's tools"), "{}", texts[0]);
    assert!(texts[0].contains("operator"), "{}", texts[0]);
    assert!(texts[1].contains("no entry named to purge"), "{}", texts[1]);
    for text in &texts {
        assert!(!text.contains("--"), "a flag in an MCP answer: {text}");
    }
    let out = crate::common::run_in(root, &["session", "subagent", "s", "tool_call_2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        crate::common::stderr(&out)
            .contains("hint: this session was made without --framework-tools"),
        "{}",
        crate::common::stderr(&out)
    );
    let out = crate::common::run_in(root, &["session", "purge", "s", "--ids", ","]);
    assert_eq!(out.status.code(), Some(2));
    assert!(crate::common::stderr(&out).contains("--ids names no entry"));
}
