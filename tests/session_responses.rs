//! `brief session turn` and `session render` in the Responses and Gemini wires: a turn with
//! a tool call against a scripted server on loopback; the call and its result go back as
//! `function_call` / `function_call_output` items (Gemini: `functionCall` /
//! `functionResponse` parts) with the call's visible id, and the next turn's body keeps the
//! previous one as its prefix.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, stdout};
use crate::harness::{BriefCommand, Workspace, argv_then, assert_exit, command::v1};
use crate::loopback::{Reply, Server};

/// Answers the call `visible` of session `s` with "10:30 is free".
fn append_free_slot(root: &Path, visible: &str) {
    let out = run_in(
        root,
        &argv_then(
            "session append s --tool-result",
            &[visible, "--text", "10:30 is free"],
        ),
    );
    assert_exit(&out, 0);
}

/// Writes one answer in a wire: optional text, optional tool calls.
type Answer = fn(Option<&str>, &[(&str, Value)]) -> Reply;

/// A server that answers with a `find_slot` call, then with "10:30 is free.", in the wire
/// `answer` writes.
fn checking_then_free(answer: Answer) -> Server {
    Server::start(vec![
        answer(
            Some("Checking."),
            &[("find_slot", json!({"day": "2026-12-01"}))],
        ),
        answer(Some("10:30 is free."), &[]),
    ])
}

/// A Responses stream: optional text, optional function calls, `response.completed`.
fn responses_answer(text: Option<&str>, calls: &[(&str, Value)]) -> Reply {
    let mut out = String::new();
    let mut index = 0;
    if let Some(text) = text {
        let item = json!({"id": "msg_x", "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}]});
        out.push_str(&format!(
            "event: response.output_item.done\ndata: {}\n\n",
            json!({"type": "response.output_item.done", "output_index": index, "item": item})
        ));
        index += 1;
    }
    for (i, (name, arguments)) in calls.iter().enumerate() {
        let item = json!({"id": format!("fc_{i}"), "type": "function_call", "call_id": format!("call_{i}"),
            "name": name, "arguments": arguments.to_string()});
        out.push_str(&format!(
            "event: response.output_item.done\ndata: {}\n\n",
            json!({"type": "response.output_item.done", "output_index": index, "item": item})
        ));
        index += 1;
    }
    let usage = json!({"input_tokens": 900, "input_tokens_details": {"cached_tokens": 768},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 4}});
    out.push_str(&format!(
        "event: response.completed\ndata: {}\n\n",
        json!({"type": "response.completed", "response": {"status": "completed", "usage": usage}})
    ));
    Reply::sse(&out, &[])
}

fn turn(root: &Path, server: &Server, extra: &[&str]) -> std::process::Output {
    brief()
        .in_workspace(root)
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(["session", "turn", "s"])
        .model_at("responses", &v1(server))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_responses_turn_sends_tool_calls_back_as_function_call_items() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    let server = checking_then_free(responses_answer);
    let out = turn(
        root,
        &server,
        &["--user", "Book Ada a follow-up.", "--json"],
    );
    assert_exit(&out, 0);
    let report = json(&out);
    let call = &report["tool_calls"][0];
    assert_eq!(call["name"], "find_slot");
    assert_eq!(call["call_id"], "call_0");
    let visible = call["id"].as_str().unwrap().to_string();
    assert_eq!(report["usage"]["cached_input_tokens"], 768);

    append_free_slot(root, &visible);
    let rendered = run_in(root, &["session", "render", "s", "--format", "responses"]);
    assert_exit(&rendered, 0);
    let body: Value = serde_json::from_str(&stdout(&rendered)).unwrap();
    let input = body["input"].as_array().unwrap();
    let function_call = input
        .iter()
        .find(|i| i["type"] == "function_call")
        .expect("a function_call item");
    assert_eq!(function_call["call_id"], visible.as_str());
    assert_eq!(function_call["name"], "find_slot");
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("a function_call_output item");
    assert_eq!(output["call_id"], visible.as_str());
    assert!(output["output"].as_str().unwrap().contains("10:30 is free"));

    let out = turn(root, &server, &[]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "10:30 is free.\n");
    let requests = server.requests();
    let (first, second) = (requests[0].json(), requests[1].json());
    assert!(requests[0].head.starts_with("POST /v1/responses "));
    assert_eq!(first["instructions"], second["instructions"]);
    assert_eq!(first["tools"], second["tools"]);
    // The second call's input starts with the first call's input but its last item (Tier 3).
    let before = first["input"].as_array().unwrap();
    let after = second["input"].as_array().unwrap();
    assert_eq!(before[..before.len() - 1], after[..before.len() - 1]);
    assert!(after.iter().any(|i| i["type"] == "function_call_output"));
    let ledger = std::fs::read_to_string(root.join("ledger.jsonl")).unwrap();
    let rows: Vec<Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        rows.iter().all(|r| r["provider"] == "responses"),
        "{ledger}"
    );
}

/// A Gemini SSE answer: optional text, optional function calls (without ids, as older
/// models send them), finish reason and usage.
fn gemini_answer(text: Option<&str>, calls: &[(&str, Value)]) -> Reply {
    let mut parts: Vec<Value> = text.map(|t| json!({"text": t})).into_iter().collect();
    parts.extend(
        calls
            .iter()
            .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}})),
    );
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 900, "cachedContentTokenCount": 768,
                          "candidatesTokenCount": 20}});
    Reply::sse(&format!("data: {chunk}\r\n\r\n"), &[])
}

#[test]
fn a_gemini_turn_sends_tool_calls_back_as_function_call_and_response_parts() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    let server = checking_then_free(gemini_answer);
    let gemini_turn = |extra: &[&str]| {
        brief()
            .current_dir(root)
            .env("XDG_STATE_HOME", root.join("state"))
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
            .env("BRIEF_RETRY_BASE_MS", "1")
            .args(["session", "turn", "s", "--provider", "gemini"])
            .args(["--model", "gemini-test", "--base-url", &server.url()])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = gemini_turn(&["--user", "Book Ada a follow-up.", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    let visible = report["tool_calls"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(report["tool_calls"][0]["name"], "find_slot");
    assert_eq!(report["usage"]["cached_input_tokens"], 768);
    append_free_slot(root, &visible);
    let out = gemini_turn(&[]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "10:30 is free.\n");
    let requests = server.requests();
    assert!(
        requests[1]
            .head
            .starts_with("POST /v1beta/models/gemini-test:streamGenerateContent?alt=sse "),
        "{}",
        requests[1].head
    );
    let (first, second) = (requests[0].json(), requests[1].json());
    assert_eq!(
        first["systemInstruction"]["parts"][0],
        second["systemInstruction"]["parts"][0]
    );
    let contents = second["contents"].as_array().unwrap();
    let call = contents
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .find_map(|p| p.get("functionCall"))
        .expect("a functionCall part");
    assert_eq!(call["id"], visible.as_str());
    assert_eq!(call["args"], json!({"day": "2026-12-01"}));
    let response = contents
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .find_map(|p| p.get("functionResponse"))
        .expect("a functionResponse part");
    assert_eq!(response["name"], "find_slot");
    assert_eq!(response["id"], visible.as_str());
    assert!(
        response["response"]["output"]
            .as_str()
            .unwrap()
            .contains("10:30 is free")
    );
}
