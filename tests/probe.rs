//! `brief probe` against scripted servers on loopback that report cached tokens the way
//! each provider does; every call checked in the ledger.

use std::fs;
use std::path::Path;

use crate::common::{brief, json, stderr, stdout, workspace};
use crate::harness::{argv, argv_then, assert_exit};
use crate::loopback::{Reply, Server};
use serde_json::Value;

/// An OpenAI-compatible stream of a one-token answer with this `usage` object (or none).
fn openai_sse(usage: Option<&str>) -> Reply {
    let mut body = String::from(
        "data: {\"id\":\"c1\",\"model\":\"srv-model\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Pong\"},\"finish_reason\":null}],\"usage\":null}\n\n",
    );
    body.push_str("data: {\"id\":\"c1\",\"model\":\"srv-model\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":null}\n\n");
    if let Some(usage) = usage {
        body.push_str(&format!(
            "data: {{\"id\":\"c1\",\"model\":\"srv-model\",\"choices\":[],\"usage\":{usage}}}\n\n"
        ));
    }
    body.push_str("data: [DONE]\n\n");
    Reply::sse(&body, &[])
}

/// An Anthropic stream whose `message_start` carries this usage object.
fn anthropic_sse(usage: &str) -> Reply {
    let body = format!(
        "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"srv-model\",\"content\":[],\"stop_reason\":null,\"usage\":{usage}}}}}\n\n\
         event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n\
         event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"Pong\"}}}}\n\n\
         event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
         event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":1}}}}\n\n\
         event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
    );
    Reply::sse(&body, &[])
}

const VISIT: [&str; 4] = ["--var", "patient=Ines", "--var", "last_visit=2026-11-02"];

/// [`probe`], which exits 0: its JSON report.
fn probe_ok(dir: &Path, server: &Server, provider: &str, model: &str, extra: &[&str]) -> Value {
    let out = probe(dir, server, provider, model, extra);
    assert_exit(&out, 0);
    json(&out)
}

/// Runs `brief probe` on the clinic fixture against `server`.
fn probe(
    dir: &Path,
    server: &Server,
    provider: &str,
    model: &str,
    extra: &[&str],
) -> std::process::Output {
    let base = if provider == "openai" {
        format!("{}/v1", server.url())
    } else {
        server.url()
    };
    brief()
        .current_dir(dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(argv_then(
            "probe clinic --provider",
            &[provider, "--model", model, "--base-url", &base],
        ))
        .args(VISIT)
        .args(extra)
        .output()
        .unwrap()
}

fn ledger_lines(dir: &Path) -> Vec<Value> {
    let text = fs::read_to_string(dir.join("state/briefkit/usage.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn openai_repeat_served_from_cache_exits_0_and_is_ledgered() {
    let dir = workspace("clinic");
    let server = Server::start(vec![
        openai_sse(Some(
            r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}"#,
        )),
        openai_sse(Some(
            r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1664}}"#,
        )),
    ]);
    let v = probe_ok(
        dir.path(),
        &server,
        "openai",
        "gpt-4.1-mini",
        &["--json", "--cache-key"],
    );
    assert_eq!(v["status"], "ok");
    assert_eq!(v["verdict"]["cached"], true);
    assert_eq!(v["verdict"]["cached_input_tokens"], 1664);
    assert_eq!(v["verdict"]["cached_share"].as_f64(), Some(0.9244));
    assert_eq!(v["calls"][0]["cached_input_tokens"], 0);
    assert_eq!(v["calls"][1]["input_tokens"], 1800);
    assert_eq!(v["cache_facts"]["min_cacheable_tokens"], 1024);
    assert_eq!(v["model"], "gpt-4.1-mini");
    assert_eq!(v["served_model"], "srv-model");

    // What went out: the composed request, a one-word turn, the smallest answer.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "the repeat is byte-identical"
    );
    let body = requests[0].json();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["role"], "system");
    assert!(
        messages[1]["content"].as_str().unwrap().contains("Ines"),
        "volatile part sent as the second system message"
    );
    assert_eq!(messages.last().unwrap()["content"], "ping");
    assert_eq!(body["tools"][0]["function"]["name"], "find_slot");
    assert!(body["prompt_cache_key"].is_string());
    let cap = body
        .get("max_tokens")
        .or_else(|| body.get("max_completion_tokens"));
    assert_eq!(cap.and_then(Value::as_u64), Some(1));

    let lines = ledger_lines(dir.path());
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["command"], "probe");
        assert_eq!(line["provider"], "openai");
        assert_eq!(
            line["model"], "gpt-4.1-mini",
            "the model asked for, as briefs name it"
        );
        assert_eq!(line["brief"], "clinic");
        assert_eq!(line["prefix_hash"], v["prefix"]["hash"]);
        assert_eq!(line["status"], "ok");
        assert!(Path::new(line["brief_dir"].as_str().unwrap()).is_absolute());
    }
    assert_eq!(lines[1]["cached_input_tokens"], 1664);
    assert!(lines[1]["cache_write_tokens"].is_null());
}

