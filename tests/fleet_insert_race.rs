//! Regression (issue 26): a batch whose insert was still running inside ClickHouse when its
//! sender gave up waiting (a timeout on a slow or frozen server, a sender killed -9) was
//! looked for, not found (it had not landed *yet*), sent again, and stored twice once the
//! first insert ended. An insert runs under a query id made of its batch; while a query of
//! that id runs in a real `clickhouse-server`, the batch must not be sent.

use std::time::{Duration, Instant};

use briefkit::cache::ledger::clickhouse::{http::insert_query_id, push::batch_id, schema};

use crate::common::clickhouse::{ClickHouse, PASSWORD, USER};
use crate::common::proxy::send;
use crate::common::{brief, json, stderr};

const TABLE: &str = "fleet.usage";

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "waited {limit:?} in vain");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn push(file: &std::path::Path, url: &str) -> std::process::Output {
    brief()
        .args(["ledger", "push"])
        .arg(file)
        .args([url, "--json"])
        .output()
        .unwrap()
}

#[test]
fn a_push_while_an_earlier_insert_of_its_rows_still_runs_sends_nothing_then_sends_them_once() {
    let ch = ClickHouse::start();
    let url = ch.url(TABLE);
    let init = brief().args(["ledger", "init", &url]).output().unwrap();
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    let briefs = crate::common::workspace("clinic");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("usage.jsonl");
    let rows = &crate::fleet_usage::ledger_rows(&briefs.path().join("clinic"))[..30];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let mut ids = Vec::new();
    briefkit::cache::ledger::read_numbered(
        &file,
        |line, entry| ids.push(schema::file_event_id(&entry, line)),
        |_| {},
    )
    .unwrap();
    let query_id = insert_query_id(&batch_id(ids.iter().map(String::as_str)));

    // The earlier insert, still running (a query holding its id for 3 s).
    let base = ch.base();
    let earlier = std::thread::spawn(move || {
        let path = format!("/?query_id={}", query_id.replace(':', "%3A"));
        let headers = [("X-ClickHouse-User", USER), ("X-ClickHouse-Key", PASSWORD)];
        send(&base, "POST", &path, &headers, b"SELECT sleep(3)").0
    });
    wait_until(Duration::from_secs(10), || {
        ch.count("SELECT count() FROM system.processes WHERE query LIKE 'SELECT sleep%'") == 1
    });

    let during = push(&file, &url);
    assert_eq!(during.status.code(), Some(3), "{}", stderr(&during));
    let said = stderr(&during);
    assert!(said.contains("still running"), "{said}");
    assert!(!said.contains(PASSWORD), "{said}");
    assert_eq!(ch.count(&format!("SELECT count() FROM {TABLE}")), 0);

    assert_eq!(earlier.join().unwrap(), 200);
    let after = push(&file, &url);
    assert_eq!(after.status.code(), Some(0), "{}", stderr(&after));
    assert_eq!(json(&after)["rows_sent"], rows.len());
    let again = push(&file, &url);
    assert_eq!(json(&again)["rows_sent"], 0);
    assert_eq!(
        ch.count(&format!("SELECT count() FROM {TABLE}")),
        rows.len() as u64,
        "every row stored once, without a merge"
    );
}
