//! The phrases of a sentence whose loss narrows or widens an instruction: a `for …` scope,
//! a time clause, two alternatives run together. Each is found in the lowercased
//! original and judged against the counterpart's words.

use super::super::lexicon::{ENGLISH, data};
use super::evidence::kept;
use super::weakening::list;

/// The first `for …` phrase of a (lowercased) sentence none of whose content words
/// survive among `other` (`prefer interfaces for object shapes` → `prefer interfaces`).
pub(super) fn lost_scope(lower: &str, other: &[&str]) -> Option<String> {
    let skip = list("scope-skip");
    let stop = list("scope-stop");
    let end_words = list("scope-end");
    for (at, _) in lower.match_indices("for") {
        let end = at + 3;
        let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if !bounded(lower[..at].chars().next_back()) || !bounded(lower[end..].chars().next()) {
            continue;
        }
        let before = lower[..at].split_whitespace().next_back().unwrap_or("");
        if skip.contains(&before) {
            continue;
        }
        let rest = &lower[end..];
        let clause = &rest[..rest
            .find(|c: char| ",.;:()!?\n—–".contains(c))
            .unwrap_or(rest.len())];
        let phrase: Vec<&str> = clause
            .split_whitespace()
            .take_while(|w| {
                !ENGLISH.instructions.clause_joiners.contains(w) && !end_words.contains(w)
            })
            .take(5)
            .collect();
        if phrase.first().is_none_or(|w| skip.contains(w)) {
            continue;
        }
        let content: Vec<&str> = phrase
            .iter()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.len() >= 3 && !stop.contains(w))
            .collect();
        // `for portability`, `for clarity`: a purpose, not what the rule applies to.
        let purpose = content.len() == 1
            && list("purpose-ending")
                .iter()
                .any(|e| content[0].ends_with(e));
        if !purpose && !content.is_empty() && content.iter().all(|w| !kept(w, other)) {
            return Some(format!("for {}", phrase.join(" ")));
        }
    }
    None
}

/// The first time clause of a (lowercased) sentence (`especially after a large
/// refactoring`, `before requesting review`) none of whose content words survive among
/// `other`: the rule now holds at any time.
pub(super) fn lost_time(lower: &str, other: &[&str]) -> Option<String> {
    let stop = list("scope-stop");
    for word in list("time") {
        for (at, _) in lower.match_indices(word) {
            let end = at + word.len();
            let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            if !bounded(lower[..at].chars().next_back()) || !bounded(lower[end..].chars().next()) {
                continue;
            }
            let rest = &lower[end..];
            let clause = &rest[..rest
                .find(|c: char| ",.;:()!?\n—–".contains(c))
                .unwrap_or(rest.len())];
            let phrase: Vec<&str> = clause.split_whitespace().take(4).collect();
            let content: Vec<&str> = phrase
                .iter()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                .filter(|w| w.len() >= 3 && !stop.contains(w))
                .collect();
            if !content.is_empty() && content.iter().all(|w| !kept(w, other)) {
                return Some(format!("{word} {}", phrase.join(" ")));
            }
        }
    }
    None
}

/// The first restricting adjective of a (lowercased) sentence (`new`, `simple`, `critical`)
/// whose noun survives among `other` while it went (`before building any new screen` →
/// `before building any screen`): the rule now covers all of the noun. Only before a
/// contrast: the thing a preference is set against carries no scope.
pub(super) fn lost_restrictor(lower: &str, other: &[&str]) -> Option<String> {
    let restrictors = list("restrictor");
    // What a preference is set against (`over new packages`) is no rule's scope.
    let lower = [
        "rather than",
        "instead of",
        "over",
        "than",
        "versus",
        "vs",
        ">",
    ]
    .iter()
    .filter_map(|w| super::evidence::phrase_at(lower, w))
    .min()
    .map_or(lower, |at| &lower[..at]);
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).find_map(|pair| {
        let (adjective, noun) = (pair[0], pair[1]);
        (restrictors.contains(&adjective)
            && noun.len() >= 3
            && !ENGLISH.stop_words.contains(&noun)
            && !restrictors.contains(&noun)
            && kept(noun, other)
            && !kept(adjective, other))
        .then(|| format!("{adjective} {noun}"))
    })
}

/// Whether a `for` phrase names a purpose: its last word ends like a purpose or an
/// activity (`for package management`, `for clarity`, `for debugging`).
pub(super) fn purpose(phrase: &str) -> bool {
    let head = phrase
        .split(' ')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .rfind(|w| !w.is_empty())
        .unwrap_or("");
    list("purpose-ending")
        .iter()
        .chain(list("activity-ending"))
        .any(|e| head.ends_with(e))
}

/// Whether a `for` phrase covers every case (`for all installs`, `for every request`)
/// with no restricting adjective in it.
pub(super) fn whole(phrase: &str) -> bool {
    let mut words = phrase.split(' ').skip(1);
    words
        .next()
        .is_some_and(|w| matches!(w, "all" | "every" | "any" | "each"))
        && words.all(|w| !list("restrictor").contains(&w))
}

/// Two alternatives (`from TOC or the title tag`) that the counterpart runs together with
/// nothing between them (`from TOC title tag`): what was either is now one compound.
/// A comma, slash or bar between them keeps a list.
pub(super) fn lost_alternative(mine: &str, other: &str) -> Option<String> {
    let trim = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    for (at, _) in mine.match_indices(" or ") {
        let a = trim(mine[..at].split_whitespace().next_back().unwrap_or(""));
        let b = trim(
            mine[at + 4..]
                .split_whitespace()
                .find(|w| !matches!(*w, "the" | "a" | "an" | "your" | "its"))
                .unwrap_or(""),
        );
        if a.len() < 2 || b.len() < 2 || data::has_phrase(other, "or") {
            continue;
        }
        let Some(i) = other.find(a.as_str()) else {
            continue;
        };
        let after = &other[i + a.len()..];
        let Some(j) = after.find(b.as_str()) else {
            continue;
        };
        let gap = &after[..j];
        if j <= 4
            && gap
                .chars()
                .all(|c| c.is_whitespace() || "`<>\"'*_".contains(c))
        {
            return Some(format!("{a} or {b}"));
        }
    }
    None
}