#[test]
fn anthropic_write_then_read_counts_all_input() {
    let dir = workspace("clinic");
    let server = Server::start(vec![
        anthropic_sse(
            r#"{"input_tokens":24,"cache_creation_input_tokens":2300,"cache_read_input_tokens":0,"output_tokens":1}"#,
        ),
        anthropic_sse(
            r#"{"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":2300,"output_tokens":1}"#,
        ),
    ]);
    let v = probe_ok(
        dir.path(),
        &server,
        "anthropic",
        "claude-sonnet-4-5",
        &["--json"],
    );
    assert_eq!(v["calls"][0]["cache_write_tokens"], 2300);
    assert_eq!(v["calls"][1]["input_tokens"], 2324);
    assert_eq!(v["calls"][1]["cached_input_tokens"], 2300);
    let body = server.requests()[0].json();
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(body["max_tokens"], 1);
    let lines = ledger_lines(dir.path());
    assert_eq!(lines[0]["input_tokens"], 2324);
    assert_eq!(lines[0]["cache_write_tokens"], 2300);
    assert_eq!(lines[1]["cached_input_tokens"], 2300);
}

#[test]
fn a_prefix_under_the_minimum_says_the_figures() {
    let dir = workspace("clinic");
    let usage = r#"{"input_tokens":230,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}"#;
    let server = Server::start(vec![anthropic_sse(usage), anthropic_sse(usage)]);
    let out = probe(
        dir.path(),
        &server,
        "anthropic",
        "claude-3-5-haiku-20241022",
        &[],
    );
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains("under the 2048-token minimum of Anthropic Claude Haiku 3.5"),
        "{text}"
    );
    let filtered = regex::Regex::new(r" +\d+ ms|http://127\.0\.0\.1:\d+")
        .unwrap()
        .replace_all(&text, "[..]");
    insta::assert_snapshot!(filtered);
    assert_eq!(ledger_lines(dir.path()).len(), 2);
}

#[test]
fn an_answer_without_a_cached_field_is_not_called_a_miss() {
    let dir = workspace("clinic");
    let usage = r#"{"prompt_tokens":2400,"completion_tokens":1}"#;
    let server = Server::start(vec![openai_sse(Some(usage)), openai_sse(Some(usage))]);
    let out = probe(dir.path(), &server, "openai", "llama3.1:8b", &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["status"], "not_cached");
    assert_eq!(v["verdict"]["reason"], "no_cached_field");
    assert!(
        v["summary"]
            .as_str()
            .unwrap()
            .contains("no cached-token field")
    );
    let lines = ledger_lines(dir.path());
    assert!(lines[1]["cached_input_tokens"].is_null());
    assert_eq!(lines[1]["input_tokens"], 2400);
}

#[test]
fn a_server_that_reports_no_usage_is_said_so() {
    let dir = workspace("clinic");
    let server = Server::start(vec![openai_sse(None), openai_sse(None)]);
    let out = probe(dir.path(), &server, "openai", "llama3.1:8b", &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["verdict"]["reason"], "no_usage");
    assert!(ledger_lines(dir.path())[0]["input_tokens"].is_null());
}

