//! The gate before every operation (issue 25.1): a result appended over the budget is kept
//! whole and marked, and holds every model call until a purge or a compaction; a turn
//! gates each tool call it hands back and releases a blocked one with `--resume`.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{Workspace, assert_stderr_has};
use crate::harness::{
    argv, argv_then, assert_exit, command::with_openai, new_session, ok, session,
};
use crate::loopback::Server;
use crate::loopback::model::{answer, say};

/// A tool result of about `tokens` tokens.
fn bulky(tokens: usize) -> String {
    (0..tokens / 2)
        .map(|i| format!("row{i} "))
        .collect::<String>()
}

fn status(root: &Path) -> Value {
    session(root).status()
}

fn turn(root: &Path, server: &Server, extra: &[&str]) -> std::process::Output {
    with_openai(root, server, &["session", "turn", "s"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_result_over_the_budget_is_kept_whole_marked_and_holds_the_next_model_call() {
    // (the result comes from a sub-agent, a compaction rather than a purge frees the room)
    for (via_subagent, compaction) in [(false, false), (true, false), (false, true)] {
        let ws = Workspace::clinic_session(&argv(
            "--framework-tools --context-limit 6000 --reserve 300",
        ));
        let root = ws.root();
        session(root).user("Find me a slot.");
        let (name, args) = if via_subagent {
            ("fetch_url", r#"{"url":"https://example.org/slots"}"#)
        } else {
            ("find_slot", r#"{"day":"2026-12-01"}"#)
        };
        session(root).tool_call(name, args);
        let text = bulky(6000);
        let out = if via_subagent {
            let envelope = json!({"status": "completed", "summary": text});
            fs::write(root.join("env.json"), envelope.to_string()).unwrap();
            run_in(
                root,
                &argv("session append s --subagent tool_call_2 env.json --json"),
            )
        } else {
            fs::write(root.join("big.txt"), &text).unwrap();
            run_in(
                root,
                &argv("session append s --tool-result tool_call_2 --file big.txt --json"),
            )
        };
        assert_exit(&out, 0);
        let log = session(root).log();
        let entry = &log["entries"][2];
        assert_eq!(entry["id"], "tool_res_3");
        assert_eq!(entry["over_budget"], true, "{log}");
        let shown = json(&run_in(
            root,
            &["session", "show", "s", "tool_res_3", "--json"],
        ));
        let kept = shown["entry"]["text"].as_str().unwrap();
        assert!(
            kept.contains(&format!("row{} ", 6000 / 2 - 1)),
            "kept whole"
        );
        let human = ok(root, &["session", "log", "s"]);
        assert!(human.contains("appended over budget"), "{human}");
        let figures = status(root);
        assert_eq!(figures["over_budget"], true);
        assert_eq!(figures["over_budget_entries"], json!(["tool_res_3"]));
        assert!(ok(root, &["session", "status", "s"]).contains("over budget"));

        // The next model call waits: the gate refuses it, the turn never calls the model.
        let out = run_in(root, &["session", "gate", "s", "--estimate", "1"]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(json(&out)["status"], "context_budget_exceeded");
        let server = Server::start(vec![say("openai", "never sent")]);
        let out = turn(root, &server, &["--user", "and?"]);
        assert_exit(&out, 1);
        let blocked = json(&out);
        assert_eq!(blocked["status"], "context_budget_exceeded");
        assert!(
            server.requests().is_empty(),
            "no model call over the budget"
        );

        // A purge or a compaction brings the session back under its limit (the compaction's
        // own model call is not held: it is how the room is made); the blocked turn resumes.
        if compaction {
            let state = json!({
                "project_summary": "Finding a slot.",
                "established_context": ["a slot at 10:30"],
                "key_decisions": [],
                "completed_tasks": ["looked up the slots"],
                "current_tasks": ["offer 10:30"],
                "blockers": [],
                "affected_files": []
            });
            let server = Server::start(vec![say("openai", &state.to_string())]);
            let out = brief()
                .current_dir(root)
                .env("XDG_STATE_HOME", root.join("state"))
                .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
                .args(["session", "compact", "s", "--resume", "Offer the slot."])
                .args(["--provider", "openai", "--model", "test-model"])
                .args(["--base-url", &format!("{}/v1", server.url())])
                .output()
                .unwrap();
            assert_exit(&out, 0);
            assert_eq!(server.requests().len(), 1);
        } else {
            ok(
                root,
                &argv("session purge s --ids tool_call_2,tool_res_3 --summary 'a slot at 10:30'"),
            );
        }
        assert_eq!(status(root)["over_budget"], false);
        let op = blocked["pending_operation_id"]
            .as_str()
            .unwrap()
            .to_string();
        let server = Server::start(vec![say("openai", "10:30 it is.")]);
        let out = turn(root, &server, &["--resume", &op]);
        assert_exit(&out, 0);
        assert!(stdout(&out).contains("10:30 it is."));
    }
}

#[test]
fn a_turn_gates_each_tool_call_it_hands_back_and_resume_releases_a_blocked_one() {
    let ws = Workspace::clinic_session(&argv("--context-limit 100000 --overhead 0 --margin 0"));
    let root = ws.root();
    let available = status(root)["available_operation_tokens"].as_u64().unwrap();
    // One call's estimate fits, two do not: the second is gated with the first spoken for.
    let estimate = (available * 6 / 10).to_string();
    let server = Server::start(vec![answer(
        "openai",
        Some("Checking both."),
        &[
            ("find_slot", json!({"day": "2026-12-01"})),
            ("find_slot", json!({"day": "2026-12-02"})),
        ],
    )]);
    let out = turn(
        root,
        &server,
        &argv_then(
            "--user 'Any slot early December?' --tool-estimate",
            &[&estimate, "--json"],
        ),
    );
    assert_exit(&out, 1);
    let report = json(&out);
    let calls = report["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{report}");
    assert_eq!(calls[0]["id"], "tool_call_3");
    assert!(
        calls[0]["operation_id"]
            .as_str()
            .unwrap()
            .starts_with("op_")
    );
    let blocked = report["blocked"].as_array().unwrap();
    assert_eq!(blocked.len(), 1, "{report}");
    assert_eq!(blocked[0]["id"], "tool_call_4");
    let gate = &blocked[0]["gate"];
    assert_eq!(gate["status"], "context_budget_exceeded");
    assert_eq!(gate["estimated_result_tokens"].to_string(), estimate);
    assert_eq!(gate["required_action"], "purge_or_compact");
    let op = blocked[0]["operation_id"].as_str().unwrap().to_string();
    assert_eq!(gate["pending_operation_id"], op.as_str());
    assert!(
        status(root)["pending_operations"]
            .as_array()
            .unwrap()
            .contains(&json!(op))
    );

    // Human output: the handed-out call as a JSON line, the blocked one as the seed's object.
    // Resuming while nothing was freed blocks again, and hands nothing out.
    let out = turn(root, &server, &["--resume", &op]);
    assert_exit(&out, 1);
    assert_eq!(json(&out)["status"], "context_budget_exceeded");
    assert_stderr_has(&out, "tool_call_4");
    // A new turn waits for both calls.
    let out = turn(root, &server, &["--user", "hello?"]);
    assert_exit(&out, 2);

    // The first call's result arrives (small): its estimate is no longer spoken for.
    session(root).tool_result("tool_call_3", "none");
    // The blocked call was answered with the gate's object (the model reads it); resumed,
    // a new call of the same tool and arguments is handed out.
    assert_eq!(blocked[0]["result_id"], "tool_res_5");
    let out = turn(root, &server, &["--resume", &op]);
    assert_exit(&out, 0);
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["id"], "tool_call_7");
    assert_eq!(line["name"], "find_slot");
    assert_eq!(line["arguments"], json!({"day": "2026-12-02"}));
    assert_eq!(line["operation_id"], op.as_str());
    assert_eq!(server.requests().len(), 1, "resuming a call calls no model");
}

#[test]
fn a_tool_items_result_estimate_is_the_gates_estimate() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let tool = root.join("clinic/items/find_slot.tool.yaml");
    let text = fs::read_to_string(&tool).unwrap();
    fs::write(&tool, format!("{text}result_estimate: 321\n")).unwrap();
    new_session(root, &["--context-limit", "100000"]);
    let server = Server::start(vec![answer(
        "openai",
        None,
        &[("find_slot", json!({"day": "2026-12-01"}))],
    )]);
    let out = turn(
        root,
        &server,
        &["--user", "A slot?", "--tool-estimate", "999", "--json"],
    );
    assert_exit(&out, 0);
    let op = json(&out)["tool_calls"][0]["operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    let log = fs::read_to_string(root.join("s/log.jsonl")).unwrap();
    let gate: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "gate" && e["op"] == op.as_str())
        .unwrap();
    assert_eq!(gate["estimate"], 321);
    assert_eq!(gate["kind"], "tool");
    assert_eq!(gate["call"], "tool_call_2");
}

#[test]
fn from_95_percent_a_turn_holds_back_a_high_volume_tool_call_and_hands_out_the_others() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let tool = root.join("clinic/items/find_slot.tool.yaml");
    let text = fs::read_to_string(&tool).unwrap();
    fs::write(
        &tool,
        format!("{text}result_estimate: 5\nhigh_volume: true\n"),
    )
    .unwrap();
    // A second tool, of ordinary volume.
    fs::write(
        root.join("clinic/items/book_slot.tool.yaml"),
        text.replace("name: find_slot", "name: book_slot"),
    )
    .unwrap();
    let manifest = root.join("clinic/brief.yaml");
    let yaml = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        yaml.replace("find_slot,", "find_slot, book_slot,"),
    )
    .unwrap();
    // A session whose context stands at about 96% of its limit: measured on a twin with
    // room to spare, then made with the limit that puts it there.
    let filler = bulky(4000);
    let user = ["session", "append", "s", "--user", filler.as_str()];
    let flags = ["--overhead", "0", "--margin", "0", "--reserve", "0"];
    let twin = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&root.join("clinic"), &twin.path().join("clinic"));
    new_session(
        twin.path(),
        &[&["--context-limit", "100000"][..], &flags].concat(),
    );
    ok(twin.path(), &user);
    let current = status(twin.path())["current_context_tokens"]
        .as_u64()
        .unwrap();
    let limit = (current * 100).div_ceil(96).to_string();
    new_session(
        root,
        &[&["--context-limit", limit.as_str()][..], &flags].concat(),
    );
    ok(root, &user);
    assert_eq!(status(root)["level"], "critical");
    let server = Server::start(vec![answer(
        "openai",
        None,
        &[
            ("find_slot", json!({"day": "2026-12-01"})),
            ("book_slot", json!({"day": "2026-12-01"})),
        ],
    )]);
    let out = turn(
        root,
        &server,
        &argv("--user 'Any slot?' --max-tokens 20 --tool-estimate 5 --json"),
    );
    let report = json(&out);
    assert_eq!(out.status.code(), Some(1), "{}\n{report}", stderr(&out));
    let blocked = report["blocked"].as_array().unwrap();
    assert_eq!(blocked.len(), 1, "{report}");
    assert_eq!(blocked[0]["name"], "find_slot");
    assert_eq!(blocked[0]["gate"]["status"], "context_budget_exceeded");
    let handed: Vec<&str> = report["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(handed, ["book_slot"], "{report}");
    let log = fs::read_to_string(root.join("s/log.jsonl")).unwrap();
    assert!(log.contains("critical_high_volume"), "{log}");
}
