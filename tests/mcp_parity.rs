//! MCP parity (issue 25.5): the server offers the command line's operations with the same
//! results: compose's bytes as `brief compose` prints them, the gate with `resume` and
//! `high_volume`, `compress` (a proposal only), `digest`, `ccr_put` and `subagent`;
//! relative paths resolved against `--root` (errors name the absolute path tried), and
//! hints a model can act on.

use std::fs;

use serde_json::{Value, json};

use crate::common::{run_in, stdout};
use crate::harness::{Workspace, argv_then, new_session, session};
use crate::loopback::model::say;
use crate::loopback::{Reply, Server};
use crate::session_mcp::{call, mcp_with};

fn structured(answer: &Value) -> &Value {
    &answer["result"]["structuredContent"]
}

fn error_text(answer: &Value) -> String {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn compose_gives_the_bytes_the_command_prints_and_paths_resolve_against_the_root() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let vars = json!({"patient": "Ada", "last_visit": "May"});
    let elsewhere = tempfile::tempdir().unwrap();
    let root_arg = root.display().to_string();
    let answers = mcp_with(
        elsewhere.path(),
        &["--root", &root_arg],
        &[],
        &[
            call(
                1,
                "compose",
                json!({"brief": "clinic", "vars": vars, "format": "openai"}),
            ),
            call(
                2,
                "compose",
                json!({"brief": "clinic", "vars": vars, "format": "anthropic"}),
            ),
            call(3, "compose", json!({"brief": "nowhere"})),
            call(4, "compose", json!({"brief": "clinic"})),
        ],
    );
    for (answer, format) in answers.iter().zip(["openai", "anthropic"]) {
        let cli = run_in(
            root,
            &argv_then(
                "compose clinic --format",
                &[format, "--var", "patient=Ada", "--var", "last_visit=May"],
            ),
        );
        assert_eq!(
            structured(answer)["body"].as_str().unwrap(),
            stdout(&cli).trim_end_matches('\n'),
            "{format}: the same bytes"
        );
    }
    let missing = error_text(&answers[2]);
    assert!(
        missing.contains(&root.join("nowhere").display().to_string()),
        "{missing}"
    );
    let hint = error_text(&answers[3]);
    assert!(hint.contains("`vars`") && !hint.contains("--var"), "{hint}");
}

#[test]
fn the_gate_resumes_and_refuses_high_volume_operations_from_critical() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("hello");
    let answers = mcp_with(
        root,
        &[],
        &[],
        &[
            call(
                1,
                "gate",
                json!({"session": "s", "estimate": 10_000_000, "kind": "tool"}),
            ),
            call(2, "gate", json!({"session": "s", "resume": "op_1"})),
            call(
                3,
                "gate",
                json!({"session": "s", "estimate": 5, "high_volume": true}),
            ),
            call(4, "gate", json!({"session": "s"})),
            call(5, "gate", json!({"session": "s", "resume": "op_9"})),
        ],
    );
    assert_eq!(structured(&answers[0])["status"], "context_budget_exceeded");
    assert_eq!(structured(&answers[1])["pending_operation_id"], "op_1");
    assert_eq!(structured(&answers[2])["status"], "ok");
    assert!(error_text(&answers[3]).contains("resume"));
    let unknown = error_text(&answers[4]);
    assert!(
        unknown.contains("op_9") && !unknown.contains("brief session"),
        "{unknown}"
    );
}

