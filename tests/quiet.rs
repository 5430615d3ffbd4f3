//! `-q`: only the command's data and its errors. Every non-error message on stderr and
//! every confirmation on stdout that is not data goes, for every command.

use std::fs;
use std::path::Path;

use crate::common::{run_in, stderr, stdout, workspace};
use crate::harness::argv;

/// Runs `brief -q ARGS` and returns (exit code, stdout, stderr).
fn quiet(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["-q"];
    all.extend_from_slice(args);
    let out = run_in(root, &all);
    (out.status.code(), stdout(&out), stderr(&out))
}

fn silent(root: &Path, args: &[&str]) {
    let (code, out, err) = quiet(root, args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    assert_eq!(out, "", "{args:?} printed on stdout");
    assert_eq!(err, "", "{args:?} printed on stderr");
}

#[test]
fn confirmations_and_messages_go_quiet() {
    let ws = workspace("clinic");
    let root = ws.path();
    silent(root, &["init", "fresh"]);
    silent(root, &["lock", "clinic"]);
    silent(
        root,
        &argv("session new s --brief clinic --var patient=Ada --var last_visit=2026-10-01"),
    );
    fs::write(root.join("note.txt"), "kept for later\n").unwrap();
    let store = root.join("ccr.sqlite");
    let store = store.to_str().unwrap();
    let (code, out, err) = quiet(root, &["ccr", "put", "note.txt", "--store", store]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim().len(), 24, "the hash is the data: {out}");
    assert_eq!(err, "");
    silent(root, &["ccr", "gc", "--store", store]);
}

#[test]
fn check_prints_nothing_for_a_passing_brief_and_only_the_failure_otherwise() {
    let ws = workspace("clinic");
    let root = ws.path();
    silent(root, &["lock", "clinic"]);
    // The fixture's sample holds clock times: warnings, which are not failures.
    silent(root, &["check", "clinic"]);
    let rule = root.join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule)
        .unwrap()
        .replace("EUR 35", "EUR 25");
    fs::write(&rule, text).unwrap();
    let (code, out, err) = quiet(root, &["check", "clinic"]);
    assert_eq!(code, Some(1));
    assert_eq!(err, "");
    assert!(out.starts_with("clinic: FAILED"), "{out}");
    assert!(
        out.contains("error: clinic/items/cancellations.md"),
        "{out}"
    );
    assert!(!out.contains("warning:"), "{out}");
    assert!(!out.contains("note:"), "{out}");
}

#[test]
fn warnings_go_but_errors_stay() {
    let ws = workspace("clinic");
    let root = ws.path();
    let (code, out, err) = quiet(
        root,
        &argv("compose clinic --var patient=Ada --var last_visit=2026-10-01 --var unused=1"),
    );
    assert_eq!(code, Some(0));
    assert!(!out.is_empty(), "the prompt is the data");
    assert_eq!(err, "", "the unused --var warning is not an error");
    let (code, _, err) = quiet(root, &["compose", "nowhere"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: "), "{err}");
}
