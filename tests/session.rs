//! `brief session` (issue 11): tiers and visible ids, append-only renders and log, the
//! budget gate with its seed objects, purge and its cache cost, bad input, concurrency
//! and crash safety. Every test runs the real binary on the clinic fixture.

use std::fs;
use std::path::Path;
use std::process::{Child, Stdio};

use serde_json::{Value, json};

use crate::common::{json, run_in, snapshot_tree, stderr, stdout, workspace};
use crate::harness::{
    Workspace, argv, argv_then, assert_exit, assert_stderr_has, new_session, ok, session,
};

fn code(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = run_in(root, args);
    (out.status.code(), stderr(&out))
}

fn render(root: &Path, format: &str) -> Value {
    session(root).render(format)
}

/// The render without its last message (Tier 3), `cache_control` left out: what must
/// only ever grow.
pub fn stable(body: &Value) -> (Value, Value, Vec<String>) {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, _)| *k != "cache_control")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    // Chat Completions and Anthropic: messages; Responses: input; Gemini: contents.
    let messages = ["messages", "input", "contents"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_array))
        .unwrap();
    let kept = messages[..messages.len() - 1]
        .iter()
        .map(|m| serde_json::to_string(&strip(m)).unwrap())
        .collect();
    (
        body["tools"].clone(),
        ["system", "instructions", "systemInstruction"]
            .iter()
            .find_map(|k| body.get(*k).cloned())
            .unwrap_or(Value::Null),
        kept,
    )
}

pub fn assert_grew(before: &Value, after: &Value) {
    let (tools_a, system_a, messages_a) = stable(before);
    let (tools_b, system_b, messages_b) = stable(after);
    assert_eq!(tools_a, tools_b);
    assert_eq!(system_a, system_b);
    assert!(messages_a.len() <= messages_b.len());
    assert_eq!(
        messages_a[..],
        messages_b[..messages_a.len()],
        "Tier 1+2 stay a prefix"
    );
}

#[test]
fn entries_get_visible_ids_from_one_counter_and_render_in_tier_order() {
    let ws = Workspace::clinic_session(&["--framework-tools"]);
    let root = ws.root();
    assert_eq!(session(root).user("Book Ada for Tuesday."), "msg_1");
    assert_eq!(
        session(root).tool_call("find_slot", r#"{"day":"Tuesday"}"#),
        "tool_call_2"
    );
    assert_eq!(
        session(root).tool_result("tool_call_2", "10:30 free"),
        "tool_res_3"
    );
    assert_eq!(session(root).assistant("Tuesday 10:30 is free."), "msg_4");

    let body = render(root, "openai");
    // Chat Completions and Anthropic: messages; Responses: input; Gemini: contents.
    let messages = ["messages", "input", "contents"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_array))
        .unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["content"], "[msg_1] Book Ada for Tuesday.");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "tool_call_2");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        r#"{"day":"Tuesday"}"#
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "tool_call_2");
    assert_eq!(messages[3]["content"], "[tool_res_3] 10:30 free");
    let tier3 = messages.last().unwrap()["content"].as_str().unwrap();
    assert!(tier3.contains("The caller is Ada."), "{tier3}");
    assert!(tier3.contains("Status: Context: "), "{tier3}");
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "find_slot",
            "purge",
            "compact_context",
            "web_search_agent",
            "fetch_url",
            "delegate_task"
        ]
    );

    let body = render(root, "anthropic");
    // Chat Completions and Anthropic: messages; Responses: input; Gemini: contents.
    let messages = ["messages", "input", "contents"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_array))
        .unwrap();
    assert_eq!(messages[1]["content"][0]["type"], "tool_use");
    assert_eq!(messages[1]["content"][0]["id"], "tool_call_2");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "tool_call_2");
    // Breakpoints: the last Tier 1 block and the last Tier 2 block, nothing in Tier 3.
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(
        messages[3]["content"][0]["cache_control"]["type"],
        "ephemeral"
    );
    assert!(messages[4]["content"][0].get("cache_control").is_none());
    let marked = body.to_string().matches("cache_control").count();
    assert_eq!(marked, 2);

    let text = ok(root, &["session", "render", "s", "--format", "text"]);
    assert!(
        text.contains("[tool_call_2] AI -> find_slot: {\"day\":\"Tuesday\"}"),
        "{text}"
    );
}

