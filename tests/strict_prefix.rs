//! `brief check --strict` as a CI gate for the prompt cache: a prefix that moved since the
//! lock fails, located at the lock's prefix hash in every output format, unless
//! `--allow-prefix-change` says the change is intended.

use std::fs;

use crate::common::{copy_dir, json, run_in, stdout, workspace};
use crate::harness::{argv, assert_exit};

/// The clinic fixture, locked, with one instruction edited: the prefix moved, no rule did.
fn moved_prefix() -> tempfile::TempDir {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&out, 0);
    let item = ws.path().join("clinic/items/booking.md");
    let text = fs::read_to_string(&item)
        .unwrap()
        .replace("45 minutes", "50 minutes");
    fs::write(&item, text).unwrap();
    // The fixture's sample holds clock times (warnings); keep only the prefix in play.
    let sample = ws.path().join("clinic/items/sample-booking.md");
    let text = fs::read_to_string(&sample).unwrap();
    fs::write(&sample, strip_clock_times(&text)).unwrap();
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&out, 0);
    let text = fs::read_to_string(&item)
        .unwrap()
        .replace("50 minutes", "55 minutes");
    fs::write(&item, text).unwrap();
    ws
}

fn strip_clock_times(text: &str) -> String {
    let re = regex::Regex::new(r"\b\d{1,2}:\d{2}\b").unwrap();
    re.replace_all(text, "noon").into_owned()
}

fn lock_hash_line(ws: &tempfile::TempDir) -> usize {
    let lock = fs::read_to_string(ws.path().join("clinic/brief.lock")).unwrap();
    let start = lock.find("\nprefix:\n").unwrap();
    let at = start + lock[start..].find("\n  hash: ").unwrap();
    lock[..=at].lines().count() + 1
}

#[test]
fn a_moved_prefix_is_a_note_without_strict() {
    let ws = moved_prefix();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("note: clinic/brief.lock:"));
}

#[test]
fn strict_fails_a_moved_prefix_naming_the_tokens_written_again() {
    let ws = moved_prefix();
    let out = run_in(ws.path(), &["check", "clinic", "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let line = lock_hash_line(&ws);
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "error: clinic/brief.lock:{line}:3: the prefix hash differs"
        )),
        "{text}"
    );
    let filtered = regex::Regex::new(r"[0-9a-f]{12}")
        .unwrap()
        .replace_all(&text, "<hash>")
        .into_owned();
    insta::assert_snapshot!(filtered);
}

#[test]
fn strict_json_names_the_tokens_and_the_location() {
    let ws = moved_prefix();
    let out = run_in(ws.path(), &["check", "clinic", "--strict", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["status"], "failed");
    let brief = &report["briefs"][0];
    assert_eq!(brief["prefix_changed"], true);
    let tokens = brief["tokens_rewritten"].as_u64().unwrap();
    assert!(tokens > 50, "{brief}");
    let finding = brief["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "prefix-changed")
        .unwrap();
    assert_eq!(finding["level"], "error");
    assert_eq!(finding["line"], lock_hash_line(&ws));
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{tokens} tokens will be written again"))
    );
}

#[test]
fn strict_github_annotates_the_lock_line() {
    let ws = moved_prefix();
    let out = run_in(
        ws.path(),
        &["check", "clinic", "--strict", "--format", "github"],
    );
    assert_eq!(out.status.code(), Some(1));
    let line = lock_hash_line(&ws);
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "::error file=clinic/brief.lock,line={line},col=3,title=brief check%3A prefix-changed::"
        ))),
        "{text}"
    );
}

#[test]
fn allow_prefix_change_keeps_an_intended_change_green() {
    let ws = moved_prefix();
    let out = run_in(
        ws.path(),
        &argv("check clinic --strict --allow-prefix-change --json"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    let finding = report["briefs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "prefix-changed")
        .unwrap()
        .clone();
    assert_eq!(finding["level"], "note");
    // It allows the prefix change only: a changed rule still fails.
    let rule = ws.path().join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule)
        .unwrap()
        .replace("EUR 35", "EUR 25");
    fs::write(&rule, text).unwrap();
    let out = run_in(
        ws.path(),
        &["check", "clinic", "--strict", "--allow-prefix-change"],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn relocking_an_intended_change_passes_strict_again() {
    let ws = moved_prefix();
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_eq!(out.status.code(), Some(0));
    let out = run_in(ws.path(), &["check", "clinic", "--strict"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// The README's Quickstart, on a copy of the bundled briefs: passes as shipped, fails once
/// an edit moves one brief's prefix.
#[test]
fn the_quickstart_strict_check_passes_as_shipped_and_fails_after_a_prefix_change() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for name in ["support", "compressor", "compaction"] {
        copy_dir(
            &root.join("briefs").join(name),
            &dir.path().join("briefs").join(name),
        );
    }
    let args = [
        "check",
        "briefs/support",
        "briefs/compressor",
        "briefs/compaction",
        "--strict",
    ];
    let out = run_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let tone = dir.path().join("briefs/support/items/tone.md");
    let text = fs::read_to_string(&tone).unwrap();
    fs::write(&tone, format!("{text}\nKeep answers short.\n")).unwrap();
    let out = run_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("briefs/support: FAILED"), "{text}");
    assert!(text.contains("briefs/compressor: ok"), "{text}");
}
