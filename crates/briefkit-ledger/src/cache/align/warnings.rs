//! Volatile content inside a request body, located by JSON pointer.
//!
//! Every string value is scanned with the shared detector. An object key that names a
//! request, session or trace id is checked together with its value, because in a JSON body
//! the key and the value are separate strings that the text scan alone would not join.

use serde_json::Value;

use crate::text::volatile::{self, VolatileKind};

/// One volatile value in a request body.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub kind: VolatileKind,
    /// JSON pointer of the string (or id field) that holds it, e.g. `/messages/0/content`.
    pub location: String,
    /// 1-based line and character column inside that string.
    pub line: usize,
    pub column: usize,
    /// Cut short for ids, hashes and tokens, so no secret is printed whole.
    pub sample: String,
}

/// Every volatile value inside `value`, which sits at `pointer` in the request body.
pub fn collect(pointer: &str, value: &Value, out: &mut Vec<Warning>) {
    match value {
        Value::String(text) => {
            for finding in volatile::scan(text) {
                out.push(Warning {
                    kind: finding.kind,
                    location: pointer.to_string(),
                    line: finding.line,
                    column: finding.column,
                    sample: finding.sample,
                });
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect(&format!("{pointer}/{i}"), item, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let child = format!("{pointer}/{}", escape(key));
                if let Some(warning) = id_field(&child, key, item) {
                    out.push(warning);
                } else {
                    collect(&child, item, out);
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A key like `request_id` or `traceId` whose scalar value looks like an id.
fn id_field(pointer: &str, key: &str, value: &Value) -> Option<Warning> {
    let value = match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        _ => return None,
    };
    let joined = format!("{key}: {value}");
    volatile::scan(&joined)
        .into_iter()
        .find(|f| f.kind == VolatileKind::IdField && f.start == 0)
        .map(|f| Warning {
            kind: f.kind,
            location: pointer.to_string(),
            line: 1,
            column: 1,
            sample: f.sample,
        })
}

/// Escapes one JSON-pointer reference token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_are_located_by_pointer() {
        let mut out = Vec::new();
        let tools =
            json!([{"function": {"description": "Updated 2025-11-03T08:15:42Z", "name": "a/b"}}]);
        collect("/tools", &tools, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].location, "/tools/0/function/description");
        assert_eq!(out[0].kind, VolatileKind::Timestamp);
    }

    #[test]
    fn id_keys_are_joined_with_their_value_and_pointer_is_escaped() {
        let mut out = Vec::new();
        let value = json!({"meta/x": {"requestId": "req_9f8a7b6c5d4e"}, "order_id": "A1234"});
        collect("/system/0", &value, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].location, "/system/0/meta~1x/requestId");
        assert_eq!(out[0].kind, VolatileKind::IdField);
        assert_eq!(out[0].sample, "requestId: req_9f8a…");
    }
}
