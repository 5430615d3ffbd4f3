//! One prefix identity: what is hashed is what is sent. The same stable prefix has one hash
//! in `compose --stats`, `brief.lock`, the ledger rows of `probe` and `brief align`, and a
//! key order change anywhere in what is sent is seen.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::{argv_then, assert_exit};
use crate::loopback::{Reply, Server};

const VARS: [&str; 4] = [
    "--var",
    "patient=Ada Lovelace",
    "--var",
    "last_visit=2026-10-02",
];

/// `compose ARGS --stats` in `dir`: (stdout, the prefix hash line's hash).
fn compose_with_stats(dir: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec!["compose", "clinic", "--stats"];
    all.extend_from_slice(args);
    all.extend_from_slice(&VARS);
    let out = run_in(dir, &all);
    assert_exit(&out, 0);
    (stdout(&out), stats_hash(&stderr(&out), "prefix"))
}

/// The hash `compose --stats` prints on the line starting with `name`.
fn stats_hash(stats: &str, name: &str) -> String {
    let line = stats
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no `{name}` line in {stats}"));
    line.split_whitespace().nth(1).unwrap().to_string()
}

fn align_json(dir: &Path, extra: &[&str], files: &[&Path]) -> (Value, i32) {
    let mut args: Vec<String> = vec!["align".into(), "--json".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(files.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_in(dir, &args);
    (json(&out), out.status.code().unwrap())
}

fn openai_sse() -> Reply {
    let body = "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Pong\"},\"finish_reason\":\"length\"}],\"usage\":null}\n\n\
                data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":2000,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":1024}}}\n\n\
                data: [DONE]\n\n";
    Reply::sse(body, &[])
}

#[test]
fn compose_openai_prints_the_bytes_probe_sends() {
    let ws = workspace("clinic");
    let (printed, compose_hash) = compose_with_stats(ws.path(), &["--format", "openai"]);
    let server = Server::start(vec![openai_sse(), openai_sse()]);
    let base = format!("{}/v1", server.url());
    let out = run_in(
        ws.path(),
        &argv_then(
            "probe clinic --provider openai --model m --base-url",
            &[
                &base,
                "--var",
                "patient=Ada Lovelace",
                "--var",
                "last_visit=2026-10-02",
                "--ledger",
                "usage.jsonl",
            ],
        ),
    );
    assert_exit(&out, 0);
    let sent = String::from_utf8(server.requests()[0].body.clone()).unwrap();
    let printed: Value = serde_json::from_str(printed.trim_end()).unwrap();
    // The system messages and the tools appear in the sent body as the very bytes compose
    // printed for them.
    for part in [&printed["messages"], &printed["tools"]] {
        let bytes = serde_json::to_string(part).unwrap();
        let inner = &bytes[1..bytes.len() - 1];
        assert!(
            sent.contains(inner),
            "sent body lacks {inner}\nsent: {sent}"
        );
    }
    // And the ledger row carries compose's prefix hash.
    let ledger = fs::read_to_string(ws.path().join("usage.jsonl")).unwrap();
    for line in ledger.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        assert_eq!(row["prefix_hash"], compose_hash.as_str());
    }
}

#[test]
fn compose_prints_the_body_in_the_order_it_is_sent_not_sorted() {
    let ws = workspace("clinic");
    let (printed, _) = compose_with_stats(ws.path(), &["--format", "openai"]);
    let reparsed: Value = serde_json::from_str(printed.trim_end()).unwrap();
    // serde_json with preserve_order writes keys in the order they were read: the printed
    // text is its own serialisation, so nothing is reordered between compose and the wire.
    assert_eq!(
        serde_json::to_string(&reparsed).unwrap(),
        printed.trim_end()
    );
    // Tool wrapper keys are in the wire's order (type, then function), not sorted.
    let tool = printed.find("\"tools\"").unwrap();
    let rest = &printed[tool..];
    assert!(rest.find("\"type\"").unwrap() < rest.find("\"function\"").unwrap());
    assert!(rest.find("\"name\"").unwrap() < rest.find("\"description\"").unwrap());
}

#[test]
fn one_hash_in_compose_stats_lock_and_align() {
    let ws = workspace("clinic");
    let (_, text_hash) = compose_with_stats(ws.path(), &[]);
    let (body, openai_hash) = compose_with_stats(ws.path(), &["--format", "openai"]);
    assert_eq!(
        text_hash, openai_hash,
        "the brief's wire is openai by default"
    );
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_exit(&out, 0);
    let lock = fs::read_to_string(ws.path().join("clinic/brief.lock")).unwrap();
    assert!(lock.contains(&format!("hash: {openai_hash}")), "{lock}");
    let file = ws.path().join("body.json");
    fs::write(&file, body).unwrap();
    let (report, _) = align_json(ws.path(), &[], &[&file]);
    let wake = &report["wakes"][0];
    assert_eq!(wake["stable_prefix_hash"], openai_hash.as_str());
    assert_eq!(
        wake["cache_metrics"]["stable_prefix_hash"],
        openai_hash.as_str()
    );
}

#[test]
fn a_key_order_change_in_a_tool_schema_file_does_not_change_the_wire() {
    let ws = workspace("clinic");
    let (before, hash_before) = compose_with_stats(ws.path(), &["--format", "anthropic"]);
    let tool = ws.path().join("clinic/items/find_slot.tool.yaml");
    fs::write(
        &tool,
        "type: tool\nname: find_slot\ndescription: Find free appointment slots for a day.\n\
         input_schema:\n  required: [day]\n  properties:\n    minutes: { enum: [30, 45], type: integer }\n    \
         day: { description: \"A date, YYYY-MM-DD\", type: string }\n  type: object\n",
    )
    .unwrap();
    let (after, hash_after) = compose_with_stats(ws.path(), &["--format", "anthropic"]);
    assert_eq!(
        before, after,
        "the wire bytes follow one documented key order"
    );
    assert_eq!(hash_before, hash_after);
}

#[test]
fn a_client_that_reorders_tool_keys_is_caught_by_align() {
    let ws = workspace("clinic");
    let (body, _) = compose_with_stats(ws.path(), &["--format", "anthropic"]);
    let first = ws.path().join("first.json");
    fs::write(&first, &body).unwrap();
    // The same body as a client whose serialiser reverses each tool schema's keys would
    // send it: equal as JSON values, different on the wire.
    let mut value: Value = serde_json::from_str(&body).unwrap();
    let schema = &mut value["tools"][0]["input_schema"];
    let reversed: serde_json::Map<String, Value> = schema
        .as_object()
        .unwrap()
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    *schema = Value::Object(reversed);
    let second = ws.path().join("second.json");
    fs::write(&second, serde_json::to_string(&value).unwrap()).unwrap();
    let (report, code) = align_json(ws.path(), &[], &[&first, &second]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        report["wakes"][1]["drifted_parts"],
        serde_json::json!(["tools"])
    );
    assert_eq!(report["wakes"][1]["prefix_changed"], true);
}

/// The bundled support brief, copied into a temporary directory as `./support`.
fn support() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("briefs/support");
    crate::common::copy_dir(&from, &dir.path().join("support"));
    dir
}

