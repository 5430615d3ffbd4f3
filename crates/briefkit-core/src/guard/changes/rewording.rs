//! How a constraint is said another way, and what a negation or condition governs: the
//! evidence `constraints.rs` asks for before it reports a constraint lost or added.

use super::super::lexicon::{ENGLISH, data};
use super::super::reading::{Constraints, Reading};
use super::constraints::{sentence_span, word_at};
use super::evidence::{kept_share, orders_in_time, words};

/// The content words right after the constraint word at `at` (lowercased, up to `n`,
/// within its clause): what a negation or condition governs.
pub(super) fn governed(text: &str, at: usize, n: usize) -> Vec<String> {
    const FUNCTION: &[&str] = &[
        "the", "any", "your", "our", "that", "this", "with", "for", "and", "not", "have", "has",
        "had", "been", "are", "will", "there", "you", "they", "was", "were", "can", "does",
    ];
    // The clause ends at punctuation, emphasis, a table cell's border or the main clause's
    // modal (`faked because the backend is not ready **must be logged**`).
    const MODALS: &[&str] = &["must", "should", "shall", "will", "may", "would", "could"];
    let rest = &text[at..];
    let rest = &rest[rest.find(char::is_whitespace).unwrap_or(rest.len())..];
    let clause = &rest[..rest
        .find(|c: char| ",.;:()!?*—–|".contains(c))
        .unwrap_or(rest.len())];
    clause
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .take_while(|w| !MODALS.iter().any(|m| w.eq_ignore_ascii_case(m)))
        .filter(|w| w.len() >= 3 && !FUNCTION.iter().any(|f| w.eq_ignore_ascii_case(f)))
        .take(n)
        .map(str::to_lowercase)
        .collect()
}

/// Whether the proposal sets things against each other (`over`, `>`, `rather than`)
/// where the original did not: a `not` said as a contrast (`even if not your preferred
/// approach` → `over preferred approach`).
pub(super) fn new_contrast(mine: &str, other: &str) -> bool {
    [
        "rather than",
        "instead of",
        "instead",
        "over",
        "versus",
        "vs",
        "as opposed to",
    ]
    .iter()
    .any(|w| data::has_phrase(other, w) && !data::has_phrase(mine, w))
        || (other.contains(" > ") && !mine.contains(" > "))
}

/// Whether a condition (`name`: `condition`, `exception`, `time limit`) at `at` that the
/// aligned sentences lack is said there another way: as a phrase (`for an exchange`), a
/// question (`No dedicated command? Check hooks`), a topic (`If there's a tradeoff` →
/// `Tradeoffs:`, most of its clause's words kept) or, for `until`, another word of time
/// (`until we have tests` → `wait for tests first`). `providing` and `provided` without
/// `that` are participles, no condition.
#[allow(clippy::too_many_arguments)]
pub(super) fn reworded_condition(
    name: &str,
    text: &str,
    at: usize,
    others: &[(usize, &Constraints)],
    p: &Reading,
    c: &Constraints,
    other_lower: &str,
) -> bool {
    let word = word_at(text, at).to_lowercase();
    let after = text[at + word.len().min(text.len() - at)..].trim_start();
    if matches!(word.as_str(), "providing" | "provided") && !after.starts_with("that") {
        return true;
    }
    match name {
        "condition" => {
            if carried(c, others) || asked(p, others) || defaulted(after, other_lower) {
                return true;
            }
            // `if it makes sense` → `when applicable`: a hedge kept as a hedge.
            let hedged = ENGLISH
                .instructions
                .hedge_conditions
                .iter()
                .any(|w| data::has_phrase(other_lower, w));
            // The clause's first word is usually its subject, which the main clause
            // keeps anyway (`If the order is late, offer a voucher` → `… for the
            // order`); after `there is` the first word is what the clause is about.
            let clause = governed(text, at, 8);
            let existential = text[at..]
                .split_whitespace()
                .nth(1)
                .is_some_and(|w| w.to_lowercase().starts_with("there"));
            let skip = usize::from(clause.len() >= 2 && !existential);
            let refs: Vec<&str> = clause[skip..].iter().map(String::as_str).collect();
            hedged || (!refs.is_empty() && kept_share(&refs, &words(other_lower)) >= 0.5)
        }
        "time limit" => orders_in_time(other_lower),
        _ => false,
    }
}

/// Whether a condition `if not given` (`after` the condition word: `not provided`, `not
/// set`) is said by a default in the counterpart (`Optional: others use defaults`): a
/// default is what applies when nothing is given.
fn defaulted(after: &str, other_lower: &str) -> bool {
    let mut words = after.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    });
    words.next().as_deref() == Some("not")
        && words
            .next()
            .is_some_and(|w| super::weakening::list("given").contains(&w.as_str()))
        && ["default", "defaults", "defaulted"]
            .iter()
            .any(|w| data::has_phrase(other_lower, w))
}

/// Whether the `only` at `at` says how few (`only 700 bytes`, `only have one consumer`):
/// a count within its next two words. That `only` means `merely`; the count keeps it.
pub(super) fn counts_only(text: &str, at: usize) -> bool {
    let rest = &text[at..];
    rest.split_whitespace().skip(1).take(2).any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        w.starts_with(|c: char| c.is_ascii_digit())
            || matches!(w.as_str(), "one" | "two" | "three" | "single" | "few")
    })
}

/// Whether a constraint comes with a condition (`without`, `unless`, `until`, `before`,
/// `after`, `if`): what `never X without Y` and `X only after Y` both have.
pub(super) fn has_condition(c: &Constraints, lower: &str) -> bool {
    !c.exception.is_empty()
        || !c.condition.is_empty()
        || !c.until.is_empty()
        || ["without", "before", "after", "unless", "until"]
            .iter()
            .any(|w| data::has_phrase(lower, w))
}

/// Whether `other` says the negation of `c` with a negative prefix (`not resolved` ↔
/// `unresolved`).
pub(super) fn reworded_negation(c: &Constraints, other: &Constraints) -> bool {
    other.affixed.iter().any(|w| c.negated.contains(w))
}

/// Whether one of the aligned sentences is a question, the condition of the sentence
/// after it (`No dedicated command? Check hooks`).
pub(super) fn asked(p: &Reading, others: &[(usize, &Constraints)]) -> bool {
    others.iter().any(|&(q, _)| {
        let (_, end) = sentence_span(p, q);
        p.text[end..].trim_start().starts_with('?')
            || (q > 0 && {
                let (_, prev_end) = sentence_span(p, q - 1);
                p.text[prev_end..].trim_start().starts_with('?')
            })
    })
}

/// Whether the aligned sentences carry the condition's clause as a phrase (`if the
/// customer wants an exchange` → `for an exchange`): at least half of the clause's content
/// after its first word (usually its subject) follows a carrier word there.
pub(super) fn carried(c: &Constraints, others: &[(usize, &Constraints)]) -> bool {
    let rest = if c.clause.len() >= 2 {
        &c.clause[1..]
    } else {
        &c.clause[..]
    };
    let kept = rest
        .iter()
        .filter(|w| others.iter().any(|(_, g)| g.carried.contains(w)))
        .count();
    kept >= 1 && kept * 2 >= rest.len()
}
