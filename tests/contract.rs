//! The output contract: every `--json` document leads with `status` and `summary`; under
//! `--json` an error is one JSON object on stdout as well as text on stderr; GitHub
//! annotations carry file, line and column for every located problem.

use std::fs;
use std::path::Path;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{assert_exit, assert_stderr_has};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn keys(value: &serde_json::Value) -> Vec<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

/// A brief whose persona item has a front-matter type nobody knows (an error at line 2).
fn broken(root: &Path) {
    write(
        root,
        "clinic/items/persona.md",
        "---\ntype: persona\n---\nHi\n",
    );
}

#[test]
fn check_accepts_json_as_well_as_format_json() {
    let ws = workspace("clinic");
    run_in(ws.path(), &["lock", "clinic"]);
    let flag = run_in(ws.path(), &["check", "clinic", "--json"]);
    let format = run_in(ws.path(), &["check", "clinic", "--format", "json"]);
    assert_eq!(flag.status.code(), format.status.code());
    assert_eq!(stdout(&flag), stdout(&format));
    let mut report = json(&flag);
    assert_eq!(keys(&report)[..2], ["status", "summary"]);
    for brief in report["briefs"].as_array_mut().unwrap() {
        assert_eq!(brief["prefix_hash"], brief["locked_prefix_hash"]);
        brief["prefix_hash"] = "[hash]".into();
        brief["locked_prefix_hash"] = "[hash]".into();
    }
    insta::assert_snapshot!(
        "check_json_ok",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

#[test]
fn check_json_lists_load_errors_with_their_locations() {
    let ws = workspace("clinic");
    broken(ws.path());
    let out = run_in(ws.path(), &["check", "clinic", "--json"]);
    assert_exit(&out, 2);
    // One document on stdout, the text on stderr.
    let report = json(&out);
    assert_stderr_has(&out, "persona.md:2");
    insta::assert_snapshot!(
        "check_json_unreadable",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

#[test]
fn github_annotations_locate_load_errors_and_load_warnings() {
    let ws = workspace("clinic");
    broken(ws.path());
    write(ws.path(), "other/brief.yaml", "name: other\nitems: [a]\n");
    write(
        ws.path(),
        "other/items/a.md",
        "---\ntype: instruction\n---\nA\n",
    );
    write(
        ws.path(),
        "other/items/stray.md",
        "---\ntype: instruction\n---\nB\n",
    );
    run_in(ws.path(), &["lock", "other"]);
    let out = run_in(
        ws.path(),
        &["check", "clinic", "other", "--format", "github"],
    );
    assert_exit(&out, 2);
    let text = stdout(&out);
    let error = text
        .lines()
        .find(|l| l.starts_with("::error "))
        .expect("an error annotation");
    assert!(
        error.starts_with("::error file=clinic/items/persona.md,line=2,col="),
        "{text}"
    );
    let warning = text
        .lines()
        .find(|l| l.contains("stray.md"))
        .expect("the unlisted item is annotated");
    assert!(
        warning.starts_with("::warning file=other/items/stray.md"),
        "{text}"
    );
}

#[test]
fn an_error_under_json_is_one_object_on_stdout_and_text_on_stderr() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["stats", "nowhere", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(keys(&report), ["status", "summary", "error"]);
    insta::assert_snapshot!(
        "error_json_missing_brief",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

#[test]
fn a_usage_error_under_json_is_a_json_error_too() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["check", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let report = json(&out);
    assert_eq!(report["status"], "error");
    assert_eq!(report["error"]["kind"], "input");
    assert_eq!(report["error"]["exit_code"], 2);
}

/// Regression: the JSON summary kept clap's first line only ("the following required
/// arguments were not provided:") and lost the names it lists.
#[test]
fn a_usage_error_under_json_names_what_is_missing_or_wrong() {
    let ws = workspace("clinic");
    let missing = run_in(ws.path(), &["stats", "--json"]);
    assert_eq!(missing.status.code(), Some(2));
    let summary = json(&missing)["summary"].as_str().unwrap().to_string();
    assert!(
        summary.contains("not provided") && summary.contains("<BRIEF>"),
        "{summary}"
    );
    let bad = run_in(
        ws.path(),
        &["compose", "clinic", "--format", "nope", "--json"],
    );
    assert_eq!(bad.status.code(), Some(2));
    let summary = json(&bad)["summary"].as_str().unwrap().to_string();
    assert!(
        summary.contains("'nope'") && summary.contains("possible values"),
        "{summary}"
    );
}

#[test]
fn without_json_an_error_leaves_stdout_empty() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["stats", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_misspelled_provider_is_a_load_error_at_its_line() {
    let ws = workspace("clinic");
    let manifest = ws.path().join("clinic/brief.yaml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("model: { provider: opnai, name: gpt-4.1-mini }\n");
    fs::write(&manifest, text).unwrap();
    let out = run_in(ws.path(), &["compose", "clinic", "--var", "patient=x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("clinic/brief.yaml:7"), "{err}");
    assert!(err.contains("unknown provider `opnai`"), "{err}");
}

#[test]
fn probe_and_compress_take_the_same_provider_flag() {
    let ws = workspace("clinic");
    for command in [
        &["probe", "clinic", "--provider", "gemni"][..],
        &["compress", "clinic", "persona", "--provider", "gemni"][..],
    ] {
        let out = run_in(ws.path(), command);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert!(
            stderr(&out).contains("unknown provider `gemni`"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
}
