//! Tool input schemas as the providers judge them, before a request is ever sent.
//!
//! A loopback stand-in accepts any `input_schema`; OpenAI and Anthropic reject a schema
//! that is not valid JSON Schema (Anthropic names draft 2020-12) and one that breaks their
//! own rules for tools, and they do so only at request time, for every request. So `brief
//! check` holds each tool to:
//! - the JSON Schema metaschema of its `$schema` (draft 2020-12 when it names none),
//!   checked with `boon`, which resolves nothing outside the schema;
//! - both providers' rules: the top level is `type: object` and not a `oneOf`/`anyOf`/
//!   `allOf` (OpenAI also refuses `enum`/`not` there, and descriptions over 1,024
//!   characters), and every `type` names a JSON type;
//! - and one mistake no validator reports: `required` naming a property the schema does
//!   not define, which tells the model to send a field it knows nothing about.
//!
//! Each problem carries the path to its value in the tool file, which [`locate`] turns
//! into a line and column.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::wire::ToolDef;

mod locate;
mod metaschema;
pub use locate::locate;

/// Who rejects a schema with this problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RejectedBy {
    /// Every provider: the schema is not valid JSON Schema, or breaks a rule both share.
    Every,
    OpenAi,
    Anthropic,
}

/// One step of a path into the tool file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// One problem of a tool's definition, at `path` (from the top of the tool file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    pub path: Vec<Step>,
    pub message: String,
    pub rejected_by: RejectedBy,
}

/// OpenAI's limit on a function's description, in characters.
pub const OPENAI_MAX_DESCRIPTION: usize = 1024;

/// The type names JSON Schema knows.
const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Every problem of `tool`'s definition, in the order of the file.
pub fn problems(tool: &ToolDef) -> Vec<SchemaProblem> {
    let mut out = Vec::new();
    let chars = tool.description.chars().count();
    if chars > OPENAI_MAX_DESCRIPTION {
        out.push(SchemaProblem {
            path: vec![Step::Key("description".into())],
            message: format!(
                "the description is {chars} characters; OpenAI rejects a function description over {OPENAI_MAX_DESCRIPTION}"
            ),
            rejected_by: RejectedBy::OpenAi,
        });
    }
    let root = vec![Step::Key("input_schema".into())];
    let Value::Object(schema) = &tool.input_schema else {
        return out;
    };
    top_level(schema, &root, &mut out);
    walk(schema, &root, &mut out);
    metaschema::check(&tool.input_schema, &root, &mut out);
    out
}

pub(super) fn at(path: &[Step], key: &str) -> Vec<Step> {
    let mut path = path.to_vec();
    path.push(Step::Key(key.to_string()));
    path
}

pub(super) fn problem(path: Vec<Step>, rejected_by: RejectedBy, message: String) -> SchemaProblem {
    SchemaProblem {
        path,
        message,
        rejected_by,
    }
}

/// The providers' rules for the top level of a tool's input schema.
fn top_level(schema: &Map<String, Value>, root: &[Step], out: &mut Vec<SchemaProblem>) {
    match schema.get("type") {
        None => out.push(problem(
            root.to_vec(),
            RejectedBy::Every,
            "the input schema has no `type`: OpenAI and Anthropic require `type: object` at its top level".into(),
        )),
        Some(Value::String(t)) if t == "object" => {}
        // Not a type at all: `check_types` says so, with the type it looks like.
        Some(Value::String(t)) if !TYPES.contains(&t.as_str()) => {}
        Some(other) => out.push(problem(
            at(root, "type"),
            RejectedBy::Every,
            format!(
                "the input schema's top-level `type` is {}: OpenAI and Anthropic require `object` (a tool takes named arguments)",
                short(other)
            ),
        )),
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if schema.contains_key(keyword) {
            out.push(problem(
                at(root, keyword),
                RejectedBy::Every,
                format!(
                    "`{keyword}` at the top level of an input schema: OpenAI and Anthropic reject it; move the alternatives into a property"
                ),
            ));
        }
    }
    for keyword in ["enum", "not"] {
        if schema.contains_key(keyword) {
            out.push(problem(
                at(root, keyword),
                RejectedBy::OpenAi,
                format!("`{keyword}` at the top level of an input schema: OpenAI rejects it"),
            ));
        }
    }
}

