//! Issue 33, through the real binary: shorthand forms of a message are one prefix for
//! `align` and for the proxy's drift; a constant value is listed once, not warned per wake;
//! conversations without a session header, or sharing one `prompt_cache_key`
//! (`compose --cache-key`), are separate sessions, never drift.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::proxy::{Proxy, Script, Upstream, send};
use crate::loopback::fixtures::OPENAI_USAGE;

fn align(bodies: &[Value]) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        let path = dir.path().join(format!("wake{i}.json"));
        std::fs::write(&path, body.to_string()).unwrap();
        files.push(path);
    }
    let out = crate::common::brief()
        .args(["align", "--json"])
        .args(&files)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    (serde_json::from_slice(&out.stdout).unwrap(), code)
}

#[test]
fn shorthand_and_block_forms_of_one_message_are_one_prefix_for_align() {
    let tools = json!([{"name": "t", "description": "d", "input_schema": {"type": "object"}}]);
    let anthropic = [
        json!({"model": "m", "system": "S", "tools": tools,
               "messages": [{"role": "user", "content": "say hi"}]}),
        json!({"model": "m", "system": "S", "tools": tools, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "say hi"}]},
            {"role": "assistant", "content": "hi"},
            {"role": "user", "content": "again"}]}),
    ];
    let chat = [
        json!({"model": "m", "messages": [{"role": "system", "content": "S"},
               {"role": "user", "content": [{"type": "text", "text": "say hi"}]}]}),
        json!({"model": "m", "messages": [{"role": "system", "content": "S"},
               {"role": "user", "content": "say hi"},
               {"role": "assistant", "content": "hi"}, {"role": "user", "content": "again"}]}),
    ];
    let responses = [
        json!({"model": "m", "instructions": "S", "input": "say hi"}),
        json!({"model": "m", "instructions": "S", "input": [
            {"role": "user", "content": "say hi"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "hi"}]},
            {"role": "user", "content": [{"type": "input_text", "text": "again"}]}]}),
    ];
    for wakes in [&anthropic, &chat, &responses] {
        let (report, code) = align(wakes.as_slice());
        assert_eq!(report["totals"]["drifted"], 0, "{report}");
        assert_eq!(report["wakes"][1]["drifted_parts"], json!([]), "{report}");
        assert_eq!(code, 0, "{report}");
    }
    // A real change is still drift.
    let changed = [
        anthropic[0].clone(),
        json!({"model": "m", "system": "S", "tools": tools, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "say bye"}]},
            {"role": "assistant", "content": "hi"}]}),
    ];
    let (report, _) = align(&changed);
    assert_eq!(report["wakes"][1]["drifted_parts"], json!(["messages"]));
}

