//! `brief session turn` (issue 12) against a scripted loopback model in both wire formats:
//! a whole multi-turn run (text, an ordinary tool call answered from the shell, a purge,
//! a compaction retried once) stays cache-aligned between turns except at the purge and
//! the compaction; the gate blocks and resumes; faults append nothing; an interrupted turn
//! is finished by running it again.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{
    BriefCommand, Workspace, argv, argv_then, assert_exit, new_session, ok, session,
};
use crate::harness::{assert_stderr_has, command::ledger_rows};
use crate::loopback::model::{answer, cut, malformed, say};
use crate::loopback::{Reply, Server};

fn turn(root: &Path, server: &Server, provider: &str, extra: &[&str]) -> Output {
    let base = if provider == "openai" {
        format!("{}/v1", server.url())
    } else {
        server.url()
    };
    turn_at(root, &base, provider, extra, None)
}

fn turn_at(root: &Path, base: &str, provider: &str, extra: &[&str], fault: Option<&str>) -> Output {
    let mut cmd = brief();
    cmd.in_workspace(root)
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(["session", "turn", "s"])
        .model_at(provider, base)
        .args(extra);
    if let Some(point) = fault {
        cmd.env("BRIEF_FAULT_INJECT", point);
    }
    cmd.output().unwrap()
}

fn entries(root: &Path) -> Vec<Value> {
    let log = session(root).log();
    log["entries"].as_array().unwrap().clone()
}

fn valid_state() -> String {
    json!({
        "project_summary": "Booking a follow-up for Ada.",
        "established_context": ["10:30 on 2026-12-01 is free"],
        "key_decisions": ["book 10:30"],
        "completed_tasks": ["booked 10:30"],
        "current_tasks": ["confirm by email"],
        "blockers": [],
        "affected_files": []
    })
    .to_string()
}

/// What a step printed, for the snapshot: the command, stdout, stderr.
fn step(transcript: &mut String, what: &str, out: &Output) {
    transcript.push_str(&format!(
        "$ {what}\n[exit {}]\n{}{}\n",
        out.status.code().unwrap_or(-1),
        stdout(out),
        stderr(out)
            .lines()
            .map(|l| format!("stderr: {l}\n"))
            .collect::<String>()
    ));
}

fn write_bodies(dir: &Path, bodies: &[Value]) -> Vec<String> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let name = format!("wake{i}.json");
            std::fs::write(dir.join(&name), serde_json::to_string(body).unwrap()).unwrap();
            name
        })
        .collect()
}

