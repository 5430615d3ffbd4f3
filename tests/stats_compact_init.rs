//! `brief stats`, `brief compact`, `brief init` and the global conventions.

use std::fs;

use crate::common::{brief, json, run_in, snapshot_tree, stderr, stdout, workspace};
use crate::harness::{argv, assert_exit, assert_stderr_has};

#[test]
fn stats_shows_every_item_the_prefix_context_and_cost() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["stats", "clinic"]);
    assert_exit(&out, 0);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn stats_json_has_policies_tokens_and_shares_that_add_up() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["stats", "clinic", "--json"]);
    let stats = json(&out);
    assert!(stats["status"].is_string() && stats["summary"].is_string());
    let items = stats["items"].as_array().unwrap();
    assert_eq!(items.len(), 6);
    let policy = |id: &str| {
        items.iter().find(|i| i["id"] == id).unwrap()["policy"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(policy("cancellations"), "verbatim");
    assert_eq!(policy("find_slot"), "verbatim");
    assert_eq!(policy("visit"), "compact-only");
    assert_eq!(policy("booking"), "reviewable");
    let share: f64 = items.iter().map(|i| i["share"].as_f64().unwrap()).sum();
    assert!((share - 100.0).abs() < 0.5, "{share}");
    assert_eq!(stats["context"]["limit"], 4000);
    let cost = &stats["cost_per_1000_turns"];
    assert!(cost["with_caching"].as_f64().unwrap() < cost["without_caching"].as_f64().unwrap());
    assert_eq!(stats["prefix"]["hash"].as_str().unwrap().len(), 64);
}

#[test]
fn stats_warns_as_the_context_fills_up() {
    let ws = workspace("clinic");
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest)
        .unwrap()
        .replace("context_limit: 4000", "context_limit: 200");
    fs::write(&manifest, text).unwrap();
    let out = run_in(ws.path(), &["stats", "clinic", "--json"]);
    let stats = json(&out);
    assert_eq!(stats["context"]["level"], "critical", "{stats}");
    assert_eq!(stats["status"], "warning");
}

#[test]
fn compact_on_a_file_prints_the_compacted_text_and_keeps_front_matter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    fs::write(
        &path,
        "---\ntitle:   spaced   \n---\n# Notes   \r\n\r\n\r\n\r\nLine with break  \nnext\n\n\n",
    )
    .unwrap();
    let out = brief().args(["compact"]).arg(&path).output().unwrap();
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "---\ntitle:   spaced   \n---\n# Notes\n\nLine with break  \nnext\n"
    );
}