#[test]
fn a_constant_date_in_every_wake_is_listed_once_never_warned_per_wake() {
    // Two conversations from different folders: the path earlier in the same system text
    // differs, the example date after it does not.
    let system = |folder: &str| {
        format!("Working directory: {folder}\nExample: a note dated 2025-06-01 is old.")
    };
    let wake = |folder: &str, turns: &[&str]| {
        let messages: Vec<Value> = turns
            .iter()
            .map(|t| json!({"role": "user", "content": t}))
            .collect();
        json!({"model": "m", "system": system(folder), "messages": messages})
    };
    let wakes = [
        wake("/home/a/one", &["hi"]),
        wake("/home/a/one", &["hi", "more"]),
        wake("/srv/b", &["hello"]),
        wake("/srv/b", &["hello", "again"]),
    ];
    let (report, _) = align(&wakes);
    let dated: Vec<&Value> = report["wakes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["warnings"].as_array().unwrap())
        .filter(|w| w["sample"] == "2025-06-01")
        .collect();
    assert!(dated.is_empty(), "{report}");
    let constant: Vec<&Value> = report["wakes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["constant_values"].as_array().unwrap())
        .collect();
    assert_eq!(constant.len(), 1, "{report}");
    assert_eq!(constant[0]["sample"], "2025-06-01");
}

fn chat(system: &str, turns: &[&str], cache_key: Option<&str>) -> String {
    let mut messages = vec![json!({"role": "system", "content": system})];
    for (i, turn) in turns.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        messages.push(json!({"role": role, "content": turn}));
    }
    let mut body = json!({"model": "gpt-4.1-mini", "messages": messages});
    if let Some(key) = cache_key {
        body["prompt_cache_key"] = json!(key);
    }
    body.to_string()
}

#[test]
fn conversations_without_a_header_or_with_one_cache_key_are_separate_sessions_never_drift() {
    let upstream = Upstream::start(|_| Script::json(200, &format!("{{\"usage\":{OPENAI_USAGE}}}")));
    let proxy = Proxy::start(&upstream.url, &[]);
    let auth = [("authorization", "Bearer sk-test-conversations")];
    for key in [None, Some("brief-prefix-1234")] {
        let calls = [
            chat("Be brief.", &["list files"], key),
            chat("Be brief.", &["write a poem"], key),
            chat("Be brief.", &["list files", "a b", "sizes?"], key),
            chat("Be brief.", &["write a poem", "roses", "another"], key),
        ];
        let before = proxy.rows().len();
        for body in &calls {
            let (status, _, _) = send(
                &proxy.url,
                "POST",
                "/v1/chat/completions",
                &auth,
                body.as_bytes(),
            );
            assert_eq!(status, 200);
        }
        let rows = proxy.wait_rows_for(before + 4, Duration::from_secs(5));
        let rows = &rows[before..];
        assert_eq!(rows.len(), 4);
        let session = |i: usize| rows[i]["session"].as_str().unwrap().to_string();
        assert_ne!(session(0), session(1), "{rows:?}");
        assert_eq!(session(0), session(2), "{rows:?}");
        assert_eq!(session(1), session(3), "{rows:?}");
        for row in rows {
            assert!(
                row["drifted_parts"].is_null() || row["drifted_parts"] == json!([]),
                "{row}"
            );
        }
        if let Some(key) = key {
            assert_eq!(session(0), key);
        }
    }
}

#[test]
fn an_anthropic_system_string_and_its_one_text_block_are_one_prefix_for_align_and_the_proxy() {
    // The Messages API documents `system: "S"` as shorthand for `[{"type":"text","text":"S"}]`:
    // one prefix, one hash, no drift, whichever form a client sends on which call.
    let block = json!([{"type": "text", "text": "Be brief."}]);
    let body = |system: &Value, turns: &[&str]| {
        let messages: Vec<Value> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let role = ["user", "assistant"][i % 2];
                json!({"role": role, "content": t})
            })
            .collect();
        json!({"model": "claude-sonnet-4-5", "max_tokens": 64, "stream": true,
               "system": system, "messages": messages})
    };
    let wakes = [
        body(&json!("Be brief."), &["list files"]),
        body(&block, &["list files", "a b", "sizes?"]),
        body(
            &json!("Be brief."),
            &["list files", "a b", "sizes?", "1 2", "thanks"],
        ),
    ];
    let (report, code) = align(&wakes);
    assert_eq!(report["totals"]["drifted"], 0, "{report}");
    assert_eq!(code, 0, "{report}");
    // Another text is still drift, named as the system's.
    let changed = [
        wakes[0].clone(),
        body(&json!("Be kind."), &["list files", "a"]),
    ];
    let (report, _) = align(&changed);
    assert_eq!(
        report["wakes"][1]["drifted_parts"],
        json!(["system"]),
        "{report}"
    );

    let upstream = Upstream::start(|_| {
        let sse = crate::loopback::fixtures::anthropic_stream("ok", Some("end_turn"), true);
        Script::sse(&sse, 2, Duration::ZERO, true)
    });
    let proxy = Proxy::start(&upstream.url, &[]);
    for wake in &wakes {
        let (status, _, _) = send(
            &proxy.url,
            "POST",
            "/v1/messages",
            &[
                ("x-api-key", "sk-ant-test-system-forms"),
                ("anthropic-version", "2023-06-01"),
                ("x-brief-session", "forms"),
            ],
            wake.to_string().as_bytes(),
        );
        assert_eq!(status, 200);
    }
    let rows = proxy.wait_rows_for(3, Duration::from_secs(5));
    assert_eq!(rows.len(), 3, "{rows:?}");
    for row in &rows {
        assert_eq!(row["session"], "forms", "{row}");
        assert_eq!(row["prefix_hash"], rows[0]["prefix_hash"], "{rows:?}");
        // Metered alike: the same usage in each form.
        assert_eq!(row["input_tokens"], rows[0]["input_tokens"], "{row}");
        assert_eq!(row["status"], "ok", "{row}");
    }
    assert_eq!(rows[1]["drifted_parts"], json!([]), "{rows:?}");
    assert_eq!(rows[2]["drifted_parts"], json!([]), "{rows:?}");
}
