//! The MCP tools and their commands are one library operation each. `compose`: for every format
//! the tool's `body` is the bytes the command prints (a body exactly as sent, not a
//! re-serialisation), and its `prefix_hash` is the one `compose --json` reports for that
//! body's wire. `guard` and `session_status`: the tool returns the document the command prints with
//! `--json`. `compose`, `guard`, `compress`, `digest`, `ccr_put` and `retrieve`: the tool's
//! structured content, printed as the command prints JSON, is byte for byte what the command
//! prints with `--json` (only values that differ from run to run, named at each test, are
//! replaced before comparing); its text is the short form, the document's status and summary
//! (the document is sent once: issue 38).

use std::fs;

use serde_json::json;

use crate::common::{brief, json, run_in, stderr, stdout, workspace};
use crate::harness::{Workspace, argv, assert_exit, assert_stdout_has, ok, session};
use crate::loopback::Server;
use crate::loopback::model::say;
use crate::session_mcp::{call, call_tool, mcp_with};

#[test]
fn mcp_compose_returns_the_bytes_and_hash_the_cli_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    // A model in the manifest goes into the body of its provider's wire only.
    let manifest = root.join("clinic/brief.yaml");
    let yaml = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{yaml}model: {{ provider: anthropic, name: claude-sonnet-4-5 }}\n"),
    )
    .unwrap();
    let vars = ["patient=Ada", "last_visit=May"];
    let formats = ["text", "openai", "anthropic", "responses", "gemini"];
    // `tokens: true`: the command's document always counts them; the tool only when asked.
    let requests: Vec<_> = formats
        .iter()
        .enumerate()
        .map(|(i, format)| {
            call(
                i as u64 + 1,
                "compose",
                json!({"brief": "clinic", "format": format, "tokens": true, "vars": {"patient": "Ada", "last_visit": "May"}}),
            )
        })
        .collect();
    let answers = mcp_with(root, &[], &[], &requests);
    for (format, answer) in formats.iter().zip(&answers) {
        let tool = &answer["result"]["structuredContent"];
        assert_eq!(tool["status"], "ok", "{format}: {answer}");
        let mut args = vec!["compose", "clinic", "--format", format];
        for var in &vars {
            args.extend(["--var", var]);
        }
        let printed = run_in(root, &args);
        assert_exit(&printed, 0);
        let printed = stdout(&printed);
        assert_eq!(
            tool["body"].as_str().unwrap(),
            printed.strip_suffix('\n').unwrap(),
            "{format}: the tool returns the bytes the command prints"
        );
        args.push("--json");
        let printed = run_in(root, &args);
        // The tool's document is the one `compose --json` prints, byte for byte.
        assert_eq!(document(answer), stdout(&printed), "{format}");
        let report = json(&printed);
        assert_eq!(tool["prefix_hash"], report["prefix"]["hash"], "{format}");
        // The prompt is there once: no `output` beside `body`, no copy in the text.
        assert!(tool.get("output").is_none(), "{format}: {tool}");
        assert_eq!(
            text(answer),
            format!("ok: {}", report["summary"].as_str().unwrap())
        );
    }
    // The bodies are the provider's own: the model sits in the anthropic one only.
    let anthropic = answers[2]["result"]["structuredContent"]["body"]
        .as_str()
        .unwrap();
    let openai = answers[1]["result"]["structuredContent"]["body"]
        .as_str()
        .unwrap();
    assert!(
        anthropic.contains("\"model\":\"claude-sonnet-4-5\""),
        "{anthropic}"
    );
    assert!(!openai.contains("claude-sonnet-4-5"), "{openai}");
}

#[test]
fn mcp_guard_returns_the_document_brief_guard_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let original =
        "Refunds within 30 days at https://a.example/refunds. You must not promise more.";
    let proposal = "Refunds within 14 days. You may promise more.";
    fs::write(root.join("original.md"), original).unwrap();
    fs::write(root.join("proposal.md"), proposal).unwrap();
    let answer = call_tool(
        root,
        "guard",
        json!({"original": original, "proposal": proposal}),
    );
    let tool = &answer["result"]["structuredContent"];
    let printed = run_in(root, &["guard", "original.md", "proposal.md", "--json"]);
    assert_exit(&printed, 1);
    let report = json(&printed);
    assert_eq!(report["status"], "flagged");
    // The same document, key for key and in the same order.
    assert_eq!(
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&report).unwrap()
    );
}

