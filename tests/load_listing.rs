//! The loader lists `items/` once and reads a plain regular file without resolving its
//! path: every other kind of entry still takes the careful path (resolved, stat'ed before
//! it is opened), with the same messages.

use std::fs;
use std::os::unix::fs::symlink;

use crate::common::{run_in, stderr, stdout, workspace};
use crate::harness::{argv, assert_exit, assert_stderr_has};

#[test]
fn an_items_dir_that_is_a_symlink_out_of_the_brief_is_refused() {
    let ws = workspace("clinic");
    let items = ws.path().join("clinic/items");
    let moved = ws.path().join("elsewhere");
    fs::rename(&items, &moved).unwrap();
    symlink(&moved, &items).unwrap();
    let out = run_in(ws.path(), &["compose", "clinic"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "points outside the brief directory");
}

#[test]
fn a_symlink_to_a_file_inside_the_brief_still_loads() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let compose = || {
        run_in(
            ws.path(),
            &argv("compose clinic --var patient=Ada --var last_visit=May"),
        )
    };
    let before = compose();
    fs::create_dir_all(dir.join("texts")).unwrap();
    fs::rename(dir.join("items/booking.md"), dir.join("texts/booking.md")).unwrap();
    symlink("../texts/booking.md", dir.join("items/booking.md")).unwrap();
    let after = compose();
    assert_eq!(stdout(&before), stdout(&after), "{}", stderr(&after));
    assert_eq!(before.status.code(), after.status.code());
}

#[test]
fn a_dangling_symlink_or_a_directory_as_an_item_is_named() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    fs::remove_file(dir.join("items/booking.md")).unwrap();
    symlink("nowhere.md", dir.join("items/booking.md")).unwrap();
    let out = run_in(ws.path(), &["compose", "clinic"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "items/booking.md: cannot read");
    fs::remove_file(dir.join("items/booking.md")).unwrap();
    fs::create_dir(dir.join("items/booking.md")).unwrap();
    let out = run_in(ws.path(), &["compose", "clinic"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "a directory, not a regular file");
}

#[test]
fn a_missing_item_and_an_unlisted_file_are_still_reported() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    fs::copy(dir.join("items/booking.md"), dir.join("items/draft.md")).unwrap();
    let out = run_in(ws.path(), &["stats", "clinic"]);
    assert_exit(&out, 0);
    assert_stderr_has(&out, "items/draft.md: not in brief.yaml");
    fs::remove_file(dir.join("items/booking.md")).unwrap();
    let out = run_in(ws.path(), &["stats", "clinic"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "missing item file for `booking`");
}
