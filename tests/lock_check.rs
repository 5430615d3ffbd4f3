//! `brief lock` and `brief check`: the CI gate.

use std::fs;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{assert_exit, assert_stdout_has};

fn lock(root: &std::path::Path) {
    let out = run_in(root, &["lock", "clinic"]);
    assert_exit(&out, 0);
}

#[test]
fn a_brief_without_a_lock_fails_with_a_hint() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("run `brief lock`"));
}

#[test]
fn lock_needs_no_vars_and_a_fresh_lock_checks_clean() {
    let ws = workspace("clinic");
    lock(ws.path());
    let text = fs::read_to_string(ws.path().join("clinic/brief.lock")).unwrap();
    let lock: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(
        lock["rules"]["cancellations"]["sha256"]
            .as_str()
            .unwrap()
            .len(),
        64
    );
    assert!(lock["prefix"]["tokens"].as_u64().unwrap() > 50);
    let out = run_in(ws.path(), &["check", "clinic"]);
    // The sample's clock times are warnings, not failures.
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn strict_turns_volatile_content_warnings_into_failures() {
    let ws = workspace("clinic");
    lock(ws.path());
    let out = run_in(ws.path(), &["check", "clinic", "--strict"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_changed_rule_fails_and_shows_the_diff() {
    let ws = workspace("clinic");
    lock(ws.path());
    let rule = ws.path().join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule)
        .unwrap()
        .replace("EUR 35", "EUR 25");
    fs::write(&rule, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn a_whitespace_only_change_to_a_rule_still_fails() {
    let ws = workspace("clinic");
    lock(ws.path());
    let rule = ws.path().join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule).unwrap();
    fs::write(&rule, format!("{text}\n")).unwrap();
    let out = run_in(ws.path(), &["check", "clinic", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["status"], "failed");
    let kinds: Vec<&str> = report["briefs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"rule-changed"), "{kinds:?}");
}

#[test]
fn a_new_rule_not_in_the_lock_and_a_locked_rule_that_is_gone_both_fail() {
    let ws = workspace("clinic");
    lock(ws.path());
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest)
        .unwrap()
        .replace("cancellations, ", "no-diagnosis, ");
    fs::write(&manifest, text).unwrap();
    fs::write(
        ws.path().join("clinic/items/no-diagnosis.md"),
        "---\ntype: rule\n---\nNever diagnose.\n",
    )
    .unwrap();
    let out = run_in(ws.path(), &["check", "clinic", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let findings = report["briefs"][0]["findings"].as_array().unwrap();
    let has = |kind: &str, item: &str| {
        findings
            .iter()
            .any(|f| f["kind"] == kind && f["item"] == item)
    };
    assert!(has("rule-not-locked", "no-diagnosis"), "{findings:?}");
    assert!(has("rule-removed", "cancellations"), "{findings:?}");
}

#[test]
fn an_instruction_edit_passes_but_reports_that_the_prompt_cache_is_invalidated() {
    let ws = workspace("clinic");
    lock(ws.path());
    let item = ws.path().join("clinic/items/booking.md");
    let text = fs::read_to_string(&item)
        .unwrap()
        .replace("45 minutes", "50 minutes");
    fs::write(&item, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["briefs"][0]["prefix_changed"], true);
    let note = report["briefs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "prefix-changed")
        .unwrap();
    assert_eq!(note["level"], "note");
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .contains("tokens will be written again")
    );
}

#[test]
fn a_placeholder_in_the_static_tier_fails_the_check() {
    let ws = workspace("clinic");
    lock(ws.path());
    fs::write(
        ws.path().join("clinic/items/booking.md"),
        "---\ntype: instruction\n---\nCall {{phone}}.\n",
    )
    .unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    assert_stdout_has(&out, "clinic/items/booking.md:4:6: placeholder `{{phone}}`");
}

#[test]
fn exceeding_max_brief_tokens_fails() {
    let ws = workspace("clinic");
    lock(ws.path());
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest)
        .unwrap()
        .replace("max_brief_tokens: 2000", "max_brief_tokens: 50");
    fs::write(&manifest, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    assert_stdout_has(&out, "over budget.max_brief_tokens (50)");
}

#[test]
fn github_format_prints_workflow_annotations() {
    let ws = workspace("clinic");
    lock(ws.path());
    let rule = ws.path().join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule)
        .unwrap()
        .replace("24 hours", "12 hours");
    fs::write(&rule, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let error = text.lines().find(|l| l.starts_with("::error ")).unwrap();
    assert!(
        error.starts_with(
            "::error file=clinic/items/cancellations.md,line=5,title=brief check%3A rule-changed::"
        ),
        "{error}"
    );
    assert!(
        error.contains("%0A-- A cancellation less than 24 hours"),
        "{error}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("::warning file=clinic/items/sample-booking.md,line="))
    );
}

#[test]
fn check_takes_several_briefs_and_fails_if_any_fails() {
    let ws = workspace("clinic");
    crate::common::copy_dir(&ws.path().join("clinic"), &ws.path().join("other"));
    lock(ws.path());
    let out = run_in(ws.path(), &["check", "clinic", "other", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["briefs"][0]["status"], "ok");
    assert_eq!(report["briefs"][1]["status"], "failed");
    assert_eq!(report["summary"], "2 briefs checked, 1 failed");
}

#[test]
fn regression_a_hand_edited_lock_text_is_caught() {
    let ws = workspace("clinic");
    lock(ws.path());
    let path = ws.path().join("clinic/brief.lock");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("EUR 35", "EUR 99");
    fs::write(&path, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert!(
        report["briefs"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "lock-inconsistent")
    );
}

#[test]
fn regression_a_crlf_only_change_to_a_rule_says_so() {
    let ws = workspace("clinic");
    lock(ws.path());
    let rule = ws.path().join("clinic/items/cancellations.md");
    let text = fs::read_to_string(&rule).unwrap().replace('\n', "\r\n");
    fs::write(&rule, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    assert_stdout_has(&out, "only its line endings changed");
}

#[test]
fn regression_an_unsupported_lock_version_is_bad_input() {
    let ws = workspace("clinic");
    lock(ws.path());
    let path = ws.path().join("clinic/brief.lock");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("version: 1", "version: 2");
    fs::write(&path, text).unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("lock file version 2 is not supported"));
}

#[test]
fn regression_lock_respects_the_writer_lock() {
    let ws = workspace("clinic");
    let held = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(ws.path().join("clinic/.writer.lock"))
        .unwrap();
    held.try_lock().unwrap();
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&out, 4);
    assert!(!ws.path().join("clinic/brief.lock").exists());
}
