//! The snags of a new user's first hour (issue 36), each as it broke: `accept` left
//! `check --strict` failing without a word, proposal ids had to be pasted whole, types could
//! not be fixed after import, a deliberate constant could not be kept, accepted flags were
//! cut, the default ledger was written without a word, and the small ones.

use std::fs;
use std::path::Path;

use crate::common::server::{Reply, Server};
use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has, assert_stdout_has};

const SHORTER: &str = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.";

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    crate::harness::command::run_with_state(root, args)
}

fn compress(root: &Path, server: &Server, item: &str) -> std::process::Output {
    let out = run(
        root,
        &[
            "compress",
            "clinic",
            item,
            "--model",
            "test-model",
            "--base-url",
            &server.base_url,
        ],
    );
    assert_exit(&out, 0);
    out
}

fn proposal_id(out: &std::process::Output) -> String {
    stdout(out)
        .lines()
        .find_map(|l| l.strip_prefix("proposal: "))
        .expect("the id is printed")
        .trim()
        .to_string()
}

/// The clinic's sample names two clock times on purpose: marked as constants, the fixture
/// passes `check --strict`.
fn keep_the_samples_times(root: &Path) {
    let sample = root.join("clinic/items/sample-booking.md");
    let text = fs::read_to_string(&sample).unwrap();
    fs::write(
        &sample,
        text.replace(
            "Which one suits you?",
            "Which one suits you? <!-- brief: constant -->",
        ),
    )
    .unwrap();
}

#[test]
fn accept_by_item_name_says_next_brief_lock_and_check_strict_passes_after_it() {
    let ws = workspace("clinic");
    let root = ws.path();
    keep_the_samples_times(root);
    assert_eq!(run(root, &["lock", "clinic"]).status.code(), Some(0));
    let before = run(root, &["check", "clinic", "--strict"]);
    assert_exit(&before, 0);
    let server = Server::start(Reply::Text(SHORTER.into()));
    compress(root, &server, "booking");

    let accepted = run(root, &["accept", "clinic", "booking"]);
    assert_exit(&accepted, 0);
    let said = stderr(&accepted);
    assert!(said.contains("accepted booking-"), "{said}");
    assert!(
        said.contains("next: brief lock clinic (the cached prefix moved: ")
            && said.contains("tokens written to the provider's cache again on the next call"),
        "{said}"
    );
    // As it said: check --strict fails on the moved prefix until the lock is renewed.
    let stale = run(root, &["check", "clinic", "--strict"]);
    assert_exit(&stale, 1);
    assert_eq!(run(root, &["lock", "clinic"]).status.code(), Some(0));
    let after = run(root, &["check", "clinic", "--strict"]);
    assert_exit(&after, 0);

    // restore and record say it too, and --json carries it as `relock`.
    let restored = run(root, &["restore", "clinic", "booking", "1", "--json"]);
    assert_exit(&restored, 0);
    let doc = json(&restored);
    assert_eq!(doc["relock"]["next"], "brief lock clinic");
    assert_eq!(doc["relock"]["prefix_changed"], true);
    assert!(doc["relock"]["tokens_rewritten"].as_u64().unwrap() > 0);
    let item = root.join("clinic/items/booking.md");
    let text = fs::read_to_string(&item).unwrap();
    fs::write(&item, text.replace("45 minutes", "50 minutes")).unwrap();
    let recorded = run(root, &["record", "clinic", "booking"]);
    assert_exit(&recorded, 0);
    assert_stderr_has(&recorded, "next: brief lock clinic (");
}

