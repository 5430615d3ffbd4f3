//! Regressions from the adversarial run: links and odd files a pull request can plant in a
//! brief. Whatever is planted, nothing outside the brief is read, written or deleted, and
//! nothing hangs. Each test is named after what broke.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common::store::write_proposal;
use crate::common::{brief, snapshot_tree, stderr, workspace};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has};

/// A brief in a workspace, plus a directory outside it with one file in it.
struct Planted {
    _ws: tempfile::TempDir,
    root: PathBuf,
    dir: PathBuf,
    outside: PathBuf,
}

fn planted() -> Planted {
    let ws = workspace("clinic");
    let root = ws.path().to_path_buf();
    let dir = root.join("clinic");
    let outside = root.join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("keep.txt"), "outside the brief\n").unwrap();
    Planted {
        _ws: ws,
        root,
        dir,
        outside,
    }
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    brief().current_dir(root).args(args).output().unwrap()
}

fn edit_booking(dir: &Path) {
    let path = dir.join("items/booking.md");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.replace("45 minutes", "50 minutes")).unwrap();
}

/// Records two versions of `booking` (import + an edit), through the binary.
fn two_versions(p: &Planted) {
    let out = run(&p.root, &["record", "clinic", "booking"]);
    assert_exit(&out, 0);
    edit_booking(&p.dir);
    let out = run(&p.root, &["record", "clinic", "booking"]);
    assert_exit(&out, 0);
}

fn refused(out: &std::process::Output, what: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    assert!(
        stderr(out).contains("outside the brief") || stderr(out).contains("symbolic link"),
        "{what}: {}",
        stderr(out)
    );
}

#[test]
fn a_symlinked_history_dir_never_receives_a_version() {
    let p = planted();
    symlink(&p.outside, p.dir.join("history")).unwrap();
    let before = snapshot_tree(&p.outside);
    refused(&run(&p.root, &["record", "clinic", "booking"]), "record");
    assert_eq!(snapshot_tree(&p.outside), before);
}

#[test]
fn a_symlinked_item_history_dir_is_neither_written_nor_read() {
    let p = planted();
    fs::create_dir(p.dir.join("history")).unwrap();
    symlink(&p.outside, p.dir.join("history/booking")).unwrap();
    let before = snapshot_tree(&p.outside);
    refused(&run(&p.root, &["record", "clinic", "booking"]), "record");
    refused(&run(&p.root, &["history", "clinic", "booking"]), "history");
    assert_eq!(snapshot_tree(&p.outside), before);
}

#[test]
fn a_symlinked_version_file_is_not_read_shown_or_restored() {
    let p = planted();
    two_versions(&p);
    let v1 = p.dir.join("history/booking/0001.md");
    fs::rename(&v1, p.outside.join("0001.md")).unwrap();
    symlink(p.outside.join("0001.md"), &v1).unwrap();
    let before = snapshot_tree(&p.outside);
    let item = fs::read(p.dir.join("items/booking.md")).unwrap();
    refused(&run(&p.root, &["history", "clinic", "booking"]), "history");
    refused(
        &run(&p.root, &["show", "clinic", "booking", "--version", "1"]),
        "show",
    );
    refused(
        &run(&p.root, &["restore", "clinic", "booking", "1"]),
        "restore",
    );
    assert_eq!(snapshot_tree(&p.outside), before);
    assert_eq!(fs::read(p.dir.join("items/booking.md")).unwrap(), item);
}

#[test]
fn a_symlinked_proposals_dir_is_not_listed_accepted_or_deleted_from() {
    let p = planted();
    // A real proposal, then its directory moved outside and linked back.
    let id = write_proposal(&p.dir, "booking", "Booking: 45 minutes, €80.\n", &[], 1);
    let moved = p.outside.join("proposals");
    fs::rename(p.dir.join("proposals"), &moved).unwrap();
    symlink(&moved, p.dir.join("proposals")).unwrap();
    let before = snapshot_tree(&p.outside);
    refused(&run(&p.root, &["proposals", "clinic"]), "proposals");
    refused(
        &run(&p.root, &["accept", "clinic", &id, "--allow-flags"]),
        "accept",
    );
    refused(&run(&p.root, &["discard", "clinic", &id]), "discard");
    assert_eq!(
        snapshot_tree(&p.outside),
        before,
        "a file outside was deleted"
    );
}

