//! What the user of the command line can do about an error, in this edge's words: its
//! flags, its commands and the files it reads. Domain errors carry a [`Topic`] instead of
//! advice that names flags (an MCP caller has none); this is where the CLI's words for each
//! topic live (the MCP server has its own, in `crate::mcp::tools`).

use crate::error::{Error, Origin, Topic};

/// `err` with the CLI's hint for its topic, when it has one.
pub fn attach(err: Error) -> Error {
    match err.topic().and_then(hint) {
        Some(hint) => err.with_hint(hint),
        None => err,
    }
}

fn hint(topic: &Topic) -> Option<String> {
    Some(match topic {
        Topic::NoModel { wire } => format!(
            "pass --model NAME, or set `model: {{ provider: {wire}, name: NAME }}` in brief.yaml"
        ),
        Topic::NoApiKey { wire } => format!(
            "export {}=...; keys are read only from the environment",
            wire.key_var()
        ),
        Topic::BadBaseUrl { wire, from } => match from {
            Origin::Environment => format!(
                "fix {} or pass --base-url https://host/path",
                wire.base_url_var()
            ),
            Origin::Brief => {
                "fix `model.base_url` in brief.yaml or pass --base-url https://host/path".into()
            }
            _ => format!(
                "pass an http(s) base URL, e.g. {} (or fix {})",
                wire.default_base_url(),
                wire.base_url_var()
            ),
        },
        Topic::Unreachable { wire } => format!(
            "check --base-url or {} and the network",
            wire.base_url_var()
        ),
        // Only an MCP tool call names a base URL of its own.
        Topic::BaseUrlNotAllowed { .. } => return None,
    })
}
