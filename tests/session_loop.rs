//! The runtime as an agent loop (issue 34): a call the gate blocks is answered in the
//! conversation with the seed's object, so the model reads it and purges; `session run`
//! drives a conversation to the model's final answer (a tool run by `--tool-exec`, a
//! sub-agent in process) and goes on after a kill; the provider's own token counts
//! calibrate the gate; pending operations are resumed, cancelled, re-estimated.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{json, run_in, stderr, stdout};
use crate::harness::{
    self, Workspace, argv, argv_then, assert_exit, command::with_openai, ok, session,
};
use crate::harness::{assert_stderr_has, assert_stdout_has, field_strs};
use crate::loopback::model::{answer, say};
use crate::loopback::{Reply, Server};

fn with_model(root: &Path, server: &Server, args: &[&str]) -> Output {
    with_openai(root, server, args)
        .env("BRIEF_FETCH_ALLOW_PRIVATE", "1")
        .output()
        .unwrap()
}

fn status(root: &Path) -> Value {
    session(root).status()
}

/// The tool results of a recorded OpenAI request, by the call they answer.
fn tool_messages(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn envelope(url: &str) -> String {
    harness::envelope(
        "Mondays are open for new patients.",
        "New patients on Mondays",
        "Hours page",
        url,
    )
}

#[test]
fn a_blocked_tool_call_is_answered_with_the_gate_object_the_model_purges_and_the_turn_completes() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let server = Server::start(vec![
        answer(
            "openai",
            Some("Let me look."),
            &[("find_slot", json!({"day": "2026-12-01"}))],
        ),
        answer(
            "openai",
            None,
            &[(
                "purge",
                json!({"ids": ["tool_call_3", "tool_res_4"], "summary": "find_slot was too big to run."}),
            )],
        ),
        say(
            "openai",
            "I could not search the whole day; which hour suits you?",
        ),
    ]);
    let out = with_model(
        root,
        &server,
        &argv("session turn s --user 'Any slot on 1 December?' --tool-estimate 500000 --json"),
    );
    assert_exit(&out, 1);
    let report = json(&out);
    let blocked = &report["blocked"][0];
    assert_eq!(blocked["id"], "tool_call_3");
    assert_eq!(blocked["result_id"], "tool_res_4");
    let op = blocked["operation_id"].as_str().unwrap().to_string();
    // Nothing is left open: status lists the operation as pending, and no open call.
    let figures = status(root);
    assert_eq!(figures["open_calls"], json!([]));
    assert_eq!(figures["pending_operations"], json!([op]));
    ok(root, &["session", "render", "s"]);

    // The next model call reads the object as the call's result, and purges.
    let out = with_model(root, &server, &["session", "turn", "s"]);
    assert_exit(&out, 0);
    let second = server.requests()[1].json();
    let results = tool_messages(&second);
    assert_eq!(results.len(), 1, "{second}");
    let at = results[0].find('{').unwrap();
    let object: Value = serde_json::from_str(&results[0][at..]).unwrap();
    assert_eq!(object["status"], "context_budget_exceeded");
    assert_eq!(object["pending_operation_id"], op.as_str());
    assert_eq!(object["estimated_result_tokens"], 500000);
    assert_eq!(object["required_action"], "purge_or_compact");
    assert!(object["current_context_tokens"].as_u64().unwrap() > 0);
    assert!(object["available_operation_tokens"].as_u64().unwrap() < 500000);

    let out = with_model(root, &server, &["session", "turn", "s"]);
    assert_exit(&out, 0);
    assert_stdout_has(&out, "which hour suits you");
    let third = server.requests()[2].json();
    assert!(
        !third.to_string().contains("context_budget_exceeded"),
        "the purge removed the call and its notification: {third}"
    );
}

#[test]
fn session_run_drives_a_tool_and_a_sub_agent_to_the_final_answer_and_goes_on_after_a_kill() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let site = Server::answering(|_| {
        Reply::status(
            200,
            &[],
            "text/html",
            "<p>New patients are seen on Mondays.</p>",
        )
    });
    let url = format!("{}/hours", site.url());
    let model = Server::start(vec![
        answer(
            "openai",
            Some("Checking both."),
            &[
                ("find_slot", json!({"day": "2026-12-07"})),
                ("fetch_url", json!({"url": url, "focus": "new patients"})),
            ],
        ),
        say("openai", &envelope(&url)),
        say(
            "openai",
            "Monday 7 December at 09:00 is free, and new patients are seen on Mondays.",
        ),
    ]);
    // The tool kills the run the first time (the brief process is its shell's parent),
    // then answers.
    let tool = root.join("tool.sh");
    std::fs::write(
        &tool,
        "input=$(cat)\nif [ ! -f killed ]; then\n  touch killed\n  p=$PPID\n  while [ \"$p\" -gt 1 ] && [ \"$(cat /proc/$p/comm)\" != brief ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done\n  kill -9 $p\n  exit 0\nfi\ncase \"$input\" in *find_slot*) echo '{\"slots\":[\"09:00\"]}';; *) exit 4;; esac\n",
    )
    .unwrap();
    let exec = format!("sh {}", tool.display());
    let args = [
        "session",
        "run",
        "s",
        "--user",
        "Can a new patient come on 7 December?",
        "--tool-exec",
        &exec,
        "--json",
    ];
    let out = with_model(root, &model, &args);
    assert_eq!(out.status.code(), None, "killed: {}", stderr(&out));
    assert!(root.join("killed").exists());
    // The sub-agent's envelope is in; the tool's call is open.
    let figures = status(root);
    assert_eq!(figures["open_calls"], json!(["tool_call_3"]), "{figures}");

    let out = with_model(root, &model, &args);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["status"], "ok", "{report}");
    assert_eq!(report["outcome"], "answered");
    assert_eq!(report["continued"], true);
    assert!(
        report["answer"]
            .as_str()
            .unwrap()
            .contains("new patients are seen on Mondays")
    );
    let kinds: Vec<&str> = field_strs(&report["ops"], "kind");
    assert_eq!(kinds, ["tool", "model"], "{report}");
    assert_eq!(report["ops"][0]["outcome"], "ok");
    assert_eq!(model.requests().len(), 3, "no model call was made twice");
    // The last request holds both results, each right after its call.
    let last = model.requests()[2].json();
    let results = tool_messages(&last);
    assert_eq!(results.len(), 2, "{last}");
    assert!(results.iter().any(|r| r.contains("09:00")));
    assert!(results.iter().any(|r| r.contains("\"completed\"")));
    let log = session(root).log();
    let users = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "user")
        .count();
    assert_eq!(users, 1, "the user message was sent once: {log}");
    assert!(!root.join("s/run.json").exists(), "the run is over");

    // The human form: the final answer on stdout, progress on stderr.
    let again = with_model(root, &model, &["session", "run", "s"]);
    assert_eq!(again.status.code(), Some(2), "nothing to continue");
}

