//! A conversation sample under `brief compress`, `brief guard` (via review and accept):
//! one model call per message, roles and count kept, findings named by message.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{json, stderr};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has, assert_stdout_has};
use crate::loopback::fixtures::{OPENAI_USAGE, openai_stream};
use crate::loopback::{Reply, Server};

const EXAMPLE: &str = "---\ntype: sample\nformat: messages\n---\n- role: user\n  content: |\n    Hello there, could you please tell me where my order 1042 is right now?\n- role: assistant\n  content: |\n    Of course! Order 1042 left our shop on 3 May and costs $40.\n    You can follow it at https://shop.example/t/1042 at any time.\n";

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("b");
    fs::create_dir_all(dir.join("items")).unwrap();
    fs::write(
        dir.join("brief.yaml"),
        "name: shop\nitems: [identity, example]\n",
    )
    .unwrap();
    fs::write(
        dir.join("items/identity.md"),
        "---\ntype: identity\n---\nYou are Pip, the order-status assistant of a bicycle shop.\n",
    )
    .unwrap();
    fs::write(dir.join("items/example.md"), EXAMPLE).unwrap();
    ws
}

/// A model that shortens each message by what the request asks about.
fn model(assistant_answer: &'static str) -> Server {
    Server::answering(move |request| {
        let body = String::from_utf8_lossy(&request.body).into_owned();
        let text = if body.contains("message 1 of 2") {
            "Where is order 1042?"
        } else {
            assistant_answer
        };
        Reply::sse(
            &openai_stream(text, Some("stop"), Some(OPENAI_USAGE), true),
            &[],
        )
    })
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    crate::harness::command::run_with_state(root, args)
}

fn compress(root: &Path, server: &Server) -> Value {
    let out = run(
        root,
        &argv_then(
            "compress b example --json --model m --base-url",
            &[&server.url()],
        ),
    );
    assert_exit(&out, 0);
    json(&out)
}

#[test]
fn each_message_is_compressed_in_its_own_call_and_the_proposal_keeps_the_roles() {
    let ws = workspace();
    let server = model("Order 1042 left on 3 May ($40): https://shop.example/t/1042");
    let report = compress(ws.path(), &server);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "one call per message");
    for (i, request) in requests.iter().enumerate() {
        let sent = request.json()["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(sent.contains(&format!("message {} of 2", i + 1)), "{sent}");
        // Only that message's content is sent.
        let other = if i == 0 {
            "follow it"
        } else {
            "could you please"
        };
        assert!(!sent.contains(other), "{sent}");
    }
    assert_eq!(report["status"], "clean", "{report}");
    let id = report["proposal_id"].as_str().unwrap().to_string();
    let out = run(ws.path(), &["review", "b", &id]);
    assert_exit(&out, 0);
    assert_stdout_has(&out, "role: assistant");
    let out = run(ws.path(), &["accept", "b", &id]);
    assert_exit(&out, 0);
    let written = fs::read_to_string(ws.path().join("b/items/example.md")).unwrap();
    insta::assert_snapshot!(written);
    let out = run(ws.path(), &["compose", "b", "--format", "openai"]);
    assert_exit(&out, 0);
    let body = json(&out);
    assert_eq!(body["messages"][1]["content"], "Where is order 1042?");
    assert_eq!(body["messages"][2]["name"], "example_assistant");
}

#[test]
fn a_dropped_fact_is_named_by_its_message() {
    let ws = workspace();
    let server = model("Order 1042 left on 3 May: https://shop.example/t/1042");
    let report = compress(ws.path(), &server);
    assert_eq!(report["status"], "flagged", "{report}");
    assert_eq!(report["dropped"][0]["value"], "$40");
    assert_eq!(report["dropped"][0]["in_message"], "message 2 (assistant)");
    let id = report["proposal_id"].as_str().unwrap().to_string();
    let out = run(ws.path(), &["accept", "b", &id]);
    assert_exit(&out, 1);
    assert_stderr_has(&out, "message 2 (assistant): price $40");
}

