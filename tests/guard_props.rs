//! Properties of the guard that must hold for any text, not only for the examples in
//! the table: a text against itself is clean, more text in a proposal never adds a
//! dropped flag, removing a fact's only occurrence always flags it, nothing panics.

use std::collections::BTreeSet;

use briefkit::guard::{Fact, check, facts};
use proptest::prelude::*;

/// Pieces of text that exercise every pass and its edge cases; arbitrary sequences of
/// them make brief-like (and broken) Markdown.
fn fragment() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "the agent",
        " must ",
        "refund",
        " ",
        "\n",
        "\n\n",
        "\r\n",
        "`",
        "``",
        "```",
        "~~~",
        "```sh\n",
        "$",
        "€",
        "£",
        "USD",
        " EUR",
        "1,200",
        "1,2",
        "15%",
        " percent",
        "5",
        "0.5",
        "45K",
        "-",
        "–",
        " to ",
        "/mo",
        " per seat",
        "https://",
        "www.",
        "example.com",
        "/a",
        "(",
        ")",
        "[",
        "]",
        "{{",
        "}}",
        "{%",
        "%}",
        "${",
        "}",
        "@",
        "user",
        ".",
        ",",
        ":",
        "2024-05-15",
        "15:00:00",
        "3 PM",
        "v2.3.1",
        "127.0.0.1",
        "1. ",
        "## 2. ",
        "> ",
        "- ",
        "\\",
        "#",
        "five",
        "twenty",
        "naïve",
        "日本",
        "🙂",
        "\t",
        "_",
        "x86_64",
    ]);
    prop_oneof![
        8 => fixed.prop_map(str::to_string),
        1 => "[a-z0-9 ]{1,8}",
        1 => any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn brief_like() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..60).prop_map(|parts| parts.concat())
}

fn dropped_keys(original: &str, proposal: &str) -> BTreeSet<(String, String)> {
    check(original, proposal)
        .dropped
        .into_iter()
        .map(|f| (f.kind.name().to_string(), f.canonical))
        .collect()
}