#[test]
fn a_dangling_writer_lock_link_creates_nothing_outside() {
    let p = planted();
    let target = p.outside.join("created-by-brief");
    symlink(&target, p.dir.join(".writer.lock")).unwrap();
    refused(&run(&p.root, &["record", "clinic", "booking"]), "record");
    assert!(!target.exists(), "the lock followed the link");
}

#[test]
fn a_link_at_the_target_is_replaced_not_written_through() {
    let p = planted();
    two_versions(&p);
    // The item file itself is a link to a file outside: the loader refuses it.
    let item = p.dir.join("items/booking.md");
    let outside_item = p.outside.join("booking.md");
    fs::rename(&item, &outside_item).unwrap();
    symlink(&outside_item, &item).unwrap();
    let before = snapshot_tree(&p.outside);
    let out = run(&p.root, &["restore", "clinic", "booking", "1"]);
    assert_exit(&out, 2);
    assert_eq!(snapshot_tree(&p.outside), before);
}

#[test]
fn temporary_files_left_by_a_killed_writer_are_removed_by_the_next() {
    let p = planted();
    two_versions(&p);
    let orphans = [
        p.dir.join("items/.booking.md.tmp-4242"),
        p.dir
            .join("history/booking/.0003.md.tmp-0123456789abcdef0123"),
    ];
    for orphan in &orphans {
        fs::write(orphan, "half a write").unwrap();
    }
    // Not ours: kept.
    fs::write(p.dir.join("items/.notes"), "keep").unwrap();
    edit_booking(&p.dir);
    let out = run(&p.root, &["record", "clinic", "booking"]);
    assert_exit(&out, 0);
    for orphan in &orphans {
        assert!(!orphan.exists(), "{}", orphan.display());
    }
    assert!(p.dir.join("items/.notes").exists());
}

