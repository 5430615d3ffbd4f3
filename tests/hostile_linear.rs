//! Small hostile inputs that once took seconds to minutes (quadratic time), kept as
//! regression cases. Each ran for 7 s to over a minute before its fix; each must now give
//! its documented answer well inside the watchdog (a generous bound for a loaded machine
//! and a debug build: the point is "not quadratic", not a benchmark).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common::{brief, snapshot_tree};
use crate::harness::{assert_exit, assert_stderr_has};

const WATCHDOG: Duration = Duration::from_secs(20);
/// The guard's cases do more work per byte (every fact of both texts is read, bound and
/// compared), so a debug build on a loaded machine needs longer even when linear; a
/// quadratic blowup at these sizes still takes many minutes.
const GUARD_WATCHDOG: Duration = Duration::from_secs(180);

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    run_within(dir, args, WATCHDOG)
}

fn run_within(dir: &Path, args: &[&str], limit: Duration) -> std::process::Output {
    brief()
        .current_dir(dir)
        .args(args)
        .timeout(limit)
        .output()
        .expect("brief ran")
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `args` in `dir` exits 2 with every one of `says` in its stderr, and changes no file.
fn refused_untouched(dir: &Path, args: &[&str], says: &[&str]) {
    let before = snapshot_tree(dir);
    let output = run(dir, args);
    assert_exit(&output, 2);
    let err = stderr(&output);
    for said in says {
        assert!(err.contains(said), "{err}");
    }
    assert_eq!(snapshot_tree(dir), before);
}

/// `compose b` in `dir` exits 2: its stderr.
fn compose_fails(dir: &Path) -> String {
    let output = run(dir, &["compose", "b"]);
    assert_eq!(output.status.code(), Some(2));
    stderr(&output)
}

/// `guard original.md proposal.md --json` in `dir` on the two texts, within the guard's
/// watchdog.
fn guard_json(dir: &Path, original: &str, proposal: &str) -> std::process::Output {
    fs::write(dir.join("original.md"), original).unwrap();
    fs::write(dir.join("proposal.md"), proposal).unwrap();
    run_within(
        dir,
        &["guard", "original.md", "proposal.md", "--json"],
        GUARD_WATCHDOG,
    )
}

/// A brief `b` with one rule `r` whose file is `rule`.
fn one_rule_brief(rule: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("b/items")).unwrap();
    fs::write(dir.path().join("b/brief.yaml"), "name: b\nitems: [r]\n").unwrap();
    fs::write(dir.path().join("b/items/r.md"), rule).unwrap();
    dir
}

#[test]
fn deep_flow_nesting_in_a_rule_front_matter_is_refused_at_once() {
    let rule = format!(
        "---\ntype: rule\ntitle: {}\n---\nBody\n",
        "[".repeat(128 * 1024)
    );
    let dir = one_rule_brief(&rule);
    refused_untouched(
        dir.path(),
        &["compose", "b"],
        &["b/items/r.md:3:72", "nested deeper than 64 levels"],
    );
}

#[test]
fn deep_flow_nesting_in_brief_lock_is_refused_at_once() {
    let dir = one_rule_brief("---\ntype: rule\n---\nBe kind.\n");
    let lock = format!("version: 1\ntokenizer: {}\n", "{a: ".repeat(80 * 1024));
    fs::write(dir.path().join("b/brief.lock"), lock).unwrap();
    refused_untouched(
        dir.path(),
        &["check", "b"],
        &["brief.lock:2:", "invalid lock file: nested deeper"],
    );
}

#[test]
fn deep_flow_nesting_in_brief_yaml_is_refused_at_once() {
    let dir = one_rule_brief("---\ntype: rule\n---\nBe kind.\n");
    let manifest = format!("name: b\nitems: [r]\ndescription: {}", "[{".repeat(100_000));
    fs::write(dir.path().join("b/brief.yaml"), manifest).unwrap();
    for command in ["compose", "check", "lock", "stats"] {
        let before = snapshot_tree(dir.path());
        let output = run(dir.path(), &[command, "b"]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&output)
        );
        assert_stderr_has(&output, "brief.yaml:3:");
        assert_eq!(snapshot_tree(dir.path()), before);
    }
}

