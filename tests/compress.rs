//! `brief compress` against a loopback server speaking both wire formats.

use std::fs;
use std::path::Path;

use crate::common::run_in;
use crate::common::server::{Reply, Server};
use crate::common::store::{body, content_tree};
use crate::common::{json, stderr, stdout, workspace};
use crate::harness::{assert_exit, field_strs, object_keys};

const SHORTER: &str = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.";

fn compress(root: &Path, server: &Server, args: &[&str]) -> std::process::Output {
    crate::compress_batch::run(root, &server.base_url, args)
}

fn saved(root: &Path, id: &str) -> serde_yaml::Value {
    let text =
        fs::read_to_string(root.join("clinic/proposals").join(format!("{id}.yaml"))).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

#[test]
fn refused_items_are_refused_before_any_connection() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let persona = dir.join("items/persona.md");
    fs::write(
        &persona,
        fs::read_to_string(&persona)
            .unwrap()
            .replace("type: identity", "type: identity\ncompress: never"),
    )
    .unwrap();
    let server = Server::start(Reply::Text("Short.".into()));
    for (item, policy) in [
        ("cancellations", "policy: verbatim"),
        ("visit", "policy: compact-only"),
        ("find_slot", "policy: verbatim"),
        ("persona", "compress: never"),
    ] {
        let tree = content_tree(ws.path());
        let out = compress(ws.path(), &server, &[item]);
        assert_eq!(out.status.code(), Some(2), "{item}: {}", stderr(&out));
        assert!(stderr(&out).contains(policy), "{item}: {}", stderr(&out));
        assert_eq!(content_tree(ws.path()), tree, "{item}");
    }
    assert!(
        server.requests().is_empty(),
        "no request may reach the server"
    );
    let out = compress(
        ws.path(),
        &server,
        &["cancellations", "--provider", "anthropic"],
    );
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&out));
    assert!(server.requests().is_empty());
}

#[test]
fn only_the_one_item_is_sent_never_a_rule_and_the_loop_completes() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let server = Server::start(Reply::Text(SHORTER.into()));
    let out = compress(ws.path(), &server, &["booking"]);
    assert_exit(&out, 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0].path.ends_with("/chat/completions"),
        "{}",
        requests[0].path
    );
    let sent = &requests[0].body;
    assert!(
        sent.contains("costs €80") && sent.contains("You are an editor"),
        "{sent}"
    );
    for other in [
        "EUR 35",
        "Never waive",
        "You are Pia",
        "Friday",
        "find_slot",
        "last_visit",
    ] {
        assert!(!sent.contains(other), "`{other}` must not be sent");
    }
    let text = stdout(&out);
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("proposal: "))
        .expect("the id is printed")
        .trim()
        .to_string();
    assert!(
        text.contains(&format!("accept:   brief accept clinic {id}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("discard:  brief discard clinic {id}")),
        "{text}"
    );
    let before = content_tree(ws.path());
    assert_eq!(
        before
            .iter()
            .filter(|(p, _)| p.starts_with(dir.join("proposals")))
            .count(),
        1,
        "only the proposal is written"
    );
    assert!(!dir.join("history").exists());
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_exit(&out, 0);
    assert_eq!(body(&dir.join("items/booking.md")), format!("{SHORTER}\n"));
}

#[test]
fn json_reports_the_documented_fields_in_order() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text(
        "## Booking\n\nA first visit takes 45 minutes and costs €95.".into(),
    ));
    let out = compress(ws.path(), &server, &["booking", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    let keys = object_keys(&report);
    assert_eq!(
        keys,
        [
            "status",
            "summary",
            "proposal_id",
            "item",
            "tokens_before",
            "tokens_after",
            "dropped",
            "introduced",
            "changed",
            "dropped_instructions",
            // What the MCP `compress` tool always answered: one document for both edges.
            "proposal",
            "accept"
        ]
    );
    assert_eq!(report["status"], "flagged");
    let dropped: Vec<&str> = field_strs(&report["dropped"], "value");
    assert!(
        dropped.contains(&"€80") && dropped.iter().any(|d| d.contains("harbour-physio")),
        "{dropped:?}"
    );
    assert_eq!(report["introduced"][0]["kind"], "price");
    assert!(report["tokens_after"].as_u64() < report["tokens_before"].as_u64());
    let proposal = saved(ws.path(), report["proposal_id"].as_str().unwrap());
    for field in [
        "id",
        "item",
        "base_sha256",
        "base_version",
        "created",
        "provider",
        "model",
        "compressor",
        "usage",
        "tokens_before",
        "tokens_after",
        "guard",
        "body",
    ] {
        assert!(proposal.get(field).is_some(), "{field}");
    }
    // The server's usage, normalised: OpenAI's cached tokens are part of its prompt tokens.
    assert_eq!(proposal["usage"]["input_tokens"], 2048);
    assert_eq!(proposal["usage"]["cached_input_tokens"], 1920);
    assert_eq!(proposal["compressor"].as_str().unwrap().len(), 64);
}

#[test]
fn terminal_escapes_and_control_characters_are_removed_from_the_answer() {
    let ws = workspace("clinic");
    let answer = format!(
        "\u{1b}]0;owned\u{7}\u{1b}[31m{SHORTER}\u{1b}[0m\u{0}\r\n\u{1b}]8;;https://evil.example\u{1b}\\\u{1b}]8;;\u{1b}\\"
    );
    let server = Server::start(Reply::Text(answer));
    let out = compress(ws.path(), &server, &["booking", "--json"]);
    assert_exit(&out, 0);
    let id = json(&out)["proposal_id"].as_str().unwrap().to_string();
    assert_eq!(
        saved(ws.path(), &id)["body"].as_str().unwrap(),
        format!("{SHORTER}\n")
    );
    assert_eq!(json(&out)["status"], "clean");
}

#[test]
fn an_outer_code_fence_is_unwrapped_over_the_anthropic_wire_format() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text(format!("```markdown\n{SHORTER}\n```\n")));
    let out = compress(
        ws.path(),
        &server,
        &["booking", "--json", "--provider", "anthropic"],
    );
    assert_exit(&out, 0);
    assert!(server.requests()[0].path.ends_with("/v1/messages"));
    let id = json(&out)["proposal_id"].as_str().unwrap().to_string();
    assert_eq!(
        saved(ws.path(), &id)["body"].as_str().unwrap(),
        format!("{SHORTER}\n")
    );
    assert_eq!(saved(ws.path(), &id)["provider"], "anthropic");
}

