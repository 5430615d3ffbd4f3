//! The one JSON document a report is, rendered in one place for both edges: `brief …
//! --json` prints it and the MCP tool of the same operation returns it, so the two are the
//! same bytes by construction, not by two serialisers kept in step.
//!
//! A document is one object whose first two keys are `status` (a word from the README's
//! status table) and `summary` (one sentence); the report's own fields follow. Domain
//! reports implement [`Document`]; the CLI adds their human form in `cli/`.

use serde::Serialize;

use crate::error::{Error, Result};

/// A report's status word and summary; its `Serialize` gives the fields that follow them.
pub trait Document: Serialize {
    /// The first key: a word from the README's status table.
    fn status(&self) -> &str;
    /// The second: one sentence for a person or an agent.
    fn summary(&self) -> String;
}

/// A report with the contract's two leading keys; `body`'s own fields follow them.
#[derive(Debug, Serialize)]
pub struct Envelope<'a, T: Serialize + ?Sized> {
    pub status: &'a str,
    pub summary: &'a str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// The bytes of `document`'s JSON form as printed: pretty, with a final newline.
pub fn render<D: Document + ?Sized>(document: &D) -> Result<String> {
    text(&Envelope {
        status: document.status(),
        summary: &document.summary(),
        body: document,
    })
}

/// Any JSON value as the edges print it: pretty, with a final newline. A value that
/// cannot be serialised is a bug in briefkit (an internal error).
pub fn text<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::internal(format!("cannot render JSON: {e}")).with_source(e))?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Counted {
        count: u32,
        status_of_part: &'static str,
    }

    impl Document for Counted {
        fn status(&self) -> &str {
            "ok"
        }

        fn summary(&self) -> String {
            format!("{} counted", self.count)
        }
    }

    #[test]
    fn a_document_is_status_summary_then_its_fields_pretty_with_a_final_newline() {
        let text = render(&Counted {
            count: 2,
            status_of_part: "x",
        })
        .unwrap();
        assert_eq!(
            text,
            "{\n  \"status\": \"ok\",\n  \"summary\": \"2 counted\",\n  \"count\": 2,\n  \"status_of_part\": \"x\"\n}\n"
        );
    }
}