#[test]
fn ccr_put_digest_compress_and_subagent_call_the_library() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let store = root.join("ccr.sqlite");
    let store_env = store.display().to_string();
    // compress: a proposal, the item unchanged.
    let before = fs::read_to_string(root.join("clinic/items/booking.md")).unwrap();
    let model = Server::start(vec![say("openai", "Book slots of 30 or 45 minutes.")]);
    let base = format!("{}/v1", model.url());
    fs::copy(
        crate::common::fixtures().join("digest/wake.yaml"),
        root.join("wake.yaml"),
    )
    .unwrap();
    let site = Server::answering(|_| {
        Reply::status(
            200,
            &[],
            "text/html",
            "<html><body><p>Open 9 to 5.</p></body></html>",
        )
    });
    new_session(root, &["--framework-tools", "--context-limit", "100000"]);
    session(root).user("When are you open?");
    let args = json!({"url": format!("{}/hours", site.url())}).to_string();
    session(root).tool_call("fetch_url", &args);
    let envelope = json!({"status": "completed", "summary": "Open 9 to 5."}).to_string();
    let sub_model = Server::start(vec![say("openai", &envelope)]);
    let sub_base = format!("{}/v1", sub_model.url());
    fs::write(
        root.join("s/session.yaml"),
        format!(
            "{}provider: openai\nmodel: test-model\nbase_url: {sub_base}\n",
            fs::read_to_string(root.join("s/session.yaml")).unwrap()
        ),
    )
    .unwrap();
    let answers = mcp_with(
        root,
        &[],
        &[
            ("BRIEF_CCR_PATH", &store_env),
            ("OPENAI_API_KEY", "sk-test"),
            ("OPENAI_BASE_URL", &base),
            ("BRIEF_FETCH_ALLOW_PRIVATE", "1"),
        ],
        &[
            call(
                1,
                "ccr_put",
                json!({"original": "a long tool output", "compressed": "short", "strategy": "tool_output_head_tail"}),
            ),
            call(2, "digest", json!({"digest": "wake.yaml"})),
            call(
                3,
                "compress",
                json!({"brief": "clinic", "item": "booking", "provider": "openai", "model": "test-model"}),
            ),
            call(
                4,
                "compress",
                json!({"brief": "clinic", "item": "cancellations"}),
            ),
            call(
                5,
                "subagent",
                json!({"session": "s", "tool_call_id": "tool_call_2"}),
            ),
        ],
    );
    let put = structured(&answers[0]);
    assert_eq!(put["status"], "stored", "{}", answers[0]);
    let hash = put["hash"].as_str().unwrap();
    let got = crate::common::brief()
        .env("BRIEF_CCR_PATH", &store)
        .args(["ccr", "get", hash])
        .output()
        .unwrap();
    assert_eq!(stdout(&got), "a long tool output");
    assert!(
        structured(&answers[1])["sections"].is_array(),
        "{}",
        answers[1]
    );
    let proposal = structured(&answers[2]);
    assert!(proposal["proposal_id"].is_string(), "{}", answers[2]);
    assert_eq!(
        fs::read_to_string(root.join("clinic/items/booking.md")).unwrap(),
        before
    );
    assert!(fs::read_dir(root.join("clinic/proposals")).unwrap().count() == 1);
    let refused = error_text(&answers[3]);
    assert!(refused.contains("cancellations"), "{refused}");
    // The sub-agent ran with the session's own model.
    let sub = structured(&answers[4]);
    assert_eq!(sub["result_id"], "tool_res_3", "{}", answers[4]);
    assert_eq!(sub["outcome"], "completed");
    assert!(!site.requests().is_empty());
    assert_eq!(sub_model.requests().len(), 1);
}

#[test]
fn the_session_tools_answer_what_the_commands_print_with_json() {
    // Two identical sessions: one driven through the command line, one through MCP, the
    // same operations in the same order.
    let (cli_ws, mcp_ws) = (
        crate::common::workspace("clinic"),
        crate::common::workspace("clinic"),
    );
    for ws in [&cli_ws, &mcp_ws] {
        new_session(ws.path(), &["--context-limit", "100000"]);
        session(ws.path()).user("hello");
        session(ws.path()).assistant("Hi, Ada.");
    }
    let cli = |args: &[&str]| -> Value {
        let mut all = vec!["session"];
        all.extend_from_slice(args);
        all.push("--json");
        serde_json::from_str(&stdout(&run_in(cli_ws.path(), &all))).unwrap()
    };
    let expected = [
        cli(&["status", "s"]),
        cli(&["gate", "s", "--estimate", "10000000", "--kind", "tool"]),
        cli(&["gate", "s", "--resume", "op_1"]),
        cli(&["gate", "s", "--estimate", "5", "--high-volume"]),
        cli(&["purge", "s", "--ids", "msg_2", "--summary", "greeted Ada"]),
        cli(&["status", "s"]),
    ];
    let answers = mcp_with(
        mcp_ws.path(),
        &[],
        &[],
        &[
            call(1, "session_status", json!({"session": "s"})),
            call(
                2,
                "gate",
                json!({"session": "s", "estimate": 10_000_000, "kind": "tool"}),
            ),
            call(3, "gate", json!({"session": "s", "resume": "op_1"})),
            call(
                4,
                "gate",
                json!({"session": "s", "estimate": 5, "high_volume": true}),
            ),
            call(
                5,
                "purge",
                json!({"session": "s", "ids": ["msg_2"], "summary": "greeted Ada"}),
            ),
            call(6, "session_status", json!({"session": "s"})),
        ],
    );
    for (i, (answer, cli)) in answers.iter().zip(&expected).enumerate() {
        assert_eq!(structured(answer), cli, "call {}", i + 1);
    }
}
