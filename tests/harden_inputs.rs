//! Regressions from the adversarial run of the runtime (issue 21), through the real binary:
//! inputs without a limit, quadratic YAML outside briefs, a CCR store that wrote to files
//! it refused. Each test is named after what broke; every command runs bounded
//! (`common::bounded`: a timeout and an address-space limit).

use std::fs;
use std::path::Path;

use crate::common::bounded::{bounded, mkfifo, refused, session_root};
use crate::common::{stderr, stdout};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has};

#[test]
fn reads_without_a_size_limit_refuse_devices_and_fifos_at_once() {
    let (ws, _) = session_root();
    let root = ws.path();
    mkfifo(&root.join("pipe"));
    for source in ["/dev/zero", "pipe"] {
        let cases: [(&str, Vec<&str>); 8] = [
            (
                "session append --file",
                argv_then("session append s --tool-result msg_1 --file", &[source]),
            ),
            (
                "session append --subagent",
                vec!["session", "append", "s", "--subagent", "msg_1", source],
            ),
            ("ccr put", vec!["ccr", "put", source]),
            ("digest", vec!["digest", source]),
            ("guard", vec!["guard", source, source]),
            ("import", vec!["import", source, "out"]),
            ("compact FILE", vec!["compact", source]),
            ("align", vec!["align", source]),
        ];
        for (what, args) in cases {
            let out = bounded(root, &args, None);
            let kind = if source == "pipe" {
                "a FIFO"
            } else {
                "a device"
            };
            refused(
                &out,
                &format!("{what} {source}"),
                &[kind, "not a regular file"],
            );
        }
    }
    assert!(!root.join("out").exists());
    assert!(!root.join("state/briefkit/ccr.sqlite").exists());
}

#[test]
fn stdin_is_read_up_to_its_documented_limit_then_refused() {
    let (ws, _) = session_root();
    let root = ws.path();
    let zero = Path::new("/dev/zero");
    let cases: [(&str, Vec<&str>, &str); 4] = [
        (
            "ccr put -",
            vec!["ccr", "put", "-"],
            "the 64 MiB limit for a CCR original",
        ),
        (
            "session append --user -",
            vec!["session", "append", "s", "--user", "-"],
            "the 16 MiB limit for a session entry",
        ),
        (
            "guard - FILE",
            vec!["guard", "-", "s/session.yaml"],
            "the 16 MiB limit for a text file",
        ),
        (
            "align -",
            vec!["align", "-"],
            "the 32 MiB limit for a request body",
        ),
    ];
    for (what, args, limit) in cases {
        let out = bounded(root, &args, Some(zero));
        refused(&out, what, &["<stdin>", limit]);
    }
    // A redirected file is refused by its size, before it is read.
    let big = root.join("big.txt");
    fs::File::create(&big)
        .unwrap()
        .set_len(17 * 1024 * 1024)
        .unwrap();
    let out = bounded(root, &["session", "append", "s", "--user", "-"], Some(&big));
    refused(&out, "a redirected file", &["refused before reading it"]);
}

#[test]
fn a_ccr_put_of_1000_mib_is_refused_before_reading_by_the_documented_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("huge.log");
    // Sparse: 1000 MiB long, nothing on disk.
    fs::File::create(&big)
        .unwrap()
        .set_len(1000 * 1024 * 1024)
        .unwrap();
    let store = dir.path().join("ccr.sqlite");
    let out = bounded(
        dir.path(),
        &["ccr", "put", "huge.log", "--store", "ccr.sqlite"],
        None,
    );
    refused(
        &out,
        "ccr put",
        &[
            "1048576000 bytes is over the 64 MiB limit for a CCR original",
            "refused before reading it",
        ],
    );
    assert!(!store.exists(), "the store was created for a refused put");
    let compressed_too = bounded(
        dir.path(),
        &argv("ccr put --store ccr.sqlite --compressed huge.log"),
        None,
    );
    refused(&compressed_too, "--compressed", &["over the 64 MiB limit"]);
}

