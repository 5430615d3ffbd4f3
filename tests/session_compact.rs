//! `brief session compact` (issue 12) against scripted loopback models in both wire
//! formats: a valid state replaces Tier 2 and reports what it forgot; an invalid one is
//! retried once with its violations; two invalid ones change nothing (exit 3).

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, snapshot_tree, stderr};
use crate::harness::{
    BriefCommand, Workspace, argv, assert_exit, assert_stderr_has, command::ledger_rows,
    new_session, ok, session,
};
use crate::loopback::fixtures::{OPENAI_USAGE, anthropic_stream, openai_stream};
use crate::loopback::{Reply, Server};
use crate::session::stable;

fn answer(provider: &str, text: &str) -> Reply {
    let body = if provider == "anthropic" {
        anthropic_stream(text, Some("end_turn"), true)
    } else {
        openai_stream(text, Some("stop"), Some(OPENAI_USAGE), true)
    };
    Reply::sse(&body, &[])
}

fn state() -> Value {
    json!({
        "project_summary": "Booking Ada for a follow-up.",
        "established_context": ["Tuesday 10:30 is free"],
        "key_decisions": [],
        "completed_tasks": ["checked Tuesday"],
        "current_tasks": ["confirm the slot"],
        "blockers": [],
        "affected_files": []
    })
}

fn compact(root: &Path, server: &Server, provider: &str) -> std::process::Output {
    brief()
        .in_workspace(root)
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(argv(
            "session compact s --resume 'Confirm the Tuesday slot with Ada.' --json",
        ))
        .model_at(provider, &server.url())
        .output()
        .unwrap()
}

fn filled(root: &Path) {
    new_session(root, &["--framework-tools"]);
    session(root).user("Book Ada; invoice INV-7731 is unpaid.");
    session(root).tool_call("find_slot", r#"{"day":"Tuesday"}"#);
    session(root).tool_result("tool_call_2", "Tuesday 10:30 is free");
}

fn ledger_commands(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["command"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn a_valid_state_replaces_tier2_and_reports_what_it_forgot() {
    for provider in ["openai", "anthropic"] {
        let ws = crate::common::workspace("clinic");
        let root = ws.path();
        filled(root);
        let before: Value =
            serde_json::from_str(&ok(root, &["session", "render", "s", "--format", provider]))
                .unwrap();
        let server = Server::start(vec![answer(
            provider,
            &format!("```json\n{}\n```", state()),
        )]);
        let out = compact(root, &server, provider);
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let report = json(&out);
        assert_eq!(report["status"], "ok");
        assert_eq!(report["state_id"], "msg_4");
        assert_eq!(report["resume_id"], "msg_5");
        assert!(report["tokens_after"].as_u64().unwrap() > 0);
        assert!(report["tokens_before"].as_u64().unwrap() > 0);
        let forgotten: Vec<&str> = report["forgotten"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["value"].as_str().unwrap())
            .collect();
        assert!(
            forgotten.contains(&"INV-7731") || forgotten.iter().any(|f| f.contains("7731")),
            "{forgotten:?}"
        );
        // One request, with the compaction brief and the whole Tier 2.
        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        let sent = requests[0].json().to_string();
        assert!(
            sent.contains("CompactedState") && sent.contains("[tool_res_3]"),
            "{sent}"
        );
        assert_eq!(ledger_commands(root), ["compact"]);
        // Tier 2 is now the state and the resume instruction; the old entries stay shown.
        let after: Value =
            serde_json::from_str(&ok(root, &["session", "render", "s", "--format", provider]))
                .unwrap();
        let messages = after["messages"].as_array().unwrap();
        let text = after.to_string();
        assert!(
            text.contains("[msg_4]") && text.contains("[msg_5] Confirm the Tuesday slot"),
            "{text}"
        );
        assert!(!text.contains("[tool_res_3]"));
        // OpenAI: the state, the resume instruction and Tier 3 each a message; Anthropic:
        // one user turn.
        assert!(messages.len() >= if provider == "openai" { 3 } else { 1 });
        let (_, _, a) = stable(&before);
        let (_, _, b) = stable(&after);
        assert_ne!(a, b);
        let shown = ok(root, &["session", "show", "s", "tool_res_3"]);
        assert!(
            shown.contains("compacted") && shown.contains("Tuesday 10:30"),
            "{shown}"
        );
    }
}

#[test]
fn an_invalid_state_is_retried_once_with_its_violations() {
    for provider in ["openai", "anthropic"] {
        let ws = crate::common::workspace("clinic");
        let root = ws.path();
        filled(root);
        let mut bad = state();
        bad.as_object_mut().unwrap().remove("blockers");
        let server = Server::start(vec![
            answer(provider, &bad.to_string()),
            answer(provider, &state().to_string()),
        ]);
        let out = compact(root, &server, provider);
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        let retry = requests[1].json().to_string();
        assert!(
            retry.contains("/blockers") && retry.contains("required but missing"),
            "{retry}"
        );
        assert_eq!(ledger_commands(root), ["compact", "compact"]);
    }
}

#[test]
fn two_invalid_states_fail_with_exit_3_and_change_nothing() {
    for provider in ["openai", "anthropic"] {
        let ws = crate::common::workspace("clinic");
        let root = ws.path();
        filled(root);
        let session_before = snapshot_tree(&root.join("s"));
        let server = Server::start(vec![
            answer(provider, "not json"),
            answer(provider, r#"{"project_summary": 1}"#),
        ]);
        let out = compact(root, &server, provider);
        assert_eq!(out.status.code(), Some(3), "{provider}: {}", stderr(&out));
        assert_stderr_has(&out, "invalid CompactedState");
        assert_eq!(snapshot_tree(&root.join("s")), session_before);
        assert_eq!(server.requests().len(), 2);
    }
}

#[test]
fn a_provider_failure_changes_nothing_and_an_empty_memory_is_refused() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    let server = Server::start(vec![]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 2);
    assert!(server.requests().is_empty());
    filled_more(root);
    let before = snapshot_tree(&root.join("s"));
    let server = Server::start(vec![Reply::status(
        400,
        &[],
        "application/json",
        r#"{"error":{"message":"bad"}}"#,
    )]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 3);
    assert_eq!(snapshot_tree(&root.join("s")), before);
    let _ = run_in(root, &["session", "log", "s"]);
}

fn filled_more(root: &Path) {
    session(root).user("hello");
}

#[test]
fn the_bundled_compaction_brief_is_locked_and_clean() {
    let out = run_in(
        env!("CARGO_MANIFEST_DIR"),
        &["check", "--strict", "briefs/compaction"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::common::stdout(&out)
    );
    let (system, _) = briefkit::session::compact::compaction_brief().unwrap();
    let on_disk = briefkit::brief::Brief::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/briefs/compaction"
    )))
    .unwrap();
    let prefix = briefkit::prompt::compose::prefix(&on_disk, Default::default());
    assert_eq!(
        system, prefix.static_system,
        "the embedded brief is the one on disk"
    );
    assert!(system.contains("affected_files"));
    assert_eq!(
        on_disk.manifest.name,
        briefkit::session::compact::COMPACTION_BRIEF
    );
}

/// Regression (issue 27): compaction rows carried the session's brief name with the
/// compaction brief's prefix hash, so `usage --by brief` billed compaction to the session's
/// brief. They name the compaction brief, with the session's as `target_brief`, as
/// `compress` rows do.
#[test]
fn compaction_rows_name_the_compaction_brief_and_target_the_sessions() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    filled(root);
    let server = Server::start(vec![answer("openai", &state().to_string())]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 0);
    let rows = ledger_rows(root);
    assert_eq!(rows.len(), 1);
    let (_, hash) = briefkit::session::compact::compaction_brief().unwrap();
    assert_eq!(rows[0]["command"], "compact");
    assert_eq!(rows[0]["brief"], "compaction");
    assert_eq!(rows[0]["brief_dir"], Value::Null);
    assert_eq!(rows[0]["prefix_hash"], hash);
    assert_eq!(rows[0]["target_brief"], "clinic");
    assert!(
        rows[0]["target_brief_dir"]
            .as_str()
            .unwrap()
            .ends_with("clinic")
    );
    let usage = brief()
        .current_dir(root)
        .args(argv("usage --by brief --json --ledger ledger.jsonl"))
        .output()
        .unwrap();
    let text = crate::common::stdout(&usage);
    assert!(text.contains("\"compaction\""), "{text}");
}

