//! The sub-agent result envelope and the compacted state: the two JSON documents a
//! session takes from a model, each checked against its schema in `schemas/`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

use super::schema::{self, Violation};
use crate::document::Document;
use crate::error::{Error, Location, Result, json_problem};
use crate::files::limits::SESSION_ENTRY;

pub const ENVELOPE_SCHEMA: &str = include_str!("../../../../schemas/subagent-envelope.schema.json");
pub const COMPACTED_STATE_SCHEMA: &str =
    include_str!("../../../../schemas/compacted-state.schema.json");

fn parsed(text: &'static str, cell: &'static OnceLock<Value>) -> &'static Value {
    cell.get_or_init(|| serde_json::from_str(text).expect("the bundled schema is JSON"))
}

pub fn envelope_schema() -> &'static Value {
    static CELL: OnceLock<Value> = OnceLock::new();
    parsed(ENVELOPE_SCHEMA, &CELL)
}

pub fn compacted_state_schema() -> &'static Value {
    static CELL: OnceLock<Value> = OnceLock::new();
    parsed(COMPACTED_STATE_SCHEMA, &CELL)
}

/// Every way `value` is not a valid sub-agent result envelope.
pub fn validate(value: &Value) -> Vec<Violation> {
    schema::validate(envelope_schema(), value)
}

/// Every way `value` is not a valid `CompactedState`.
pub fn validate_compacted_state(value: &Value) -> Vec<Violation> {
    schema::validate(compacted_state_schema(), value)
}

/// `brief envelope validate`: every violation of the envelope schema in a file.
#[derive(Debug, Clone, Serialize)]
pub struct Validated {
    pub violations: Vec<Violation>,
    /// The file checked (`-`: stdin).
    #[serde(skip)]
    pub file: PathBuf,
}

impl Document for Validated {
    fn status(&self) -> &str {
        if self.violations.is_empty() {
            "ok"
        } else {
            "invalid"
        }
    }

    fn summary(&self) -> String {
        match self.violations.len() {
            0 => "a valid sub-agent result envelope".to_string(),
            n => format!(
                "{n} violation{} of the envelope schema",
                if n == 1 { "" } else { "s" }
            ),
        }
    }
}

/// Checks the envelope in `file` (`-`: stdin; a regular file of UTF-8 within the session
/// entry limit). Text that is not JSON is an input error at its line.
pub fn validate_file(file: &Path) -> Result<Validated> {
    let text = crate::files::input::read_text(file, SESSION_ENTRY)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        let location = Location::new(file, e.line(), e.column(), json_problem(&e));
        // The position is said once, by the location (`file:line:column: problem`).
        Error::input(format!("{}: not JSON", file.display()))
            .with_locations([location])
            .with_hint(
                "an envelope is one JSON object, at least {\"status\": \"completed\", \"summary\": \"…\"} (schemas/subagent-envelope.schema.json)",
            )
    })?;
    Ok(Validated {
        violations: validate(&value),
        file: file.to_path_buf(),
    })
}

/// A model's answer as the JSON object `validate` accepts (an outer code fence and control
/// characters removed), or every reason it is not one: the one reader of the envelopes and
/// states models answer with.
pub fn parse_answer(
    answer: &str,
    validate: fn(&Value) -> Vec<Violation>,
) -> std::result::Result<Value, Vec<Violation>> {
    let clean = crate::compress::sanitize(answer, "");
    let value: Value = serde_json::from_str(clean.trim()).map_err(|e| {
        vec![Violation {
            pointer: String::new(),
            message: format!("not a JSON object: {e}"),
        }]
    })?;
    let violations = validate(&value);
    if violations.is_empty() {
        Ok(value)
    } else {
        Err(violations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_bundled_schemas_use_only_what_the_validator_implements() {
        assert!(schema::unsupported(envelope_schema()).is_empty());
        assert!(schema::unsupported(compacted_state_schema()).is_empty());
    }

    #[test]
    fn the_minimal_envelope_and_extensions_pass_and_a_bad_confidence_is_pointed_at() {
        assert!(validate(&json!({"status": "completed", "summary": "ok"})).is_empty());
        assert!(
            validate(
                &json!({"status": "completed", "summary": "ok", "sources": ["u"], "tests_run": 3})
            )
            .is_empty()
        );
        let got =
            validate(&json!({"summary": "", "findings": [{"finding": "x", "confidence": "sure"}]}));
        let pointers: Vec<&str> = got.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(pointers, ["/status", "/summary", "/findings/0/confidence"]);
    }
}