#[test]
fn a_prefix_served_once_and_not_again() {
    let dir = workspace("clinic");
    let usage = r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}"#;
    let server = Server::start(vec![
        openai_sse(Some(usage)),
        openai_sse(Some(usage)),
        openai_sse(Some(usage)),
    ]);
    let out = probe(
        dir.path(),
        &server,
        "openai",
        "gpt-4.1-mini",
        &["--json", "--repeat", "3"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["verdict"]["reason"], "not_served_again");
    assert_eq!(v["calls"].as_array().unwrap().len(), 3);
    assert!(v["hint"].as_str().unwrap().contains("--cache-key"));
}

#[test]
fn a_provider_failure_exits_3_and_the_failed_call_is_ledgered_without_the_key() {
    let dir = workspace("clinic");
    let usage = r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}"#;
    let server = Server::start(vec![
        openai_sse(Some(usage)),
        Reply::status(
            401,
            &[],
            "application/json",
            r#"{"error":{"message":"bad key sk-live-ABCDEFGHIJKLMNOPQRST","type":"auth"}}"#,
        ),
    ]);
    let key = "sk-live-ABCDEFGHIJKLMNOPQRST";
    let base = format!("{}/v1", server.url());
    let out = brief()
        .current_dir(dir.path())
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("OPENAI_API_KEY", key)
        .args(argv_then(
            "probe clinic --provider openai --model gpt-4.1-mini --base-url",
            &[&base],
        ))
        .args(VISIT)
        .output()
        .unwrap();
    assert_exit(&out, 3);
    assert!(
        stderr(&out).contains("call 2 of 2; recorded in ")
            && stderr(&out).contains("state/briefkit/usage.jsonl with status http_401"),
        "{}",
        stderr(&out)
    );
    let text = fs::read_to_string(dir.path().join("state/briefkit/usage.jsonl")).unwrap();
    assert!(!text.contains("ABCDEFGHIJKLMNOPQRST"), "{text}");
    let lines = ledger_lines(dir.path());
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["status"], "http_401");
    assert!(lines[1]["input_tokens"].is_null());
    assert!(lines[1]["error"].as_str().unwrap().contains("HTTP 401"));
}

#[test]
fn concurrent_probes_append_whole_lines_to_one_ledger() {
    let dir = workspace("clinic");
    let ledger = dir.path().join("shared.jsonl");
    let usage = r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1664}}"#;
    let servers: Vec<Server> = (0..4)
        .map(|_| Server::start((0..5).map(|_| openai_sse(Some(usage))).collect()))
        .collect();
    let children: Vec<_> = servers
        .iter()
        .map(|server| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_brief"));
            cmd.current_dir(dir.path())
                .env("BRIEF_LEDGER", &ledger)
                .args(argv(
                    "--color never probe clinic --provider openai --model gpt-4.1-mini",
                ))
                .args([
                    "--base-url",
                    &format!("{}/v1", server.url()),
                    "--repeat",
                    "5",
                    "--json",
                ])
                .args(VISIT)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert_eq!(child.wait().unwrap().code(), Some(0));
    }
    let text = fs::read_to_string(&ledger).unwrap();
    assert_eq!(text.lines().count(), 20);
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["cached_input_tokens"], 1664);
    }
}

