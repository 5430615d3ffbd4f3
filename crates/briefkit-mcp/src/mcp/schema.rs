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

/// `schema` with the `enum` of its property `property` replaced, in place, by `names`: a
/// list the code owns (the body formats, [`Format::ALL`](crate::prompt::render::Format::ALL))
/// comes from the code, so a value the command accepts is never missing from the schema. The
/// bundled file keeps the list too, for the reader; a unit test holds it to the code's.
pub(crate) fn with_enum<'a>(
    mut schema: Value,
    property: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Value {
    if let Some(slot) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut(property))
        .and_then(Value::as_object_mut)
    {
        slot.insert("enum".into(), names.into_iter().map(Value::from).collect());
    }
    schema
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

    /// The formats the bundled compose.json lists are the code's (which the served schema
    /// takes), so the file does not mislead whoever reads it.
    #[test]
    fn the_bundled_compose_schema_lists_every_format() {
        use crate::prompt::render::Format;
        let file = load("compose", include_str!("schemas/compose.json"));
        let served = with_enum(file.clone(), "format", Format::ALL.map(Format::as_str));
        assert_eq!(file, served);
        let listed = &served["properties"]["format"]["enum"];
        assert_eq!(listed.as_array().map(Vec::len), Some(Format::ALL.len()));
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
