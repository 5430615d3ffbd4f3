//! A unit kept but for its scope: `Use pagination for large result sets` → `paginate`.
//! The order survives, but it now applies everywhere, not only where the original said:
//! a weakened (widened) instruction, worth a look, never a block.

use super::super::vocab::{Id, Vocab};

/// Prepositions that open a scope at the end of a unit.
const OPENERS: &[&str] = &["for", "on", "in", "within", "across", "during"];
/// A scope is looked for only in units this short (a long unit loses words anyway).
const WORDS: usize = 12;

/// The scope phrase that ends `unit` when every word of it, and nothing else of the
/// unit, is among its `missing` key words (stems): the part before it was kept.
pub fn lost(unit: &str, keys: &[Id], missing: &[Id], vocab: &Vocab) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    let lower = unit.to_lowercase();
    let words: Vec<(usize, &str)> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(|w| (w.as_ptr() as usize - lower.as_ptr() as usize, w))
        .collect();
    if words.len() > WORDS || words.len() < 4 {
        return None;
    }
    // The last opener with two words or more before it.
    let at = (2..words.len() - 1)
        .rev()
        .find(|&k| OPENERS.contains(&words[k].1))?;
    let tail = &words[at + 1..];
    // No punctuation between the opener and the end: one phrase.
    if lower[words[at].0..].contains([',', ';', ':', '(']) {
        return None;
    }
    // Only the unit's key words count (`frequently` is no key word, `columns` is).
    let key = |w: &str| {
        vocab
            .find(w)
            .map(|id| vocab.key(id))
            .filter(|k| keys.contains(k))
    };
    let is_missing = |w: &str| key(w).is_some_and(|k| missing.contains(&k));
    let content: Vec<&str> = tail
        .iter()
        .map(|(_, w)| *w)
        .filter(|w| key(w).is_some())
        .collect();
    // The order itself kept: most of the key words before the scope survive (a verb
    // like `implement` may go: `Implement rate limiting` → `rate limit`).
    let head: Vec<&str> = words[..at]
        .iter()
        .map(|(_, w)| *w)
        .filter(|w| key(w).is_some())
        .collect();
    let head_lost = head.iter().filter(|w| is_missing(w)).count() * 2 >= head.len();
    // Two key words or more (`for large result sets`, not `in names`): a scope, not a
    // word a rewrite leaves implied; no code or aside in it.
    let plain = !lower[words[at].0..].contains(['`', '—', '–', '-']);
    (plain && content.len() >= 2 && content.iter().all(|w| is_missing(w)) && !head_lost).then(
        || {
            lower[words[at].0..]
                .trim_end_matches(['.', '!'])
                .to_string()
        },
    )
}

/// Quantifiers whose noun phrase names what a rule applies to (`any new screen`).
const QUANTIFIERS: &[&str] = &["any", "every", "each", "all"];
/// Modifiers that narrow nothing a reader would not infer (`any relevant file`).
const VAGUE: &[&str] = &[
    "relevant",
    "related",
    "appropriate",
    "applicable",
    "necessary",
    "needed",
    "possible",
    "suitable",
    "other",
];

/// The quantified phrase of `unit` that lost the word narrowing it (`before building any
/// new screen` → `before building any screen`): the quantifier opens a phrase whose
/// modifier is among the `missing` key words while the noun after it survives. The rule
/// now reaches every screen, not only the new ones: widened, worth a look.
pub fn modifier_lost(unit: &str, keys: &[Id], missing: &[Id], vocab: &Vocab) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    let lower = unit.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let key = |w: &str| {
        vocab
            .find(w)
            .map(|id| vocab.key(id))
            .filter(|k| keys.contains(k))
    };
    words.windows(3).find_map(|w| {
        let (modifier, noun) = (key(w[1])?, key(w[2])?);
        (QUANTIFIERS.contains(&w[0])
            && !VAGUE.contains(&w[1])
            && modifier != noun
            && missing.contains(&modifier)
            && !missing.contains(&noun))
        .then(|| w.join(" "))
    })
}
