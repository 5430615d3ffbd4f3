//! Properties of the guard's third layer: deleting any instruction-bearing unit of a
//! bundled brief's item is flagged (so the quiet of the honest rewrites is not blindness),
//! and a text against itself, against a whitespace variant or with its list reordered is
//! clean.

use std::path::Path;

use briefkit::guard::{check, instructions};
use proptest::prelude::*;

/// The body of every Markdown item of the bundled briefs (`briefs/*/items/*.md`), read
/// from the repository, with its file name.
fn bundled_bodies() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("briefs");
    let mut out = Vec::new();
    let mut briefs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    briefs.sort();
    for brief in briefs {
        let mut items: Vec<_> = std::fs::read_dir(brief.join("items"))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        items.sort();
        for item in items
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
        {
            let text = std::fs::read_to_string(&item).unwrap_or_default();
            // The body: after the closing `---` of the front matter.
            let body = text
                .strip_prefix("---\n")
                .and_then(|rest| rest.split_once("\n---\n"))
                .map_or(text.as_str(), |(_, body)| body);
            out.push((item.display().to_string(), body.to_string()));
        }
    }
    assert!(
        out.len() >= 10,
        "bundled items not found under {}",
        root.display()
    );
    out
}

/// Every instruction of every bundled item, as (item, body, start, end), skipping a unit
/// whose words the item says twice (a repeat is covered by its copy).
fn units() -> Vec<(String, String, usize, usize)> {
    let mut out = Vec::new();
    for (name, body) in bundled_bodies() {
        let all = instructions(&body);
        for unit in &all {
            if all.iter().filter(|u| u.text == unit.text).count() > 1 {
                continue;
            }
            out.push((name.clone(), body.clone(), unit.start, unit.end));
        }
    }
    out
}

#[test]
fn the_bundled_items_have_instructions_to_delete() {
    let all = units();
    assert!(all.len() >= 30, "{} units", all.len());
}

#[test]
fn deleting_any_instruction_of_a_bundled_item_is_flagged() {
    let mut failures = Vec::new();
    for (name, body, start, end) in units() {
        let proposal = format!("{}{}", &body[..start], &body[end..]);
        let report = check(&body, &proposal);
        if report.is_clean() {
            failures.push(format!(
                "{name}: deleting `{}` stayed clean",
                &body[start..end]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Replaces each single space between two words of `text` with one of `gaps` in turn,
/// outside code spans and placeholders (whose spacing is part of the fact); indentation
/// stays (a line break there would end a list item).
fn respaced(text: &str, gaps: &[&str]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut n, mut code, mut braces) = (0, false, 0usize);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let between = i > 0
            && i + 1 < chars.len()
            && !chars[i - 1].is_whitespace()
            && !chars[i + 1].is_whitespace();
        match c {
            '`' => code = !code,
            '{' => braces += 1,
            '}' => braces = braces.saturating_sub(1),
            _ => {}
        }
        if c == ' ' && between && !code && braces == 0 {
            out.push_str(gaps[n % gaps.len()]);
            n += 1;
        } else {
            out.push(c);
        }
    }
    out
}

/// Sentences an agent's brief is made of: imperatives, limits in digits and words,
/// identifiers, conditions, lists.
fn rule() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "Never promise a delivery date to the customer.",
        "Call lookup_order before you answer any question about an order.",
        "A booking holds at most five passengers.",
        "Refunds take 5 business days.",
        "Use the customer's first name.",
        "Do not give medical, legal, financial or tax advice.",
        "Only managers may approve price matches.",
        "If the parcel is late, apologise first.",
        "You must log every refund in the ledger.",
        "Run `cargo test` before every commit.",
        "Read the key from OPENAI_API_KEY and never print it.",
        "Keep the summary under a hundred words if at all possible.",
        "Retry a failed call twice, then escalate.",
        "Unless the customer asks, do not mention seat upgrades.",
        "You are Nova, the booking assistant of Skyline Air.",
    ])
    .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn deleting_a_random_instruction_stays_flagged_after_respacing(
        pick in any::<prop::sample::Index>(),
        gaps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\n", " \n"]), 1..6),
    ) {
        let all = units();
        let (name, body, start, end) = &all[pick.index(all.len())];
        let proposal = respaced(&format!("{}{}", &body[..*start], &body[*end..]), &gaps);
        let report = check(body, &proposal);
        prop_assert!(!report.is_clean(), "{name}: deleting `{}` stayed clean", &body[*start..*end]);
    }

    #[test]
    fn a_bundled_item_against_itself_or_respaced_is_clean(
        pick in any::<prop::sample::Index>(),
        gaps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\n", " \n"]), 1..6),
    ) {
        let bodies = bundled_bodies();
        let (name, body) = &bodies[pick.index(bodies.len())];
        for proposal in [body.clone(), format!("{body}\n"), respaced(body, &gaps)] {
            let report = check(body, &proposal);
            prop_assert!(report.is_clean(), "{name}: {}\n{:#?}", report.summary(), report.flag_lines());
            prop_assert_eq!(report.coverage.kept, report.coverage.instructions);
        }
    }

    #[test]
    fn rules_against_themselves_respaced_or_reordered_are_clean(
        rules in prop::collection::vec(rule(), 1..8),
        gaps in prop::collection::vec(prop::sample::select(vec![" ", "  ", "\n", " \n"]), 1..6),
        seed in any::<u64>(),
    ) {
        let text = rules.join(" ");
        let list: Vec<String> = rules.iter().map(|r| format!("- {r}")).collect();
        let mut shuffled = list.clone();
        for i in (1..shuffled.len()).rev() {
            let j = (seed as usize).wrapping_mul(i + 7) % (i + 1);
            shuffled.swap(i, j);
        }
        let pairs = [
            (text.clone(), text.clone()),
            (text.clone(), respaced(&text, &gaps)),
            (list.join("\n"), shuffled.join("\n")),
        ];
        for (original, proposal) in pairs {
            let report = check(&original, &proposal);
            prop_assert!(report.is_clean(), "{proposal:?}\n{}\n{:#?}", report.summary(), report.flag_lines());
        }
    }

    #[test]
    fn dropping_one_rule_of_a_list_flags_it(
        rules in prop::collection::vec(rule(), 2..8),
        pick in any::<prop::sample::Index>(),
    ) {
        let mut distinct = rules.clone();
        distinct.sort();
        distinct.dedup();
        prop_assume!(distinct.len() >= 2);
        let k = pick.index(distinct.len());
        let original: Vec<String> = distinct.iter().map(|r| format!("- {r}")).collect();
        let kept: Vec<String> = original
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, r)| r.clone())
            .collect();
        let report = check(&original.join("\n"), &kept.join("\n"));
        prop_assert!(!report.is_clean(), "dropping `{}` stayed clean", distinct[k]);
        // An instruction is named at its line; a statement (`Refunds take 5 business
        // days.`) is flagged by its facts.
        if !instructions(&distinct[k]).is_empty() {
            prop_assert!(
                report.dropped_instructions.iter().any(|d| d.line == k + 1),
                "dropping `{}`: {:#?}", distinct[k], report.dropped_instructions
            );
        }
    }
}
