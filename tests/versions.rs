//! accept, discard, proposals, history, show, diff, restore and record on hand-made
//! proposals (the model side is tested in compress.rs).

use std::fs;

use crate::common::store::{body, content_tree, write_proposal};
use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{argv, assert_exit, assert_stderr_has, assert_stdout_has, object_keys};

const SHORT_BOOKING: &str = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.\n";

fn stable(text: &str) -> String {
    let stamps = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    stamps.replace_all(text, "[TIME]").into_owned()
}

#[test]
fn the_first_accept_imports_the_old_body_then_writes_the_new_one() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let before = fs::read_to_string(dir.join("items/booking.md")).unwrap();
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    let out = run_in(ws.path(), &["accept", "clinic", &id, "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["status"], "accepted");
    assert_eq!(report["version"], 2);
    assert_eq!(report["written"][0]["action"], "import");
    assert_eq!(report["written"][1]["action"], "compress");
    let after = fs::read_to_string(dir.join("items/booking.md")).unwrap();
    assert_eq!(
        after,
        format!("---\ntype: instruction\n---\n{SHORT_BOOKING}")
    );
    let v1 = fs::read_to_string(dir.join("history/booking/0001.md")).unwrap();
    assert!(
        v1.ends_with(&body(&dir.join("items/booking.md")).replace(SHORT_BOOKING, "")),
        "front matter kept"
    );
    assert!(v1.ends_with(&before[before.find("## Booking").unwrap()..]));
    let v2 = fs::read_to_string(dir.join("history/booking/0002.md")).unwrap();
    assert!(
        v2.contains(&format!("proposal: {id}")) && v2.contains("model: test-model"),
        "{v2}"
    );
    assert!(!dir.join("proposals").join(format!("{id}.yaml")).exists());
    let out = run_in(ws.path(), &["history", "clinic", "booking"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(stable(&stdout(&out)));
}

#[test]
fn history_json_lists_every_version_with_the_documented_fields() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    assert_eq!(
        run_in(ws.path(), &["accept", "clinic", &id]).status.code(),
        Some(0)
    );
    let report = json(&run_in(
        ws.path(),
        &["history", "clinic", "booking", "--json"],
    ));
    let keys = object_keys(&report);
    assert_eq!(keys, ["status", "summary", "item", "versions"]);
    assert_eq!(report["status"], "ok");
    let v2 = &report["versions"][1];
    let keys = object_keys(v2);
    assert_eq!(
        keys,
        [
            "version",
            "created",
            "action",
            "from",
            "sha256",
            "tokens",
            "note",
            "accepted_flags"
        ]
    );
    assert_eq!(v2["action"], "compress");
    assert_eq!(
        v2["sha256"],
        briefkit::wire::canonical::sha256_hex(SHORT_BOOKING.as_bytes())
    );
    assert!(v2["tokens"].as_u64().unwrap() > 10);
}

#[test]
fn a_stale_proposal_is_refused_with_exit_4_and_nothing_written() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    let file = dir.join("items/booking.md");
    fs::write(
        &file,
        fs::read_to_string(&file)
            .unwrap()
            .replace("45 minutes", "50 minutes"),
    )
    .unwrap();
    let tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(content_tree(ws.path()), tree);
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn a_flagged_proposal_needs_allow_flags_and_records_what_was_accepted() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(
        &dir,
        "booking",
        "## Booking\n\nFirst visits take 45 minutes.\n",
        &[
            ("price", "€80"),
            ("url", "https://harbour-physio.example.org/visit"),
        ],
        1,
    );
    let tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(content_tree(ws.path()), tree);
    insta::assert_snapshot!(stderr(&out));
    let out = run_in(ws.path(), &["accept", "clinic", &id, "--allow-flags"]);
    assert_exit(&out, 0);
    let v2 = fs::read_to_string(dir.join("history/booking/0002.md")).unwrap();
    assert!(
        v2.contains(
            "accepted_flags:\n- price €80 (clinic/items/booking.md:6:42)\n- number 30 (clinic/items/booking.md:6:63)\n- url https://harbour-physio.example.org/visit (clinic/items/booking.md:7:38)\n"
        ),
        "{v2}"
    );
}

#[test]
fn unknown_and_malformed_ids_are_bad_input() {
    let ws = workspace("clinic");
    for id in ["booking-20260102030405-beef", "../../etc/passwd", "booking"] {
        for command in ["accept", "discard"] {
            let out = run_in(ws.path(), &[command, "clinic", id]);
            assert_eq!(out.status.code(), Some(2), "{command} {id}");
            assert_stderr_has(&out, "brief proposals clinic");
        }
    }
}

#[test]
fn accepting_twice_names_the_version_it_became() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    assert_eq!(
        run_in(ws.path(), &["accept", "clinic", &id]).status.code(),
        Some(0)
    );
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_eq!(out.status.code(), Some(4));
    assert_stderr_has(&out, "already accepted: it is version 2 of `booking`");
}

