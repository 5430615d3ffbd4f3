//! `brief compress --all`, `--estimate`, `--compressor`, `--temperature`, `--max-tokens`,
//! and what a compress call leaves in the ledger, against loopback servers.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::run_in;
use crate::common::server::{Reply, Server};
use crate::common::store::content_tree;
use crate::common::{brief, json, stderr, stdout, workspace};
use crate::harness::{argv, assert_exit, assert_stderr_has, field_strs};
use crate::loopback;

/// A shorter answer for whichever item was sent: its first line.
fn first_line_server() -> loopback::Server {
    loopback::Server::answering(|request| {
        let body: serde_json::Value = request.json();
        let sent = body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string();
        let item = sent.split_once("\n\n").map_or("", |(_, rest)| rest);
        let line = item.lines().find(|l| !l.trim().is_empty()).unwrap_or("x");
        let stream = loopback::fixtures::openai_stream(
            line,
            Some("stop"),
            Some(loopback::fixtures::OPENAI_USAGE),
            true,
        );
        loopback::Reply::sse(&stream, &[])
    })
}

/// `brief compress clinic ARGS --model test-model --base-url URL` in `root`.
pub(crate) fn run(root: &Path, url: &str, args: &[&str]) -> std::process::Output {
    brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(["compress", "clinic"])
        .args(args)
        .args(["--model", "test-model", "--base-url", url])
        .output()
        .unwrap()
}