#[test]
fn renders_stay_append_only_while_tier2_grows_and_a_purge_breaks_them_once() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("first");
    let mut before = (render(root, "openai"), render(root, "anthropic"));
    for args in [
        vec!["--assistant", "second"],
        vec!["--user", "third"],
        vec!["--tool-call", "find_slot", "--args", "{}"],
        vec!["--tool-result", "tool_call_4", "--text", "none"],
        vec!["--user", "sixth"],
    ] {
        let mut all = vec!["session", "append", "s"];
        all.extend(args.iter().copied());
        ok(root, &all);
        if args[0] == "--tool-call" {
            // A call without its result renders for no provider.
            let out = run_in(root, &["session", "render", "s"]);
            assert_exit(&out, 2);
            assert_stderr_has(&out, "tool_call_4");
            continue;
        }
        let after = (render(root, "openai"), render(root, "anthropic"));
        assert_grew(&before.0, &after.0);
        assert_grew(&before.1, &after.1);
        before = after;
    }
    ok(root, &["session", "purge", "s", "--ids", "msg_2"]);
    let after = render(root, "openai");
    let (_, _, a) = stable(&before.0);
    let (_, _, b) = stable(&after);
    assert_ne!(a[..b.len().min(a.len())], b[..b.len().min(a.len())]);
}

#[test]
fn the_log_only_ever_grows_through_every_operation() {
    let ws = workspace("clinic");
    let root = ws.path();
    let dir = new_session(root, &["--context-limit", "3000"]);
    let log = || fs::read(dir.join("log.jsonl")).unwrap();
    let mut previous = log();
    let steps: Vec<Vec<&str>> = vec![
        vec!["session", "append", "s", "--user", "hello"],
        argv("session append s --tool-call find_slot --args {}"),
        argv("session append s --tool-result tool_call_2 --text slots"),
        vec!["session", "gate", "s", "--estimate", "10"],
        vec!["session", "gate", "s", "--estimate", "100000"],
        argv("session purge s --ids tool_call_2,tool_res_3 --summary 'no slots'"),
        vec!["session", "append", "s", "--assistant", "done"],
    ];
    for step in steps {
        run_in(root, &step);
        let now = log();
        assert!(now.len() > previous.len(), "{step:?} appended");
        assert_eq!(
            now[..previous.len()],
            previous[..],
            "{step:?} rewrote the log"
        );
        previous = now;
    }
    // The purged originals are still there.
    let shown = ok(root, &["session", "show", "s", "tool_res_3"]);
    assert!(
        shown.contains("purged") && shown.contains("slots") && shown.contains("msg_4"),
        "{shown}"
    );
}

#[test]
fn the_gate_blocks_with_the_seed_object_and_resumes_the_same_operation_after_a_purge() {
    let ws = Workspace::clinic_session(&argv(
        "--context-limit 4000 --reserve 200 --overhead 0 --margin 0",
    ));
    let root = ws.root();
    let long = "Ada's notes from the last visit. ".repeat(60);
    session(root).user(&long);
    session(root).user("short");
    let status = session(root).status();
    let available = status["available_operation_tokens"].as_u64().unwrap();
    let estimate = (available + 100).to_string();
    let out = run_in(
        root,
        &argv_then(
            "session gate s --estimate",
            &[&estimate, "--kind", "tool", "--json"],
        ),
    );
    assert_eq!(out.status.code(), Some(1));
    let blocked = json(&out);
    let keys: Vec<&String> = blocked.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "status",
            "pending_operation_id",
            "current_context_tokens",
            "estimated_result_tokens",
            "available_operation_tokens",
            "required_action"
        ]
    );
    assert_eq!(blocked["status"], "context_budget_exceeded");
    assert_eq!(blocked["pending_operation_id"], "op_1");
    assert_eq!(blocked["required_action"], "purge_or_compact");
    assert_eq!(
        blocked["current_context_tokens"],
        status["current_context_tokens"]
    );
    let status = session(root).status();
    assert_eq!(status["pending_operations"], json!(["op_1"]));
    // Still too big: still blocked, same id.
    let out = run_in(root, &["session", "gate", "s", "--resume", "op_1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["pending_operation_id"], "op_1");
    ok(
        root,
        &argv("session purge s --ids msg_1 --summary 'Notes read.'"),
    );
    let out = run_in(root, &["session", "gate", "s", "--resume", "op_1"]);
    assert_exit(&out, 0);
    let allowed = json(&out);
    let keys: Vec<&String> = allowed.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "status",
            "operation_id",
            "available_operation_tokens",
            "level"
        ]
    );
    assert_eq!(allowed["operation_id"], "op_1");
    let status = session(root).status();
    assert_eq!(status["pending_operations"], json!([]));
    // A new operation gets the next id.
    let allowed = json(&run_in(root, &["session", "gate", "s", "--estimate", "1"]));
    assert_eq!(allowed["operation_id"], "op_2");
}

