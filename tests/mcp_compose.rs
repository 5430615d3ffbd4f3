//! The MCP `compose` tool and `brief compose` are one library operation: for every format
//! the tool's `output` is the bytes the command prints (a body exactly as sent, not a
//! re-serialisation), and its `prefix_hash` is the one `compose --json` reports for that
//! body's wire.

use std::fs;

use serde_json::json;

use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::session_mcp::{call, mcp_with};

#[test]
fn mcp_compose_returns_the_bytes_and_hash_the_cli_prints() {
    let ws = workspace("clinic");
    let root = ws.path();
    // A model in the manifest goes into the body of its provider's wire only.
    let manifest = root.join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{text}model: {{ provider: anthropic, name: claude-sonnet-4-5 }}\n"),
    )
    .unwrap();
    let vars = ["patient=Ada", "last_visit=May"];
    let formats = ["text", "openai", "anthropic"];
    let requests: Vec<_> = formats
        .iter()
        .enumerate()
        .map(|(i, format)| {
            call(
                i as u64 + 1,
                "compose",
                json!({"brief": "clinic", "format": format, "vars": {"patient": "Ada", "last_visit": "May"}}),
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
        assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
        let printed = stdout(&printed);
        assert_eq!(
            tool["output"].as_str().unwrap(),
            printed.strip_suffix('\n').unwrap(),
            "{format}: the tool returns the bytes the command prints"
        );
        args.push("--json");
        let report = json(&run_in(root, &args));
        assert_eq!(tool["prefix_hash"], report["prefix"]["hash"], "{format}");
        assert_eq!(report["body"], tool["output"], "{format}");
    }
    // The bodies are the provider's own: the model sits in the anthropic one only.
    let anthropic = answers[2]["result"]["structuredContent"]["output"]
        .as_str()
        .unwrap();
    let openai = answers[1]["result"]["structuredContent"]["output"]
        .as_str()
        .unwrap();
    assert!(
        anthropic.contains("\"model\":\"claude-sonnet-4-5\""),
        "{anthropic}"
    );
    assert!(!openai.contains("claude-sonnet-4-5"), "{openai}");
}
