//! `brief usage` over ledgers written by hand: totals, groups, prices, bad lines, paths.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Output;

use crate::common::{brief, fixtures, json, stderr, stdout, workspace};
use crate::harness::{argv, assert_exit, assert_stderr_has, field_strs, object_keys};

fn ledger() -> String {
    fixtures().join("ledger/usage.jsonl").display().to_string()
}

/// `brief usage --json --ledger PATH`.
fn usage_json(path: &Path) -> Output {
    brief()
        .args(["usage", "--json", "--ledger"])
        .arg(path)
        .output()
        .unwrap()
}

/// `brief usage EXTRA` run in `dir`, with `dir/state` as the XDG state folder.
fn usage_in_state(dir: &Path, extra: &[&str]) -> Output {
    brief()
        .current_dir(dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .arg("usage")
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn usage_groups_by_prefix_with_first_and_last_seen() {
    let out = brief()
        .args(["usage", "--ledger", &ledger()])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let text = stdout(&out).replace(&ledger(), "LEDGER");
    insta::assert_snapshot!(text);
}

#[test]
fn usage_json_has_totals_and_groups_field_by_field() {
    let out = brief()
        .args(["usage", "--ledger", &ledger(), "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let keys = object_keys(&v);
    assert_eq!(&keys[..2], ["status", "summary"]);
    assert_eq!(v["status"], "ok");
    let t = &v["total"];
    assert_eq!(t["calls"], 9);
    assert_eq!(t["failed"], 1);
    assert_eq!(t["input_tokens"], 16601);
    assert_eq!(t["cached_input_tokens"], 8414);
    assert_eq!(t["cache_write_tokens"], 4588);
    assert_eq!(t["output_tokens"], 219);
    // The local model's call reported no cached field, so it is not in the share.
    assert_eq!(t["calls_without_cache_field"], 1);
    assert_eq!(t["cached_share"].as_f64(), Some(0.561));
    // No flag and no brief pricing: the Claude calls and the bundled example's model
    // (gpt-4.1-mini, issue 33) are priced at the built-in list prices (Claude: input 3,
    // output 15, reads 0.1x, writes 1.25x; gpt-4.1-mini: input 0.40, output 1.60, reads
    // 0.25x); the local model is not in the table and stays unpriced.
    assert_eq!(t["priced_calls"], 7);
    let cost = t["cost"].as_f64().unwrap();
    assert!((cost - (0.0238434 + 0.0007776)).abs() < 1e-6, "{cost}");
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[0]["key"].as_str().unwrap().len(), 64);
    assert_eq!(groups[0]["briefs"], serde_json::json!(["clinic"]));
    assert_eq!(groups[0]["calls"], 3);
    assert_eq!(groups[0]["first_seen"], "2026-11-30T09:00:02.114Z");
    assert_eq!(groups[0]["last_seen"], "2026-11-30T14:21:40.007Z");
    assert_eq!(groups[2]["briefs"], serde_json::json!(["front-desk"]));
}

#[test]
fn usage_by_model_with_price_flags_estimates_cost_and_savings() {
    let out = brief()
        .args(["usage", "--ledger", &ledger(), "--by", "model", "--json"])
        .args(argv("--price-input 3 --price-cached 0.3 --price-output 15"))
        .output()
        .unwrap();
    let v = json(&out);
    let groups = v["groups"].as_array().unwrap();
    let keys: Vec<&str> = groups.iter().map(|g| g["key"].as_str().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "anthropic/claude-sonnet-4-5",
            "openai/gpt-4.1-mini",
            "openai/llama3.1:8b"
        ]
    );
    let claude = &groups[0];
    // 11,911 input of which 6,878 cached at 0.3 and 4,588 written at Anthropic's 1.25x.
    let cost =
        ((11911.0 - 6878.0 - 4588.0) * 3.0 + 6878.0 * 0.3 + 4588.0 * 3.75 + 216.0 * 15.0) / 1e6;
    assert!(
        (claude["cost"].as_f64().unwrap() - cost).abs() < 1e-6,
        "{claude}"
    );
    let without = (11911.0 * 3.0 + 216.0 * 15.0) / 1e6;
    assert!((claude["savings"].as_f64().unwrap() - (without - cost)).abs() < 1e-6);
    // The failed call has no usage and so no cost; it is still counted as a call.
    assert_eq!(groups[1]["calls"], 3);
    assert_eq!(groups[1]["calls_with_usage"], 2);
    assert_eq!(groups[1]["priced_calls"], 2);
}

#[test]
fn usage_by_day_and_since() {
    let out = brief()
        .args([
            "usage",
            "--ledger",
            &ledger(),
            "--by",
            "day",
            "--since",
            "2026-12-01",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["since"], "2026-12-01");
    assert_eq!(v["total"]["calls"], 6);
    let days: Vec<&str> = field_strs(&v["groups"], "key");
    assert_eq!(days, ["2026-12-01", "2026-12-02"]);
    let late = brief()
        .args([
            "usage",
            "--ledger",
            &ledger(),
            "--since",
            "2026-12-02T07:55:30.481Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json(&late)["total"]["calls"], 1);
}

#[test]
fn usage_prices_calls_from_the_briefs_own_pricing() {
    let dir = workspace("clinic");
    let brief_dir = dir.path().join("clinic").canonicalize().unwrap();
    let line = |model: &str| {
        serde_json::json!({
            "time": "2026-12-03T10:00:00.000Z", "command": "probe", "provider": "openai", "model": model,
            "brief": "clinic", "brief_dir": brief_dir.display().to_string(), "item": null,
            "prefix_hash": "ab".repeat(32), "input_tokens": 2000, "cached_input_tokens": 1000,
            "cache_write_tokens": null, "output_tokens": 10, "latency_ms": 5, "attempts": 1,
            "status": "ok", "error": null,
        })
        .to_string()
    };
    let path = dir.path().join("usage.jsonl");
    fs::write(&path, format!("{}\n", line("gpt-4.1-mini"))).unwrap();
    let out = usage_json(&path);
    let total = &json(&out)["total"];
    // clinic: input 2.00, cached 0.50, output 8.00 per million tokens.
    let cost = (1000.0 * 2.0 + 1000.0 * 0.5 + 10.0 * 8.0) / 1e6;
    assert!(
        (total["cost"].as_f64().unwrap() - cost).abs() < 1e-9,
        "{total}"
    );
    assert!((total["savings"].as_f64().unwrap() - 1000.0 * 1.5 / 1e6).abs() < 1e-9);

    // Once the brief names its model, its prices no longer apply to calls to another one.
    let manifest = brief_dir.join("brief.yaml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("model: { provider: openai, name: gpt-4.1 }\n");
    fs::write(&manifest, text).unwrap();
    let out = usage_json(&path);
    // The call is then priced at its own model's list price (gpt-4.1-mini: input 0.40,
    // cached 0.10, output 1.60), the brief's prices left out.
    let total = &json(&out)["total"];
    assert_eq!(total["priced_calls"], 1);
    let listed = (1000.0 * 0.4 + 1000.0 * 0.1 + 10.0 * 1.6) / 1e6;
    assert!(
        (total["cost"].as_f64().unwrap() - listed).abs() < 1e-9,
        "{total}"
    );
}

#[test]
fn usage_skips_a_torn_last_line_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let mut text = fs::read_to_string(fixtures().join("ledger/usage.jsonl")).unwrap();
    text.push_str("{\"time\":\"2026-12-02T08:00:00.000Z\",\"command\":\"pro");
    fs::write(&path, text).unwrap();
    let out = usage_json(&path);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["status"], "warning");
    assert_eq!(v["total"]["calls"], 9);
    assert_eq!(v["warnings"][0]["line"], 10);
    assert_eq!(v["warnings"][0]["torn"], true);
    assert_stderr_has(&out, "usage.jsonl:10: torn last line");
}

#[test]
fn usage_skips_a_corrupt_middle_line_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let text = fs::read_to_string(fixtures().join("ledger/usage.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(3, "{\"half\": a line");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = brief()
        .args(["usage", "--ledger"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_stderr_has(&out, "usage.jsonl:4: not a ledger entry");
    assert!(stdout(&out).contains("9 calls"));
}

#[test]
fn usage_finds_the_ledger_through_the_environment_then_the_state_directory() {
    let dir = tempfile::tempdir().unwrap();
    let env_path = dir.path().join("elsewhere.jsonl");
    fs::copy(fixtures().join("ledger/usage.jsonl"), &env_path).unwrap();
    let out = brief()
        .env("BRIEF_LEDGER", &env_path)
        .args(["usage", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["ledger"], env_path.display().to_string());

    let state = dir.path().join("state/briefkit");
    fs::create_dir_all(&state).unwrap();
    let mut file = fs::File::create(state.join("usage.jsonl")).unwrap();
    let first = fs::read_to_string(&env_path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    writeln!(file, "{first}").unwrap();
    let out = usage_in_state(dir.path(), &["--json"]);
    let v = json(&out);
    assert_eq!(v["ledger"], state.join("usage.jsonl").display().to_string());
    assert_eq!(v["total"]["calls"], 1);
    // Never the current directory: a ledger there is not read.
    fs::create_dir(dir.path().join(".brief")).unwrap();
    fs::write(dir.path().join(".brief/usage.jsonl"), "").unwrap();
    let out = usage_in_state(dir.path(), &["--json"]);
    assert_eq!(json(&out)["total"]["calls"], 1);
}

#[test]
fn usage_with_no_ledger_yet_reports_0_calls_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let missing = usage_in_state(dir.path(), &[]);
    assert_exit(&missing, 0);
    let said = format!("{}{}", stdout(&missing), stderr(&missing));
    assert!(said.contains("0 calls"), "{said}");
    let json_out = usage_in_state(dir.path(), &["--json"]);
    assert_eq!(json_out.status.code(), Some(0));
    assert_eq!(json(&json_out)["total"]["calls"], 0);
    assert!(!dir.path().join("state/briefkit/usage.jsonl").exists());
}

#[test]
fn usage_bad_input_exits_2() {
    let since = brief()
        .args(["usage", "--ledger", &ledger(), "--since", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(since.status.code(), Some(2));
    assert!(stderr(&since).contains("`yesterday` is not a date"));
    let price = brief()
        .args(["usage", "--ledger", &ledger(), "--price-input", "-1"])
        .output()
        .unwrap();
    assert_eq!(price.status.code(), Some(2));
}