#[test]
fn purge_reports_its_cache_cost_and_keeps_calls_with_their_results() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("one");
    session(root).tool_call("find_slot", "{}");
    session(root).tool_result("tool_call_2", "a long list of slots");
    session(root).user("four");
    let log = session(root).log();
    let tokens: Vec<u64> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tokens"].as_u64().unwrap())
        .collect();
    for (ids, needle) in [
        ("tool_call_2", "tool_res_3"),
        ("tool_res_3", "tool_call_2"),
        ("msg_9", "msg_9"),
        ("persona", "Tier 1"),
        ("visit", "Tier 3"),
        ("msg_1,nonsense", "nonsense"),
    ] {
        let before = snapshot_tree(root);
        let (c, err) = code(root, &["session", "purge", "s", "--ids", ids]);
        assert_eq!(c, Some(2), "{ids}");
        assert!(err.contains(needle), "{ids}: {err}");
        assert_eq!(snapshot_tree(root), before, "{ids}: nothing changed");
    }
    let report = json(&run_in(
        root,
        &argv(
            "session purge s --ids tool_call_2,tool_res_3 --summary 'No slot on Tuesday.' --json",
        ),
    ));
    assert_eq!(report["status"], "ok");
    assert_eq!(report["removed_ids"], json!(["tool_call_2", "tool_res_3"]));
    assert_eq!(
        report["removed_tokens"].as_u64().unwrap(),
        tokens[1] + tokens[2]
    );
    assert_eq!(report["summary_id"], "msg_5");
    assert_eq!(report["cache_break_at"], "tool_call_2");
    let summary_tokens = report["summary_tokens"].as_u64().unwrap();
    assert_eq!(
        report["tokens_rewritten"].as_u64().unwrap(),
        summary_tokens + tokens[3]
    );
    let (c, err) = code(root, &["session", "purge", "s", "--ids", "tool_res_3"]);
    assert_eq!(c, Some(2));
    assert!(err.contains("already purged"), "{err}");
    // The summary stands where the purged call stood.
    let body = render(root, "openai");
    assert_eq!(
        body["messages"][2]["content"],
        "[msg_5] Summary: No slot on Tuesday."
    );
    assert_eq!(body["messages"][3]["content"], "[msg_4] four");
    let states: Vec<String> = session(root).log()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{}={}",
                e["id"].as_str().unwrap(),
                e["state"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            "msg_1=live",
            "tool_call_2=purged",
            "tool_res_3=purged",
            "msg_4=live",
            "msg_5=live"
        ]
    );
}

#[test]
fn bad_input_exits_2_and_changes_nothing() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("hi");
    session(root).tool_call("find_slot", "{}");
    session(root).tool_result("tool_call_2", "x");
    fs::write(
        root.join("bad.json"),
        r#"{"summary": "x", "findings": [{"finding": "f", "confidence": "sure"}]}"#,
    )
    .unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["session", "append", "s", "--user", ""],
        argv("session append s --tool-call 'find slot' --args {}"),
        argv("session append s --tool-call find_slot --args [1]"),
        vec![
            "session",
            "append",
            "s",
            "--tool-call",
            "find_slot",
            "--args",
            "{",
        ],
        argv("session append s --tool-result tool_call_2 --text again"),
        argv("session append s --tool-result tool_call_9 --text who"),
        argv("session append s --tool-result tool_res_3 --text who"),
        argv("session append s --tool-result tool_call_2 --file missing.txt"),
        argv("session append s --subagent tool_call_2 bad.json"),
        vec!["session", "append", "s", "--user", "a", "--assistant", "b"],
        vec!["session", "append", "nowhere", "--user", "a"],
        vec!["session", "gate", "s", "--resume", "op_7"],
        vec!["session", "gate", "s"],
        vec!["session", "show", "s", "msg_99"],
        vec!["session", "new", "s", "--brief", "clinic"],
        vec!["session", "new", "t", "--brief", "nowhere"],
        vec!["session", "render", "s", "--format", "xml"],
    ];
    for case in cases {
        let before = snapshot_tree(root);
        let out = run_in(root, &case);
        assert_eq!(out.status.code(), Some(2), "{case:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty(), "{case:?} says why");
        assert_eq!(snapshot_tree(root), before, "{case:?} changed something");
    }
}

