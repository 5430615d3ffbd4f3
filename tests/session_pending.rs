//! Pending operations and the gate's smaller rules (issue 34): a blocked sub-agent is
//! resumed with a new estimate and runs; a pending operation is cancelled; a sub-agent is
//! high-volume at the gate whoever asks; `--tool-estimate` is for the brief's tools only;
//! a compaction a turn runs warns when Tier 2 did not shrink; the wake digest opens Tier 3;
//! a session follows a later change of its brief's `model:`.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{
    self, argv, argv_then, assert_exit, command::with_openai, new_session, ok, session,
};
use crate::harness::{Workspace, assert_stderr_has};
use crate::loopback::model::{answer, say};
use crate::loopback::{Reply, Server};

fn with_model(root: &Path, server: &Server, args: &[&str]) -> Output {
    with_openai(root, server, args)
        .env("BRIEF_FETCH_ALLOW_PRIVATE", "1")
        .env("BRIEF_CCR_PATH", root.join("ccr.sqlite"))
        .output()
        .unwrap()
}

fn status(root: &Path) -> Value {
    session(root).status()
}

fn page() -> Server {
    Server::answering(|_| Reply::status(200, &[], "text/html", "<p>Open on Mondays.</p>"))
}

fn envelope(url: &str) -> String {
    harness::envelope("Open on Mondays.", "Open on Mondays", "the page", url)
}

#[test]
fn a_blocked_sub_agent_is_resumed_with_a_new_estimate_and_runs() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let site = page();
    let url = format!("{}/hours", site.url());
    let model = Server::start(vec![
        answer("openai", None, &[("fetch_url", json!({"url": url}))]),
        say("openai", &envelope(&url)),
    ]);
    let out = with_model(
        root,
        &model,
        &argv("session turn s --user 'When are you open?' --subagent-estimate 900000 --json"),
    );
    assert_exit(&out, 1);
    let report = json(&out);
    let op = report["blocked"][0]["operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(report["blocked"][0]["name"], "fetch_url");
    assert_eq!(status(root)["pending_operations"], json!([op]));

    // Resumed with its own estimate it still does not fit; a new one replaces it.
    let out = with_model(root, &model, &["session", "resume", "s", &op, "--json"]);
    assert_exit(&out, 1);
    assert_eq!(json(&out)["status"], "context_budget_exceeded");
    let out = with_model(
        root,
        &model,
        &["session", "resume", "s", &op, "--estimate", "800", "--json"],
    );
    assert_exit(&out, 0);
    let resumed = json(&out);
    assert_eq!(resumed["outcome"], "ran", "{resumed}");
    assert_eq!(resumed["call"]["name"], "fetch_url");
    assert_eq!(resumed["subagent"]["outcome"], "completed");
    assert_eq!(status(root)["pending_operations"], json!([]));
    // The sub-agent's model was asked for no more than the gate reserved.
    let asked = model.requests()[1].json();
    assert!(
        asked["max_tokens"]
            .as_u64()
            .unwrap_or(asked["max_completion_tokens"].as_u64().unwrap_or(0))
            <= 800,
        "{asked}"
    );
    ok(root, &["session", "render", "s"]);
}

#[test]
fn a_cancelled_operation_is_no_longer_pending() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    let out = run_in(root, &argv("session gate s --estimate 900000 --kind tool"));
    assert_eq!(out.status.code(), Some(1));
    let op = json(&out)["pending_operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = run_in(root, &["session", "cancel", "s", &op, "--json"]);
    assert_exit(&out, 0);
    assert_eq!(json(&out)["operation_id"], op.as_str());
    assert_eq!(status(root)["pending_operations"], json!([]));
    let again = run_in(root, &["session", "cancel", "s", &op]);
    assert_exit(&again, 2);
    let resume = run_in(root, &["session", "gate", "s", "--resume", &op]);
    assert_eq!(resume.status.code(), Some(2));
}