#[test]
fn mcp_session_status_returns_the_document_session_status_json_prints() {
    let ws = Workspace::clinic_session(&[]);
    let root = ws.root();
    session(root).user("Book Ada on Tuesday.");
    let answer = call_tool(root, "session_status", json!({"session": "s"}));
    let tool = &answer["result"]["structuredContent"];
    let printed: serde_json::Value =
        serde_json::from_str(&ok(root, &["session", "status", "s", "--json"])).unwrap();
    // The clinic's 4,000-token window leaves nothing once completion, overhead and margin
    // are reserved, so the status says so (issue 36: `ok` while over budget was a lie).
    assert_eq!(printed["status"], "over_budget");
    assert!(printed["pending_operations"].is_array(), "{printed}");
    assert_eq!(
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&printed).unwrap()
    );
}

/// The tool's text content: the short form of its document.
fn text(answer: &serde_json::Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {answer}"))
}

/// The tool's document (its structured content) printed as the command prints `--json`:
/// pretty, keys in the server's order, a final newline.
fn document(answer: &serde_json::Value) -> String {
    let value = &answer["result"]["structuredContent"];
    assert!(value.is_object(), "no structured content: {answer}");
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

#[test]
fn mcp_compose_counts_tokens_only_when_asked() {
    let ws = workspace("clinic");
    let vars = json!({"patient": "Ada", "last_visit": "May"});
    let answers = mcp_with(
        ws.path(),
        &[],
        &[],
        &[
            call(1, "compose", json!({"brief": "clinic", "vars": vars})),
            call(
                2,
                "compose",
                json!({"brief": "clinic", "vars": vars, "tokens": true}),
            ),
        ],
    );
    let plain = &answers[0]["result"]["structuredContent"];
    let counted = &answers[1]["result"]["structuredContent"];
    assert!(plain.get("tokens").is_none(), "{plain}");
    assert!(
        !plain["summary"].as_str().unwrap().contains("tokens"),
        "{plain}"
    );
    assert!(
        counted["tokens"]["total"].as_u64().unwrap() > 0,
        "{counted}"
    );
    assert_eq!(plain["body"], counted["body"]);
}

/// `text` with the value of each of `keys` (a JSON string) replaced by `[KEY]`.
fn without(text: &str, keys: &[&str]) -> String {
    let mut value: serde_json::Value = serde_json::from_str(text).unwrap();
    for key in keys {
        if value.get(key).is_some() {
            value[key] = format!("[{key}]").into();
        }
    }
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn mcp_guard_text_is_the_bytes_brief_guard_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let original = "Call us on 0800 123 456 before 5 pm. Never share a password.";
    let proposal = "Call us before 5 pm.";
    fs::write(root.join("original"), original).unwrap();
    fs::write(root.join("proposal"), proposal).unwrap();
    let answer = call_tool(
        root,
        "guard",
        json!({"original": original, "proposal": proposal}),
    );
    let printed = run_in(root, &["guard", "original", "proposal", "--json"]);
    assert_exit(&printed, 1);
    assert_eq!(document(&answer), stdout(&printed));
}

#[test]
fn mcp_compress_text_is_the_bytes_brief_compress_json_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    let shorter = "## Booking\n\nA first visit takes 45 minutes and costs €95.";
    let model = Server::start(vec![say("openai", shorter), say("openai", shorter)]);
    let base = format!("{}/v1", model.url());
    let ledger = root.join("ledger.jsonl").display().to_string();
    let env = [
        ("OPENAI_API_KEY", "sk-test"),
        ("OPENAI_BASE_URL", base.as_str()),
        ("BRIEF_LEDGER", ledger.as_str()),
    ];
    let answers = mcp_with(
        root,
        &[],
        &env,
        &[call(
            1,
            "compress",
            json!({"brief": "clinic", "item": "booking", "provider": "openai", "model": "test-model"}),
        )],
    );
    let printed = brief()
        .current_dir(root)
        .envs(env)
        .args(["compress", "clinic", "booking", "--json"])
        .args(["--provider", "openai", "--model", "test-model"])
        .output()
        .unwrap();
    assert_exit(&printed, 0);
    // The server names files absolute against its root, as all its paths; the file is
    // the same one, at the same line and column.
    let tool = document(&answers[0]).replace(&format!("{}/", root.display()), "");
    assert!(tool.contains("\"accept\""), "{tool}");
    // Each call saves its own proposal: only its id differs.
    assert_eq!(
        without(&tool, &["proposal_id"]),
        without(&stdout(&printed), &["proposal_id"])
    );
    assert_eq!(model.requests().len(), 2);
}

