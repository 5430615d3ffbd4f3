//! Each brief and store command is one library operation: a library user who calls it gets
//! the very document `brief X --json` prints (the report, led by its status and summary),
//! byte for byte, and `brief show` prints the body the operation returns.

use std::fs;
use std::path::Path;

use briefkit::brief::Problem;
use briefkit::cache::stats_report;
use briefkit::cli::output::Envelope;
use briefkit::compress::review;
use briefkit::error::{CountTopic, StoreTopic, Topic};
use briefkit::store::review::Which;
use briefkit::store::{change, inspect};
use briefkit::tokens::{Encoding, files};
use serde::Serialize;

use crate::common::store::write_proposal;
use crate::common::{run_in, stderr, stdout, workspace};
use crate::harness::assert_stderr_has;

const SHORT_BOOKING: &str = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.\n";

/// The library's report as the CLI prints it under `--json`.
fn document<T: Serialize>(status: &str, summary: &str, body: &T) -> String {
    let envelope = Envelope {
        status,
        summary,
        body,
    };
    serde_json::to_string_pretty(&envelope).unwrap() + "\n"
}

/// `brief ARGS` in `dir`, which must succeed: its stdout.
fn cli(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn ignore(_: &Problem) {}

#[test]
fn history_show_and_stats_give_a_library_user_the_documents_the_cli_prints() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let brief = dir.to_str().unwrap();
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    cli(ws.path(), &["accept", brief, &id]);

    let history = inspect::overview(&dir, "booking", &mut ignore).unwrap();
    assert_eq!(history.status, "ok");
    assert_eq!(history.versions.len(), 2);
    assert_eq!(
        document(history.status, &history.summary, &history),
        cli(ws.path(), &["history", brief, "booking", "--json"])
    );

    for version in [None, Some(1), Some(2)] {
        let shown = inspect::body(&dir, "booking", version, &mut ignore).unwrap();
        let mut args = vec!["show", brief, "booking"];
        let number = version.map(|n| n.to_string());
        if let Some(n) = &number {
            args.extend(["--version", n]);
        }
        assert_eq!(shown.body, cli(ws.path(), &args), "{args:?}");
    }
    let missing = inspect::body(&dir, "booking", Some(9), &mut ignore).unwrap_err();
    assert_eq!(missing.exit_code(), 2);
    assert!(
        missing.message.contains("versions 1 to 2"),
        "{}",
        missing.message
    );

    let stats = stats_report::stats(&dir, &mut ignore).unwrap();
    assert_eq!(
        document(stats.status, &stats.summary, &stats),
        cli(ws.path(), &["stats", brief, "--json"])
    );
}

#[test]
fn an_edited_body_and_its_record_read_the_same_from_the_library_and_the_cli() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let brief = dir.to_str().unwrap();
    let item = dir.join("items/persona.md");
    let text = fs::read_to_string(&item).unwrap();
    fs::write(&item, format!("{text}Never book by chat.\n")).unwrap();

    let history = inspect::overview(&dir, "persona", &mut ignore).unwrap();
    assert_eq!(history.status, "unversioned");
    assert_eq!(
        document(history.status, &history.summary, &history),
        cli(ws.path(), &["history", brief, "persona", "--json"])
    );

    let recorded = change::record(&dir, "persona", None, &mut ignore).unwrap();
    assert_eq!(recorded.status, "recorded");
    assert_eq!(recorded.version, Some(1));
    // Recording again writes nothing: both edges say so in the same words.
    let again = change::record(&dir, "persona", None, &mut ignore).unwrap();
    assert_eq!(again.status, "unchanged");
    assert_eq!(
        document(again.status, &again.summary, &again),
        cli(ws.path(), &["record", brief, "persona", "--json"])
    );

    let comparison = inspect::compare(&dir, "persona", None, None, &mut ignore).unwrap();
    assert_eq!(comparison.old, comparison.new);
    assert_eq!(comparison.to_label(), "the current file");
}