#[test]
fn compact_write_rewrites_instructions_but_never_rule_files() {
    let ws = workspace("clinic");
    let rule = ws.path().join("clinic/items/cancellations.md");
    let rule_text = "---\ntype: rule\n---\n- Never waive the fee.   \n\n\n\n- Ask first.\n";
    fs::write(&rule, rule_text).unwrap();
    let out = run_in(ws.path(), &["compact", "clinic", "--write", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    let row = |id: &str| {
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row("persona")["written"], true);
    assert_eq!(row("cancellations")["written"], false);
    assert_eq!(
        fs::read_to_string(&rule).unwrap(),
        rule_text,
        "rule files are never rewritten"
    );
    let persona = fs::read_to_string(ws.path().join("clinic/items/persona.md")).unwrap();
    assert_eq!(
        persona,
        "---\ntype: identity\n---\nYou are Pia, the booking assistant of Harbour Street Physio.\n\nYou book, move and cancel appointments.\n"
    );
    // The composed rule is compacted all the same.
    let out = run_in(
        ws.path(),
        &argv("compose clinic --var patient=A --var last_visit=B"),
    );
    assert!(stdout(&out).contains("- Never waive the fee.\n\n- Ask first."));
}

#[test]
fn compact_without_write_changes_nothing() {
    let ws = workspace("clinic");
    let before = snapshot_tree(ws.path());
    let out = run_in(ws.path(), &["compact", "clinic"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(before, snapshot_tree(ws.path()));
    assert!(stderr(&out).contains("run with --write"));
}

#[test]
fn init_scaffolds_a_brief_that_composes_locks_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["init", "helpdesk"]);
    assert_exit(&out, 0);
    assert_eq!(
        fs::read_to_string(dir.path().join("helpdesk/.gitignore"))
            .unwrap()
            .lines()
            .nth(1),
        Some("proposals/")
    );
    let out = run_in(
        dir.path(),
        &["compose", "helpdesk", "--var", "user_name=Ada"],
    );
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("assistant for helpdesk"));
    brief()
        .current_dir(dir.path())
        .args(["lock", "helpdesk"])
        .assert()
        .success();
    brief()
        .current_dir(dir.path())
        .args(["check", "helpdesk", "--strict"])
        .assert()
        .success();
    let out = run_in(dir.path(), &["init", "helpdesk"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("already a brief"));
}

#[test]
fn generate_prints_completions_and_a_man_page() {
    let out = brief()
        .args(["generate", "completions", "bash"])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("compose"));
    let out = brief().args(["generate", "man"]).output().unwrap();
    assert!(stdout(&out).starts_with(".ie") || stdout(&out).contains(".TH"));
}

#[test]
fn color_always_paints_and_no_color_does_not() {
    let ws = workspace("clinic");
    let painted = run_in(ws.path(), &["--color", "always", "stats", "clinic"]);
    assert!(stdout(&painted).contains("\u{1b}["));
    let plain = brief()
        .current_dir(ws.path())
        .args(["stats", "clinic"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stdout(&plain).contains("\u{1b}["));
}

#[test]
fn quiet_silences_status_messages() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["-q", "init", "x"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_exits_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let ws = workspace("clinic");
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .current_dir(ws.path())
        .args(["generate", "man"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn regression_compact_file_write_refuses_a_rule_item() {
    let ws = workspace("clinic");
    let rule = ws.path().join("clinic/items/cancellations.md");
    let original = "---\ntype: rule\n---\nNever waive the fee.   \n\n\n\nAsk first.\n";
    fs::write(&rule, original).unwrap();
    let out = brief()
        .args(["compact", "--write"])
        .arg(&rule)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("rule files are never rewritten"));
    assert_eq!(fs::read_to_string(&rule).unwrap(), original);
}

#[test]
fn compact_file_json_carries_the_compacted_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.md");
    fs::write(&path, "a  \n\n\n\nb\n").unwrap();
    let out = brief()
        .args(["compact", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(json(&out)["text"], "a\n\nb\n");
}

#[test]
fn regression_no_subcommand_is_bad_usage() {
    let out = brief().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn regression_a_file_named_as_a_brief_says_so() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["stats", "clinic/items/booking.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("a file, not a brief directory"));
}

#[test]
fn regression_a_directory_given_as_a_file_is_named_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.md");
    fs::write(&file, "x\n").unwrap();
    let out = brief()
        .arg("guard")
        .arg(dir.path())
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "a directory, not a file");
}

#[test]
fn compact_write_leaves_no_carriage_return_in_an_items_front_matter() {
    let ws = workspace("clinic");
    let persona = ws.path().join("clinic/items/persona.md");
    fs::write(
        &persona,
        "---\r\ntype: identity\r\ntitle: Persona\r\n---\r\nYou are Pia.   \r\n\r\n\r\n\r\nYou book appointments.\r\n",
    )
    .unwrap();
    let out = run_in(ws.path(), &["compact", "clinic", "--write"]);
    assert_exit(&out, 0);
    let written = fs::read_to_string(&persona).unwrap();
    assert!(!written.contains('\r'), "{written:?}");
    assert_eq!(
        written,
        "---\ntype: identity\ntitle: Persona\n---\nYou are Pia.\n\nYou book appointments.\n"
    );
}