fn ledger_lines(root: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(root.join("state/briefkit/usage.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Proposal ids carry a time and random hex: replaced for snapshots.
fn without_ids(text: &str) -> String {
    let re = regex::Regex::new(r"([a-z0-9_-]+)-\d{14}-[0-9a-f]{4}").unwrap();
    re.replace_all(text, "$1-ID").into_owned()
}

#[test]
fn compress_all_makes_one_proposal_per_eligible_item_and_lists_the_refused_ones() {
    let ws = workspace("clinic");
    let server = first_line_server();
    let out = run(ws.path(), &server.url(), &["--all"]);
    assert_exit(&out, 0);
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        3,
        "persona, booking and sample-booking only"
    );
    for request in &requests {
        let body = String::from_utf8_lossy(&request.body);
        assert!(!body.contains("Never waive"), "a rule was sent: {body}");
    }
    let saved = fs::read_dir(ws.path().join("clinic/proposals"))
        .unwrap()
        .count();
    assert_eq!(saved, 3);
    insta::assert_snapshot!("all_human", without_ids(&stdout(&out)));
    assert_stderr_has(&out, "3 proposals");
    assert_stderr_has(&out, "3 items refused");

    let ws = workspace("clinic");
    let out = run(ws.path(), &server.url(), &["--all", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["status"], "ok");
    assert_eq!(report["items"].as_array().unwrap().len(), 3);
    assert_eq!(
        report["saved_tokens"].as_i64().unwrap(),
        report["tokens_before"].as_i64().unwrap() - report["tokens_after"].as_i64().unwrap()
    );
    insta::assert_snapshot!(
        "all_json",
        without_ids(&serde_json::to_string_pretty(&report).unwrap())
    );
}

#[test]
fn compress_all_goes_on_after_a_failed_call_and_exits_3() {
    let ws = workspace("clinic");
    // The second call (booking) fails with a 400; the others answer.
    let count = std::sync::atomic::AtomicUsize::new(0);
    let server = loopback::Server::answering(move |_| {
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n == 1 {
            loopback::Reply::status(
                400,
                &[],
                "application/json",
                r#"{"error":{"message":"no"}}"#,
            )
        } else {
            let stream = loopback::fixtures::openai_stream(
                "Short.",
                Some("stop"),
                Some(loopback::fixtures::OPENAI_USAGE),
                true,
            );
            loopback::Reply::sse(&stream, &[])
        }
    });
    let out = run(ws.path(), &server.url(), &["--all", "--json"]);
    assert_exit(&out, 3);
    let report = json(&out);
    assert_eq!(report["status"], "failed");
    let statuses: Vec<&str> = field_strs(&report["items"], "status");
    assert_eq!(statuses[1], "failed");
    assert_eq!(statuses.len(), 3);
    let saved = fs::read_dir(ws.path().join("clinic/proposals"))
        .unwrap()
        .count();
    assert_eq!(saved, 2, "the other proposals are kept");
}

#[test]
fn estimate_counts_tokens_and_cost_without_calling() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text("never asked".into()));
    let tree = content_tree(ws.path());
    let out = run(ws.path(), &server.base_url, &["--all", "--estimate"]);
    assert_exit(&out, 0);
    assert!(server.requests().is_empty());
    assert_eq!(content_tree(ws.path()), tree);
    assert!(!ws.path().join("state/briefkit/usage.jsonl").exists());
    insta::assert_snapshot!(
        "estimate_human",
        format!("{}\n{}", stdout(&out), stderr(&out))
    );
    let out = run(
        ws.path(),
        &server.base_url,
        &argv("booking --estimate --json --price-input 3 --price-output 15"),
    );
    assert_exit(&out, 0);
    insta::assert_snapshot!(
        "estimate_json",
        serde_json::to_string_pretty(&json(&out)).unwrap()
    );
    assert!(server.requests().is_empty());
}

#[test]
fn settings_go_into_the_request_and_the_proposal() {
    let ws = workspace("clinic");
    let server = first_line_server();
    let out = run(
        ws.path(),
        &server.url(),
        &argv("booking --temperature 0.3 --max-tokens 777 --json"),
    );
    assert_exit(&out, 0);
    let sent = server.requests()[0].json();
    assert_eq!(sent["temperature"], 0.3);
    let cap = sent
        .get("max_completion_tokens")
        .or(sent.get("max_tokens"))
        .unwrap();
    assert_eq!(cap, 777);
    let id = json(&out)["proposal_id"].as_str().unwrap().to_string();
    let text = fs::read_to_string(ws.path().join(format!("clinic/proposals/{id}.yaml"))).unwrap();
    let saved: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(saved["provider"], "openai");
    assert!(saved["model"].as_str().unwrap().starts_with("test-model"));
    assert_eq!(saved["settings"]["temperature"], 0.3);
    assert_eq!(saved["settings"]["max_tokens"], 777);
    assert_eq!(saved["settings"]["compressor"], "bundled");

    for bad in [["--temperature", "3"], ["--max-tokens", "0"]] {
        let out = run(ws.path(), &server.url(), &["booking", bad[0], bad[1]]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn another_compressor_is_checked_then_used_as_the_system_prompt() {
    let ws = workspace("clinic");
    let mine = ws.path().join("mine");
    fs::create_dir_all(mine.join("items")).unwrap();
    fs::write(
        mine.join("brief.yaml"),
        "name: terse\nitems: [role, never]\n",
    )
    .unwrap();
    fs::write(
        mine.join("items/role.md"),
        "---\ntype: identity\n---\nYou shorten text for a terse house style.\n",
    )
    .unwrap();
    fs::write(
        mine.join("items/never.md"),
        "---\ntype: rule\n---\nKeep every number.\n",
    )
    .unwrap();
    let server = first_line_server();
    // Not locked: refused like a bundled compressor that failed its check, before any call.
    let out = run(
        ws.path(),
        &server.url(),
        &["booking", "--compressor", "mine"],
    );
    assert_exit(&out, 2);
    assert_stderr_has(&out, "brief check");
    assert!(server.requests().is_empty());

    let lock = run_in(ws.path(), &["lock", "mine"]);
    assert_exit(&lock, 0);
    let out = run(
        ws.path(),
        &server.url(),
        &["booking", "--compressor", "mine", "--json"],
    );
    assert_exit(&out, 0);
    let sent = server.requests()[0].json();
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("terse house style"), "{system}");
    assert!(!system.contains("You are an editor"), "{system}");
    let line = ledger_lines(ws.path()).pop().unwrap();
    assert_eq!(line["brief"], "terse");
    assert_eq!(line["target_brief"], "clinic");
    let hash = fs::read_to_string(mine.join("brief.lock")).unwrap();
    assert!(
        hash.contains(line["prefix_hash"].as_str().unwrap()),
        "the ledger's prefix is the compressor's: {hash}"
    );
}

#[test]
fn compress_calls_are_kept_apart_from_the_briefs_own_traffic() {
    let ws = workspace("clinic");
    let server = first_line_server();
    let out = run(ws.path(), &server.url(), &["booking"]);
    assert_exit(&out, 0);
    let line = ledger_lines(ws.path()).pop().unwrap();
    assert_eq!(line["command"], "compress");
    assert_eq!(line["brief"], "compressor");
    assert_eq!(line["target_brief"], "clinic");
    assert_eq!(line["item"], "booking");
    assert!(
        line["target_brief_dir"]
            .as_str()
            .unwrap()
            .ends_with("clinic")
    );
    let locked = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&locked, 0);
    let lock = fs::read_to_string(ws.path().join("clinic/brief.lock")).unwrap();
    assert!(lock.contains("hash"), "{lock}");
    assert!(
        !lock.contains(line["prefix_hash"].as_str().unwrap()),
        "a compress call is never counted under the brief's own prefix"
    );
    let usage = brief()
        .current_dir(ws.path())
        .env("XDG_STATE_HOME", ws.path().join("state"))
        .args(["usage", "--by", "prefix", "--json"])
        .output()
        .unwrap();
    let text = stdout(&usage);
    assert!(text.contains("compressor"), "{text}");
    assert!(!text.contains("\"clinic\""), "{text}");
}

#[test]
fn attempts_count_every_http_request_of_a_failed_call() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Status(500, r#"{"error":{"message":"down"}}"#.into()));
    let out = run(ws.path(), &server.base_url, &["booking"]);
    assert_exit(&out, 3);
    let requests = server.requests().len() as u64;
    assert!(requests > 1, "a 500 is retried");
    let line = ledger_lines(ws.path()).pop().unwrap();
    assert_eq!(line["status"], "http_500");
    assert_eq!(line["attempts"].as_u64(), Some(requests));
}

#[test]
fn a_call_cut_by_ctrl_c_is_recorded_as_cancelled() {
    let ws = workspace("clinic");
    let server = loopback::Server::answering(|_| {
        let stream = loopback::fixtures::openai_stream("Sho", None, None, false);
        loopback::Reply::sse(&stream, &[]).hang(Duration::from_secs(5))
    });
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_brief"))
        .env_remove("BRIEF_LEDGER")
        .env_remove("OPENAI_API_KEY")
        .current_dir(ws.path())
        .env("XDG_STATE_HOME", ws.path().join("state"))
        .args(argv("compress clinic booking --model m --base-url"))
        .arg(server.url())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while server.requests().is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 130);
    assert_stderr_has(&out, "cancelled");
    assert!(!ws.path().join("clinic/proposals").exists());
    let line = ledger_lines(ws.path()).pop().unwrap();
    assert_eq!(line["status"], "cancelled");
    assert_eq!(line["item"], "booking");
}

#[test]
fn a_second_compress_all_warns_about_the_proposals_already_pending() {
    let ws = workspace("clinic");
    let server = first_line_server();
    let first = run(ws.path(), &server.url(), &["--all"]);
    assert_exit(&first, 0);
    assert!(!stderr(&first).contains("already have a pending"));
    let again = run(ws.path(), &server.url(), &["--all"]);
    assert_exit(&again, 0);
    let err = stderr(&again);
    assert!(
        err.contains("3 items already have a pending proposal (persona, booking, sample-booking)"),
        "{err}"
    );
    assert!(err.contains("brief discard clinic --all"), "{err}");
}

#[test]
fn an_unreachable_server_says_no_proposal_was_saved() {
    let ws = workspace("clinic");
    // A port nothing listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run(
        ws.path(),
        &format!("http://127.0.0.1:{port}/v1"),
        &["--all"],
    );
    assert_exit(&out, 3);
    let err = stderr(&out);
    assert!(err.contains("no proposal was saved"), "{err}");
    assert!(!err.contains("other proposals"), "{err}");
    assert!(!ws.path().join("clinic/proposals").exists());
}

#[test]
fn a_proposal_keeps_unreported_cache_figures_unknown() {
    // OPENAI_USAGE reports no cached or cache-write tokens: the proposal says null, not 0,
    // as the ledger does.
    let ws = workspace("clinic");
    let server = first_line_server();
    let out = run(ws.path(), &server.url(), &["persona", "--json"]);
    assert_exit(&out, 0);
    let id = json(&out)["proposal_id"].as_str().unwrap().to_string();
    let text = fs::read_to_string(ws.path().join(format!("clinic/proposals/{id}.yaml"))).unwrap();
    let proposal: serde_json::Value = serde_yaml::from_str(&text).unwrap();
    let ledger = ledger_lines(ws.path());
    let last = ledger.last().unwrap();
    assert_eq!(
        proposal["usage"]["cache_write_tokens"], last["cache_write_tokens"],
        "{text}"
    );
    assert_eq!(
        proposal["usage"]["cache_write_tokens"],
        serde_json::Value::Null
    );
}
