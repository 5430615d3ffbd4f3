//! Coming back to proposals: `brief review` shows one again, `discard --stale/--all` clears many.

use std::fs;

use crate::common::store::{content_tree, write_proposal};
use crate::common::{json, run_in, stdout, workspace};
use crate::harness::{assert_exit, assert_stderr_has};

const SHORTER_PERSONA: &str =
    "You are Pia of Harbour Street Physio; you book, move and cancel visits.\n";

#[test]
fn review_shows_a_pending_proposal_again_and_writes_nothing() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "persona", SHORTER_PERSONA, &[], 1);
    let tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["review", "clinic", &id]);
    assert_exit(&out, 0);
    let screen = stdout(&out);
    assert!(
        screen.contains(&format!("proposal {id} for `persona`")),
        "{screen}"
    );
    assert!(screen.contains("tokens"), "{screen}");
    assert!(
        screen.contains(&format!("accept:   brief accept clinic {id}")),
        "{screen}"
    );
    assert_eq!(content_tree(ws.path()), tree, "review writes nothing");

    let out = run_in(ws.path(), &["review", "clinic", &id, "--json"]);
    let v = json(&out);
    assert_eq!(v["proposal_id"], id.as_str());
    assert_eq!(v["stale"], false);
    assert_eq!(v["body"], SHORTER_PERSONA);
    assert!(["clean", "flagged", "longer", "identical"].contains(&v["status"].as_str().unwrap()));
}

#[test]
fn review_of_a_flagged_proposal_prints_accept_with_allow_flags() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    // A body that drops every fact of the original is flagged by the guard.
    let id = write_proposal(&dir, "booking", "Book visits.\n", &[], 1);
    let out = run_in(ws.path(), &["review", "clinic", &id]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains(&format!("brief accept clinic {id} --allow-flags")),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        json(&run_in(ws.path(), &["review", "clinic", &id, "--json"]))["status"],
        "flagged"
    );
}

#[test]
fn review_says_stale_when_the_item_changed_since() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "persona", SHORTER_PERSONA, &[], 1);
    let path = dir.join("items/persona.md");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{text}\nOne more line.\n")).unwrap();
    let v = json(&run_in(ws.path(), &["review", "clinic", &id, "--json"]));
    assert_eq!(v["status"], "stale");
    assert_eq!(v["stale"], true);
}

#[test]
fn review_of_an_unknown_proposal_is_bad_input() {
    let ws = workspace("clinic");
    let out = run_in(
        ws.path(),
        &["review", "clinic", "persona-20260102030401-a001"],
    );
    assert_exit(&out, 2);
}

#[test]
fn discard_stale_drops_only_proposals_whose_item_changed() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let stale = write_proposal(&dir, "persona", SHORTER_PERSONA, &[], 1);
    let fresh = write_proposal(&dir, "booking", "Book visits.\n", &[], 2);
    let path = dir.join("items/persona.md");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{text}\nOne more line.\n")).unwrap();
    let out = run_in(ws.path(), &["discard", "clinic", "--stale", "--json"]);
    assert_exit(&out, 0);
    let v = json(&out);
    assert_eq!(v["status"], "discarded");
    assert_eq!(v["discarded"][0]["proposal_id"], stale.as_str());
    assert_eq!(v["discarded"].as_array().unwrap().len(), 1);
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    assert_eq!(listed["proposals"][0]["id"], fresh.as_str());
}

#[test]
fn discard_all_drops_every_proposal_and_nothing_else() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    write_proposal(&dir, "persona", SHORTER_PERSONA, &[], 1);
    write_proposal(&dir, "booking", "Book visits.\n", &[], 2);
    let mut tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["discard", "clinic", "--all"]);
    assert_exit(&out, 0);
    assert_stderr_has(&out, "discarded 2 pending proposals");
    tree.retain(|(path, _)| !path.components().any(|c| c.as_os_str() == "proposals"));
    let mut after = content_tree(ws.path());
    after.retain(|(path, _)| !path.components().any(|c| c.as_os_str() == "proposals"));
    assert_eq!(after, tree);
    let v = json(&run_in(
        ws.path(),
        &["discard", "clinic", "--all", "--json"],
    ));
    assert_eq!(v["status"], "nothing");
}

#[test]
fn discard_needs_an_id_or_all_or_stale() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["discard", "clinic"]);
    assert_exit(&out, 2);
}
