//! Small things a newcomer hit on day one: paths with spaces, budgets, man pages.

use std::fs;

use crate::common::run_in;
use crate::harness::{argv, assert_exit, assert_stderr_has};

#[test]
fn init_quotes_a_path_with_a_space_in_its_next_step() {
    let ws = tempfile::tempdir().unwrap();
    let out = run_in(ws.path(), &["init", "My Brief"]);
    assert_exit(&out, 0);
    assert_stderr_has(&out, "`brief lock 'My Brief'`");
}

#[test]
fn a_fresh_brief_from_init_locks_and_checks_clean_without_hitting_a_budget() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(run_in(ws.path(), &["init", "b"]).status.code(), Some(0));
    let manifest = fs::read_to_string(ws.path().join("b/brief.yaml")).unwrap();
    assert!(
        !manifest
            .lines()
            .any(|l| l.starts_with("budget:") && l.contains("max_brief_tokens"))
    );
    assert_eq!(run_in(ws.path(), &["lock", "b"]).status.code(), Some(0));
    let check = run_in(ws.path(), &["check", "b"]);
    assert_exit(&check, 0);
}

#[test]
fn generate_man_dir_writes_one_page_per_subcommand() {
    let ws = tempfile::tempdir().unwrap();
    let out = run_in(ws.path(), &["generate", "man", "--dir", "man1"]);
    assert_exit(&out, 0);
    let page = fs::read_to_string(ws.path().join("man1/brief-compose.1")).unwrap();
    assert!(page.contains(".TH brief-compose"), "{page}");
    assert!(ws.path().join("man1/brief.1").exists());
    assert!(ws.path().join("man1/brief-import.1").exists());
    let help = run_in(ws.path(), &["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("generate"));
}

#[test]
fn an_unknown_item_id_suggests_the_closest() {
    let ws = crate::common::workspace("clinic");
    let out = run_in(ws.path(), &["history", "clinic", "bookin"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "did you mean `booking`?");
}

#[test]
fn an_empty_rule_is_an_error_at_its_line() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(run_in(ws.path(), &["init", "b"]).status.code(), Some(0));
    fs::write(
        ws.path().join("b/items/limits.md"),
        "---\ntype: rule\n---\n\n",
    )
    .unwrap();
    let out = run_in(ws.path(), &["compose", "b", "--var", "user_name=Ada"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "limits.md:4");
    assert_stderr_has(&out, "an empty rule");
}

#[test]
fn a_var_given_twice_with_different_values_is_warned_about() {
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(run_in(ws.path(), &["init", "b"]).status.code(), Some(0));
    let out = run_in(
        ws.path(),
        &argv("compose b --var user_name=Ada --var user_name=Bob"),
    );
    assert_exit(&out, 0);
    assert_stderr_has(&out, "--var user_name is given twice");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Bob"));
}

#[test]
fn a_typo_in_the_manifests_item_list_suggests_the_file_that_exists() {
    let ws = crate::common::workspace("clinic");
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, text.replacen("booking", "bookin", 1)).unwrap();
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_exit(&out, 2);
    assert_stderr_has(
        &out,
        "missing item file for `bookin`: expected items/bookin.md or items/bookin.tool.yaml; did you mean `booking`?",
    );
}

#[test]
fn discard_usage_names_the_brief_before_the_proposal() {
    let ws = tempfile::tempdir().unwrap();
    let out = run_in(ws.path(), &["discard", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("Usage: brief discard [OPTIONS] <BRIEF> <ID|ITEM|--latest|--all|--stale>"),
        "{help}"
    );
}
