//! Every kind of bad brief: exit 2, a message with file:line:column, nothing written.

use std::fs;
use std::path::Path;

use crate::common::{brief, run_in, snapshot_tree, stderr, workspace};
use crate::harness::assert_stderr_has;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Runs `brief lock` (a command that would write) on a broken brief and returns stderr,
/// asserting exit 2 and that nothing was written.
fn lock_fails(root: &Path, brief_dir: &str) -> String {
    let before = snapshot_tree(root);
    let out = run_in(root, &["lock", brief_dir]);
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
    assert_eq!(before, snapshot_tree(root), "nothing may be written");
    stderr(&out)
}

#[test]
fn every_problem_is_reported_at_once_with_file_line_and_column() {
    let ws = workspace("clinic");
    let root = ws.path();
    write(
        root,
        "clinic/brief.yaml",
        "name: clinic\nitems: [persona, persona, ../escape, ghost, booking, visit, find_slot]\n",
    );
    write(
        root,
        "clinic/items/persona.md",
        "---\ntype: persona\n---\nHi\n",
    );
    write(
        root,
        "clinic/items/booking.md",
        "---\ntype: instruction\ncolour: blue\n---\nHi\n",
    );
    write(
        root,
        "clinic/items/visit.md",
        "---\ntype: instruction\n---\nHello {{patient}}\n",
    );
    write(
        root,
        "clinic/items/find_slot.tool.yaml",
        "type: tool\nname: find slot\ndescription: x\ninput_schema: [1]\n",
    );
    insta::assert_snapshot!(lock_fails(root, "clinic"));
}

#[test]
fn bad_yaml_in_the_manifest_points_at_its_line() {
    let ws = workspace("clinic");
    write(
        ws.path(),
        "clinic/brief.yaml",
        "name: clinic\nitems: [persona\nbudget: {}\n",
    );
    let err = lock_fails(ws.path(), "clinic");
    assert!(err.contains("clinic/brief.yaml:3:"), "{err}");
    assert!(err.contains("invalid YAML"), "{err}");
}

#[test]
fn bad_yaml_in_front_matter_points_at_the_file_line() {
    let ws = workspace("clinic");
    write(
        ws.path(),
        "clinic/items/persona.md",
        "---\ntype: identity\ntitle: [unclosed\n---\nHi\n",
    );
    let err = lock_fails(ws.path(), "clinic");
    assert!(
        err.contains("clinic/items/persona.md:3:8: title: invalid type"),
        "{err}"
    );
}

#[test]
fn an_unknown_manifest_field_is_named() {
    let ws = workspace("clinic");
    let text = fs::read_to_string(ws.path().join("clinic/brief.yaml")).unwrap();
    write(
        ws.path(),
        "clinic/brief.yaml",
        &format!("{text}temperature: 0.2\n"),
    );
    let err = lock_fails(ws.path(), "clinic");
    assert!(err.contains("unknown field `temperature`"), "{err}");
    assert!(err.contains("clinic/brief.yaml:7:"), "{err}");
}

#[test]
fn a_missing_item_file_is_reported_at_the_manifest_line() {
    let ws = workspace("clinic");
    fs::remove_file(ws.path().join("clinic/items/booking.md")).unwrap();
    let err = lock_fails(ws.path(), "clinic");
    assert!(err.contains("clinic/brief.yaml:4:"), "{err}");
    assert!(
        err.contains("expected items/booking.md or items/booking.tool.yaml"),
        "{err}"
    );
}

#[test]
fn an_item_file_not_in_the_manifest_is_only_a_warning() {
    let ws = workspace("clinic");
    write(
        ws.path(),
        "clinic/items/draft.md",
        "---\ntype: instruction\n---\nLater\n",
    );
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_eq!(out.status.code(), Some(0));
    assert_stderr_has(&out, "warning: clinic/items/draft.md: not in brief.yaml");
}

#[cfg(unix)]
#[test]
fn a_symlink_pointing_outside_the_brief_is_refused() {
    let ws = workspace("clinic");
    write(
        ws.path(),
        "outside.md",
        "---\ntype: identity\n---\nSecret\n",
    );
    let link = ws.path().join("clinic/items/persona.md");
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(ws.path().join("outside.md"), &link).unwrap();
    let err = lock_fails(ws.path(), "clinic");
    assert!(
        err.contains("clinic/items/persona.md: points outside the brief directory"),
        "{err}"
    );
}

#[test]
fn non_utf8_is_reported_with_its_line() {
    let ws = workspace("clinic");
    fs::write(
        ws.path().join("clinic/items/booking.md"),
        b"---\ntype: instruction\n---\nok\nbad \xff here\n",
    )
    .unwrap();
    let err = lock_fails(ws.path(), "clinic");
    assert!(
        err.contains("clinic/items/booking.md:5:5: not valid UTF-8"),
        "{err}"
    );
}

#[test]
fn a_file_over_one_mebibyte_is_refused() {
    let ws = workspace("clinic");
    let big = format!("---\ntype: instruction\n---\n{}", "word ".repeat(220_000));
    write(ws.path(), "clinic/items/booking.md", &big);
    let err = lock_fails(ws.path(), "clinic");
    assert!(err.contains("the limit is 1048576 (1 MiB)"), "{err}");
}

#[test]
fn a_placeholder_in_a_static_item_is_refused_with_its_position() {
    let ws = workspace("clinic");
    write(
        ws.path(),
        "clinic/items/booking.md",
        "---\ntype: instruction\n---\nFirst line\nCall {{clinic_phone}} now\n",
    );
    let err = lock_fails(ws.path(), "clinic");
    assert!(
        err.contains(
            "clinic/items/booking.md:5:6: placeholder `{{clinic_phone}}` in a static item"
        ),
        "{err}"
    );
}

#[test]
fn a_directory_without_a_manifest_is_not_a_brief() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["compose", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a brief: it has no brief.yaml"));
    assert!(stderr(&out).contains("hint: create one with `brief init DIR`"));
}

#[test]
fn bad_usage_exits_2() {
    let out = brief().args(["compose"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = brief()
        .args(["compose", "x", "--var", "novalue"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected KEY=VALUE"));
}

#[test]
fn regression_a_manifest_typo_does_not_hide_the_item_problems() {
    let ws = workspace("clinic");
    let text = fs::read_to_string(ws.path().join("clinic/brief.yaml")).unwrap();
    write(
        ws.path(),
        "clinic/brief.yaml",
        &format!("{text}colour: blue\n"),
    );
    fs::remove_file(ws.path().join("clinic/items/booking.md")).unwrap();
    let err = lock_fails(ws.path(), "clinic");
    assert!(err.contains("clinic has 2 problems"), "{err}");
    assert!(err.contains("unknown field `colour`"), "{err}");
    assert!(err.contains("missing item file for `booking`"), "{err}");
}
