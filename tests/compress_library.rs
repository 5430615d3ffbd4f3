//! `compress::propose` is the one operation behind `brief compress`: a library user runs
//! it without the CLI (no spinner, no terminal) and gets the same proposal, saved in the
//! brief, with the call in the ledger; a refused item is refused before any request.

use std::fs;

use briefkit::brief::Brief;
use briefkit::cache::ledger::{Destination, Sinks};
use briefkit::compress::{self, Request, Unwatched};
use briefkit::provider::{CallOptions, Settings};
use briefkit::wire::Wire;

use crate::common::workspace;
use crate::loopback::{self, fixtures};

#[test]
fn a_library_user_proposes_through_the_same_operation_as_the_cli() {
    let ws = workspace("clinic");
    let server = loopback::Server::answering(|_| {
        let stream = fixtures::openai_stream(
            "A first visit: 45 minutes, €80; follow-ups 30 minutes. See https://harbour-physio.example.org/visit.",
            Some("stop"),
            Some(fixtures::OPENAI_USAGE),
            true,
        );
        loopback::Reply::sse(&stream, &[])
    });
    let brief = Brief::load(&ws.path().join("clinic")).unwrap();
    let compressor = compress::bundled().unwrap();
    let ledger = ws.path().join("usage.jsonl");
    let sinks = Sinks::new();
    let request = Request {
        brief: &brief,
        compressor: &compressor,
        settings: Settings::new(Wire::OpenAi, "test-model", server.url()),
        options: CallOptions::text(512),
        ledger: Destination::File(ledger.clone()),
        sinks: &sinks,
    };

    let refused = compress::propose(&request, "cancellations", &Unwatched).unwrap_err();
    assert_eq!(refused.exit_code(), 2, "{}", refused.message);
    assert!(server.requests().is_empty(), "a rule is never sent");

    let proposed = compress::propose(&request, "booking", &Unwatched).unwrap();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(proposed.proposal.item, "booking");
    assert!(
        proposed
            .path
            .starts_with(ws.path().join("clinic/proposals"))
    );
    let saved = fs::read_to_string(&proposed.path).unwrap();
    assert!(saved.contains(&proposed.proposal.id));
    assert!(
        proposed.summary.starts_with("`booking`: "),
        "{}",
        proposed.summary
    );
    let rows: Vec<serde_json::Value> = fs::read_to_string(&ledger)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "the call is in the ledger");
    assert_eq!(rows[0]["command"], "compress");
    assert_eq!(rows[0]["item"], "booking");
}