#[test]
fn a_sub_agent_is_high_volume_at_the_gate_whoever_asks() {
    let ws = Workspace::clinic_session(&argv(
        "--context-limit 4000 --reserve 1 --overhead 0 --margin 0",
    ));
    let root = ws.root();
    // Fill the context to 95% (Critical), where high-volume operations are refused.
    let current = status(root)["current_context_tokens"].as_u64().unwrap();
    let fill = "word ".repeat((3_600 - current) as usize);
    session(root).user(&fill);
    while status(root)["level"] != "critical" {
        ok(
            root,
            &["session", "append", "s", "--user", &"more ".repeat(15)],
        );
    }
    let gate = |kind: &str| {
        run_in(
            root,
            &["session", "gate", "s", "--estimate", "1", "--kind", kind],
        )
    };
    let sub = gate("subagent");
    assert_eq!(sub.status.code(), Some(1), "{}", stdout(&sub));
    let tool = gate("tool");
    assert_eq!(tool.status.code(), Some(0), "{}", stdout(&tool));
}

#[test]
fn tool_estimate_is_for_the_briefs_tools_not_fetch_url() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let model = Server::start(vec![answer(
        "openai",
        None,
        &[
            ("fetch_url", json!({"url": "http://127.0.0.1:9/x"})),
            ("find_slot", json!({"day": "2026-12-01"})),
        ],
    )]);
    let out = with_model(
        root,
        &model,
        &argv("session turn s --user 'Hours and a slot?' --tool-estimate 500000 --json"),
    );
    let report = json(&out);
    let handed: Vec<&str> = report["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(handed, ["fetch_url"], "{report}");
    assert_eq!(report["blocked"][0]["name"], "find_slot");
}

#[test]
fn a_compaction_a_turn_runs_warns_when_tier2_did_not_shrink() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let state = json!({
        "project_summary": "Booking Ada for a follow-up after her knee surgery in October.",
        "established_context": ["Ada prefers mornings", "Tuesday 10:30 is free", "the clinic opens at 08:00"],
        "key_decisions": ["book a 45-minute session"],
        "completed_tasks": ["checked Tuesday"],
        "current_tasks": ["confirm the slot"],
        "blockers": [],
        "affected_files": []
    });
    let model = Server::start(vec![
        answer(
            "openai",
            None,
            &[(
                "compact_context",
                json!({"resume_instruction": "Confirm the slot."}),
            )],
        ),
        say("openai", &state.to_string()),
    ]);
    let out = with_model(root, &model, &["session", "turn", "s", "--user", "Hi."]);
    assert_exit(&out, 0);
    assert_stderr_has(&out, "Tier 2 did not shrink");
}

#[test]
fn a_wake_digest_opens_tier3_and_the_cached_prefix_does_not_move() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Book Ada.");
    let before = ok(root, &["session", "render", "s", "--format", "text"]);
    std::fs::write(
        root.join("wake.yaml"),
        "current_task: Confirm Ada's Tuesday slot\nhard_constraints:\n  - never book before 08:00\n",
    )
    .unwrap();
    let out = with_model_free(root, &["session", "digest", "s", "wake.yaml", "--json"]);
    assert_exit(&out, 0);
    let body: Value =
        serde_json::from_str(&ok(root, &["session", "render", "s", "--format", "openai"])).unwrap();
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap().to_string();
    assert!(last.contains("Confirm Ada's Tuesday slot"), "{last}");
    assert!(
        !messages[..messages.len() - 1]
            .iter()
            .any(|m| m.to_string().contains("Confirm Ada's Tuesday slot")),
        "the digest is in Tier 3 only"
    );
    let text = ok(root, &["session", "render", "s", "--format", "text"]);
    let tier3 = text.find("Confirm Ada's").unwrap();
    assert!(
        tier3 > text.find("Book Ada.").unwrap(),
        "after the memory: {text}"
    );
    ok(root, &["session", "digest", "s", "--clear"]);
    assert_eq!(
        ok(root, &["session", "render", "s", "--format", "text"]),
        before
    );
}

