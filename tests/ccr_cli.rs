//! The CCR store through the real `brief ccr` binary: put/get round trips, expired told
//! from unknown, the TTL and path settings, concurrent writer processes, and damaged files
//! reported clearly.

use std::process::Stdio;

use briefkit::ccr::{self, Lookup, Store, Strategy};

use crate::ccr_store::{ccr_cmd, clocked, query, store_path};
use crate::common::{brief, json, stderr, stdout};
use crate::harness::{argv, assert_exit, assert_stderr_has};

#[test]
fn cli_put_prints_the_hash_and_get_prints_the_original_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let original = "exact bytes\r\n  with trailing space \n\u{1F600}";
    let out = ccr_cmd(&path)
        .args(argv("ccr put --strategy tool_output_head_tail --source t"))
        .write_stdin(original)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let hash = stdout(&out).trim().to_string();
    assert_eq!(hash, ccr::hash(original.as_bytes()));
    let got = ccr_cmd(&path)
        .args(["ccr", "get", &hash.to_uppercase()])
        .output()
        .unwrap();
    assert!(got.status.success());
    assert_eq!(got.stdout, original.as_bytes());
    let got = ccr_cmd(&path)
        .args(["ccr", "get", &hash, "--json"])
        .output()
        .unwrap();
    let value = json(&got);
    assert_eq!(value["status"], "found");
    assert_eq!(value["strategy"], "tool_output_head_tail");
    assert_eq!(value["original"], original);
    // Same original again: same hash, refreshed.
    let again = ccr_cmd(&path)
        .args(["ccr", "put", "--json"])
        .write_stdin(original)
        .output()
        .unwrap();
    let value = json(&again);
    assert_eq!(
        (value["status"].as_str(), value["hash"].as_str()),
        (Some("refreshed"), Some(&*hash))
    );
}

