//! Static `vars:` in brief.yaml: build-time values static items may use, part of the
//! stable prefix (so of the lock's prefix hash); other placeholders in the static tier are
//! reported once per item, with one hint.

use std::fs;
use std::path::Path;

use crate::common::{brief, json, stderr, stdout};
use crate::harness::{argv, assert_exit};

fn write_brief(root: &Path, vars: &str) {
    let dir = root.join("desk");
    fs::create_dir_all(dir.join("items")).unwrap();
    fs::write(
        dir.join("brief.yaml"),
        format!("name: desk\nitems: [who, style, today]\n{vars}"),
    )
    .unwrap();
    fs::write(
        dir.join("items/who.md"),
        "---\ntype: identity\n---\nYou answer for {{company}}'s {{team}} team.\n",
    )
    .unwrap();
    fs::write(
        dir.join("items/style.md"),
        "---\ntype: instruction\n---\nSign as {{company}}. Write \\{{ticket}} literally.\n",
    )
    .unwrap();
    fs::write(
        dir.join("items/today.md"),
        "---\ntype: context\n---\nCustomer: {{customer}} of {{company}}.\n",
    )
    .unwrap();
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    brief().current_dir(root).args(args).output().unwrap()
}

fn prefix_hash(root: &Path) -> String {
    let out = run(
        root,
        &argv("compose desk --var customer=Ada --stats --json"),
    );
    assert_exit(&out, 0);
    let report = json(&out);
    report["prefix_hash"]
        .as_str()
        .or(report["stats"]["prefix_hash"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| report.to_string())
}

#[test]
fn static_items_use_build_time_vars_and_the_prefix_covers_their_values() {
    let ws = tempfile::tempdir().unwrap();
    write_brief(ws.path(), "vars:\n  company: Acme\n  team: billing\n");
    let out = run(ws.path(), &["compose", "desk", "--var", "customer=Ada"]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out),
        "You answer for Acme's billing team.\n\nSign as Acme. Write {{ticket}} literally.\n\nCustomer: Ada of Acme.\n"
    );
    let locked = run(ws.path(), &["lock", "desk"]);
    assert_exit(&locked, 0);
    let check = run(ws.path(), &["check", "desk", "--json"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let before = prefix_hash(ws.path());

    // Changing a value is a prefix change: the hash moves and check says so.
    write_brief(ws.path(), "vars:\n  company: Acme Corp\n  team: billing\n");
    let after = prefix_hash(ws.path());
    assert_ne!(before, after);
    let check = run(ws.path(), &["check", "desk", "--json"]);
    let text = stdout(&check);
    assert!(text.contains("prefix-changed"), "{text}");
    // The lock names the vars, so the note (and a diff of brief.lock) says which one moved.
    assert!(
        text.contains(r#"static vars changed: company (\"Acme\" → \"Acme Corp\")"#),
        "{text}"
    );
    let lock = fs::read_to_string(ws.path().join("desk/brief.lock")).unwrap();
    assert!(
        lock.contains("vars:\n  company: Acme\n  team: billing\n"),
        "{lock}"
    );

    // A --var cannot change a static value: the prefix stays what the manifest says.
    let out = run(
        ws.path(),
        &argv("compose desk --var customer=Ada --var company=Evil"),
    );
    assert!(
        stdout(&out).starts_with("You answer for Acme Corp's"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn placeholders_without_a_value_are_one_error_per_item_with_one_hint() {
    let ws = tempfile::tempdir().unwrap();
    write_brief(ws.path(), "");
    let out = run(ws.path(), &["check", "desk"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    insta::assert_snapshot!("check_human", stdout(&out));
    let out = run(ws.path(), &["check", "desk", "--json"]);
    let report = json(&out);
    insta::assert_snapshot!("check_json", serde_json::to_string_pretty(&report).unwrap());
    let out = run(ws.path(), &["compose", "desk", "--var", "customer=Ada"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert_eq!(text.matches("in a static item").count(), 2, "{text}");
    assert!(text.contains("`{{company}}`, `{{team}}`"), "{text}");
}
