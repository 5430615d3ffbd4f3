//! The CCR half of issue 25.6: headroom's TTL variable is read when ours is not set (with a
//! note), and an original stored under two strategies keeps a record of each, which
//! `ccr get --json` lists beside the fields it always had.

use std::path::Path;

use crate::common::{brief, json, stderr};
use crate::harness::{argv_then, assert_exit, assert_stderr_has};

fn put(dir: &Path, strategy: &str, env: &[(&str, &str)]) -> std::process::Output {
    brief()
        .env("BRIEF_CCR_PATH", dir.join("ccr.sqlite"))
        .envs(env.iter().copied())
        .args(argv_then(
            "ccr put --strategy",
            &[strategy, "--source", "test", "--json"],
        ))
        .write_stdin("the same original, twice")
        .output()
        .unwrap()
}

#[test]
fn headrooms_ttl_is_read_when_ours_is_not_set_and_ours_wins() {
    let dir = tempfile::tempdir().unwrap();
    let out = put(
        dir.path(),
        "manual",
        &[("HEADROOM_CCR_TTL_SECONDS", "3600")],
    );
    assert_exit(&out, 0);
    assert_eq!(json(&out)["ttl_seconds"], 3600);
    assert_stderr_has(&out, "HEADROOM_CCR_TTL_SECONDS");
    let out = put(
        dir.path(),
        "manual",
        &[
            ("HEADROOM_CCR_TTL_SECONDS", "3600"),
            ("BRIEF_CCR_TTL_SECONDS", "7200"),
        ],
    );
    assert_eq!(json(&out)["ttl_seconds"], 7200);
    assert!(!stderr(&out).contains("HEADROOM"), "{}", stderr(&out));
    let stats = brief()
        .env("BRIEF_CCR_PATH", dir.path().join("ccr.sqlite"))
        .env("HEADROOM_CCR_TTL_SECONDS", "2h")
        .args(["ccr", "stats", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&stats)["ttl_source"], "headroom_env");
    assert_eq!(json(&stats)["ttl_seconds"], 7200);
    let bad = put(
        dir.path(),
        "manual",
        &[("HEADROOM_CCR_TTL_SECONDS", "soon")],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("HEADROOM_CCR_TTL_SECONDS"));
}

#[test]
fn an_original_stored_under_two_strategies_keeps_both_records() {
    let dir = tempfile::tempdir().unwrap();
    let first = json(&put(dir.path(), "manual", &[]));
    let second = json(&put(dir.path(), "tool_output_head_tail", &[]));
    assert_eq!(first["hash"], second["hash"]);
    assert_eq!(second["status"], "refreshed");
    let got = brief()
        .env("BRIEF_CCR_PATH", dir.path().join("ccr.sqlite"))
        .args(["ccr", "get", first["hash"].as_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let got = json(&got);
    // The fields it always had: the latest put's strategy.
    assert_eq!(got["strategy"], "tool_output_head_tail");
    assert_eq!(got["original"], "the same original, twice");
    let strategies: Vec<&str> = got["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(strategies.len(), 2, "{got}");
    assert!(strategies.contains(&"manual") && strategies.contains(&"tool_output_head_tail"));
}

#[test]
fn a_put_that_reports_no_tokens_leaves_them_to_the_first_reader_with_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let text = "Order NW-20417 shipped on 2026-11-17 with UPS; tracking 1Z999AA10123456784.";
    // `ccr put` counts nothing; the library's default put counts at once.
    let lazy = brief()
        .env("BRIEF_CCR_PATH", dir.path().join("lazy.sqlite"))
        .args(["ccr", "put", "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    let hash = json(&lazy)["hash"].as_str().unwrap().to_string();
    let store = briefkit::ccr::Store::open(&dir.path().join("eager.sqlite")).unwrap();
    store
        .put(
            text.as_bytes(),
            "",
            briefkit::ccr::Strategy::Manual,
            "test",
            None,
        )
        .unwrap();
    let figures = |file: &str| {
        let get = brief()
            .env("BRIEF_CCR_PATH", dir.path().join(file))
            .args(["ccr", "get", &hash, "--json"])
            .output()
            .unwrap();
        let stats = brief()
            .env("BRIEF_CCR_PATH", dir.path().join(file))
            .args(["ccr", "stats", "--json"])
            .output()
            .unwrap();
        (
            json(&get)["original_tokens"].clone(),
            json(&stats)["original_tokens"].clone(),
        )
    };
    let (lazy_get, lazy_stats) = figures("lazy.sqlite");
    let (eager_get, eager_stats) = figures("eager.sqlite");
    assert_eq!(lazy_get, eager_get);
    assert_eq!(lazy_stats, eager_stats);
    assert!(lazy_get.as_u64().unwrap() > 10);
}
