//! The briefs shipped in `briefs/` are locked and must stay clean: the README's quickstart
//! and the compressor (embedded in the binary) depend on them.

use crate::common::{run_in, stdout};
use crate::harness::argv;

/// The Quickstart's CI command exactly: `--strict` fails when a prefix moved since its lock,
/// so this also keeps the committed locks current.
#[test]
fn bundled_briefs_pass_a_strict_check() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = run_in(
        root,
        &argv(
            "check briefs/support briefs/compressor briefs/compaction briefs/fetch_url briefs/web_search_agent briefs/delegate_task --strict",
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn the_readme_quickstart_composes_the_example() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = run_in(
        root,
        &argv(
            "compose briefs/support --var date=2026-11-30 --var customer_name=Ada --var plan=Pro",
        ),
    );
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("You are Juniper"));
    assert!(text.trim_end().ends_with("they are on the\nPro plan."));
}