#[test]
fn a_fifo_as_a_version_or_proposal_is_refused_without_hanging() {
    let p = planted();
    two_versions(&p);
    let v2 = p.dir.join("history/booking/0002.md");
    fs::remove_file(&v2).unwrap();
    mkfifo(&v2);
    let out = run(&p.root, &["history", "clinic", "booking"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "FIFO");
    fs::create_dir_all(p.dir.join("proposals")).unwrap();
    mkfifo(&p.dir.join("proposals/booking-20260102030401-a001.yaml"));
    let out = run(&p.root, &["proposals", "clinic"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "FIFO");
}

#[test]
fn a_fifo_as_an_item_is_refused_without_hanging() {
    let p = planted();
    let item = p.dir.join("items/booking.md");
    fs::remove_file(&item).unwrap();
    mkfifo(&item);
    let out = run(&p.root, &["compose", "clinic"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "FIFO");
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_ledger_that_is_a_link_or_not_a_ledger_is_refused_before_any_call() {
    use crate::common::server::{Reply, Server};
    let p = planted();
    let server = Server::start(Reply::Text("Booking: 45 minutes, €80.".into()));
    let link = p.root.join("usage.jsonl");
    symlink(p.outside.join("keep.txt"), &link).unwrap();
    let manifest = p.dir.join("brief.yaml");
    for (ledger, via_env) in [(&link, false), (&manifest, false), (&link, true)] {
        let before = (snapshot_tree(&p.outside), fs::read(&manifest).unwrap());
        let mut cmd = brief();
        cmd.current_dir(&p.root).args(argv_then(
            "compress clinic booking --model m --base-url",
            &[&server.base_url],
        ));
        if via_env {
            cmd.env("BRIEF_LEDGER", ledger);
        } else {
            cmd.arg("--ledger").arg(ledger);
        }
        let out = cmd.output().unwrap();
        assert_exit(&out, 2);
        assert!(
            stderr(&out).contains("symbolic link") || stderr(&out).contains("not a ledger"),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            (snapshot_tree(&p.outside), fs::read(&manifest).unwrap()),
            before
        );
        let out = brief()
            .current_dir(&p.root)
            .args(["usage", "--ledger"])
            .arg(ledger)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "usage: {}", stderr(&out));
    }
    assert!(server.requests().is_empty(), "a request was sent");
}

#[test]
fn a_byte_order_mark_is_accepted_in_the_manifest_and_items() {
    let p = planted();
    for file in ["brief.yaml", "items/booking.md"] {
        let path = p.dir.join(file);
        let mut bytes = "\u{feff}".as_bytes().to_vec();
        bytes.extend(fs::read(&path).unwrap());
        fs::write(&path, bytes).unwrap();
    }
    let out = run(
        &p.root,
        &argv("compose clinic --var patient=Ann --var last_visit=May"),
    );
    assert_exit(&out, 0);
    assert_stderr_has(&out, "byte-order mark");
    assert!(!crate::common::stdout(&out).contains('\u{feff}'));
    let out = run(&p.root, &["check", "clinic"]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn init_and_import_never_write_through_a_planted_items_or_gitignore_link() {
    // Regression: init and import created `items/` with create_dir_all, which follows a
    // planted link, and wrote every item file outside the target directory.
    for command in ["init", "import"] {
        for planted_name in ["items", ".gitignore", "brief.yaml"] {
            let p = planted();
            let target = p.root.join("fresh");
            fs::create_dir(&target).unwrap();
            let link_to = if planted_name == "items" {
                p.outside.clone()
            } else {
                p.outside.join(planted_name)
            };
            symlink(&link_to, target.join(planted_name)).unwrap();
            fs::write(
                p.root.join("prompt.md"),
                "# Agent\n\n## Tone\n\nBe brief.\n",
            )
            .unwrap();
            let before = snapshot_tree(&p.outside);
            let out = match command {
                "init" => run(&p.root, &["init", "fresh"]),
                _ => run(&p.root, &["import", "prompt.md", "fresh"]),
            };
            let what = format!("{command} with {planted_name} planted");
            assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
            assert_eq!(snapshot_tree(&p.outside), before, "{what}");
            let written: Vec<_> = fs::read_dir(&target)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(written, [planted_name], "{what}: something was written");
        }
    }
}

#[test]
fn lock_refuses_a_brief_lock_that_is_a_link_leaving_the_brief() {
    // Regression: `brief lock` read a linked brief.lock outside the brief (as the previous
    // lock) and replaced the link without a word.
    for dangling in [false, true] {
        let p = planted();
        let target = p.outside.join("brief.lock");
        if !dangling {
            fs::write(&target, "version: 1\n").unwrap();
        }
        symlink(&target, p.dir.join("brief.lock")).unwrap();
        let before = snapshot_tree(&p.outside);
        let out = run(&p.root, &["lock", "clinic"]);
        refused(&out, "lock");
        assert_eq!(snapshot_tree(&p.outside), before);
        assert!(
            p.dir.join("brief.lock").is_symlink(),
            "the link was replaced"
        );
    }
}

#[test]
fn compact_write_refuses_a_linked_file_and_writes_nothing() {
    let p = planted();
    let real = p.outside.join("notes.md");
    fs::write(&real, "# Notes\n\nSome   text.   \n\n\n\nMore.\n").unwrap();
    let link = p.root.join("notes.md");
    symlink(&real, &link).unwrap();
    let before = snapshot_tree(&p.outside);
    let out = run(&p.root, &["compact", "notes.md", "--write"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "symbolic link");
    assert_eq!(snapshot_tree(&p.outside), before);
    assert!(link.is_symlink());
}

#[test]
fn a_bare_brief_yaml_names_the_current_directory() {
    // Regression: `brief lock brief.yaml` run inside the brief said "no such brief
    // directory" (the manifest's parent is the empty path).
    let p = planted();
    for args in [["lock", "brief.yaml"], ["check", "brief.yaml"]] {
        let out = run(&p.dir, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert!(p.dir.join("brief.lock").is_file());
}

/// Regression: the items, the lock and the history refused a link leaving the brief, but a
/// `brief.yaml` that was such a link was read (and its brief composed) as if it were the
/// brief's own; a link inside the brief still works.
#[test]
fn a_brief_yaml_linked_outside_the_brief_is_refused() {
    let p = planted();
    let manifest = p.dir.join("brief.yaml");
    fs::rename(&manifest, p.outside.join("brief.yaml")).unwrap();
    symlink(p.outside.join("brief.yaml"), &manifest).unwrap();
    for args in [
        &["stats", "clinic"][..],
        &["compose", "clinic", "--var", "date=2026-12-01"],
        &["check", "clinic"],
        &["lock", "clinic"],
    ] {
        let out = run(&p.root, args);
        refused(&out, &args.join(" "));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    fs::remove_file(&manifest).unwrap();
    fs::rename(p.outside.join("brief.yaml"), p.dir.join("manifest.yaml")).unwrap();
    symlink("manifest.yaml", &manifest).unwrap();
    let out = run(&p.root, &["stats", "clinic"]);
    assert_exit(&out, 0);
}
