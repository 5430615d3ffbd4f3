//! `brief check` holds every tool's input schema to JSON Schema and to the providers'
//! rules for tools, and points at the line of each problem in the tool file.

use std::fs;

use crate::common::{json, run_in, stdout, workspace};

fn with_tool(yaml: &str) -> tempfile::TempDir {
    let ws = workspace("clinic");
    fs::write(ws.path().join("clinic/items/find_slot.tool.yaml"), yaml).unwrap();
    let out = run_in(ws.path(), &["lock", "clinic"]);
    assert_eq!(out.status.code(), Some(0));
    ws
}

fn tool_findings(ws: &tempfile::TempDir, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["check", "clinic", "--json"];
    args.extend_from_slice(extra);
    let out = run_in(ws.path(), &args);
    json(&out)["briefs"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "tool-schema")
        .cloned()
        .collect()
}

const MALFORMED: &str = "type: tool
name: find_slot
description: Find free appointment slots for a day.
input_schema:
  type: objekt
  properties:
    a: {type: strin}
  required: [zzz]
";

#[test]
fn a_malformed_schema_fails_check_at_each_mistake() {
    let ws = with_tool(MALFORMED);
    let out = run_in(ws.path(), &["check", "clinic"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let tool_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("find_slot.tool.yaml"))
        .collect();
    insta::assert_snapshot!(tool_lines.join("\n"));
    let found = tool_findings(&ws, &[]);
    let at: Vec<(u64, &str)> = found
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["level"].as_str().unwrap()))
        .collect();
    assert_eq!(at, [(5, "error"), (7, "error"), (8, "error")], "{found:?}");
    assert!(found.iter().all(|f| f["item"] == "find_slot"));
}

#[test]
fn github_annotations_carry_the_tool_file_line() {
    let ws = with_tool(MALFORMED);
    let out = run_in(ws.path(), &["check", "clinic", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).lines().any(|l| l.starts_with(
            "::error file=clinic/items/find_slot.tool.yaml,line=7,col=15,title=brief check%3A tool-schema::"
        )),
        "{}",
        stdout(&out)
    );
}

#[test]
fn invalid_json_schema_is_reported_from_the_metaschema() {
    let ws = with_tool(
        "type: tool
name: find_slot
description: Find free appointment slots for a day.
input_schema:
  type: object
  properties:
    day:
      type: string
      minLength: -1
    code:
      type: string
      pattern: \"([\"
",
    );
    let found = tool_findings(&ws, &[]);
    let messages: Vec<(u64, &str)> = found
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert!(
        messages
            .iter()
            .any(|(line, m)| *line == 9 && m.contains("`minLength`")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|(line, m)| *line == 12 && m.contains("`pattern`")),
        "{messages:?}"
    );
}

#[test]
fn a_rule_of_one_provider_is_an_error_for_its_briefs_and_a_warning_for_others() {
    let long = "x".repeat(1100);
    let yaml = format!(
        "type: tool
name: find_slot
description: {long}
input_schema:
  type: object
  properties:
    day: {{type: string}}
"
    );
    let ws = with_tool(&yaml);
    let found = tool_findings(&ws, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0]["level"], "error",
        "the clinic brief is sent to OpenAI"
    );
    assert_eq!(found[0]["line"], 3);
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{text}model: {{ provider: anthropic, name: claude-sonnet-4-5 }}\n"),
    )
    .unwrap();
    let found = tool_findings(&ws, &[]);
    assert_eq!(found[0]["level"], "warning", "{found:?}");
    assert!(found[0]["message"].as_str().unwrap().contains("OpenAI"));
}

#[test]
fn an_external_reference_is_never_followed() {
    let ws = with_tool(
        "type: tool
name: find_slot
description: Find free appointment slots for a day.
input_schema:
  type: object
  properties:
    day: {$ref: \"file:///etc/hostname\"}
",
    );
    let found = tool_findings(&ws, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be resolved"),
        "{found:?}"
    );
}

#[test]
fn the_fixture_and_bundled_tools_are_clean() {
    let ws = workspace("clinic");
    run_in(ws.path(), &["lock", "clinic"]);
    assert_eq!(tool_findings(&ws, &[]), Vec::<serde_json::Value>::new());
}