#[test]
fn a_proposal_that_changes_a_role_or_the_count_is_refused() {
    let ws = workspace();
    let server = model("Order 1042 left on 3 May ($40): https://shop.example/t/1042");
    let report = compress(ws.path(), &server);
    let id = report["proposal_id"].as_str().unwrap().to_string();
    let path = ws.path().join("b/proposals").join(format!("{id}.yaml"));
    let saved: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let body = saved["body"].as_str().unwrap().to_string();
    for (from, to, says) in [
        (
            "role: assistant",
            "role: user",
            "changes the role of message 2",
        ),
        (
            "- role: user\n",
            "- role: user\n  content: extra\n- role: assistant\n  content: extra\n- role: user\n",
            "has 4 messages where the item has 2",
        ),
    ] {
        assert!(body.contains(from), "{body}");
        let mut planted = saved.clone();
        planted["body"] = serde_yaml::Value::from(body.replacen(from, to, 1));
        fs::write(&path, serde_yaml::to_string(&planted).unwrap()).unwrap();
        let before = fs::read_to_string(ws.path().join("b/items/example.md")).unwrap();
        let out = run(ws.path(), &["accept", "b", &id, "--allow-flags"]);
        assert_eq!(out.status.code(), Some(2), "{to}: {}", stderr(&out));
        assert_stderr_has(&out, says);
        assert_eq!(
            fs::read_to_string(ws.path().join("b/items/example.md")).unwrap(),
            before
        );
    }
}

#[test]
fn brief_guard_compares_two_sample_files_message_by_message() {
    let ws = workspace();
    let original = ws.path().join("b/items/example.md");
    let shorter = ws.path().join("shorter.md");
    fs::write(&shorter, EXAMPLE.replace(" and costs $40", "")).unwrap();
    let out = run(
        ws.path(),
        &["guard", "b/items/example.md", "shorter.md", "--json"],
    );
    assert_exit(&out, 1);
    let report = json(&out);
    assert_eq!(report["dropped"][0]["value"], "$40");
    assert_eq!(report["dropped"][0]["in_message"], "message 2 (assistant)");
    let out = run(ws.path(), &["guard", "b/items/example.md", "shorter.md"]);
    assert_stdout_has(&out, "b/items/example.md message 2 (assistant):1:");
    let swapped = ws.path().join("swapped.md");
    fs::write(&swapped, EXAMPLE.replace("role: assistant", "role: user")).unwrap();
    let out = run(ws.path(), &["guard", "b/items/example.md", "swapped.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "changes the role of message 2");
    assert!(original.exists());
}

#[test]
fn a_compressor_brief_with_worked_examples_sends_them_before_the_item() {
    let ws = workspace();
    let comp = ws.path().join("comp");
    fs::create_dir_all(comp.join("items")).unwrap();
    fs::write(
        comp.join("brief.yaml"),
        "name: comp\nitems: [editor, shown]\n",
    )
    .unwrap();
    fs::write(
        comp.join("items/editor.md"),
        "---\ntype: identity\n---\nYou shorten text and keep every fact.\n",
    )
    .unwrap();
    fs::write(
        comp.join("items/shown.md"),
        "---\ntype: sample\nformat: messages\n---\n- role: user\n  content: Shorten this section. We are open on all weekdays from 9 to 5.\n- role: assistant\n  content: Open weekdays 9-5.\n",
    )
    .unwrap();
    let out = run(ws.path(), &["lock", "comp"]);
    assert_exit(&out, 0);
    let server = model("Order 1042 left on 3 May ($40): https://shop.example/t/1042");
    let out = run(
        ws.path(),
        &argv_then(
            "compress b example --json --compressor comp --model m --base-url",
            &[&server.url()],
        ),
    );
    assert_exit(&out, 0);
    for request in server.requests() {
        let messages = request.json()["messages"].clone();
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[1]["name"], "example_user");
        assert_eq!(messages[2]["content"], "Open weekdays 9-5.");
        assert!(
            messages[3]["content"]
                .as_str()
                .unwrap()
                .starts_with("Shorten this message")
        );
    }
}

#[test]
fn estimate_counts_one_call_per_message_of_a_sample() {
    let ws = workspace();
    let out = run(
        ws.path(),
        &argv("compress b --all --estimate --json --model m"),
    );
    assert_exit(&out, 0);
    let report = json(&out);
    let estimates = report["estimates"].as_array().unwrap();
    let calls: Vec<u64> = estimates
        .iter()
        .map(|e| e["calls"].as_u64().unwrap())
        .collect();
    assert_eq!(
        calls,
        [1, 2],
        "identity: one call; the two-message sample: two"
    );
    assert_eq!(report["calls"], 3);
    assert!(report["summary"].as_str().unwrap().starts_with("3 calls"));
}