#[test]
fn bad_probe_arguments_exit_2_and_call_nothing() {
    let dir = workspace("clinic");
    let server = Server::start(vec![]);
    let once = probe(
        dir.path(),
        &server,
        "openai",
        "gpt-4.1-mini",
        &["--repeat", "1"],
    );
    assert_eq!(once.status.code(), Some(2));
    let unknown = probe(dir.path(), &server, "mistral", "m", &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown provider"));
    let missing_var = brief()
        .current_dir(dir.path())
        .args(argv_then(
            "probe clinic --provider openai --model m --base-url",
            &[&server.url()],
        ))
        .output()
        .unwrap();
    assert_eq!(missing_var.status.code(), Some(2));
    assert!(server.requests().is_empty());
    assert!(!dir.path().join(".brief").exists());
}

/// On a terminal the operator sees each call as it ends; piped, stderr stays as it was.
/// `script` (util-linux) gives the binary a real pseudo-terminal.
#[test]
fn probe_shows_each_call_on_a_terminal_only() {
    let dir = workspace("clinic");
    let usage = [
        r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}"#,
        r#"{"prompt_tokens":1800,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1664}}"#,
    ];
    let server = Server::start(usage.iter().map(|u| openai_sse(Some(u))).collect());
    let command = format!(
        "{} probe clinic --provider openai --model gpt-4.1-mini --base-url {}/v1 {}",
        env!("CARGO_BIN_EXE_brief"),
        server.url(),
        VISIT.join(" ")
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("NO_COLOR", "1")
        .env_remove("BRIEF_LEDGER")
        .output()
        .expect("script(1) from util-linux runs the command on a pseudo-terminal");
    let shown = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("call 1/2: 1,800 input tokens, 0 cached"),
        "{shown}"
    );
    assert!(
        shown.contains("call 2/2: 1,800 input tokens, 1,664 cached"),
        "{shown}"
    );

    let server = Server::start(usage.iter().map(|u| openai_sse(Some(u))).collect());
    let piped = probe(dir.path(), &server, "openai", "gpt-4.1-mini", &[]);
    assert_exit(&piped, 0);
    assert!(!stderr(&piped).contains("call 1/2"), "{}", stderr(&piped));
}

/// A Responses stream of a one-word answer whose `response.completed` carries `cached`.
fn responses_sse(cached: u64) -> Reply {
    let body = format!(
        "event: response.output_item.done\ndata: {{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"Pong\"}}]}}}}\n\n\
         event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"status\":\"incomplete\",\"model\":\"srv-model\",\"usage\":{{\"input_tokens\":1800,\"input_tokens_details\":{{\"cached_tokens\":{cached}}},\"output_tokens\":1}}}}}}\n\n"
    );
    Reply::sse(&body, &[])
}

/// A Gemini SSE answer whose last chunk carries `usageMetadata` with `cached`.
fn gemini_sse(cached: u64) -> Reply {
    let body = format!(
        "data: {{\"candidates\":[{{\"content\":{{\"role\":\"model\",\"parts\":[{{\"text\":\"Pong\"}}]}},\"finishReason\":\"MAX_TOKENS\"}}],\"usageMetadata\":{{\"promptTokenCount\":1800,\"cachedContentTokenCount\":{cached},\"candidatesTokenCount\":1}},\"modelVersion\":\"srv-model\"}}\r\n\r\n"
    );
    Reply::sse(&body, &[])
}

#[test]
fn responses_and_gemini_probes_read_their_cached_tokens() {
    for provider in ["responses", "gemini"] {
        let dir = workspace("clinic");
        let (first, second) = match provider {
            "responses" => (responses_sse(0), responses_sse(1664)),
            _ => (gemini_sse(0), gemini_sse(1664)),
        };
        let server = Server::start(vec![first, second]);
        let base = match provider {
            "responses" => format!("{}/v1", server.url()),
            _ => server.url(),
        };
        let out = brief()
            .current_dir(dir.path())
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env("BRIEF_RETRY_BASE_MS", "1")
            .args(argv_then(
                "probe clinic --provider",
                &[provider, "--model", "m-test"],
            ))
            .args(["--base-url", &base, "--json"])
            .args(VISIT)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{provider}: {}", stderr(&out));
        let v = json(&out);
        assert_eq!(v["verdict"]["cached"], true, "{provider}: {v}");
        assert_eq!(v["verdict"]["cached_input_tokens"], 1664);
        let requests = server.requests();
        assert_eq!(
            requests[0].body, requests[1].body,
            "the repeat is byte-identical"
        );
        let body = requests[0].json();
        match provider {
            "responses" => {
                assert!(requests[0].head.starts_with("POST /v1/responses "));
                assert!(body["instructions"].is_string());
            }
            _ => {
                assert!(
                    requests[0]
                        .head
                        .starts_with("POST /v1beta/models/m-test:streamGenerateContent?alt=sse "),
                    "{}",
                    requests[0].head
                );
                assert!(body["systemInstruction"].is_object());
            }
        }
        let rows = ledger_lines(dir.path());
        assert!(rows.iter().all(|r| r["provider"] == provider), "{rows:?}");
    }
}
