//! Membership: which facts of one text are absent from another.
//!
//! A fact is present when the other text has it at least once, in canonical form: a set
//! lookup for everything but code. Code is byte-exact and may also appear outside a code
//! span (a rewrite that dropped the backticks around a tool name kept the name), so it is
//! searched in the other text's raw bytes, all patterns in one Aho-Corasick pass.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::extract::Extracted;
use super::{Class, Fact, Kind};

/// The facts of `from` that `other` (extracted from `other_text`) does not contain.
pub fn missing(from: &Extracted, other: &Extracted, other_text: &str) -> Vec<Fact> {
    let mut present: Vec<bool> = from
        .facts
        .iter()
        .map(|fact| match fact.kind.class() {
            Class::Code => other.code.contains(&fact.canonical),
            class => other.has(class, &fact.canonical),
        })
        .collect();
    let searched: Vec<usize> = (0..from.facts.len())
        .filter(|&i| !present[i] && from.facts[i].kind.class() == Class::Code)
        .collect();
    for i in found_in_text(&from.facts, &searched, other_text) {
        present[i] = true;
    }
    from.facts
        .iter()
        .zip(present)
        .filter(|(_, present)| !present)
        .map(|(fact, _)| fact.clone())
        .collect()
}

/// Which of the code facts at `indices` occur in `text` (see [`fits`]).
///
/// The automaton holds only the first [`PREFIX`] bytes of each pattern, each hit then
/// verified in full: building it costs what the prefixes cost, not what whole code
/// blocks would.
fn found_in_text(facts: &[Fact], indices: &[usize], text: &str) -> Vec<usize> {
    const PREFIX: usize = 64;
    if indices.is_empty() {
        return Vec::new();
    }
    let prefixes: Vec<&str> = indices
        .iter()
        .map(|&i| {
            let pattern = facts[i].canonical.as_str();
            let mut end = pattern.len().min(PREFIX);
            while !pattern.is_char_boundary(end) {
                end -= 1;
            }
            &pattern[..end]
        })
        .collect();
    let Ok(automaton) = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        // Building a DFA costs more than one pass over a brief saves.
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(&prefixes)
    else {
        // Too many patterns for one automaton: fall back to searching one at a time.
        return indices
            .iter()
            .copied()
            .filter(|&i| occurs(&facts[i], text))
            .collect();
    };
    let mut hit = vec![false; indices.len()];
    for m in automaton.find_overlapping_iter(text) {
        let p = m.pattern().as_usize();
        let fact = &facts[indices[p]];
        let end = m.start() + fact.canonical.len();
        if !hit[p]
            && text.get(m.start()..end) == Some(fact.canonical.as_str())
            && fits(fact.kind, text, m.start(), end)
        {
            hit[p] = true;
        }
    }
    indices
        .iter()
        .zip(hit)
        .filter(|(_, hit)| *hit)
        .map(|(&i, _)| i)
        .collect()
}

fn occurs(fact: &Fact, text: &str) -> bool {
    text.match_indices(fact.canonical.as_str())
        .any(|(at, s)| fits(fact.kind, text, at, at + s.len()))
}

/// Whether an occurrence of code counts: a block's code as whole lines (after any
/// indentation or quote markers), inline code as a whole token.
fn fits(kind: Kind, text: &str, start: usize, end: usize) -> bool {
    if kind == Kind::CodeBlock {
        // Stops at the first character that is not indentation: linear however many hits.
        let at_line_start = text[..start]
            .chars()
            .rev()
            .find(|c| !matches!(c, ' ' | '\t' | '>'))
            .is_none_or(|c| c == '\n');
        at_line_start && matches!(text[end..].chars().next(), None | Some('\n' | '\r'))
    } else {
        whole_token(text, start, end)
    }
}

/// The match does not continue a word on either side (`id` is not found in `provide`).
fn whole_token(text: &str, start: usize, end: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let (Some(first), Some(last)) = (
        text[start..end].chars().next(),
        text[..end].chars().next_back(),
    ) else {
        return false;
    };
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let joins_before = word(first) && before.is_some_and(word);
    let joins_after = word(last) && after.is_some_and(word);
    !joins_before && !joins_after
}