#[test]
fn the_cache_write_cost_carries_the_pricings_currency() {
    let ws = workspace("clinic");
    let root = ws.path();
    let manifest = root.join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    let text = text
        .lines()
        .filter(|l| !l.starts_with("pricing:"))
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(
        &manifest,
        format!(
            "{text}\npricing: {{ input_per_mtok: 2.0, cache_write_per_mtok: 2.5, currency: EUR }}\n"
        ),
    )
    .unwrap();
    assert_eq!(run(root, &["lock", "clinic"]).status.code(), Some(0));
    let server = Server::start(Reply::Text(SHORTER.into()));
    compress(root, &server, "booking");
    let out = run(root, &["accept", "clinic", "--latest", "--json"]);
    assert_exit(&out, 0);
    let doc = json(&out);
    let tokens = doc["relock"]["tokens_rewritten"].as_f64().unwrap();
    assert_eq!(doc["relock"]["cache_write_cost"]["currency"], "EUR");
    let amount = doc["relock"]["cache_write_cost"]["amount"]
        .as_f64()
        .unwrap();
    assert!((amount - tokens * 2.5 / 1e6).abs() < 1e-12, "{doc}");
    let bad = text.replace("EUR", "euros");
    let _ = bad;
    fs::write(
        &manifest,
        format!("{text}\npricing: {{ input_per_mtok: 2.0, currency: euro }}\n"),
    )
    .unwrap();
    let refused = run(root, &["stats", "clinic"]);
    assert_exit(&refused, 2);
    assert_stderr_has(&refused, "ISO 4217");
}

