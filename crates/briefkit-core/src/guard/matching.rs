//! Membership: which facts of one text are absent from another.
//!
//! A fact is present when the other text has it at least once, in canonical form: a set
//! lookup for everything but code. Code is byte-exact and may also appear outside a code
//! span (a rewrite that dropped the backticks around a tool name kept the name), so it is
//! searched in the other text, all patterns in one pass (see [`search`]).

use super::extract::Extracted;
use super::{Class, Fact, Kind, search};

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
    // A product named with its `.js` (`Node.js`, `Vue.js`) is the same product without
    // it (`Node`): a name kept, not a fact dropped.
    let products: Vec<(usize, &str)> = (0..from.facts.len())
        .filter(|&i| !present[i] && from.facts[i].kind == Kind::Identifier)
        .filter_map(|i| product_name(&from.facts[i].canonical).map(|bare| (i, bare)))
        .collect();
    if !products.is_empty() {
        let patterns: Vec<Vec<u8>> = products
            .iter()
            .map(|(_, bare)| search::marked_token(bare))
            .collect();
        let found = search::occurring(&patterns, &search::mark_words(other_text));
        for ((i, _), found) in products.iter().zip(found) {
            present[*i] |= found;
        }
    }
    from.facts
        .iter()
        .zip(present)
        .filter(|(_, present)| !present)
        .map(|(fact, _)| fact.clone())
        .collect()
}

/// The bare name of a product written with its `.js` (`Node.js` → `Node`): a capitalised
/// name, one dot, `js` after it. A file (`index.js`) starts lowercase and stays a fact.
pub fn product_name(identifier: &str) -> Option<&str> {
    let bare = identifier
        .strip_suffix(".js")
        .or_else(|| identifier.strip_suffix(".JS"))?;
    (bare.len() >= 2
        && bare.starts_with(|c: char| c.is_ascii_uppercase())
        && bare.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then_some(bare)
}

/// Which of the code facts at `indices` occur in `text` where they fit: a block's code
/// as whole lines (after any indentation or quote markers), inline code as a whole token
/// (`id` is not found in `provide`), as is an identifier. One pass over the marked text
/// for all of them.
fn found_in_text(facts: &[Fact], indices: &[usize], text: &str) -> Vec<usize> {
    let (blocks, tokens): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .partition(|&&i| facts[i].kind == Kind::CodeBlock);
    let mut found = Vec::new();
    for (group, mark_text, mark_fact) in [
        (
            blocks,
            search::mark_lines as fn(&str) -> Vec<u8>,
            search::marked_block as fn(&str) -> Vec<u8>,
        ),
        (tokens, search::mark_words, search::marked_token),
    ] {
        if group.is_empty() {
            continue;
        }
        let patterns: Vec<Vec<u8>> = group
            .iter()
            .map(|&i| mark_fact(&facts[i].canonical))
            .collect();
        let present = search::occurring(&patterns, &mark_text(text));
        found.extend(
            group
                .iter()
                .zip(present)
                .filter(|(_, p)| *p)
                .map(|(&i, _)| i),
        );
    }
    found
}
