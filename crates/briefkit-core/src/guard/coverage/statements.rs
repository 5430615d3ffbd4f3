//! Statements: units that give no order but say what the agent must know. Looked for only
//! when they say something of their own in words; dropped only when they went whole.

use super::super::hash::FxMap;
use super::super::vocab::{Id, Vocab};
use super::{SURE, Verdict, counterpart, units};

/// A statement is looked for when it says something of its own in words: a word
/// besides its names and code (`Model Weights` beside a link, `input` beside a code span
/// are labels), written in a spaced script (read character by character, unspaced text
/// matches too loosely to call a statement gone).
pub(super) fn worth_finding(text: &str, keys: &[Id], vocab: &Vocab) -> bool {
    let words = keys
        .iter()
        .filter(|&&k| {
            let w = vocab.word(k);
            !w.starts_with(['@', '#', '$']) && !w.contains(':')
        })
        .count();
    // A sentence about the one before it (`…, this adds up to seconds`, `It keeps the
    // cache warm`) explains it: context, not a fact of its own.
    let refers_back = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(10)
        .any(|w| {
            ["this", "that", "these", "those", "it", "they"]
                .iter()
                .any(|p| w.eq_ignore_ascii_case(p))
        });
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let unspaced = text
        .chars()
        .filter(|&c| super::super::words::unspaced(c))
        .count();
    words >= 1 && !refers_back && unspaced * 2 < letters.max(1)
}

/// A statement is dropped only when it went whole: no counterpart at all, or a nearest
/// match that keeps under [`SURE`] of its words and none of the words only it has.
/// Anything more is a rewording of a fact, which the first two layers check word by word.
pub(super) fn verdict(
    u: &units::Unit,
    found: Option<counterpart::Found>,
    df: &FxMap<Id, u32>,
    search: &counterpart::Search,
) -> Verdict {
    let Some(found) = found else {
        return Verdict::Dropped;
    };
    let own_kept = u
        .keys
        .iter()
        .any(|&k| df.get(&k) == Some(&1) && search.has(found.from, found.to, k));
    if found.share < SURE && !own_kept {
        Verdict::Dropped
    } else {
        Verdict::Kept
    }
}