#[test]
fn a_truncated_stream_exits_3_and_writes_nothing() {
    for provider in ["openai", "anthropic"] {
        let ws = workspace("clinic");
        let tree = content_tree(ws.path());
        let server = Server::start(Reply::Truncated(SHORTER.into()));
        let out = compress(ws.path(), &server, &["booking", "--provider", provider]);
        assert_eq!(out.status.code(), Some(3), "{provider}: {}", stderr(&out));
        assert_eq!(content_tree(ws.path()), tree, "{provider}");
        assert!(!ws.path().join("clinic/proposals").exists());
        let ledger = fs::read_to_string(ws.path().join("state/briefkit/usage.jsonl")).unwrap();
        let line: serde_json::Value = serde_json::from_str(ledger.trim()).unwrap();
        assert_eq!(line["command"], "compress", "{provider}");
        assert_eq!(line["item"], "booking");
        assert_ne!(
            line["status"], "ok",
            "a failed call is recorded with its failure"
        );
    }
}

#[test]
fn a_successful_call_is_recorded_in_the_ledger_with_its_usage() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text(SHORTER.into()));
    let out = compress(ws.path(), &server, &["booking"]);
    assert_exit(&out, 0);
    let ledger = fs::read_to_string(ws.path().join("state/briefkit/usage.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(ledger.trim()).unwrap();
    assert_eq!(line["status"], "ok");
    assert_eq!(line["brief"], "compressor");
    assert_eq!(line["target_brief"], "clinic");
    assert_eq!(line["item"], "booking");
    assert_eq!(line["prefix_hash"].as_str().unwrap().len(), 64);
    assert!(line["input_tokens"].as_u64().is_some());
}

#[test]
fn a_server_error_exits_3_and_writes_nothing() {
    let ws = workspace("clinic");
    let tree = content_tree(ws.path());
    let server = Server::start(Reply::Status(
        400,
        r#"{"error":{"message":"bad model"}}"#.into(),
    ));
    let out = compress(ws.path(), &server, &["booking"]);
    assert_exit(&out, 3);
    assert_eq!(content_tree(ws.path()), tree);
}

#[test]
fn an_identical_proposal_is_not_saved_and_a_longer_one_is_saved_as_such() {
    let ws = workspace("clinic");
    let current = body(&ws.path().join("clinic/items/sample-booking.md"));
    let server = Server::start(Reply::Text(current.clone()));
    let out = compress(ws.path(), &server, &["sample-booking", "--json"]);
    assert_exit(&out, 0);
    assert_eq!(json(&out)["status"], "identical");
    let longer = format!(
        "{}\n\n**Pia:** Both slots are 45 minutes long, as every first visit is.",
        current.trim_end()
    );
    let server = Server::start(Reply::Text(longer));
    let out = compress(ws.path(), &server, &["sample-booking", "--json"]);
    assert_eq!(json(&out)["status"], "longer");
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    // Issue 36: an identical answer is not saved (nothing to review); a longer one still is.
    assert_eq!(listed["proposals"].as_array().unwrap().len(), 1);
}

#[test]
fn the_review_screen_shows_tokens_findings_and_a_word_diff() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text("## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address online.".into()));
    let out = compress(ws.path(), &server, &["booking"]);
    assert_exit(&out, 0);
    let ids = regex::Regex::new(r"booking-\d{14}-[0-9a-f]{4}").unwrap();
    insta::assert_snapshot!(ids.replace_all(&stdout(&out), "[ID]"));
}
