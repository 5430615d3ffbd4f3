use super::*;
use serde_json::Value;

fn tool(schema: Value) -> ToolDef {
    ToolDef {
        name: "t".into(),
        description: "d".into(),
        input_schema: schema,
    }
}

fn messages(schema: Value) -> Vec<(String, String)> {
    problems(&tool(schema))
        .into_iter()
        .map(|p| {
            let path: Vec<String> = p
                .path
                .iter()
                .map(|s| match s {
                    Step::Key(k) => k.clone(),
                    Step::Index(i) => i.to_string(),
                })
                .collect();
            (path.join("/"), p.message)
        })
        .collect()
}

#[test]
fn a_sound_schema_has_no_problem() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "day": {"type": "string", "pattern": "^[0-9-]+$"},
            "n": {"type": ["integer", "null"]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}
        },
        "required": ["day"],
        "$defs": {"tag": {"type": "string"}}
    });
    assert_eq!(messages(schema), []);
}

#[test]
fn the_issue_example_gives_one_problem_per_mistake() {
    let found = messages(serde_json::json!({
        "type": "objekt", "properties": {"a": {"type": "strin"}}, "required": ["zzz"]
    }));
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "input_schema/type",
            "input_schema/required/0",
            "input_schema/properties/a/type"
        ],
        "{found:?}"
    );
    assert!(found[0].1.contains("did you mean `object`"), "{found:?}");
    assert!(found[2].1.contains("did you mean `string`"), "{found:?}");
}

#[test]
fn metaschema_errors_are_located_in_the_schema() {
    let found = messages(serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": -1}, "b": {"pattern": "(["}},
    }));
    assert!(
        found
            .iter()
            .any(|(p, m)| p == "input_schema/properties/a/minLength"
                && m.starts_with("not valid JSON Schema")),
        "{found:?}"
    );
}

#[test]
fn an_external_ref_is_not_followed() {
    let found = messages(serde_json::json!({
        "type": "object",
        "properties": {"a": {"$ref": "file:///etc/passwd"}},
    }));
    assert!(
        found.iter().any(|(_, m)| m.contains("cannot be resolved")),
        "{found:?}"
    );
}

#[test]
fn provider_rules_name_who_rejects() {
    let mut t = tool(serde_json::json!({"type": "object", "anyOf": [], "enum": [1]}));
    t.description = "x".repeat(OPENAI_MAX_DESCRIPTION + 1);
    let found: Vec<RejectedBy> = problems(&t).iter().map(|p| p.rejected_by).collect();
    assert!(found.contains(&RejectedBy::OpenAi));
    assert!(found.contains(&RejectedBy::Every));
}

#[test]
fn locate_finds_block_and_flow_values() {
    let yaml = "type: tool\nname: t\ninput_schema:\n  type: object\n  properties:\n    a: { type: strin }\n  required:\n    - x\n    - zzz\n";
    let key = |k: &str| Step::Key(k.into());
    assert_eq!(
        locate(yaml, &[key("input_schema"), key("type")]),
        Some((4, 9))
    );
    assert_eq!(
        locate(
            yaml,
            &[
                key("input_schema"),
                key("properties"),
                key("a"),
                key("type")
            ]
        ),
        Some((6, 16))
    );
    assert_eq!(
        locate(
            yaml,
            &[key("input_schema"), key("required"), Step::Index(1)]
        ),
        Some((9, 7))
    );
    assert_eq!(locate(yaml, &[key("nothing")]), None);
}