#[test]
fn a_long_run_stays_aligned_except_at_the_purge_and_the_compaction() {
    for provider in ["openai", "anthropic"] {
        let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
        let root = ws.root();
        let server = Server::start(vec![
            say(provider, "Which day suits you?"),
            answer(
                provider,
                Some("Checking."),
                &[("find_slot", json!({"day": "2026-12-01"}))],
            ),
            say(provider, "10:30 is free. Shall I book it?"),
            answer(
                provider,
                None,
                &[(
                    "purge",
                    json!({"ids": ["msg_1", "msg_2"], "summary": "Ada wants a follow-up."}),
                )],
            ),
            say(provider, "Booked for 10:30."),
            answer(
                provider,
                None,
                &[(
                    "compact_context",
                    json!({"resume_instruction": "Confirm the booking by email."}),
                )],
            ),
            say(provider, r#"{"project_summary": 5}"#),
            say(provider, &valid_state()),
            say(provider, "I will confirm by email."),
        ]);
        let mut transcript = String::new();
        let out = turn(
            root,
            &server,
            provider,
            &["--user", "Book Ada a follow-up."],
        );
        step(&mut transcript, "turn --user 'Book Ada a follow-up.'", &out);
        assert_exit(&out, 0);
        assert_eq!(stdout(&out), "Which day suits you?\n");

        let out = turn(
            root,
            &server,
            provider,
            &["--user", "Tuesday 1 December.", "--json"],
        );
        step(
            &mut transcript,
            "turn --user 'Tuesday 1 December.' --json",
            &out,
        );
        let report = json(&out);
        assert_eq!(report["status"], "ok");
        assert_eq!(report["appended_ids"], json!(["msg_4", "tool_call_5"]));
        let call = &report["tool_calls"][0];
        assert_eq!(call["id"], "tool_call_5");
        assert_eq!(call["name"], "find_slot");
        assert_eq!(call["arguments"], json!({"day": "2026-12-01"}));
        assert!(call["call_id"].as_str().unwrap().ends_with("_0x"));

        // A turn with the call unanswered is refused; the shell answers it.
        let refused = turn(root, &server, provider, &[]);
        assert_exit(&refused, 2);
        assert!(stderr(&refused).contains("tool_call_5"));
        let out = run_in(
            root,
            &argv("session append s --tool-result tool_call_5 --text '10:30 is free'"),
        );
        step(
            &mut transcript,
            "session append --tool-result tool_call_5 --text '10:30 is free'",
            &out,
        );

        let out = turn(root, &server, provider, &[]);
        step(&mut transcript, "turn", &out);
        assert_exit(&out, 0);

        let out = turn(
            root,
            &server,
            provider,
            &["--user", "Yes, book it.", "--json"],
        );
        step(&mut transcript, "turn --user 'Yes, book it.' --json", &out);
        let report = json(&out);
        let run = &report["framework"][0];
        assert_eq!(run["name"], "purge");
        assert_eq!(run["outcome"], "ok");
        assert_eq!(run["purge"]["removed_ids"], json!(["msg_1", "msg_2"]));
        assert_eq!(report["tool_calls"], json!([]));
        let shown = ok(root, &["session", "show", "s", "msg_1"]);
        assert!(shown.contains("purged"), "{shown}");

        let out = turn(root, &server, provider, &[]);
        step(&mut transcript, "turn", &out);
        let out = turn(root, &server, provider, &["--user", "Thanks, that is all."]);
        step(&mut transcript, "turn --user 'Thanks, that is all.'", &out);
        assert_exit(&out, 0);
        assert_stderr_has(&out, "invalid CompactedState");
        let live: Vec<Value> = entries(root)
            .into_iter()
            .filter(|e| e["state"] == "live")
            .collect();
        assert_eq!(live.len(), 2, "{live:?}");
        assert_eq!(live[0]["kind"], "state");
        assert_eq!(live[1]["kind"], "resume");

        let out = turn(root, &server, provider, &[]);
        step(&mut transcript, "turn", &out);
        assert_eq!(stdout(&out), "I will confirm by email.\n");

        // The bodies the model received for the turns (not the two compaction calls).
        let requests = server.requests();
        assert_eq!(requests.len(), 9);
        let bodies: Vec<Value> = requests
            .iter()
            .enumerate()
            .filter(|(i, _)| ![6, 7].contains(i))
            .map(|(_, r)| r.json())
            .collect();
        assert_eq!(bodies[0]["stream"], true);
        if provider == "openai" {
            assert_eq!(
                bodies[2]["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|m| m["role"] == "tool")
                    .count(),
                1
            );
        }
        let names = write_bodies(root, &bodies);
        let mut args = vec!["align", "--json", "--volatile-tail", "1"];
        args.extend(names.iter().map(String::as_str));
        let report = json(&run_in(root, &args));
        let drifted: Vec<usize> = report["wakes"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, w)| w["drifted_parts"].as_array().is_some_and(|d| !d.is_empty()))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            drifted,
            [4, 6],
            "{provider}: only the purge and the compaction drift"
        );
        step(
            &mut transcript,
            "align --volatile-tail 1 wake0.json … wake6.json",
            &run_in(root, &{
                let mut a = vec!["align", "--volatile-tail", "1"];
                a.extend(names.iter().map(String::as_str));
                a
            }),
        );

        // Every call is in the ledger: seven turns, two compaction calls.
        let rows = ledger_rows(root);
        let commands: Vec<&str> = rows
            .iter()
            .map(|r| r["command"].as_str().unwrap())
            .collect();
        assert_eq!(commands.iter().filter(|c| **c == "session").count(), 7);
        assert_eq!(commands.iter().filter(|c| **c == "compact").count(), 2);
        let key = std::fs::canonicalize(root.join("s"))
            .unwrap()
            .display()
            .to_string();
        for row in rows.iter().filter(|r| r["command"] == "session") {
            assert_eq!(row["session"], key.as_str());
            assert_eq!(row["cached_input_tokens"], 768);
        }
        let transcript = transcript.replace(&server.url(), "http://127.0.0.1:PORT");
        insta::assert_snapshot!(format!("turn_run_{provider}"), transcript);
    }
}

fn small_session(root: &Path) -> PathBuf {
    let dir = new_session(
        root,
        &argv("--framework-tools --context-limit 6000 --reserve 100 --overhead 0 --margin 0"),
    );
    let filler = "The waiting room plant needs water on Mondays. ".repeat(400);
    session(root).user(&filler);
    dir
}