#[test]
fn an_item_name_with_several_proposals_is_refused_with_the_candidates() {
    let ws = workspace("clinic");
    let root = ws.path();
    let server = Server::start(Reply::Text(SHORTER.into()));
    let first = proposal_id(&compress(root, &server, "booking"));
    let second = proposal_id(&compress(root, &server, "booking"));
    for command in ["accept", "review", "discard"] {
        let out = run(root, &[command, "clinic", "booking"]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(
            said.contains("2 pending proposals for `booking`")
                && said.contains(&first)
                && said.contains(&second)
                && said.contains("--latest"),
            "{command}: {said}"
        );
    }
    let none = run(root, &["accept", "clinic", "persona"]);
    assert_eq!(none.status.code(), Some(2));
    assert_stderr_has(&none, "items with pending proposals: booking");
    // --latest picks the newest; then the name alone is unambiguous.
    let review = run(root, &["review", "clinic", "booking", "--latest", "--json"]);
    assert_exit(&review, 0);
    let newest = json(&review)["proposal_id"].as_str().unwrap().to_string();
    assert!(newest == first || newest == second);
    let discarded = run(root, &["discard", "clinic", "--latest"]);
    assert_exit(&discarded, 0);
    let accepted = run(root, &["accept", "clinic", "booking"]);
    assert_exit(&accepted, 0);
}

#[test]
fn a_body_the_model_returned_unchanged_is_not_saved_as_a_proposal() {
    let ws = workspace("clinic");
    let root = ws.path();
    let item = fs::read_to_string(root.join("clinic/items/booking.md")).unwrap();
    let body = item.splitn(3, "---\n").nth(2).unwrap().to_string();
    let server = Server::start(Reply::Text(body));
    let out = run(
        root,
        &argv_then(
            "compress clinic booking --model test-model --base-url",
            &[&server.base_url, "--json"],
        ),
    );
    assert_exit(&out, 0);
    let doc = json(&out);
    assert_eq!(doc["status"], "identical", "{doc}");
    assert!(doc["summary"].as_str().unwrap().contains("nothing saved"));
    let pending = root.join("clinic/proposals");
    let saved = fs::read_dir(&pending).map_or(0, |d| d.count());
    assert_eq!(saved, 0, "no proposal file");
}

#[test]
fn retype_writes_the_imports_suggestions_into_an_existing_brief() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    fs::write(
        root.join("prompt.md"),
        "# Desk\n\nYou help customers with parcels.\n\n## Limits\n\nNever promise a delivery date. Only discuss parcels sent with us.\n",
    )
    .unwrap();
    let out = run_in(root, &["import", "prompt.md", "desk"]);
    assert_exit(&out, 0);
    let limits = root.join("desk/items/limits.md");
    assert!(
        fs::read_to_string(&limits)
            .unwrap()
            .contains("type: instruction")
    );

    let dry = run_in(root, &["retype", "desk", "--dry-run", "--json"]);
    assert_exit(&dry, 0);
    insta::assert_json_snapshot!("retype_dry_run_json", json(&dry));
    assert!(
        fs::read_to_string(&limits)
            .unwrap()
            .contains("type: instruction")
    );

    let out = run_in(root, &["retype", "desk"]);
    assert_exit(&out, 0);
    assert_stdout_has(&out, "rule *");
    assert_stderr_has(&out, "next: brief lock desk");
    let text = fs::read_to_string(&limits).unwrap();
    assert!(text.starts_with("---\ntype: rule\n"), "{text}");
    assert!(
        text.ends_with("Only discuss parcels sent with us.\n"),
        "{text}"
    );
    let again = run_in(root, &["retype", "desk", "--json"]);
    assert_eq!(json(&again)["status"], "unchanged");
    let unknown = run_in(root, &["retype", "desk", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn a_line_marked_as_a_deliberate_constant_passes_check_and_never_reaches_the_model() {
    let ws = workspace("clinic");
    let root = ws.path();
    keep_the_samples_times(root);
    let item = root.join("clinic/items/booking.md");
    let text = fs::read_to_string(&item).unwrap();
    let dated = format!("{}\nPrices valid as of 2026-12-01.\n", text.trim_end());
    fs::write(&item, &dated).unwrap();
    assert_eq!(run(root, &["lock", "clinic"]).status.code(), Some(0));
    let flagged = run(root, &["check", "clinic", "--strict"]);
    assert_eq!(flagged.status.code(), Some(1));
    assert!(
        stderr(&flagged).contains("<!-- brief: constant -->")
            || stdout(&flagged).contains("<!-- brief: constant -->"),
        "the finding names the marker: {}",
        stdout(&flagged)
    );

    let marked = dated.replace("2026-12-01.", "2026-12-01. <!-- brief: constant -->");
    fs::write(&item, &marked).unwrap();
    let locked = run(root, &["lock", "clinic"]);
    assert_eq!(locked.status.code(), Some(0));
    let check = run(root, &["check", "clinic", "--strict"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        stdout(&check),
        stderr(&check)
    );
    let composed = run(
        root,
        &argv("compose clinic --var patient=A --var last_visit=2026-10-01"),
    );
    let prompt = stdout(&composed);
    assert!(
        prompt.contains("Prices valid as of 2026-12-01.\n"),
        "{prompt}"
    );
    assert!(!prompt.contains("brief: constant"), "{prompt}");
    // The marker never moves the prefix: the marked and the plain text lock alike.
    let marked_lock = fs::read_to_string(root.join("clinic/brief.lock")).unwrap();
    fs::write(&item, &dated).unwrap();
    assert_eq!(run(root, &["lock", "clinic"]).status.code(), Some(0));
    let plain_lock = fs::read_to_string(root.join("clinic/brief.lock")).unwrap();
    let hash = |lock: &str| {
        lock.lines()
            .find(|l| l.trim_start().starts_with("hash:"))
            .map(str::to_string)
    };
    assert_eq!(hash(&marked_lock), hash(&plain_lock));
}

#[test]
fn history_lists_accepted_flags_whole_and_its_json_has_them() {
    let ws = workspace("clinic");
    let root = ws.path();
    // Drops the price and the address: two flags, accepted on purpose.
    let server = Server::start(Reply::Text(
        "## Booking\n\nFirst visit: 45 minutes; follow-ups 30 minutes.".into(),
    ));
    compress(root, &server, "booking");
    let out = run(root, &["accept", "clinic", "booking", "--allow-flags"]);
    assert_exit(&out, 0);
    let history = run(root, &["history", "clinic", "booking"]);
    let text = stdout(&history);
    assert!(
        text.contains("flags accepted)") || text.contains("flag accepted)"),
        "{text}"
    );
    assert!(text.contains("version 2 was accepted with "), "{text}");
    let doc = json(&run(root, &["history", "clinic", "booking", "--json"]));
    let flags = doc["versions"][1]["accepted_flags"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!flags.is_empty(), "{doc}");
    for flag in &flags {
        assert!(
            text.contains(flag.as_str().unwrap()),
            "{flag} listed whole:\n{text}"
        );
    }
    assert_eq!(doc["versions"][0]["accepted_flags"], serde_json::json!([]));
}

#[test]
fn the_first_write_to_the_default_ledger_says_where_once() {
    let ws = workspace("clinic");
    let root = ws.path();
    let server = Server::start(Reply::Text(SHORTER.into()));
    let first = compress(root, &server, "booking");
    let ledger = root.join("state/briefkit/usage.jsonl");
    let said = stderr(&first);
    assert!(
        said.contains(&format!(
            "recording model calls in the usage ledger {}",
            ledger.display()
        )),
        "{said}"
    );
    assert!(ledger.is_file());
    let second = compress(root, &server, "booking");
    assert!(
        !stderr(&second).contains("recording model calls"),
        "{}",
        stderr(&second)
    );
    // A ledger the user names is theirs: nothing to announce.
    let named = run(
        root,
        &argv_then(
            "compress clinic booking --model m --base-url",
            &[&server.base_url, "--ledger", "mine.jsonl"],
        ),
    );
    assert!(!stderr(&named).contains("recording model calls"));
}

#[test]
fn a_timeout_past_a_day_is_refused_as_a_ttl_past_100_years_is() {
    let ws = workspace("clinic");
    let out = run(
        ws.path(),
        &["compress", "clinic", "booking", "--timeout", "99999999999h"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "longer than the longest timeout");
}

fn session_new(root: &Path, extra: &[&str]) -> std::process::Output {
    let mut args =
        argv("session new s --brief clinic --var patient=Ada --var last_visit=2026-10-01");
    args.extend_from_slice(extra);
    run(root, &args)
}

#[test]
fn a_context_limit_below_tier_1_is_refused_and_nothing_is_written() {
    let ws = workspace("clinic");
    let out = session_new(ws.path(), &["--context-limit", "50"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "below Tier 1");
    assert!(!ws.path().join("s").exists());
}

#[test]
fn a_tool_call_for_a_tool_the_brief_lacks_is_refused() {
    let ws = workspace("clinic");
    let root = ws.path();
    assert_eq!(session_new(root, &[]).status.code(), Some(0));
    let out = run(
        root,
        &argv("session append s --tool-call book_taxi --args {}"),
    );
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("no such tool") && stderr(&out).contains("find_slot"),
        "{}",
        stderr(&out)
    );
    let log = run(root, &["session", "log", "s", "--json"]);
    assert_eq!(json(&log)["entries"].as_array().map(Vec::len), Some(0));
}

#[test]
fn an_over_budget_append_says_so_and_status_reflects_the_critical_level() {
    let ws = workspace("clinic");
    let root = ws.path();
    assert_eq!(session_new(root, &[]).status.code(), Some(0));
    let asked = run(
        root,
        &["session", "append", "s", "--user", "Any slot on Monday?"],
    );
    assert_exit(&asked, 0);
    let call = run(
        root,
        &[
            "session",
            "append",
            "s",
            "--tool-call",
            "find_slot",
            "--args",
            r#"{"day": "Monday"}"#,
        ],
    );
    assert_exit(&call, 0);
    let id = stdout(&call).trim().to_string();
    let big = "slot ".repeat(5000);
    let result = run(
        root,
        &argv_then(
            "session append s --tool-result",
            &[&id, "--text", &big, "--json"],
        ),
    );
    assert_exit(&result, 0);
    let doc = json(&result);
    assert_eq!(doc["status"], "over_budget", "{doc}");
    assert_eq!(doc["over_budget"], true);
    assert!(
        doc["summary"]
            .as_str()
            .unwrap()
            .contains("over the context budget")
    );
    let status = json(&run(root, &["session", "status", "s", "--json"]));
    assert_eq!(status["level"], "critical", "{status}");
    assert_ne!(status["status"], "ok", "{status}");
    assert!(
        status["status"] == "over_budget" || status["status"] == "critical",
        "{status}"
    );
}
