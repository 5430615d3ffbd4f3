//! Every command's report through the one renderer: the commands that gained `--json`
//! lead with `status` and `summary` and carry what their human form says, and writing the
//! JSON changes nothing that the human form would not.

use std::fs;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{assert_exit, session};

fn keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn lock_json_names_the_lock_its_rules_and_the_prefix() {
    let ws = workspace("clinic");
    let first = run_in(ws.path(), &["lock", "clinic", "--json"]);
    assert_exit(&first, 0);
    let report = json(&first);
    assert_eq!(
        keys(&report),
        [
            "status",
            "summary",
            "lock",
            "rules",
            "prefix_hash",
            "prefix_tokens",
            "changed"
        ]
    );
    assert_eq!(report["rules"], serde_json::json!(["cancellations"]));
    assert_eq!(report["changed"], false);
    let text = fs::read_to_string(ws.path().join("clinic/brief.lock")).unwrap();
    assert!(text.contains(report["prefix_hash"].as_str().unwrap()));
    assert!(
        report["summary"]
            .as_str()
            .unwrap()
            .starts_with("wrote clinic/brief.lock: 1 rule item locked, prefix ")
    );

    // The same figures in the human form, on stderr; a changed brief says `updated`.
    let persona = ws.path().join("clinic/items/persona.md");
    let body = fs::read_to_string(&persona).unwrap();
    fs::write(&persona, body.replace("booking assistant", "front desk")).unwrap();
    let again = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&again, 0);
    assert!(stdout(&again).is_empty());
    assert!(
        stderr(&again).starts_with("updated clinic/brief.lock: 1 rule item locked"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn init_json_lists_the_items_it_wrote() {
    let ws = tempfile::tempdir().unwrap();
    let out = run_in(
        ws.path(),
        &["init", "desk", "--name", "Help desk", "--json"],
    );
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(
        keys(&report),
        ["status", "summary", "brief", "name", "items"]
    );
    assert_eq!(report["status"], "ok");
    assert_eq!(report["name"], "Help desk");
    assert_eq!(
        report["summary"], "created a brief in desk with 6 items",
        "{report}"
    );
    for id in report["items"].as_array().unwrap() {
        let id = id.as_str().unwrap();
        assert!(
            ws.path().join(format!("desk/items/{id}.md")).exists()
                || ws
                    .path()
                    .join(format!("desk/items/{id}.tool.yaml"))
                    .exists(),
            "{id}"
        );
    }
    // A second init refuses, under --json as one error document.
    let again = run_in(ws.path(), &["init", "desk", "--json"]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(json(&again)["status"], "error");
}

#[test]
fn session_new_append_log_and_show_json_keep_their_keys_in_order() {
    let ws = workspace("clinic");
    let root = ws.path();
    let made = run_in(
        root,
        &["session", "new", "s", "--brief", "clinic", "--json"],
    );
    assert_exit(&made, 0);
    let made = json(&made);
    assert_eq!(
        keys(&made),
        [
            "status",
            "summary",
            "dir",
            "brief",
            "context_limit",
            "reserved_completion_tokens",
            "protocol_overhead_tokens",
            "safety_margin_tokens",
            "framework_tools",
            "provider",
            "model",
            "base_url",
        ]
    );
    let appended = json(&run_in(
        root,
        &["session", "append", "s", "--user", "Hello there", "--json"],
    ));
    assert_eq!(
        keys(&appended),
        ["status", "summary", "id", "kind", "tokens"]
    );
    let id = appended["id"].as_str().unwrap().to_string();
    let log = session(root).log();
    assert_eq!(keys(&log), ["status", "summary", "entries"]);
    assert_eq!(
        keys(&log["entries"][0]),
        ["id", "kind", "tokens", "state"],
        "source and over_budget only when they say something"
    );
    let shown = json(&run_in(root, &["session", "show", "s", &id, "--json"]));
    assert_eq!(
        keys(&shown),
        ["status", "summary", "entry", "state", "removed_by"]
    );
    assert_eq!(shown["removed_by"], serde_json::Value::Null);
    assert_eq!(shown["state"], "live");
}