#[test]
fn a_blocked_turn_prints_the_seed_object_and_resumes_after_a_purge() {
    for provider in ["openai", "anthropic"] {
        let ws = crate::common::workspace("clinic");
        let root = ws.path();
        small_session(root);
        let server = Server::start(vec![say(provider, "Noted.")]);
        let out = turn(
            root,
            &server,
            provider,
            &["--user", "Is Tuesday free?", "--max-tokens", "2000"],
        );
        assert_exit(&out, 1);
        let blocked = json(&out);
        assert_eq!(blocked["status"], "context_budget_exceeded");
        assert_eq!(blocked["estimated_result_tokens"], 2000);
        assert_eq!(blocked["required_action"], "purge_or_compact");
        let op = blocked["pending_operation_id"]
            .as_str()
            .unwrap()
            .to_string();
        let keys: Vec<&String> = blocked.as_object().unwrap().keys().collect();
        assert_eq!(keys[0], "status");
        assert_eq!(entries(root).len(), 1, "nothing appended while blocked");
        assert!(server.requests().is_empty());
        let unknown = turn(root, &server, provider, &["--resume", "op_99"]);
        assert_exit(&unknown, 2);
        let again = turn(root, &server, provider, &["--resume", &op]);
        assert_eq!(
            again.status.code(),
            Some(1),
            "still blocked: {}",
            stderr(&again)
        );
        ok(
            root,
            &argv("session purge s --ids msg_1 --summary 'Small talk.'"),
        );
        // A smaller cap than the one gated is honoured on resume.
        let out = turn(
            root,
            &server,
            provider,
            &["--resume", &op, "--json", "--max-tokens", "500"],
        );
        assert_exit(&out, 0);
        let sent = server.requests()[0].json();
        let cap = sent
            .get("max_tokens")
            .or_else(|| sent.get("max_completion_tokens"));
        assert_eq!(cap.and_then(serde_json::Value::as_u64), Some(500), "{sent}");
        let report = json(&out);
        assert_eq!(report["operation_id"], op.as_str());
        let user_id = report["user_id"].as_str().unwrap();
        let shown = ok(root, &["session", "show", "s", user_id]);
        assert!(shown.contains("Is Tuesday free?"), "{shown}");
        assert!(
            server.requests()[0]
                .json()
                .to_string()
                .contains("Is Tuesday free?")
        );
        assert!(!root.join("s").join(format!("turn-{op}.json")).exists());
    }
}

