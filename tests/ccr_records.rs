//! The CCR half of issue 25.6: headroom's TTL variable is read when ours is not set (with a
//! note), and an original stored under two strategies keeps a record of each, which
//! `ccr get --json` lists beside the fields it always had.

use std::path::Path;

use crate::common::{brief, json, stderr};

fn put(dir: &Path, strategy: &str, env: &[(&str, &str)]) -> std::process::Output {
    brief()
        .env("BRIEF_CCR_PATH", dir.join("ccr.sqlite"))
        .envs(env.iter().copied())
        .args([
            "ccr",
            "put",
            "--strategy",
            strategy,
            "--source",
            "test",
            "--json",
        ])
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
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["ttl_seconds"], 3600);
    assert!(
        stderr(&out).contains("HEADROOM_CCR_TTL_SECONDS"),
        "{}",
        stderr(&out)
    );
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
