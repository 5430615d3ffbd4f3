//! Crash safety of session appends: a process killed before, in the middle of or after
//! writing its line leaves a readable log holding every acknowledged entry.

use std::fs;

use crate::common::{brief, run_in, stderr, workspace};
use crate::harness::{argv_then, new_session, ok, session};

#[test]
fn a_kill_at_any_point_of_an_append_loses_no_acknowledged_entry() {
    let ws = workspace("clinic");
    let root = ws.path();
    let dir = new_session(root, &[]);
    session(root).user("acknowledged");
    for (n, point) in ["before-append", "torn-append", "after-append"]
        .iter()
        .enumerate()
    {
        let out = brief()
            .current_dir(root)
            .env("BRIEF_FAULT_INJECT", format!("session-{point}"))
            .args(["session", "append", "s", "--user", "maybe"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            None,
            "{point}: aborted, {}",
            stderr(&out)
        );
        let listed = run_in(root, &["session", "log", "s", "--json"]);
        assert_eq!(
            listed.status.code(),
            Some(0),
            "{point}: {}",
            stderr(&listed)
        );
        let id = ok(
            root,
            &argv_then("session append s --user", &[&format!("after crash {n}")]),
        );
        let log = run_in(root, &["session", "show", "s", "msg_1"]);
        assert_eq!(log.status.code(), Some(0));
        assert!(id.starts_with("msg_"), "{id}");
    }
    let log = fs::read_to_string(dir.join("log.jsonl")).unwrap();
    for line in log.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every line whole");
    }
    for n in 0..3 {
        assert!(log.contains(&format!("after crash {n}")), "{log}");
    }
    assert!(log.contains("acknowledged"));
    // The entry killed after its fsync was written; the one killed before was not.
    assert_eq!(log.matches("\"maybe\"").count(), 1, "{log}");
}