#[test]
fn pending_proposals_a_review_and_a_discard_are_the_same_documents_as_the_cli_prints() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let brief = dir.to_str().unwrap();
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);

    let pending = review::pending(&dir, &mut ignore).unwrap();
    assert_eq!(pending.proposals.len(), 1);
    assert_eq!(
        document(pending.status, &pending.summary, &pending),
        cli(ws.path(), &["proposals", brief, "--json"])
    );

    let reviewed = review::review(&dir, &id, &mut ignore).unwrap();
    assert!(!reviewed.stale);
    assert_eq!(
        document(reviewed.status, &reviewed.summary, &reviewed),
        cli(ws.path(), &["review", brief, &id, "--json"])
    );

    let none_stale = briefkit::store::review::discard(&dir, Which::Stale, &mut ignore).unwrap();
    assert_eq!(none_stale.status(), "nothing");
    assert_eq!(
        document(none_stale.status(), &none_stale.summary(), &none_stale),
        cli(ws.path(), &["discard", brief, "--stale", "--json"])
    );
    let gone = briefkit::store::review::discard(&dir, Which::One(id.clone()), &mut ignore).unwrap();
    assert_eq!(gone.status(), "discarded");
    assert!(!dir.join("proposals").join(format!("{id}.yaml")).exists());
}

#[test]
fn lock_and_count_give_a_library_user_the_documents_the_cli_prints() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let brief = dir.to_str().unwrap();
    let first = briefkit::prompt::lock::write(&dir, &mut ignore).unwrap();
    assert!(!first.changed);
    // The lock is written again with the same content: unchanged at both edges.
    let again = briefkit::prompt::lock::write(&dir, &mut ignore).unwrap();
    assert_eq!(
        document(again.status(), &again.summary(), &again),
        cli(ws.path(), &["lock", brief, "--json"])
    );

    let item = dir.join("items/booking.md");
    let counts = files::count_files(Encoding::O200kBase, std::slice::from_ref(&item)).unwrap();
    assert_eq!(
        document(counts.status(), &counts.summary(), &counts),
        cli(ws.path(), &["count", item.to_str().unwrap(), "--json"])
    );
}

#[test]
fn advice_naming_commands_is_the_cli_s_while_the_library_error_carries_its_topic() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let brief = dir.to_str().unwrap();

    let missing = inspect::body(&dir, "booking", Some(3), &mut ignore).unwrap_err();
    assert_eq!(missing.hint, None, "no command line in the library's words");
    assert!(matches!(
        missing.topic(),
        Some(Topic::Store(StoreTopic::History { item, .. })) if item == "booking"
    ));
    let out = run_in(ws.path(), &["show", brief, "booking", "--version", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("see `brief history {brief} booking`")),
        "{}",
        stderr(&out)
    );
    let out = run_in(ws.path(), &["restore", brief, "booking", "3", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        crate::common::json(&out)["error"]["hint"],
        format!("see `brief history {brief} booking`")
    );

    let latin1 = ws.path().join("latin1.txt");
    fs::write(&latin1, b"caf\xe9\n").unwrap();
    let refused =
        files::count_files(Encoding::O200kBase, std::slice::from_ref(&latin1)).unwrap_err();
    assert_eq!(refused.hint, None);
    assert_eq!(refused.topic(), Some(&Topic::Count(CountTopic::NotUtf8)));
    let out = run_in(ws.path(), &["count", "latin1.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(
        &out,
        "hint: brief count counts text: convert it to UTF-8 first",
    );

    let nothing = inspect::compare(&dir, "booking", None, None, &mut ignore).unwrap_err();
    assert_eq!(nothing.hint, None);
    let out = run_in(ws.path(), &["diff", brief, "booking"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "version the current body with `brief record {brief} booking`"
        )),
        "{}",
        stderr(&out)
    );
}
