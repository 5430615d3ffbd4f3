//! Limits that agree: what one command writes, the others read; the manifest's item list
//! scales to 100,000 ids.

use std::fmt::Write as _;
use std::fs;

use crate::common::run_in;

#[test]
fn a_lock_over_one_mebibyte_written_by_lock_is_read_by_check() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("b/items")).unwrap();
    fs::write(
        dir.path().join("b/brief.yaml"),
        "name: b\nitems: [r1, r2]\n",
    )
    .unwrap();
    // Two rules just under the item limit make a lock of about 1.8 MB.
    let line = "Answer in the language of the question, and say so when unsure.\n";
    let body = line.repeat(900 * 1024 / line.len());
    for id in ["r1", "r2"] {
        fs::write(
            dir.path().join(format!("b/items/{id}.md")),
            format!("---\ntype: rule\n---\n{body}"),
        )
        .unwrap();
    }
    let output = run_in(dir.path(), &["lock", "b"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lock_len = fs::metadata(dir.path().join("b/brief.lock")).unwrap().len();
    assert!(lock_len > 1024 * 1024, "{lock_len}");
    let output = run_in(dir.path(), &["check", "b"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_manifest_of_one_hundred_thousand_ids_is_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("b/items")).unwrap();
    let mut manifest = String::from("name: b\nitems:\n");
    for i in 0..100_000 {
        writeln!(manifest, "  - item-{i:06}").unwrap();
    }
    assert!(manifest.len() > 1024 * 1024);
    fs::write(dir.path().join("b/brief.yaml"), manifest).unwrap();
    // The items do not exist: every id is reported, which proves the list was read.
    let output = run_in(dir.path(), &["compose", "b"]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("has 100000 problems"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.contains("b/brief.yaml:100002:5: missing item file for `item-099999`"));
}