/// Regression (issue 27): a compaction could grow Tier 2 without a word.
#[test]
fn a_compaction_that_does_not_shrink_tier2_warns() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Hi.");
    let server = Server::start(vec![answer("openai", &state().to_string())]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 0);
    let report = json(&out);
    assert!(report["tokens_after"].as_u64() >= report["tokens_before"].as_u64());
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{report}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("Tier 2 did not shrink")
    );
    assert_stderr_has(&out, "warning: Tier 2 did not shrink");
}

#[test]
fn a_compaction_that_shrinks_tier2_has_no_warning() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    let long = "Ada asked about the Tuesday slot and the invoice again. ".repeat(40);
    session(root).user(&long);
    let server = Server::start(vec![answer("openai", &state().to_string())]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 0);
    let report = json(&out);
    assert!(report["tokens_after"].as_u64() < report["tokens_before"].as_u64());
    assert_eq!(report["warnings"], json!([]));
    assert!(!stderr(&out).contains("warning:"), "{}", stderr(&out));
}

/// Regression (issue 27): the figures of the framework's own purge report (token counts,
/// the Tier 2 sizes) were listed as facts the state forgot.
#[test]
fn the_frameworks_own_report_figures_are_not_forgotten_facts() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    filled(root);
    session(root).tool_call("purge", r#"{"ids":["tool_call_2","tool_res_3"]}"#);
    let session = briefkit::session::Session::open(&root.join("s")).unwrap();
    let ids = ["tool_call_2".to_string(), "tool_res_3".to_string()];
    let (_, result) = session
        .purge_answering(
            &ids,
            Some("Checked Tuesday: 10:30 is free."),
            Some(("tool_call_4", "op_1")),
        )
        .unwrap();
    let report_text = result.expect("the purge's answer").text;
    assert!(report_text.contains("tokens"), "{report_text}");
    drop(session);
    let server = Server::start(vec![answer("openai", &state().to_string())]);
    let out = compact(root, &server, "openai");
    assert_exit(&out, 0);
    let report = json(&out);
    let forgotten: Vec<String> = report["forgotten"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["value"].as_str().unwrap_or_default().to_string())
        .collect();
    // The conversation's own facts are still checked.
    assert!(
        forgotten.iter().any(|f| f.contains("7731")),
        "{forgotten:?}"
    );
    for figure in regex::Regex::new(r"[0-9][0-9,]*")
        .unwrap()
        .find_iter(&report_text)
    {
        let figure = figure.as_str();
        assert!(
            !forgotten.iter().any(|f| f == figure),
            "the purge report's {figure} is listed as forgotten: {forgotten:?}"
        );
    }
}
