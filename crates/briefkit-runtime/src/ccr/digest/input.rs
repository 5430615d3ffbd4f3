//! The digest file: a YAML mapping of nine optional fields, each with a declared type.
//!
//! The field a text sits in decides how it is handled, so the parser is strict: an unknown
//! field, a field of the wrong shape or a `bulk_json` that is not a JSON array is refused
//! with its line and column before anything is rendered or stored. A single text (or a
//! single entry) is accepted wherever a list is.

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, IntoDeserializer, Visitor};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::files::limits::DIGEST;

/// A wake digest as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DigestFile {
    #[serde(default)]
    pub current_task: Option<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub hard_constraints: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub definitions_of_done: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub irreversible_decisions: Vec<Backed>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub open_threads: Vec<Backed>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub learnings: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub tool_outputs: Vec<Named>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub prose_notes: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub bulk_json: Vec<NamedJson>,
}

/// A summary that stands in the digest and the detail that backs it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backed {
    pub summary: String,
    #[serde(default)]
    pub detail: Option<String>,
}

/// A tool, file or search output.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    pub name: String,
    pub content: String,
}

/// A JSON array, written inline as YAML or as a string of JSON.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedJson {
    pub name: String,
    #[serde(deserialize_with = "json_array")]
    pub content: JsonArray,
}

/// The array's items and its original text: the string as given, or the compact JSON of
/// an inline array (what the store keeps and `brief ccr get` returns).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonArray {
    pub items: Vec<Value>,
    pub original: String,
}

impl DigestFile {
    /// Parses a digest file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<DigestFile> {
        if text.trim().is_empty() {
            return Ok(DigestFile::default());
        }
        crate::text::yaml::from_str::<Option<DigestFile>>(text)
            .map(Option::unwrap_or_default)
            .map_err(|err| {
                let at = err
                    .location()
                    .map_or(String::new(), |(line, column)| format!(":{line}:{column}"));
                Error::input(format!("{}{at}: {}", path.display(), err.message()))
                    .with_hint(
                        "a digest is a YAML mapping of current_task, hard_constraints, definitions_of_done, irreversible_decisions, open_threads, learnings, tool_outputs, prose_notes and bulk_json",
                    )
                    .with_topic(crate::error::Topic::BadDigest)
            })
    }

    /// Reads and parses a digest file (`-`: stdin): a regular file of UTF-8 within
    /// [`DIGEST`], refused before it is read when it is not.
    pub fn read(path: &Path) -> Result<DigestFile> {
        let text = crate::files::input::read_text(path, DIGEST)?;
        DigestFile::parse(text.strip_prefix('\u{feff}').unwrap_or(&text), path)
    }
}

/// A list, or one value standing for a list of one; null or absent is empty.
fn one_or_many<'de, D, T>(deserializer: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct OneOrMany<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrMany<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list, or a single entry")
        }

        fn visit_unit<E: de::Error>(self) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }

        fn visit_none<E: de::Error>(self) -> std::result::Result<Vec<T>, E> {
            Ok(Vec::new())
        }

        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Vec<T>, E> {
            T::deserialize(v.into_deserializer()).map(|one| vec![one])
        }

        fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> std::result::Result<Vec<T>, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|one| vec![one])
        }

        fn visit_seq<A: de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(item) = seq.next_element()? {
                out.push(item);
            }
            Ok(out)
        }
    }

    deserializer.deserialize_any(OneOrMany(PhantomData))
}

/// A JSON array, inline or as a string of JSON; anything else is refused here, where the
/// parser still knows the line.
fn json_array<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<JsonArray, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let (value, original) = match value {
        Value::String(text) => {
            let parsed: Value = serde_json::from_str(&text).map_err(|e| {
                de::Error::custom(format!("bulk_json content is a string but not JSON: {e}"))
            })?;
            (parsed, text)
        }
        other => {
            let text = serde_json::to_string(&other).map_err(de::Error::custom)?;
            (other, text)
        }
    };
    match value {
        Value::Array(items) => Ok(JsonArray { items, original }),
        other => Err(de::Error::custom(format!(
            "bulk_json content must be a JSON array, not {}",
            kind(&other)
        ))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DigestFile> {
        DigestFile::parse(text, Path::new("d.yaml"))
    }

    #[test]
    fn every_field_is_optional_and_a_single_text_stands_for_a_list() {
        assert_eq!(parse("").unwrap(), DigestFile::default());
        assert_eq!(parse("{}").unwrap(), DigestFile::default());
        let file = parse("hard_constraints: never push to main\nlearnings:\n").unwrap();
        assert_eq!(file.hard_constraints, ["never push to main"]);
        assert!(file.learnings.is_empty());
        let file = parse("open_threads: {summary: s, detail: d}").unwrap();
        assert_eq!(file.open_threads[0].detail.as_deref(), Some("d"));
    }

    #[test]
    fn bulk_json_takes_an_inline_array_or_a_json_string() {
        let file = parse("bulk_json:\n  - name: a\n    content: [{x: 1}, {x: 2}]\n  - name: b\n    content: '[3, 4]'\n").unwrap();
        assert_eq!(file.bulk_json[0].content.items.len(), 2);
        assert_eq!(file.bulk_json[0].content.original, r#"[{"x":1},{"x":2}]"#);
        assert_eq!(file.bulk_json[1].content.original, "[3, 4]");
    }

    #[test]
    fn unknown_fields_and_wrong_shapes_are_refused_with_a_line() {
        for (text, needle) in [
            (
                "current_task: t\nnext_steps: [a]\n",
                "unknown field `next_steps`",
            ),
            (
                "open_threads:\n  - summary: s\n    details: d\n",
                "unknown field `details`",
            ),
            ("current_task: [a, b]\n", "invalid type"),
            ("tool_outputs:\n  - name: n\n", "missing field `content`"),
            (
                "bulk_json:\n  - name: n\n    content: {a: 1}\n",
                "must be a JSON array",
            ),
            (
                "bulk_json:\n  - name: n\n    content: 'not json'\n",
                "not JSON",
            ),
            ("- a\n- b\n", "invalid type"),
            ("current_task: \"unclosed\n", "d.yaml:"),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            assert!(err.message.contains(needle), "{text:?}: {}", err.message);
            assert!(err.message.starts_with("d.yaml:"), "{}", err.message);
        }
    }
}