fn with_model_free(root: &Path, args: &[&str]) -> Output {
    brief()
        .current_dir(root)
        .env("BRIEF_CCR_PATH", root.join("ccr.sqlite"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_session_follows_a_later_change_of_its_briefs_model() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let manifest = root.join("clinic/brief.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!("{text}model: {{ provider: openai, name: first-model }}\n"),
    )
    .unwrap();
    new_session(root, &[]);
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("first-model", "second-model")).unwrap();
    let settings = std::fs::read_to_string(root.join("s/session.yaml")).unwrap();
    assert!(settings.contains("first-model"));
    let out = run_in(root, &["session", "model", "s", "--from-brief", "--json"]);
    assert_exit(&out, 0);
    let changed = json(&out);
    assert_eq!(changed["model"], "second-model");
    assert_eq!(changed["previous_model"], "first-model");
    let settings = std::fs::read_to_string(root.join("s/session.yaml")).unwrap();
    assert!(settings.contains("second-model"), "{settings}");
    let nothing = run_in(root, &["session", "model", "s"]);
    assert_eq!(nothing.status.code(), Some(2));
}

#[test]
fn the_run_report_lists_every_operation_status_and_summary_first() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    let model = Server::start(vec![
        answer(
            "openai",
            Some("Checking."),
            &[("find_slot", json!({"day": "2026-12-09"}))],
        ),
        say("openai", "Wednesday at 11:00."),
    ]);
    let out = with_model(
        root,
        &model,
        &argv_then(
            "session run s --user 'Wednesday 9 December?' --tool-exec",
            &["cat >/dev/null; echo '{\"free\":[\"11:00\"]}'", "--json"],
        ),
    );
    assert_exit(&out, 0);
    let report = regex::Regex::new(r#""millis": \d+"#)
        .unwrap()
        .replace_all(&stdout(&out), r#""millis": "[ms]""#)
        .into_owned();
    insta::assert_snapshot!("session_run_json", report);
    // Progress on stderr: each operation with its tool, tokens and time.
    let progress = stderr(&out);
    assert!(
        progress.contains("tool_call_3 find_slot (ok)"),
        "{progress}"
    );
    assert!(progress.contains(" ms"), "{progress}");
}

#[test]
fn mcp_runs_the_loop_and_cancels_a_pending_operation_as_the_cli_does() {
    use crate::session_mcp::{call, mcp_with};
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let model = Server::start(vec![say("openai", "Hello Ada.")]);
    new_session(
        root,
        &argv_then(
            "--context-limit 100000 --provider openai --model test-model --base-url",
            &[&format!("{}/v1", model.url())],
        ),
    );
    let blocked = run_in(root, &argv("session gate s --estimate 900000 --kind tool"));
    let op = json(&blocked)["pending_operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    let answers = mcp_with(
        root,
        &[],
        &[("OPENAI_API_KEY", "sk-test-mcp-run-0123456789")],
        &[
            call(1, "session_run", json!({"session": "s", "user": "Hi"})),
            call(2, "cancel", json!({"session": "s", "operation_id": op})),
            call(3, "resume", json!({"session": "s", "operation_id": op})),
        ],
    );
    let run = &answers[0]["result"]["structuredContent"];
    assert_eq!(run["status"], "ok", "{}", answers[0]);
    assert_eq!(run["answer"], "Hello Ada.");
    let cancelled = &answers[1]["result"]["structuredContent"];
    assert_eq!(cancelled["status"], "ok", "{}", answers[1]);
    assert_eq!(cancelled["operation_id"], op.as_str());
    assert_eq!(answers[2]["result"]["isError"], true, "{}", answers[2]);
    assert_eq!(status(root)["pending_operations"], json!([]));
}