#[test]
fn cli_get_tells_expired_from_unknown_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    // Written by a clock far in the past: expired for the real binary's clock.
    let (store, _) = clocked(&path);
    let stored = store
        .put(
            b"old tool output",
            "head",
            Strategy::ToolOutputHeadTail,
            "make",
            Some(60),
        )
        .unwrap();
    drop(store);
    let out = ccr_cmd(&path)
        .args(["ccr", "get", &stored.hash])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.starts_with("expired: "), "{err}");
    assert!(
        err.contains("tool_output_head_tail") && err.contains("2026-11-30T09:06:01.250Z"),
        "{err}"
    );
    assert!(
        err.contains("regenerate the digest") && err.contains("re-read the source"),
        "{err}"
    );

    let out = ccr_cmd(&path)
        .args(["ccr", "get", &stored.hash, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["status"], "expired");
    assert_eq!(value["strategy"], "tool_output_head_tail");
    assert_eq!(value["expired_at"], "2026-11-30T09:06:01.250Z");

    // gc keeps the answer "expired".
    let gc = ccr_cmd(&path)
        .args(["ccr", "gc", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&gc)["collected"], 1);
    let out = ccr_cmd(&path)
        .args(["ccr", "get", &stored.hash, "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["status"], "expired");

    let out = ccr_cmd(&path)
        .args(["ccr", "get", "ffffffffffffffffffffffff"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("unknown: "), "{}", stderr(&out));
    let out = ccr_cmd(&path)
        .args(["ccr", "get", "ffffffffffffffffffffffff", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["status"], "unknown");
}

/// Regression (issue 27): `get` said an expired original "was collected" while `stats`
/// still counted it as awaiting `gc`. The two states now read differently.
#[test]
fn cli_get_tells_expired_awaiting_gc_from_collected() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let (store, _) = clocked(&path);
    let stored = store
        .put(
            b"old notes",
            "notes",
            Strategy::SummaryBacking,
            "wake",
            Some(60),
        )
        .unwrap();
    drop(store);
    let get = |json_flag: bool| {
        let mut cmd = ccr_cmd(&path);
        cmd.args(["ccr", "get", &stored.hash]);
        if json_flag {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let stats = ccr_cmd(&path)
        .args(["ccr", "stats", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&stats)["awaiting_gc"], 1);
    let before = get(false);
    assert_eq!(before.status.code(), Some(1));
    let value = json(&get(true));
    assert_eq!(value["status"], "expired");
    assert_eq!(value["collected"], false);
    assert_eq!(value["awaiting_gc"], true);
    let gc = ccr_cmd(&path).args(["ccr", "gc"]).output().unwrap();
    assert_eq!(gc.status.code(), Some(0));
    let after = get(false);
    assert_eq!(after.status.code(), Some(1));
    let value = json(&get(true));
    assert_eq!(value["collected"], true);
    assert_eq!(value["awaiting_gc"], false);
    insta::assert_snapshot!(format!("{}---\n{}", stderr(&before), stderr(&after)));
}

#[test]
fn cli_get_on_a_missing_store_is_unknown_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let out = ccr_cmd(&path)
        .args(["ccr", "get", "ffffffffffffffffffffffff"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = ccr_cmd(&path)
        .args(["ccr", "stats", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["exists"], false);
    assert!(!path.exists() && !path.parent().unwrap().exists());
}

#[test]
fn bad_strategy_ttl_or_hash_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    for args in [
        vec!["ccr", "put", "--strategy", "shape_guess"],
        vec!["ccr", "put", "--ttl", "0"],
        vec!["ccr", "put", "--ttl", "soon"],
        vec!["ccr", "put", "no-such-file"],
        vec!["ccr", "get", "not-a-hash"],
    ] {
        let out = ccr_cmd(&path)
            .args(&args)
            .write_stdin("x")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let out = ccr_cmd(&path)
        .env("BRIEF_CCR_TTL_SECONDS", "-3")
        .args(["ccr", "put"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("BRIEF_CCR_TTL_SECONDS"));
    assert!(!path.exists());
}

#[test]
fn the_ttl_comes_from_the_flag_else_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let put = |extra: &[&str], env: Option<&str>, input: &str| {
        let mut cmd = ccr_cmd(&path);
        if let Some(value) = env {
            cmd.env("BRIEF_CCR_TTL_SECONDS", value);
        }
        let out = cmd
            .args(["ccr", "put", "--json"])
            .args(extra)
            .write_stdin(input)
            .output()
            .unwrap();
        json(&out)["ttl_seconds"].as_u64().unwrap()
    };
    assert_eq!(put(&[], None, "a"), ccr::ttl::DEFAULT_SECONDS);
    assert_eq!(put(&[], Some("3600"), "b"), 3600);
    assert_eq!(put(&["--ttl", "2h"], Some("3600"), "c"), 7200);
    let out = ccr_cmd(&path)
        .env("BRIEF_CCR_TTL_SECONDS", "90")
        .args(["ccr", "stats", "--json"])
        .output()
        .unwrap();
    let value = json(&out);
    assert_eq!(
        (value["ttl_seconds"].as_u64(), value["ttl_source"].as_str()),
        (Some(90), Some("env"))
    );
    assert_eq!(value["live"], 3);
    assert_eq!(value["strategies"]["manual"]["live"], 3);
}

#[test]
fn the_store_defaults_to_the_state_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = brief()
        .env_remove("BRIEF_CCR_PATH")
        .env("XDG_STATE_HOME", dir.path().join("xdg"))
        .args(["ccr", "put"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(dir.path().join("xdg/briefkit/ccr.sqlite").is_file());
    let out = brief()
        .env_remove("BRIEF_CCR_PATH")
        .env_remove("XDG_STATE_HOME")
        .env("HOME", dir.path().join("home"))
        .args(["ccr", "put"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(
        dir.path()
            .join("home/.local/state/briefkit/ccr.sqlite")
            .is_file()
    );
}

#[test]
fn concurrent_writer_processes_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    // Eight processes race to create the store and each puts its own original.
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_brief"))
                .env("BRIEF_CCR_PATH", &path)
                .env_remove("BRIEF_CCR_TTL_SECONDS")
                .args(["ccr", "put", "--source", &format!("writer {i}")])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(format!("original from writer {i}\n").repeat(200).as_bytes())
                .unwrap();
            (i, child)
        })
        .collect();
    for (i, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "writer {i}: {}", stderr(&out));
        let original = format!("original from writer {i}\n").repeat(200);
        assert_eq!(stdout(&out).trim(), ccr::hash(original.as_bytes()));
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.stats().unwrap().total.live, 8);
    for i in 0..8 {
        let original = format!("original from writer {i}\n").repeat(200);
        let Lookup::Found(entry) = store.get(&query(&ccr::hash(original.as_bytes()))).unwrap()
        else {
            panic!("writer {i} lost");
        };
        assert_eq!(entry.source, format!("writer {i}"));
    }
}

#[test]
fn a_damaged_store_is_reported_clearly_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        b"this is not an SQLite database, it was overwritten by accident\n".repeat(100),
    )
    .unwrap();
    for args in [
        vec!["ccr", "get", "ffffffffffffffffffffffff"],
        vec!["ccr", "put"],
        vec!["ccr", "stats"],
    ] {
        let out = ccr_cmd(&path)
            .args(&args)
            .write_stdin("x")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("is damaged") && err.contains(&path.display().to_string()),
            "{err}"
        );
        assert!(err.contains("move it aside"), "{err}");
    }
}

#[test]
fn a_truncated_store_is_reported_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let store = Store::open(&path).unwrap();
    for i in 0..200 {
        store
            .put(
                format!("entry {i} ").repeat(300).as_bytes(),
                "",
                Strategy::Manual,
                "t",
                None,
            )
            .unwrap();
    }
    drop(store);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
    let out = ccr_cmd(&path).args(["ccr", "stats"]).output().unwrap();
    assert_exit(&out, 2);
    assert_stderr_has(&out, "is damaged");
}

#[test]
fn another_sqlite_database_is_not_taken_for_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
        .unwrap();
    drop(conn);
    let out = ccr_cmd(&path)
        .args(["ccr", "put"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "not a briefkit CCR store");
}

#[test]
fn ttl_suggestion_names_only_values_put_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(&dir);
    let out = ccr_cmd(&path)
        .args(["ccr", "put", "--ttl", "99999999999999999999"])
        .write_stdin("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    let suggested = message
        .split("(try ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no suggestion in {message}"));
    let values: Vec<&str> = suggested
        .split([',', ' '])
        .filter(|word| !word.is_empty() && *word != "or")
        .collect();
    assert!(values.len() >= 3, "{message}");
    for value in values {
        let out = ccr_cmd(&path)
            .args(["ccr", "put", "--ttl", value])
            .write_stdin(value)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "suggested `{value}` refused: {}",
            stderr(&out)
        );
    }
}