#[test]
fn a_failed_call_a_cut_stream_and_a_malformed_tool_call_append_nothing() {
    for provider in ["openai", "anthropic"] {
        for (what, reply) in [
            (
                "refused",
                Reply::status(
                    400,
                    &[],
                    "application/json",
                    r#"{"error":{"type":"invalid_request_error","message":"bad"}}"#,
                ),
            ),
            ("cut", cut(provider)),
            ("malformed", malformed(provider)),
        ] {
            let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
            let root = ws.root();
            let server = Server::start(vec![reply]);
            let out = turn(root, &server, provider, &["--user", "Is Tuesday free?"]);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{provider} {what}: {}",
                stderr(&out)
            );
            assert_stderr_has(&out, "nothing was appended");
            assert!(entries(root).is_empty(), "{provider} {what}");
            let files: Vec<String> = std::fs::read_dir(root.join("s"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(!files.iter().any(|f| f.starts_with("turn-")), "{files:?}");
            let rows = ledger_rows(root);
            assert_eq!(rows.len(), 1);
            assert_ne!(rows[0]["status"], "ok", "{provider} {what}: {}", rows[0]);
        }
    }
}

#[test]
fn a_turn_interrupted_after_its_answer_arrived_is_finished_by_running_it_again() {
    for provider in ["openai", "anthropic"] {
        for point in ["session-turn-after-journal", "session-turn-after-answer"] {
            let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
            let root = ws.root();
            session(root).user("Hello.");
            let server = Server::start(vec![answer(
                provider,
                Some("Tidying up."),
                &[
                    ("purge", json!({"ids": ["msg_1"], "summary": "Greeting."})),
                    ("find_slot", json!({"day": "2026-12-02"})),
                ],
            )]);
            let base = if provider == "openai" {
                format!("{}/v1", server.url())
            } else {
                server.url()
            };
            let out = turn_at(root, &base, provider, &["--user", "Any slot?"], Some(point));
            assert_eq!(
                out.status.code(),
                None,
                "{point}: aborted: {}",
                stderr(&out)
            );
            // Running it again calls no model: the server has no more answers.
            let out = turn_at(
                root,
                &base,
                provider,
                &["--user", "Any slot?", "--json"],
                None,
            );
            assert_eq!(
                out.status.code(),
                Some(0),
                "{provider} {point}: {}",
                stderr(&out)
            );
            let report = json(&out);
            assert_eq!(report["finished_interrupted"], true);
            assert_eq!(report["tool_calls"][0]["name"], "find_slot");
            assert_eq!(report["framework"][0]["outcome"], "ok");
            let kinds: Vec<String> = entries(root)
                .iter()
                .map(|e| {
                    format!(
                        "{}:{}",
                        e["kind"].as_str().unwrap(),
                        e["state"].as_str().unwrap()
                    )
                })
                .collect();
            assert_eq!(
                kinds,
                [
                    "user:purged",
                    "user:live",
                    "assistant:live",
                    "tool_call:live",
                    "tool_call:live",
                    "summary:live",
                    "tool_result:live"
                ],
                "{provider} {point}"
            );
            assert_eq!(server.requests().len(), 1);
            assert_eq!(ledger_rows(root).len(), 1);
        }
    }
}

#[test]
fn two_invalid_states_in_a_turn_leave_memory_as_it_was_and_tell_the_model() {
    for provider in ["openai", "anthropic"] {
        let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
        let root = ws.root();
        session(root).user("Book Ada.");
        let server = Server::start(vec![
            answer(
                provider,
                None,
                &[("compact_context", json!({"resume_instruction": "Go on."}))],
            ),
            say(provider, "not json"),
            say(provider, r#"{"project_summary": "x"}"#),
        ]);
        let out = turn(root, &server, provider, &["--json"]);
        assert_exit(&out, 0);
        let report = json(&out);
        let run = &report["framework"][0];
        assert_eq!(run["outcome"], "failed");
        assert!(run["text"].as_str().unwrap().contains("nothing compacted"));
        let states: Vec<&str> = vec!["live"; 3];
        let listed = entries(root);
        assert_eq!(
            listed
                .iter()
                .map(|e| e["state"].as_str().unwrap())
                .collect::<Vec<_>>(),
            states
        );
        assert_eq!(listed[2]["kind"], "tool_result");
    }
}

#[test]
fn purged_and_compacted_originals_come_back_from_the_ccr_store() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let store = root.join("ccr.sqlite");
    new_session(root, &["--framework-tools"]);
    session(root).user("Invoice INV-7731 is unpaid.");
    session(root).user("Book Ada on Tuesday.");
    let with_store = |args: &[&str]| {
        brief()
            .current_dir(root)
            .env("BRIEF_CCR_PATH", &store)
            .args(args)
            .output()
            .unwrap()
    };
    let purged = json(&with_store(&argv(
        "session purge s --ids msg_1 --summary 'An unpaid invoice.' --json",
    )));
    let hash = purged["ccr"].as_str().expect("a CCR hash").to_string();
    let got = json(&with_store(&["ccr", "get", &hash, "--json"]));
    assert_eq!(got["strategy"], "session_purge");
    assert!(
        got["original"]
            .as_str()
            .unwrap()
            .contains("[msg_1] User: Invoice INV-7731"),
        "{got}"
    );
    let log = std::fs::read_to_string(root.join("s").join("log.jsonl")).unwrap();
    assert!(log.contains(&format!(r#""ccr":"{hash}""#)), "{log}");

    let server = Server::start(vec![say("openai", &valid_state())]);
    let base = format!("{}/v1", server.url());
    let compacted = with_store(&argv_then(
        "session compact s --resume 'Go on.' --json --provider openai --model test-model --base-url",
        &[&base, "--ledger", "ledger.jsonl"],
    ));
    assert_exit(&compacted, 0);
    let hash = json(&compacted)["ccr"].as_str().unwrap().to_string();
    let got = json(&with_store(&["ccr", "get", &hash, "--json"]));
    assert_eq!(got["strategy"], "session_compact");
    let original = got["original"].as_str().unwrap();
    assert!(
        original.contains("[msg_2] User: Book Ada") && original.contains("[msg_3] Summary"),
        "{original}"
    );
}

#[test]
fn an_answer_that_echoes_the_api_key_in_a_tool_call_is_never_appended() {
    let key = "sk-test-SECRET123456";
    for provider in ["openai", "anthropic"] {
        let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
        let root = ws.root();
        let server = Server::start(vec![answer(
            provider,
            None,
            &[("find_slot", json!({"day": format!("2026-12-01 {key}")}))],
        )]);
        let base = if provider == "openai" {
            format!("{}/v1", server.url())
        } else {
            server.url()
        };
        let var = if provider == "openai" {
            "OPENAI_API_KEY"
        } else {
            "ANTHROPIC_API_KEY"
        };
        let out = brief()
            .current_dir(root)
            .env("XDG_STATE_HOME", root.join("state"))
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
            .env(var, key)
            .args(argv_then(
                "session turn s --user 'Any slot?' --provider",
                &[provider],
            ))
            .args(["--model", "test-model", "--base-url", &base])
            .output()
            .unwrap();
        assert_exit(&out, 3);
        assert!(entries(root).is_empty());
        let everything: String = crate::common::snapshot_tree(root)
            .into_iter()
            .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
            .collect();
        assert!(!everything.contains(key), "{provider}: the key was written");
        assert!(!stdout(&out).contains(key) && !stderr(&out).contains(key));
    }
}