/// Keywords whose value is one subschema, a list of them, or a map of them.
const ONE: [&str; 10] = [
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `type` names and `required` lists of `schema` and every subschema in it.
fn walk(schema: &Map<String, Value>, path: &[Step], out: &mut Vec<SchemaProblem>) {
    check_types(schema, path, out);
    check_required(schema, path, out);
    let mut visit = |value: &Value, path: Vec<Step>| {
        if let Value::Object(sub) = value {
            walk(sub, &path, out);
        }
    };
    for keyword in ONE {
        if let Some(value) = schema.get(keyword) {
            match value {
                // `items` as a list is the older drafts' tuple form.
                Value::Array(list) => {
                    for (i, v) in list.iter().enumerate() {
                        let mut p = at(path, keyword);
                        p.push(Step::Index(i));
                        visit(v, p);
                    }
                }
                v => visit(v, at(path, keyword)),
            }
        }
    }
    for keyword in LIST {
        if let Some(Value::Array(list)) = schema.get(keyword) {
            for (i, v) in list.iter().enumerate() {
                let mut p = at(path, keyword);
                p.push(Step::Index(i));
                visit(v, p);
            }
        }
    }
    for keyword in MAP {
        if let Some(Value::Object(map)) = schema.get(keyword) {
            for (name, v) in map {
                let mut p = at(path, keyword);
                p.push(Step::Key(name.clone()));
                visit(v, p);
            }
        }
    }
}

fn check_types(schema: &Map<String, Value>, path: &[Step], out: &mut Vec<SchemaProblem>) {
    let Some(value) = schema.get("type") else {
        return;
    };
    let mut report = |name: &str, path: Vec<Step>| {
        let hint = closest(name, &TYPES)
            .map(|t| format!(" (did you mean `{t}`?)"))
            .unwrap_or_default();
        out.push(problem(
            path,
            RejectedBy::Every,
            format!(
                "`type: {name}` is not a JSON Schema type{hint}; the types are {}",
                TYPES.join(", ")
            ),
        ));
    };
    match value {
        Value::String(name) if !TYPES.contains(&name.as_str()) => report(name, at(path, "type")),
        Value::Array(names) => {
            for (i, name) in names.iter().enumerate() {
                if let Value::String(name) = name
                    && !TYPES.contains(&name.as_str())
                {
                    let mut p = at(path, "type");
                    p.push(Step::Index(i));
                    report(name, p);
                }
            }
        }
        _ => {}
    }
}

fn check_required(schema: &Map<String, Value>, path: &[Step], out: &mut Vec<SchemaProblem>) {
    let (Some(Value::Array(required)), Some(Value::Object(properties))) =
        (schema.get("required"), schema.get("properties"))
    else {
        return;
    };
    if schema.contains_key("patternProperties") {
        return;
    }
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    for (i, name) in required.iter().enumerate() {
        let Value::String(name) = name else { continue };
        if properties.contains_key(name) {
            continue;
        }
        let hint = closest(name, &names)
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        let mut p = at(path, "required");
        p.push(Step::Index(i));
        out.push(problem(
            p,
            RejectedBy::Every,
            format!(
                "`required` names `{name}`, which `properties` does not define{hint}: the model would be told to send an argument it knows nothing about"
            ),
        ));
    }
}

/// `"objekt"`, `3`, `[…]`: a value as a message quotes it.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// The candidate nearest to `word` by edit distance, when near enough to be a typo.
fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // A cut-short name (`bool`, `int`) reads as its candidate too.
    if word.len() >= 3
        && let Some(c) = candidates.iter().find(|c| c.starts_with(word))
    {
        return Some(c);
    }
    candidates
        .iter()
        .map(|c| (strsim(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance of two short words.
fn strsim(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(current + 1);
            previous = current;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests;
