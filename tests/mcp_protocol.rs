//! JSON-RPC 2.0 framing of `brief mcp` over stdio with the real binary: every line that is
//! not a message is answered with the error the spec prescribes, and the server goes on.

use std::process::Command;

use crate::harness::mcp::Mcp;
use serde_json::{Value, json};

/// Sends the handshake, then each raw line in `lines`, reading one answer per line.
fn answers_to_raw_lines(lines: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(
        Command::new(env!("CARGO_BIN_EXE_brief"))
            .arg("mcp")
            .current_dir(dir.path())
            .env("BRIEF_LEDGER", dir.path().join("ledger.jsonl")),
    );
    let answers = lines
        .iter()
        .map(|line| {
            mcp.send_line(line);
            mcp.answer()
        })
        .collect();
    mcp.finish();
    answers
}

#[test]
fn mcp_malformed_line_got_no_reply_now_parse_error_and_invalid_request() {
    let answers = answers_to_raw_lines(&[
        "garbage{",
        r#"{"jsonrpc":"2.0","id":5}"#,
        r#"{"jsonrpc":"1.0","id":"six","method":"tools/list"}"#,
        "[1,2",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
    ]);
    let code_and_id = |answer: &Value| (answer["error"]["code"].clone(), answer["id"].clone());
    assert_eq!(code_and_id(&answers[0]), (json!(-32700), json!(null)));
    assert_eq!(answers[0]["jsonrpc"], "2.0");
    assert!(answers[0].as_object().unwrap().contains_key("id"));
    assert_eq!(code_and_id(&answers[1]), (json!(-32600), json!(5)));
    assert_eq!(code_and_id(&answers[2]), (json!(-32600), json!("six")));
    assert_eq!(code_and_id(&answers[3]), (json!(-32700), json!(null)));
    // The server keeps serving after each of them.
    assert_eq!(answers[4]["id"], 7);
    assert!(
        answers[4]["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{}",
        answers[4]
    );
}

/// The MCP `compose` schema listed text, openai and anthropic while the command also
/// accepts responses and gemini, so MCP clients could not find two wires: the schema's
/// `format` enum is every value `brief compose --format` accepts, in the same order, and a
/// wrong format's tool error names them all.
#[test]
fn mcp_compose_schema_offers_every_format_the_command_accepts() {
    let command = briefkit::cli::command();
    let compose = command.find_subcommand("compose").unwrap();
    let format = compose
        .get_arguments()
        .find(|a| a.get_id() == "format")
        .unwrap();
    let cli: Vec<String> = format
        .get_possible_values()
        .iter()
        .map(|v| v.get_name().to_owned())
        .collect();
    let core: Vec<&str> = briefkit::prompt::render::Format::ALL
        .iter()
        .map(|f| f.as_str())
        .collect();
    assert_eq!(cli, core);
    let answers = answers_to_raw_lines(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"compose","arguments":{"brief":"b","format":"morse"}}}"#,
    ]);
    let tools = answers[0]["result"]["tools"].as_array().unwrap();
    let compose = tools.iter().find(|t| t["name"] == "compose").unwrap();
    let offered: Vec<String> = compose["inputSchema"]["properties"]["format"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(offered, cli);
    let error = answers[1]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        error.contains(&format!("is not one of {}", cli.join(", "))),
        "{error}"
    );
}
