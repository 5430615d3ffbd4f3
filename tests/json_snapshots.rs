//! The `--json` documents of compose, stats, compact, usage, align, show, diff and session
//! tools, snapshotted whole:
//! a renamed or dropped field fails here before it reaches a script that reads it. Every
//! document leads with `status` and `summary`.

use std::path::Path;

use serde_json::Value;

use crate::common::{brief, fixtures, run_in, stderr, workspace};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has};

const VARS: [&str; 4] = ["--var", "patient=Ada", "--var", "last_visit=2026-01-02"];

/// Runs `args` in `dir`, expects exit `code` and one JSON document on stdout that leads
/// with `status` and `summary`.
fn document(dir: &Path, args: &[&str], code: i32) -> Value {
    let out = run_in(dir, args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not one JSON document: {e}"));
    let keys: Vec<&String> = value.as_object().expect("an object").keys().collect();
    assert_eq!(keys[..2], ["status", "summary"], "{args:?}");
    value
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[test]
fn compose_json_text_and_wire_bodies() {
    let ws = workspace("clinic");
    let text = document(
        ws.path(),
        &[&["compose", "clinic", "--json"][..], &VARS].concat(),
        0,
    );
    insta::assert_snapshot!("compose_json_text", pretty(&text));
    let openai = document(
        ws.path(),
        &[
            &["compose", "clinic", "--json", "--format", "openai"][..],
            &VARS,
        ]
        .concat(),
        0,
    );
    // `body` is exactly what compose prints without --json.
    let plain = run_in(
        ws.path(),
        &[&["compose", "clinic", "--format", "openai"][..], &VARS].concat(),
    );
    assert_eq!(
        openai["body"].as_str().unwrap(),
        String::from_utf8(plain.stdout)
            .unwrap()
            .trim_end_matches('\n')
    );
    insta::assert_snapshot!("compose_json_openai", pretty(&openai));
    // The prefix hash is the one --stats prints for the same wire.
    let stats = run_in(
        ws.path(),
        &[
            &["compose", "clinic", "--stats", "--format", "openai"][..],
            &VARS,
        ]
        .concat(),
    );
    let hash = openai["prefix"]["hash"].as_str().unwrap();
    assert_stderr_has(&stats, hash);
}

#[test]
fn stats_json() {
    let ws = workspace("clinic");
    let value = document(ws.path(), &["stats", "clinic", "--json"], 0);
    insta::assert_snapshot!("stats_json", pretty(&value));
}

#[test]
fn compact_json_on_a_brief_and_on_a_file() {
    let ws = workspace("clinic");
    let value = document(ws.path(), &["compact", "clinic", "--json"], 0);
    insta::assert_snapshot!("compact_json_brief", pretty(&value));
    let value = document(
        ws.path(),
        &["compact", "clinic/items/booking.md", "--json"],
        0,
    );
    insta::assert_snapshot!("compact_json_file", pretty(&value));
}

#[test]
fn usage_json_by_prefix_and_by_model() {
    let ledger = fixtures().join("ledger/usage.jsonl");
    let ledger = ledger.to_str().unwrap();
    for (name, extra) in [
        ("usage_json_prefix", &[][..]),
        (
            "usage_json_model_priced",
            &argv("--by model --price-input 3 --price-cached 0.3 --price-output 15")[..],
        ),
    ] {
        let out = brief()
            .args([&["usage", "--ledger", ledger, "--json"][..], extra].concat())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout)
            .unwrap()
            .replace(ledger, "LEDGER");
        let value: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys[..2], ["status", "summary"], "{name}");
        insta::assert_snapshot!(name, pretty(&value));
    }
}

#[test]
fn align_json_stable_drifted_wakes_and_bad_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = |name: &str| format!("fixtures/align/{name}.json");
    let stable = document(
        root,
        &[
            "align",
            "--json",
            &f("anthropic-wake-1"),
            &f("anthropic-wake-2"),
        ],
        0,
    );
    insta::assert_snapshot!("align_json_anthropic_stable", pretty(&stable));
    let drifted = document(
        root,
        &[
            "align",
            "--json",
            &f("openai-wake-1"),
            &f("openai-tools-reordered"),
        ],
        1,
    );
    insta::assert_snapshot!("align_json_tools_drift", pretty(&drifted));
    let wakes = document(
        root,
        &argv_then(
            "align --json --wakes",
            &[&f("openai-wake-1"), &f("openai-first-user-edited")],
        ),
        0,
    );
    insta::assert_snapshot!("align_json_wakes", pretty(&wakes));
    let bad = document(
        root,
        &["align", "--json", &f("openai-wake-1"), "Cargo.toml"],
        2,
    );
    assert_eq!(bad["status"], "error");
    insta::assert_snapshot!("align_json_bad_payload", pretty(&bad));
}

#[test]
fn show_diff_and_session_tools_json() {
    let ws = workspace("clinic");
    let shown = document(ws.path(), &["show", "clinic", "booking", "--json"], 0);
    insta::assert_snapshot!("show_json", pretty(&shown));
    let recorded = run_in(ws.path(), &["record", "clinic", "booking", "-m", "first"]);
    assert_exit(&recorded, 0);
    let item = ws.path().join("clinic/items/booking.md");
    let text = std::fs::read_to_string(&item).unwrap();
    std::fs::write(&item, text.replace("45 minutes", "50 minutes")).unwrap();
    let diffed = document(ws.path(), &["diff", "clinic", "booking", "--json"], 0);
    insta::assert_snapshot!("diff_json", pretty(&diffed));
    let tools = document(
        ws.path(),
        &["session", "tools", "--format", "anthropic", "--json"],
        0,
    );
    insta::assert_snapshot!("session_tools_json", pretty(&tools));
}
