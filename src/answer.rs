//! The shape every answer has at every edge: `status` (a word), `summary` (one sentence),
//! then the operation's own fields. A domain operation returns a typed report that
//! implements [`Answer`]; the CLI prints [`Answer::document`] for `--json` and the MCP
//! server returns the same document, so the two edges give the same bytes for the same
//! operation. This module is a leaf: it knows serde and nothing of the terminal or MCP.

use serde::Serialize;

/// A report's status word and summary; its `Serialize` gives the fields that follow them.
pub trait Answer: Serialize {
    /// The first key of the document: a word from the README's status table.
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

/// The whole document of `answer` as a JSON value (keys in their order).
pub fn document<A: Answer + ?Sized>(answer: &A) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(Envelope {
        status: answer.status(),
        summary: &answer.summary(),
        body: answer,
    })
}