#[test]
fn two_composes_with_different_vars_are_no_drift_and_raise_no_warning() {
    let ws = support();
    for format in ["anthropic", "openai"] {
        let compose = |vars: [&str; 3], name: &str| {
            let mut args = vec!["compose", "support", "--format", format, "--stats"];
            for var in &vars {
                args.extend(["--var", var]);
            }
            let out = run_in(ws.path(), &args);
            assert_exit(&out, 0);
            let file = ws.path().join(format!("{name}-{format}.json"));
            fs::write(&file, &out.stdout).unwrap();
            (file, stats_hash(&stderr(&out), "prefix"))
        };
        let (a, hash) = compose(["date=2026-11-30", "customer_name=Ada", "plan=Pro"], "a");
        let (b, hash_b) = compose(
            [
                "date=2026-12-01T10:00:00Z",
                "customer_name=Grace 550e8400-e29b-41d4-a716-446655440000",
                "plan=Free",
            ],
            "b",
        );
        assert_eq!(hash, hash_b);
        let (report, code) = align_json(ws.path(), &[], &[&a, &b]);
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(report["totals"]["warnings"], 0);
        for wake in report["wakes"].as_array().unwrap() {
            assert_eq!(wake["drifted_parts"], serde_json::json!([]));
            assert_eq!(wake["warnings"], serde_json::json!([]));
            assert_eq!(wake["cache_metrics"]["stable_prefix_hash"], hash.as_str());
            assert_eq!(wake["markers"][0], format!("stable_prefix_hash:{hash}"));
            assert_eq!(wake["live_zone"]["count"], 1);
            assert!(wake["live_zone"]["bytes"].as_u64().unwrap() > 0);
        }
        assert_eq!(report["wakes"][1]["cache_metrics"]["prefix_changed"], false);
        assert_eq!(
            report["wakes"][1]["cache_metrics"]["previous_hash"],
            hash.as_str()
        );
    }
}

#[test]
fn responses_and_gemini_bodies_carry_the_same_one_prefix_hash_align_reads() {
    let ws = workspace("clinic");
    for format in ["responses", "gemini"] {
        let (body, hash) = compose_with_stats(ws.path(), &["--format", format]);
        let parsed: serde_json::Value = serde_json::from_str(&body).unwrap();
        let file = ws.path().join(format!("{format}.json"));
        fs::write(&file, &body).unwrap();
        let (report, _) = align_json(ws.path(), &[], &[&file]);
        let wake = &report["wakes"][0];
        assert_eq!(wake["shape"], format);
        assert_eq!(wake["stable_prefix_hash"], hash.as_str(), "{format}");
        // The stable prefix leads the body; the conversation comes last.
        let keys: Vec<&String> = parsed.as_object().unwrap().keys().collect();
        let (first, last) = match format {
            "responses" => ("instructions", "input"),
            _ => ("systemInstruction", "contents"),
        };
        let at = |key: &str| keys.iter().position(|k| *k == key).unwrap();
        assert!(at(first) < at(last), "{format}: {keys:?}");
    }
}
