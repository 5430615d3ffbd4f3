//! The envelopes the framework writes itself, rather than a sub-agent's model: a sub-agent
//! that could not do its work (`failed`, saying why), a search that found nothing, and the
//! sources a reading sub-agent cites. Each is valid against the envelope schema.

use serde::Serialize;
use serde_json::Value;

use crate::session::schema::Violation;

/// An envelope the framework writes itself (the keys in the envelope schema's order).
#[derive(Serialize)]
struct OwnEnvelope {
    status: &'static str,
    summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    sources: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    warnings: Option<Vec<String>>,
}

impl OwnEnvelope {
    fn value(self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The envelope of a sub-agent that could not do its work.
pub fn failed(summary: String, warnings: Vec<String>) -> Value {
    OwnEnvelope {
        status: "failed",
        summary,
        sources: None,
        warnings: Some(warnings),
    }
    .value()
}

/// The envelope of a sub-agent that completed with nothing to cite.
pub fn completed_empty(summary: String) -> Value {
    OwnEnvelope {
        status: "completed",
        summary,
        sources: Some(Vec::new()),
        warnings: None,
    }
    .value()
}

/// `sources` holds `url` (the envelope cites what it read).
pub(super) fn cite(envelope: &mut Value, urls: &[String]) {
    let Some(map) = envelope.as_object_mut() else {
        return;
    };
    let sources = map
        .entry("sources")
        .or_insert_with(|| Value::Array(Vec::new()));
    if !sources.is_array() {
        *sources = Value::Array(vec![sources.clone()]);
    }
    let list = sources.as_array_mut().expect("made an array");
    for url in urls {
        if !list.iter().any(|s| s.as_str() == Some(url.as_str())) {
            list.push(Value::from(url.as_str()));
        }
    }
}

/// The envelope of a sub-agent whose model answered with an invalid envelope twice.
pub(super) fn invalid_twice(violations: &[Violation]) -> Value {
    failed(
        "The sub-agent's model answered with an invalid result envelope twice.".into(),
        violations.iter().map(ToString::to_string).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::envelope;

    #[test]
    fn the_frameworks_own_envelopes_are_valid_with_their_keys_in_order() {
        let failed = failed("could not fetch".into(), vec!["refused".into()]);
        let empty = completed_empty("found nothing".into());
        for (envelope, keys) in [
            (&failed, ["status", "summary", "warnings"]),
            (&empty, ["status", "summary", "sources"]),
        ] {
            assert!(envelope::validate(envelope).is_empty(), "{envelope}");
            let got: Vec<&String> = envelope.as_object().unwrap().keys().collect();
            assert_eq!(got, keys);
        }
        assert_eq!(failed["warnings"][0], "refused");
        assert_eq!(empty["sources"], Value::Array(Vec::new()));
    }
}
