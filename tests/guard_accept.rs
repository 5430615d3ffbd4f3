//! `accept` treats a changed binding like a dropped fact: refused (exit 1, nothing
//! written) without `--allow-flags`, and with it the change is recorded in the version.

use std::fs;

use crate::common::store::{content_tree, write_proposal};
use crate::common::{run_in, stderr, workspace};
use crate::harness::assert_exit;

#[test]
fn a_proposal_that_only_changed_a_unit_needs_allow_flags_and_records_the_change() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    // Every fact survives: 45, €80, 30 and the URL are all there; only `minutes` became
    // `hours`.
    let id = write_proposal(
        &dir,
        "booking",
        "## Booking\n\nA first visit takes 45 hours and costs €80; follow-ups take 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.\n",
        &[],
        1,
    );
    let tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_exit(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("changed"), "{err}");
    assert!(err.contains("`minutes` became `hours`"), "{err}");
    assert!(err.contains("--allow-flags"), "{err}");
    assert_eq!(content_tree(ws.path()), tree);

    let out = run_in(ws.path(), &["accept", "clinic", &id, "--allow-flags"]);
    assert_exit(&out, 0);
    let v2 = fs::read_to_string(dir.join("history/booking/0002.md")).unwrap();
    assert!(
        v2.contains(
            "accepted_flags:\n- 'changed unit: unit `minutes` became `hours` (clinic/items/booking.md:6:21)'"
        ),
        "{v2}"
    );
}
