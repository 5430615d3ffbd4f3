//! A JSON Schema validator for the subset of draft 2020-12 that the repository's schemas
//! use: `type`, `properties`, `required`, `additionalProperties`, `items`, `enum`,
//! `minLength`, `minItems`; annotations (`title`, `description`, `$schema`, `$id`,
//! `examples`) are ignored, and an unsupported keyword is refused when the schema is
//! loaded, so a schema can never silently validate less than it says.
//!
//! Written by hand rather than pulling in the `jsonschema` crate: ours are two small
//! schemas compiled into the binary, and that crate's dependency tree (regex engines,
//! URL resolution, an HTTP client for remote `$ref`s) would cost more build time than the
//! whole of this file. It reports every violation, each with its JSON pointer.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::ccr::digest::crush::type_name;

const SUPPORTED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minLength",
    "minItems",
    "title",
    "description",
    "$schema",
    "$id",
    "examples",
];

/// One violation: where (a JSON pointer into the instance) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Keywords of `schema` (recursively) this validator does not implement.
pub fn unsupported(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_unsupported(schema, "", &mut out);
    out
}

fn walk_unsupported(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for (key, value) in map {
        if !SUPPORTED.contains(&key.as_str()) {
            out.push(format!("{at}/{key}"));
        }
        match key.as_str() {
            "properties" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    walk_unsupported(sub, &format!("{at}/properties/{name}"), out);
                }
            }
            "items" | "additionalProperties" => {
                walk_unsupported(value, &format!("{at}/{key}"), out)
            }
            _ => {}
        }
    }
}

/// Every violation of `instance` against `schema`.
pub fn validate(schema: &Value, instance: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    check(schema, instance, "", &mut out);
    out
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn is_type(value: &Value, name: &str) -> bool {
    let actual = type_name(value);
    actual == name || (name == "number" && actual == "integer")
}

fn check(schema: &Value, value: &Value, at: &str, out: &mut Vec<Violation>) {
    let Some(schema) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            out.push(Violation {
                pointer: at.into(),
                message: "not allowed here".into(),
            });
        }
        return;
    };
    let mut fail = |message: String| {
        out.push(Violation {
            pointer: at.into(),
            message,
        })
    };
    if let Some(types) = schema.get("type") {
        let names: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !names.is_empty() && !names.iter().any(|n| is_type(value, n)) {
            fail(format!(
                "expected {}, found {}",
                names.join(" or "),
                type_name(value)
            ));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        fail(format!("{value} is not one of {}", listed.join(", ")));
    }
    if let (Some(min), Value::String(s)) = (schema.get("minLength").and_then(Value::as_u64), value)
        && (s.chars().count() as u64) < min
    {
        fail(format!(
            "shorter than {min} character{}",
            if min == 1 { "" } else { "s" }
        ));
    }
    if let (Some(min), Value::Array(items)) =
        (schema.get("minItems").and_then(Value::as_u64), value)
        && (items.len() as u64) < min
    {
        fail(format!(
            "fewer than {min} item{}",
            if min == 1 { "" } else { "s" }
        ));
    }
    if let Value::Array(items) = value
        && let Some(item_schema) = schema.get("items")
    {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{at}/{i}"), out);
        }
    }
    if let Value::Object(map) = value {
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str()
                && !map.contains_key(name)
            {
                out.push(Violation {
                    pointer: format!("{at}/{}", escape(name)),
                    message: "required but missing".into(),
                });
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, item) in map {
            let pointer = format!("{at}/{}", escape(name));
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => check(sub, item, &pointer, out),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(Violation {
                        pointer,
                        message: "not an allowed field".into(),
                    }),
                    Some(sub) => check(sub, item, &pointer, out),
                    None => {}
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_violation_is_reported_with_its_pointer() {
        let schema = json!({
            "type": "object",
            "required": ["a", "b/c"],
            "properties": {
                "a": {"type": "array", "items": {"enum": ["x", "y"]}},
                "n": {"type": "number"}
            },
            "additionalProperties": false
        });
        let got = validate(&schema, &json!({"a": ["x", "z", 1], "n": 1, "extra": true}));
        let pointers: Vec<&str> = got.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(pointers, ["/b~1c", "/a/1", "/a/2", "/extra"]);
        assert_eq!(
            validate(&schema, &json!([]))[0].to_string(),
            "(root): expected object, found array"
        );
    }

    #[test]
    fn an_unsupported_keyword_is_named() {
        let schema = json!({"properties": {"a": {"pattern": "x"}}});
        assert_eq!(unsupported(&schema), ["/properties/a/pattern"]);
    }
}