#[test]
fn a_run_without_tool_exec_hands_the_brief_tools_back_and_goes_on_once_they_are_answered() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let model = Server::start(vec![
        answer(
            "openai",
            None,
            &[("find_slot", json!({"day": "2026-12-08"}))],
        ),
        say("openai", "Tuesday at 10:00 it is."),
    ]);
    let out = with_model(
        root,
        &model,
        &["session", "run", "s", "--user", "Tuesday 8 December?"],
    );
    assert_exit(&out, 0);
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["id"], "tool_call_2");
    assert!(
        stderr(&out).contains("waiting") || stderr(&out).contains("to run"),
        "{}",
        stderr(&out)
    );
    session(root).tool_result("tool_call_2", "10:00 free");
    let out = with_model(root, &model, &["session", "run", "s"]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out).trim(), "Tuesday at 10:00 it is.");
    assert!(
        stderr(&out).contains("op_"),
        "progress per operation: {}",
        stderr(&out)
    );
}

#[test]
fn with_a_provider_counting_three_times_the_local_figure_status_and_the_gate_use_its_count() {
    let ws = Workspace::clinic_session(&argv("--context-limit 30000 --overhead 0 --margin 0"));
    let root = ws.root();
    let local = status(root)["current_context_tokens"].as_u64().unwrap();
    let reported = local * 3;
    let body = crate::loopback::model::openai(Some("Hello Ada."), &[], true).replace(
        "\"prompt_tokens\":900",
        &format!("\"prompt_tokens\":{reported}"),
    );
    assert!(body.contains(&reported.to_string()));
    let server = Server::start(vec![Reply::sse(&body, &[])]);
    let out = with_model(root, &server, &["session", "turn", "s", "--user", "Hi"]);
    assert_exit(&out, 0);

    let figures = status(root);
    let calibration = &figures["calibration"];
    assert_eq!(calibration["last_provider_tokens"], reported);
    let ratio = calibration["ratio"].as_f64().unwrap();
    assert!(ratio > 2.5 && ratio <= 3.0, "{figures}");
    let local_now = figures["local_context_tokens"].as_u64().unwrap();
    let counted = figures["current_context_tokens"].as_u64().unwrap();
    assert_eq!(
        counted,
        (local_now as f64 * ratio).ceil() as u64,
        "{figures}"
    );
    let shown = ok(root, &["session", "status", "s"]);
    assert!(shown.contains("local count"), "{shown}");
    assert!(
        shown.contains(&crate::common::traffic::grouped(counted)),
        "the telemetry line counts as the provider does: {shown}"
    );

    // An estimate that fits by the local count but not by the provider's is blocked.
    let limit = figures["context_limit"].as_u64().unwrap();
    let reserve = figures["reserved_completion_tokens"].as_u64().unwrap();
    let by_local = limit - local_now - reserve;
    let by_provider = figures["available_operation_tokens"].as_u64().unwrap();
    assert_eq!(by_provider, limit - counted - reserve);
    let estimate = ((by_local + by_provider) / 2).to_string();
    let out = run_in(
        root,
        &argv_then("session gate s --estimate", &[&estimate, "--kind", "tool"]),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let object: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(object["current_context_tokens"], counted);
}

#[test]
fn a_provider_that_reports_no_usage_leaves_the_local_count_and_says_so() {
    let ws = Workspace::clinic_session(&["--context-limit", "30000"]);
    let root = ws.root();
    let body = crate::loopback::model::openai(Some("Hello."), &[], true);
    let cut = body
        .rfind("data: {\"id\":\"c1\",\"model\":\"test-model\",\"choices\":[],")
        .unwrap();
    let body = format!("{}data: [DONE]\n\n", &body[..cut]);
    let server = Server::start(vec![Reply::sse(&body, &[])]);
    let out = with_model(root, &server, &["session", "turn", "s", "--user", "Hi"]);
    assert_exit(&out, 0);
    assert_stderr_has(&out, "reported no input tokens");
    let figures = status(root);
    assert_eq!(figures["calibration"], Value::Null);
    assert_eq!(
        figures["current_context_tokens"],
        figures["local_context_tokens"]
    );
}