#[test]
fn rule_context_and_tool_items_cannot_take_a_proposal() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    for item in ["cancellations", "visit"] {
        let id = write_proposal(&dir, item, "Shorter.\n", &[], 1);
        let tree = content_tree(ws.path());
        let out = run_in(ws.path(), &["accept", "clinic", &id]);
        assert_eq!(out.status.code(), Some(2), "{item}");
        assert_stderr_has(&out, "never replaced by a model's proposal");
        assert_eq!(content_tree(ws.path()), tree);
    }
    let out = run_in(ws.path(), &["history", "clinic", "find_slot"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is a tool"));
}

#[test]
fn discard_removes_the_proposal_and_nothing_else() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let keep = write_proposal(
        &dir,
        "persona",
        "You are Pia of Harbour Street Physio; you book, move and cancel visits.\n",
        &[],
        2,
    );
    // The listing runs the guard again: this body really drops the price.
    let id = write_proposal(
        &dir,
        "booking",
        &SHORT_BOOKING.replace(", €80", ""),
        &[("price", "€80")],
        1,
    );
    let out = run_in(ws.path(), &["proposals", "clinic"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(stdout(&out));
    let mut tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["discard", "clinic", &id, "--json"]);
    assert_exit(&out, 0);
    assert_eq!(json(&out)["status"], "discarded");
    let gone = dir.join("proposals").join(format!("{id}.yaml"));
    tree.retain(|(path, _)| *path != gone);
    assert_eq!(content_tree(ws.path()), tree);
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    assert_eq!(listed["proposals"].as_array().unwrap().len(), 1);
    assert_eq!(listed["proposals"][0]["id"], keep.as_str());
    assert_eq!(listed["proposals"][0]["stale"], false);
}

#[test]
fn restore_makes_an_old_body_current_as_a_new_version() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let original = body(&dir.join("items/booking.md"));
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    assert_eq!(
        run_in(ws.path(), &["accept", "clinic", &id]).status.code(),
        Some(0)
    );
    let out = run_in(ws.path(), &["restore", "clinic", "booking", "1", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(
        (report["status"].as_str(), report["version"].as_u64()),
        (Some("restored"), Some(3))
    );
    assert_eq!(body(&dir.join("items/booking.md")), original);
    let v3 = fs::read_to_string(dir.join("history/booking/0003.md")).unwrap();
    assert!(v3.contains("action: restore\nfrom: 1\n"), "{v3}");
    let out = run_in(ws.path(), &["restore", "clinic", "booking", "1", "--json"]);
    assert_eq!(json(&out)["status"], "unchanged");
    let out = run_in(ws.path(), &["restore", "clinic", "booking", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "has no version 9: it has versions 1 to 3");
}

#[test]
fn record_versions_a_hand_edit_and_diff_shows_it_word_by_word() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let file = dir.join("items/persona.md");
    let out = run_in(
        ws.path(),
        &["record", "clinic", "persona", "-m", "as imported"],
    );
    assert_exit(&out, 0);
    fs::write(
        &file,
        fs::read_to_string(&file)
            .unwrap()
            .replace("book, move and cancel", "book and move"),
    )
    .unwrap();
    let out = run_in(ws.path(), &["diff", "clinic", "persona"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(stdout(&out));
    let history = json(&run_in(
        ws.path(),
        &["history", "clinic", "persona", "--json"],
    ));
    assert_eq!(history["status"], "edited");
    let out = run_in(
        ws.path(),
        &argv("record clinic persona -m 'no cancelling by chat' --json"),
    );
    assert_eq!(json(&out)["version"], 2);
    let out = run_in(ws.path(), &["record", "clinic", "persona", "--json"]);
    assert_eq!(json(&out)["status"], "unchanged");
    let out = run_in(
        ws.path(),
        &["diff", "clinic", "persona", "--from", "1", "--to", "2"],
    );
    assert_stdout_has(
        &out,
        "You book[-,-] {+and +}move [-and cancel -]appointments.",
    );
    let out = run_in(ws.path(), &["show", "clinic", "persona", "--version", "1"]);
    assert!(stdout(&out).contains("book, move and cancel"));
    let out = run_in(ws.path(), &["show", "clinic", "persona"]);
    assert_eq!(stdout(&out), body(&file));
    let history = json(&run_in(
        ws.path(),
        &["history", "clinic", "persona", "--json"],
    ));
    assert_eq!(history["versions"][1]["note"], "no cancelling by chat");
}

#[test]
fn a_restored_rule_is_reported_by_check_until_it_is_locked_again() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let file = dir.join("items/cancellations.md");
    assert_eq!(
        run_in(ws.path(), &["record", "clinic", "cancellations"])
            .status
            .code(),
        Some(0)
    );
    fs::write(
        &file,
        fs::read_to_string(&file)
            .unwrap()
            .replace("EUR 35", "EUR 40"),
    )
    .unwrap();
    assert_eq!(
        run_in(ws.path(), &["record", "clinic", "cancellations"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        run_in(ws.path(), &["lock", "clinic"]).status.code(),
        Some(0)
    );
    let out = run_in(ws.path(), &["restore", "clinic", "cancellations", "1"]);
    assert_exit(&out, 0);
    assert!(fs::read_to_string(&file).unwrap().contains("EUR 35"));
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    assert_stdout_has(&out, "run `brief lock`");
}

#[test]
fn a_broken_history_is_bad_input_naming_the_file() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    assert_eq!(
        run_in(ws.path(), &["record", "clinic", "persona"])
            .status
            .code(),
        Some(0)
    );
    fs::write(dir.join("history/persona/0003.md"), "x").unwrap();
    let out = run_in(ws.path(), &["history", "clinic", "persona"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "history/persona/0002.md: missing");
}