#[test]
fn a_subagent_envelope_is_validated_and_appended_whole() {
    let ws = Workspace::clinic_session(&["--framework-tools"]);
    let root = ws.root();
    session(root).user("check the calendar");
    session(root).tool_call("delegate_task", r#"{"goal":"check"}"#);
    let findings: Vec<Value> = (0..200).map(|i| json!({"finding": format!("slot {i} free"), "evidence": "calendar", "confidence": "high"})).collect();
    let envelope = json!({"status": "completed", "summary": "200 slots", "findings": findings, "tests_run": 3});
    fs::write(
        root.join("env.json"),
        serde_json::to_string_pretty(&envelope).unwrap(),
    )
    .unwrap();
    assert_eq!(
        ok(root, &["envelope", "validate", "env.json"])
            .lines()
            .last()
            .unwrap(),
        "a valid sub-agent result envelope"
    );
    assert_eq!(
        ok(
            root,
            &argv("session append s --subagent tool_call_2 env.json")
        ),
        "tool_res_3"
    );
    let shown = json(&run_in(
        root,
        &["session", "show", "s", "tool_res_3", "--json"],
    ));
    let text = shown["entry"]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        envelope,
        "never truncated"
    );

    fs::write(
        root.join("bad.json"),
        r#"{"summary": 3, "findings": [{"evidence": "e", "confidence": "sure"}]}"#,
    )
    .unwrap();
    let out = run_in(root, &["envelope", "validate", "bad.json", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let pointers: Vec<String> = json(&out)["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["pointer"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        pointers,
        [
            "/status",
            "/summary",
            "/findings/0/finding",
            "/findings/0/confidence"
        ]
    );
}

#[test]
fn status_and_log_report_tiers_and_levels() {
    let ws = Workspace::clinic_session(&argv(
        "--context-limit 2000 --reserve 100 --overhead 0 --margin 0",
    ));
    let root = ws.root();
    let status = session(root).status();
    assert_eq!(status["status"], "ok");
    let t = |k: &str| status[k].as_u64().unwrap();
    assert_eq!(
        t("current_context_tokens"),
        t("tier1_tokens") + t("tier2_tokens") + t("tier3_tokens")
    );
    assert_eq!(
        t("available_operation_tokens"),
        2000 - t("current_context_tokens") - 100
    );
    assert_eq!(t("tier2_tokens"), 0);
    let telemetry = status["summary"].as_str().unwrap();
    assert!(
        telemetry.starts_with("Status: Context: ")
            && telemetry.ends_with("| System Status: Optimal"),
        "{telemetry}"
    );
    // Fill to the critical level: the level and the advice change.
    let big = "word ".repeat(1700);
    session(root).user(&big);
    let status = session(root).status();
    assert_eq!(status["level"], "critical");
    let body = render(root, "openai");
    let tier3 = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(tier3.contains("System Status: Critical"), "{tier3}");
    assert!(tier3.contains("compact_context"), "{tier3}");
    let out = run_in(
        root,
        &argv("session gate s --estimate 1 --kind subagent --high-volume"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["status"], "context_budget_exceeded");
}

#[test]
fn a_torn_last_line_is_tolerated_and_other_damage_is_named_by_line() {
    let ws = workspace("clinic");
    let root = ws.path();
    let dir = new_session(root, &[]);
    session(root).user("one");
    session(root).user("two");
    let log = dir.join("log.jsonl");
    let good = fs::read(&log).unwrap();
    let mut torn = good.clone();
    torn.extend_from_slice(br#"{"event":"append","at":"x","entr"#);
    fs::write(&log, &torn).unwrap();
    let out = run_in(root, &["session", "log", "s"]);
    assert_eq!(out.status.code(), Some(0));
    assert_stderr_has(&out, "unfinished last line");
    assert_eq!(session(root).user("three"), "msg_3");
    let now = fs::read(&log).unwrap();
    assert_eq!(now[..good.len()], good[..]);
    assert!(now.ends_with(b"\n"));
    ok(root, &["session", "log", "s"]);

    let mut damaged = good.clone();
    damaged.splice(0..0, b"garbage\n".iter().copied());
    fs::write(&log, &damaged).unwrap();
    for args in [
        vec!["session", "log", "s"],
        vec!["session", "append", "s", "--user", "x"],
    ] {
        let out = run_in(root, &args);
        assert_eq!(out.status.code(), Some(2));
        assert_stderr_has(&out, "log.jsonl:1:");
    }
    assert_eq!(fs::read(&log).unwrap(), damaged);
}

#[test]
fn twenty_processes_appending_at_once_all_land_with_unique_ids() {
    let ws = workspace("clinic");
    let root = ws.path();
    let dir = new_session(root, &[]);
    let children: Vec<Child> = (0..20)
        .map(|i| {
            std::process::Command::new(env!("CARGO_BIN_EXE_brief"))
                .current_dir(root)
                .args(["session", "append", "s", "--user", &format!("parallel {i}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert_exit(&out, 0);
            stdout(&out).trim().to_string()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20);
    let log = fs::read_to_string(dir.join("log.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 20);
    for line in log.lines() {
        serde_json::from_str::<Value>(line).expect("no interleaved line");
    }
    let listed = session(root).log();
    let mut texts: Vec<String> = (1..=20).map(|n| format!("msg_{n}")).collect();
    let mut got: Vec<String> = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    texts.sort();
    got.sort();
    assert_eq!(got, texts);
}

#[test]
fn tools_prints_the_framework_tools_per_provider() {
    let ws = workspace("clinic");
    let openai: Value = serde_json::from_str(&ok(ws.path(), &["session", "tools"])).unwrap();
    assert_eq!(openai[0]["function"]["name"], "purge");
    assert_eq!(
        openai[0]["function"]["parameters"]["required"],
        json!(["ids"])
    );
    let anthropic: Value = serde_json::from_str(&ok(
        ws.path(),
        &["session", "tools", "--format", "anthropic"],
    ))
    .unwrap();
    let names: Vec<&str> = anthropic
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "purge",
            "compact_context",
            "web_search_agent",
            "fetch_url",
            "delegate_task"
        ]
    );
    assert_eq!(
        anthropic[1]["input_schema"]["required"],
        json!(["resume_instruction"])
    );
}

/// Regression: a damaged `log.jsonl` line was named only in `details` (`"locations": []`),
/// so `--json` and GitHub annotations could not point at it; it is a located problem now.
#[test]
fn damaged_log_line_was_in_details_not_locations() {
    let ws = workspace("clinic");
    let root = ws.path();
    let dir = new_session(root, &[]);
    session(root).user("one");
    session(root).user("two");
    let log = dir.join("log.jsonl");
    let mut damaged = fs::read_to_string(&log).unwrap();
    let lines = damaged.lines().count();
    damaged.push_str("{\"event\":\"append\",\"at\":\"x\",\"entries\":[}\n");
    fs::write(&log, &damaged).unwrap();
    let out = run_in(root, &["session", "log", "s", "--json"]);
    assert_exit(&out, 2);
    let value = json(&out);
    let location = &value["error"]["locations"][0];
    assert!(
        location["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("log.jsonl")),
        "{value}"
    );
    assert_eq!(location["line"], lines + 1, "{value}");
    assert_eq!(location["column"], 39, "{value}"); // the `}` that closes nothing
    let message = location["message"].as_str().unwrap();
    assert!(
        !message.is_empty() && !message.contains(" at line "),
        "{message}"
    );
    let human = run_in(root, &["session", "log", "s"]);
    let text = stderr(&human);
    assert!(
        text.contains(&format!("log.jsonl:{}:39: ", lines + 1)),
        "{text}"
    );
}

/// Regression: `envelope validate` of a file that is not JSON said its position twice
/// (`bad.json:2: … at line 2 column 0`) and gave no hint; now once, located, with a hint.
#[test]
fn envelope_validate_not_json_repeated_its_position_and_had_no_hint() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("bad.json"),
        "{\"status\": \"completed\",\n  \"summary\" \"x\"}\n",
    )
    .unwrap();
    let out = run_in(dir.path(), &["envelope", "validate", "bad.json"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(text.contains("bad.json:2:13: "), "{text}");
    assert_eq!(text.matches(":2:").count(), 1, "{text}");
    assert!(!text.contains(" at line "), "{text}");
    assert!(text.contains("hint: "), "{text}");
    let out = run_in(dir.path(), &["envelope", "validate", "bad.json", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let error = &json(&out)["error"];
    assert_eq!(
        (
            &error["locations"][0]["line"],
            &error["locations"][0]["column"]
        ),
        (&json!(2), &json!(13)),
        "{error}"
    );
    assert!(error["hint"].is_string(), "{error}");
}