#[test]
fn mcp_digest_text_is_the_bytes_brief_digest_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    fs::copy(
        crate::common::fixtures().join("digest/wake.yaml"),
        root.join("wake.yaml"),
    )
    .unwrap();
    let store = root.join("ccr.sqlite").display().to_string();
    let env = [("BRIEF_CCR_PATH", store.as_str())];
    let answers = mcp_with(
        root,
        &[],
        &env,
        &[call(
            1,
            "digest",
            json!({"digest": "wake.yaml", "min_bytes": 512}),
        )],
    );
    let printed = brief()
        .current_dir(root)
        .envs(env)
        .args(["digest", "wake.yaml", "--min-bytes", "512", "--json"])
        .output()
        .unwrap();
    assert_exit(&printed, 0);
    assert_stdout_has(&printed, "[ccr:");
    assert_eq!(document(&answers[0]), stdout(&printed));
}

#[test]
fn mcp_ccr_put_text_is_the_bytes_brief_ccr_put_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let original = "line one of a long tool output\nline two\n";
    fs::write(root.join("original.txt"), original).unwrap();
    fs::write(root.join("compressed.txt"), "line one …").unwrap();
    let store = root.join("ccr.sqlite");
    let store_env = store.display().to_string();
    let env = [("BRIEF_CCR_PATH", store_env.as_str())];
    let answers = mcp_with(
        root,
        &[],
        &env,
        &[call(
            1,
            "ccr_put",
            json!({"original": original, "compressed": "line one …", "strategy": "tool_output_head_tail", "source": "cargo test", "ttl": "2h"}),
        )],
    );
    // A second put of the same original would say `refreshed`: the command puts it anew.
    fs::remove_file(&store).unwrap();
    let printed = brief()
        .current_dir(root)
        .envs(env)
        .args(argv("ccr put original.txt --compressed compressed.txt"))
        .args(argv(
            "--strategy tool_output_head_tail --source 'cargo test'",
        ))
        .args(["--ttl", "2h", "--json"])
        .output()
        .unwrap();
    assert_exit(&printed, 0);
    // The clock moved between the two puts: creation and expiry (also in the summary).
    let run_dependent = ["created", "expires", "summary"];
    assert_eq!(
        without(&document(&answers[0]), &run_dependent),
        without(&stdout(&printed), &run_dependent)
    );
    assert!(document(&answers[0]).starts_with("{\n  \"status\": \"stored\""));
}

#[test]
fn mcp_retrieve_text_is_the_bytes_brief_ccr_get_json_prints() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let store = root.join("ccr.sqlite").display().to_string();
    let env = [("BRIEF_CCR_PATH", store.as_str())];
    fs::write(root.join("notes.txt"), "the original notes, in full").unwrap();
    let put = brief()
        .current_dir(root)
        .envs(env)
        .args(["ccr", "put", "notes.txt"])
        .output()
        .unwrap();
    let hash = stdout(&put).trim().to_string();
    assert_eq!(hash.len(), 24, "{}", stderr(&put));
    let unknown = "0123456789abcdef01234567";
    let answers = mcp_with(
        root,
        &[],
        &env,
        &[
            call(1, "retrieve", json!({"hash": hash.to_uppercase()})),
            call(2, "retrieve", json!({"hash": unknown})),
        ],
    );
    for (answer, (hash, status)) in answers.iter().zip([(hash.as_str(), 0), (unknown, 1)]) {
        let printed = brief()
            .current_dir(root)
            .envs(env)
            .args(["ccr", "get", hash, "--json"])
            .output()
            .unwrap();
        assert_eq!(printed.status.code(), Some(status), "{}", stderr(&printed));
        assert_eq!(document(answer), stdout(&printed));
    }
    assert_eq!(answers[0]["result"]["structuredContent"]["status"], "found");
    assert_eq!(
        answers[1]["result"]["structuredContent"]["status"],
        "unknown"
    );
}

#[test]
fn mcp_ccr_put_names_its_ttl_argument_not_the_commands_flag() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    let store = root.join("ccr.sqlite");
    let store_env = store.display().to_string();
    let answers = mcp_with(
        root,
        &[],
        &[("BRIEF_CCR_PATH", store_env.as_str())],
        &[call(1, "ccr_put", json!({"original": "x", "ttl": "soon"}))],
    );
    let result = &answers[0]["result"];
    assert_eq!(result["isError"], true, "{result}");
    let message = result["content"][0]["text"].as_str().unwrap();
    assert!(message.starts_with("bad arguments: ttl: "), "{message}");
    assert!(!message.contains("--ttl"), "{message}");
    assert!(!store.exists(), "nothing was stored");
}