/// Every fact's position and value agree with its text.
fn positions_hold(text: &str, all: &[Fact]) -> Result<(), TestCaseError> {
    for fact in all {
        prop_assert_eq!(
            text.get(fact.offset..fact.offset + fact.value.len()),
            Some(fact.value.as_str())
        );
        let before = &text[..fact.offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        prop_assert_eq!((fact.line, fact.column), (line, column));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_text_checked_against_itself_is_clean(text in brief_like()) {
        // Identical texts skip the second layer; a copy with a trailing newline is read
        // in full, so the property also holds for the sentence comparison.
        for copy in [text.clone(), format!("{text}\n")] {
            let report = check(&text, &copy);
            prop_assert!(report.dropped.is_empty(), "dropped {:?}", report.dropped);
            prop_assert!(report.introduced.is_empty(), "introduced {:?}", report.introduced);
            prop_assert!(report.changed.is_empty(), "changed {:?}", report.changed);
        }
    }

    #[test]
    fn adding_text_to_a_proposal_never_adds_a_dropped_flag(
        parts in prop::collection::vec((fragment(), any::<bool>()), 0..60),
        extra in brief_like(),
    ) {
        // The proposal keeps a random subset of the original's pieces, so that most of
        // its facts survive and a flag the extra text added would show.
        let original: String = parts.iter().map(|(p, _)| p.as_str()).collect();
        let proposal: String = parts.iter().filter(|(_, keep)| *keep).map(|(p, _)| p.as_str()).collect();
        let before = dropped_keys(&original, &proposal);
        let after = dropped_keys(&original, &format!("{proposal}\n\n{extra}"));
        prop_assert!(after.is_subset(&before), "before {:?}\nafter {:?}", before, after);
    }

    #[test]
    fn arbitrary_input_never_panics(a in any::<String>(), b in brief_like()) {
        let _ = check(&a, &b);
        let _ = check(&b, &a);
        positions_hold(&a, &facts(&a))?;
        positions_hold(&b, &facts(&b))?;
    }
}

/// One fact of a given kind, distinct from every other fact the generator makes (`i` is
/// its index) so that removing it leaves no other spelling of it behind.
fn distinct_fact(kind: usize, i: usize, salt: u16) -> (&'static str, String) {
    let n = 1000 + i * 97 + usize::from(salt % 50);
    match kind % 8 {
        0 => ("number", n.to_string()),
        1 => ("price", format!("${n}")),
        2 => ("url", format!("https://site{i}.example.com/p{salt}")),
        3 => ("email", format!("desk{i}.{salt}@example.org")),
        4 => ("placeholder", format!("{{{{slot_{i}_{salt}}}}}")),
        5 => ("inline_code", format!("`tool_{i}_{salt}`")),
        6 => (
            "date",
            format!("{}-0{}-1{}", 2000 + i, 1 + salt % 9, salt % 10),
        ),
        _ => ("number", format!("{}%", 21 + i * 3)),
    }
}

const FILLER: [&str; 4] = [
    "Please check this before replying:",
    "and remember the limit",
    "as the policy says",
    "then confirm with the customer",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn removing_a_facts_only_occurrence_always_flags_it(
        kinds in prop::collection::vec(0usize..8, 1..10),
        salt in any::<u16>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let planted: Vec<(&str, String)> = kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| distinct_fact(*kind, i, salt))
            .collect();
        let sentence = |skip: Option<usize>| {
            planted
                .iter()
                .enumerate()
                .map(|(i, (_, value))| {
                    let value = if Some(i) == skip { "it" } else { value.as_str() };
                    format!("{} {value} {}.", FILLER[i % 4], FILLER[(i + 1) % 4])
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let k = pick.index(planted.len());
        let original = sentence(None);
        let report = check(&original, &sentence(Some(k)));
        let dropped: Vec<(&str, &str)> = report
            .dropped
            .iter()
            .map(|f| (f.kind.name(), f.value.as_str()))
            .collect();
        prop_assert_eq!(dropped, vec![(planted[k].0, planted[k].1.as_str())]);
        prop_assert!(report.introduced.is_empty());
    }
}

/// Sentences with values and constraint words, for the second layer's properties.
fn rule() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "Never refund shipping on orders over $75.",
        "You must verify the caller's identity.",
        "Only gold members get 3 free bags.",
        "Reply in English unless the user writes in French.",
        "Do not promise a refund before the lookup.",
        "Refunds are possible within 30 days of delivery.",
        "After 30 days, offer store credit instead.",
        "Attachments may be up to 10 MB each.",
        "Always ask at most two questions.",
        "If the parcel is late, apologise first.",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn rules_checked_against_themselves_change_nothing(rules in prop::collection::vec(rule(), 1..8)) {
        let text = rules.join(" ");
        for copy in [text.clone(), format!("{text}\n")] {
            let report = check(&text, &copy);
            prop_assert!(report.is_clean(), "{:?}", report.changed);
        }
    }

    #[test]
    fn a_whitespace_only_variant_is_clean(
        rules in prop::collection::vec(rule(), 1..8),
        gaps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\n", " \n"]), 8),
    ) {
        let text = rules.join(" ");
        let mut n = 0;
        let spaced: String = text
            .split(' ')
            .collect::<Vec<_>>()
            .join("\u{0}")
            .chars()
            .map(|c| if c == '\u{0}' { n += 1; gaps[n % gaps.len()].to_string() } else { c.to_string() })
            .collect();
        let report = check(&text, &spaced);
        prop_assert!(report.is_clean(), "{spaced:?}\n{:?}\n{:?}", report.dropped, report.changed);
    }

    #[test]
    fn a_reordered_list_is_clean(rules in prop::collection::vec(rule(), 1..8), seed in any::<u64>()) {
        let list: Vec<String> = rules.iter().map(|r| format!("- {r}")).collect();
        let mut shuffled = list.clone();
        let len = shuffled.len();
        for i in (1..len).rev() {
            let j = (seed as usize).wrapping_mul(i + 7) % (i + 1);
            shuffled.swap(i, j);
        }
        let report = check(&list.join("\n"), &shuffled.join("\n"));
        prop_assert!(report.is_clean(), "{shuffled:?}\n{:?}", report.changed);
    }
}

/// A value ends at its line: the word after a line break is not its unit, counted noun or
/// bound. Reading it was whitespace-dependent (`0⏎J+` took `J+` for a lower bound on
/// joules that `0⏎  J+` did not), so a list item's indented continuation line — the
/// digest lays rules out that way — read as a lost bound (failed the digest property).
#[test]
fn a_word_on_the_next_line_is_no_part_of_a_value_however_indented() {
    for (original, proposal) in [
        ("0\nJ+", "0\n  J+"),
        ("0\nJ+", "- 0\n  J+\n"),
        ("0\n$+0", "- 0\n  $+0\n"),
        ("Keep 5\nMB+ free", "Keep 5\n   MB+ free"),
    ] {
        let report = briefkit::guard::check(original, proposal);
        assert!(
            report.is_clean(),
            "{original:?} → {proposal:?}: {}",
            report.summary()
        );
    }
    // On one line the bound is still read and its loss still reported.
    let report = briefkit::guard::check(
        "Guests must be 18+ years old.",
        "Guests must be 18 years old.",
    );
    assert!(!report.is_clean(), "{}", report.summary());
}