#[test]
fn deep_flow_nesting_in_a_digest_or_session_yaml_is_refused_at_once() {
    let (ws, dir) = session_root();
    let root = ws.path();
    // 256k levels: seconds per 64k before the limit, and quadratic.
    let deep = "[".repeat(256 * 1024);
    fs::write(root.join("wake.yaml"), format!("current_task: {deep}\n")).unwrap();
    let out = bounded(root, &["digest", "wake.yaml"], None);
    refused(
        &out,
        "digest",
        &["wake.yaml:1:", "nested deeper than 64 levels"],
    );
    let compose = [
        "compose",
        "clinic",
        "--digest",
        "wake.yaml",
        "--var",
        "patient=Ada",
        "--var",
        "last_visit=2026-10-01",
    ];
    let out = bounded(root, &compose, None);
    refused(&out, "compose --digest", &["nested deeper than 64 levels"]);
    let config = fs::read_to_string(dir.join("session.yaml")).unwrap();
    fs::write(dir.join("session.yaml"), format!("{config}vars: {deep}\n")).unwrap();
    for args in [
        vec!["session", "status", "s"],
        vec!["session", "append", "s", "--user", "hi"],
    ] {
        let out = bounded(root, &args, None);
        refused(
            &out,
            &args.join(" "),
            &["session.yaml:", "nested deeper than 64 levels"],
        );
    }
}

fn sqlite_header_and_size(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap()
}

#[test]
fn a_refused_store_leaves_a_foreign_or_empty_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let foreign = root.join("notes.sqlite");
    let conn = rusqlite::Connection::open(&foreign).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
        .unwrap();
    drop(conn);
    let text = root.join("notes.txt");
    fs::write(&text, "plain text, not a database\n").unwrap();
    for (file, why) in [
        ("notes.sqlite", "another program"),
        ("notes.txt", "not an SQLite database"),
    ] {
        let before = sqlite_header_and_size(&root.join(file));
        for args in [
            vec!["ccr", "get", "ffffffffffffffffffffffff"],
            vec!["ccr", "put", "notes.txt"],
            vec!["ccr", "stats"],
            vec!["ccr", "gc"],
        ] {
            let mut args = args.clone();
            args.extend(["--store", file]);
            let out = bounded(root, &args, None);
            refused(&out, &args.join(" "), &[file, why, "left unchanged"]);
            assert_eq!(sqlite_header_and_size(&root.join(file)), before, "{args:?}");
            for suffix in ["-wal", "-shm", "-journal"] {
                assert!(
                    !root.join(format!("{file}{suffix}")).exists(),
                    "{args:?} made {file}{suffix}"
                );
            }
        }
    }
    // An empty file is no store yet: looking in it changes nothing; a put makes it one.
    let empty = root.join("empty.sqlite");
    fs::write(&empty, "").unwrap();
    let out = bounded(
        root,
        &argv("ccr get ffffffffffffffffffffffff --store empty.sqlite"),
        None,
    );
    assert_exit(&out, 1);
    assert_stderr_has(&out, "unknown");
    for args in [vec!["ccr", "stats"], vec!["ccr", "gc"]] {
        let mut args = args.clone();
        args.extend(["--store", "empty.sqlite"]);
        let out = bounded(root, &args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(
        fs::metadata(&empty).unwrap().len(),
        0,
        "a look-up wrote a store"
    );
    assert!(!root.join("empty.sqlite-wal").exists());
    let out = bounded(
        root,
        &["ccr", "put", "notes.txt", "--store", "empty.sqlite"],
        None,
    );
    assert_exit(&out, 0);
    let hash = stdout(&out).trim().to_string();
    let out = bounded(
        root,
        &["ccr", "get", &hash, "--store", "empty.sqlite"],
        None,
    );
    assert_eq!(stdout(&out), "plain text, not a database\n");
}

#[test]
fn a_ledger_is_summed_a_line_at_a_time_and_an_endless_line_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let entry = |model: &str| {
        serde_json::json!({
            "time": "2026-12-03T10:00:00.000Z", "command": "probe", "provider": "openai",
            "model": model, "brief": "b", "brief_dir": null, "item": null,
            "prefix_hash": "ab".repeat(32), "input_tokens": 100, "cached_input_tokens": 50,
            "cache_write_tokens": null, "output_tokens": 1, "latency_ms": 5, "attempts": 1,
            "status": "ok", "error": null,
        })
        .to_string()
    };
    // A first entry, a 1000 MiB line of NUL bytes (sparse: nothing on disk), a last entry.
    let path = root.join("usage.jsonl");
    let head = format!("{}\n", entry("first"));
    let tail = format!("\n{}\n", entry("last"));
    let hole = 1000 * 1024 * 1024;
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = fs::File::create(&path).unwrap();
        file.write_all(head.as_bytes()).unwrap();
        file.seek(SeekFrom::Current(hole)).unwrap();
        file.write_all(tail.as_bytes()).unwrap();
    }
    let out = bounded(
        root,
        &argv("usage --json --by model --ledger usage.jsonl"),
        None,
    );
    assert_exit(&out, 0);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["total"]["calls"], 2, "{report}");
    assert_stderr_has(
        &out,
        "usage.jsonl:2: longer than the 1 MiB a ledger line can be",
    );
}
