//! Honest rewrites of every item of the bundled briefs (`briefs/*/items/*.md`), written by
//! hand for the guard's second layer: reworded (fronted clauses, passives, contractions,
//! `if …` carried as `for …`, `not resolved` as `unresolved`, `alone` as `only`) with
//! every fact and every constraint kept. Each must come out clean. The originals are
//! copies of the items' bodies at the time of writing, kept beside the rewrites so that
//! editing a bundled brief does not break this test.

use briefkit::guard::check;

macro_rules! pairs {
    ($($name:literal),* $(,)?) => {
        &[$((
            $name,
            include_str!(concat!("guard_rewrites/", $name, ".original.md")),
            include_str!(concat!("guard_rewrites/", $name, ".rewrite.md")),
        )),*]
    };
}

const PAIRS: &[(&str, &str, &str)] = pairs![
    "compaction-answer",
    "compaction-keep",
    "compaction-role",
    "compressor-answer",
    "compressor-keep",
    "compressor-remove",
    "compressor-role",
    "support-escalation",
    "support-example-refund",
    "support-identity",
    "support-refunds",
    "support-returns",
    "support-shipping",
    "support-today",
    "support-tone",
];

#[test]
fn honest_rewrites_of_every_bundled_item_are_clean() {
    let mut failures = Vec::new();
    for (name, original, rewrite) in PAIRS {
        let report = check(original, rewrite);
        if !report.is_clean() {
            failures.push(format!(
                "{name}: {}\n{:#?}",
                report.summary(),
                report.flag_lines()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The second layer still sees these texts: flipping one constraint word of each rewrite
/// is flagged, so the quiet above is not blindness.
#[test]
fn the_same_rewrites_with_one_constraint_flipped_are_flagged() {
    let flips = [
        (
            "support-refunds",
            "Never refund shipping",
            "Always refund shipping",
        ),
        ("support-shipping", "available only to", "available to"),
        (
            "support-tone",
            "never more than 120 words",
            "at least 120 words",
        ),
        (
            "support-returns",
            "cannot be returned at all",
            "can be returned",
        ),
        ("compaction-keep", "Name each file", "Never name a file"),
        (
            "compressor-answer",
            "If nothing can be removed",
            "Unless nothing can be removed",
        ),
        ("support-escalation", "above $150.00", "below $150.00"),
    ];
    for (name, from, to) in flips {
        let (_, original, rewrite) = PAIRS.iter().find(|p| p.0 == name).expect("pair");
        assert!(
            rewrite.contains(from),
            "{name}: `{from}` not in the rewrite"
        );
        let flipped = rewrite.replace(from, to);
        let report = check(original, &flipped);
        assert!(
            !report.changed.is_empty(),
            "{name}: `{from}` → `{to}` was not flagged: {}",
            report.summary()
        );
    }
}