#[test]
fn sixty_four_thousand_missing_item_ids_are_each_reported_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("b/items")).unwrap();
    let mut manifest = String::from("name: b\nitems:\n");
    for i in 0..64_000 {
        writeln!(manifest, "  - item-{i}").unwrap();
    }
    // A duplicate and an invalid id far down the list are still pinned to their lines.
    manifest.push_str("  - item-5\n  - \"Not/An Id\"\n");
    fs::write(dir.path().join("b/brief.yaml"), manifest).unwrap();
    let err = compose_fails(dir.path());
    assert!(
        err.contains("has 64002 problems"),
        "{}",
        &err[..err.len().min(500)]
    );
    assert!(err.contains("b/brief.yaml:3:5: missing item file for `item-0`"));
    assert!(err.contains("b/brief.yaml:64002:5: missing item file for `item-63999`"));
    assert!(err.contains("b/brief.yaml:64003:5: duplicate item id `item-5`"));
    assert!(err.contains("b/brief.yaml:64004:6: invalid item id `Not/An Id`"));
}

#[test]
fn sixty_four_thousand_placeholders_without_values_are_reported_at_once() {
    let dir = one_rule_brief("---\ntype: rule\n---\nBe kind.\n");
    fs::write(dir.path().join("b/brief.yaml"), "name: b\nitems: [r, c]\n").unwrap();
    let mut context = String::from("---\ntype: context\n---\n");
    for i in 0..64_000 {
        write!(context, "{{{{v{i}}}}} ").unwrap();
        if i % 1000 == 999 {
            context.push_str("`{{in_code}}`\n");
        }
    }
    fs::write(dir.path().join("b/items/c.md"), &context).unwrap();
    let err = compose_fails(dir.path());
    assert!(err.contains("b/items/c.md:4: `{{v0}}` needs a value"));
    assert!(err.contains("b/items/c.md:67: `{{v63999}}` needs a value"));
    assert!(!err.contains("in_code"));

    // The same placeholders in a static item are one problem for the item (issue 15: grouped
    // per item, one hint), at the first one, naming how many more there are.
    let static_item = context.replace("type: context", "type: instruction");
    fs::write(dir.path().join("b/items/c.md"), &static_item).unwrap();
    let err = compose_fails(dir.path());
    assert!(
        err.contains("b/items/c.md:4:1: placeholders `{{v0}}`"),
        "{}",
        &err[..err.len().min(500)]
    );
    assert!(
        err.contains("and 63992 more"),
        "{}",
        &err[..err.len().min(800)]
    );
    assert!(
        err.contains("and 56 more"),
        "{}",
        &err[..err.len().min(800)]
    );
}

#[test]
fn guard_with_forty_thousand_dropped_code_blocks_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut original = String::new();
    let mut proposal = String::new();
    for i in 0..40_000 {
        // Blocks sharing a long beginning made every hit re-verify all of them.
        writeln!(
            original,
            "```\nthe same long beginning of every block {i}\n```\n"
        )
        .unwrap();
        if i % 2 == 0 {
            writeln!(proposal, "the same long beginning of every block {i}").unwrap();
        }
    }
    let output = guard_json(dir.path(), &original, &proposal);
    assert_exit(&output, 1);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let dropped = report["dropped"].as_array().expect("dropped facts");
    assert_eq!(dropped.len(), 20_000);
}

#[test]
fn guard_with_fifty_thousand_numbers_sharing_their_first_digits_answers_at_once() {
    // Numbers that differ only in their last digits all hashed to a few buckets of the
    // guard's tables (the hash's low bits came from a key's first bytes): 15 MB of them
    // took minutes.
    let dir = tempfile::tempdir().unwrap();
    let mut original = String::new();
    let mut proposal = String::new();
    for line in 0..10_000u32 {
        let numbers: Vec<String> = (0..5)
            .map(|k| (1_000_000 + line * 5 + k).to_string())
            .collect();
        writeln!(original, "{}", numbers.join(" ")).unwrap();
        if line % 2 == 0 {
            writeln!(proposal, "{}", numbers.join(" ")).unwrap();
        }
    }
    let output = guard_json(dir.path(), &original, &proposal);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let dropped = report["dropped"].as_array().expect("dropped facts");
    assert_eq!(dropped.len(), 25_000);
    assert!(dropped.iter().all(|fact| fact["kind"] == "number"));
}
