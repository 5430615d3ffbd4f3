//! No body is ever lost: `record` and the first `accept` on an item with no history keep
//! the body git has committed for the file as version 1, and an identical proposal is
//! accepted without writing anything.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common::run_in;
use crate::common::store::{body, content_tree, write_proposal};
use crate::common::{json, workspace};
use crate::harness::{assert_exit, field_strs};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The clinic brief, committed, with `booking` then edited by hand.
fn committed_then_edited() -> (tempfile::TempDir, String, String) {
    let ws = workspace("clinic");
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-q", "-m", "brief"]);
    let file = ws.path().join("clinic/items/booking.md");
    let committed = body(&file);
    let raw = fs::read_to_string(&file).unwrap();
    let edited_body = format!("{committed}\nBring your insurance card.\n");
    fs::write(&file, raw.replace(&committed, &edited_body)).unwrap();
    (ws, committed, edited_body)
}

fn show(root: &Path, version: &str) -> String {
    let out = run_in(root, &["show", "clinic", "booking", "--version", version]);
    assert_exit(&out, 0);
    String::from_utf8(out.stdout).unwrap()
}

/// Proposes "Booking: 45 minutes, €80." for the clinic's `booking` and accepts it, which
/// exits 0: the JSON report.
fn accept_a_booking_proposal(root: &Path) -> serde_json::Value {
    let id = write_proposal(
        &root.join("clinic"),
        "booking",
        "Booking: 45 minutes, €80.\n",
        &[],
        1,
    );
    let out = run_in(root, &["accept", "clinic", &id, "--allow-flags", "--json"]);
    assert_exit(&out, 0);
    json(&out)
}

#[test]
fn record_after_a_hand_edit_keeps_the_committed_body_as_version_1() {
    let (ws, committed, edited) = committed_then_edited();
    let out = run_in(
        ws.path(),
        &["record", "clinic", "booking", "-m", "insurance", "--json"],
    );
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["status"], "recorded");
    assert_eq!(report["version"], 2);
    assert_eq!(report["written"][0]["action"], "import");
    assert_eq!(report["written"][1]["action"], "record");
    assert_eq!(show(ws.path(), "1").trim_end(), committed.trim_end());
    assert_eq!(show(ws.path(), "2").trim_end(), edited.trim_end());
}

#[test]
fn the_first_accept_after_a_hand_edit_keeps_the_committed_body_too() {
    let (ws, committed, edited) = committed_then_edited();
    let report = accept_a_booking_proposal(ws.path());
    let actions: Vec<&str> = field_strs(&report["written"], "action");
    assert_eq!(actions, ["import", "record", "compress"]);
    assert_eq!(show(ws.path(), "1").trim_end(), committed.trim_end());
    assert_eq!(show(ws.path(), "2").trim_end(), edited.trim_end());
}

#[test]
fn an_unedited_or_untracked_item_starts_its_history_with_its_own_body() {
    // Committed and unchanged: git's body is the body; one version.
    let ws = workspace("clinic");
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-q", "-m", "brief"]);
    let report = accept_a_booking_proposal(ws.path());
    assert_eq!(report["written"][0]["action"], "import");
    assert_eq!(report["written"].as_array().unwrap().len(), 2);
    // Not in a git work tree: record writes the one version it always did.
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["record", "clinic", "booking", "--json"]);
    assert_exit(&out, 0);
    assert_eq!(json(&out)["written"].as_array().unwrap().len(), 1);
}

#[test]
fn accepting_a_proposal_identical_to_the_body_writes_nothing() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let current = body(&dir.join("items/booking.md"));
    let id = write_proposal(&dir, "booking", &current, &[], 1);
    let mut tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["accept", "clinic", &id, "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["status"], "unchanged");
    assert_eq!(report["written"].as_array().unwrap().len(), 0);
    assert_eq!(report["body_written"], false);
    assert!(!dir.join("history").exists(), "no version was written");
    // The only change: the proposal is used up.
    tree.retain(|(path, _)| !path.to_string_lossy().contains("proposals"));
    let mut after = content_tree(ws.path());
    after.retain(|(path, _)| !path.to_string_lossy().contains("proposals"));
    assert_eq!(after, tree);
}
