//! Canonical JSON: the one byte form that every hash of a JSON value in the toolkit is taken
//! over, so that two bodies that differ only in key order hash the same.
//!
//! Keys are sorted recursively (by their UTF-8 bytes), output is compact, strings use
//! serde_json's escaping and numbers are written exactly as they were read (the crate is
//! built with `arbitrary_precision`, so `1.50` stays `1.50`).

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical (sorted keys, compact) JSON text of a value.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// The value with every object's keys sorted by their UTF-8 bytes, recursively: the one key
/// order of a tool's schema on the wire (see `crate::wire`).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// Lower-case hex of the SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_recursively_and_output_is_compact() {
        let value: Value =
            serde_json::from_str(r#"{ "b": 1, "a": { "z": [ {"y": 2, "x": 3} ], "c": null } }"#)
                .unwrap();
        assert_eq!(
            to_string(&value),
            r#"{"a":{"c":null,"z":[{"x":3,"y":2}]},"b":1}"#
        );
    }

    #[test]
    fn sorted_orders_keys_like_the_canonical_text() {
        let value: Value = serde_json::from_str(r#"{"b":1,"a":{"z":[{"y":2,"x":3}]}}"#).unwrap();
        let text = serde_json::to_string(&sorted(&value)).unwrap();
        assert_eq!(text, to_string(&value));
    }

    #[test]
    fn numbers_are_kept_verbatim() {
        let value: Value =
            serde_json::from_str(r#"{"price": 1.50, "big": 12345678901234567890123}"#).unwrap();
        assert_eq!(
            to_string(&value),
            r#"{"big":12345678901234567890123,"price":1.50}"#
        );
    }

    #[test]
    fn strings_are_escaped() {
        let value = Value::String("line\n\"quoted\" é".to_string());
        assert_eq!(to_string(&value), r#""line\n\"quoted\" é""#);
    }

    #[test]
    fn sha256_of_empty_input_is_the_known_digest() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
