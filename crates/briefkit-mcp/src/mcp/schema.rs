//! The MCP tools' input schemas are data, one JSON file per tool under `src/mcp/schemas/`,
//! bundled into the binary with `include_str!`: a schema is read and reviewed as the JSON a
//! client receives, not as a Rust macro that only looks like it.
//!
//! A bundled schema that does not parse must never take the server down (no panic on a
//! path a client can reach): [`load`] then gives a permissive object schema that says
//! why, and the unit test below loads every file so such a schema never ships.

use serde_json::{Map, Value};

/// The input schema of the tool `name`, from its bundled file's `text`
/// (`load("retrieve", include_str!("schemas/retrieve.json"))`).
pub(crate) fn load(name: &str, text: &'static str) -> Value {
    match parse(text) {
        Ok(schema) => Value::Object(schema),
        Err(why) => {
            let mut fallback = Map::new();
            fallback.insert("type".into(), Value::from("object"));
            fallback.insert(
                "description".into(),
                Value::from(format!(
                    "the bundled input schema of `{name}` could not be read ({why}); \
                     the tool checks its arguments itself"
                )),
            );
            Value::Object(fallback)
        }
    }
}

/// A tool input schema: a JSON object whose `type` is `object`, as MCP requires.
fn parse(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(schema)) if schema.get("type") == Some(&Value::from("object")) => {
            Ok(schema)
        }
        Ok(_) => Err("not an object schema with \"type\": \"object\"".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `src/mcp/schemas/` parses as an object schema, and every tool's
    /// schema is its own file's (no tool fell back).
    #[test]
    fn every_bundled_schema_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/mcp/schemas");
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if let Err(why) = parse(&text) {
                panic!("{}: {why}", path.display());
            }
            files.push(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
        files.sort();
        let mut tools: Vec<String> = crate::mcp::tools::specs()
            .into_iter()
            .map(|spec| {
                let fell_back = spec.schema["description"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("the bundled input schema"));
                assert!(!fell_back, "{}: {}", spec.name, spec.schema);
                spec.name.to_string()
            })
            .collect();
        tools.sort();
        for file in &files {
            assert!(tools.contains(file), "{file}.json belongs to no tool");
        }
    }

    #[test]
    fn a_bad_schema_falls_back_without_a_panic() {
        for bad in ["{", "[]", "{\"type\": \"string\"}"] {
            let schema = load("x", bad);
            assert_eq!(schema["type"], "object", "{bad}");
            assert!(schema["description"].as_str().unwrap().contains("`x`"));
        }
    }
}
