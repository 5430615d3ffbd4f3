//! The units of a text: its sentences (the second layer's, which already end at list
//! items, headings, quotes and table rows) split into clauses where a new order starts
//! (`…; never promise…`, `…, and check…`), each with its shape (list item, heading,
//! table row), the heading or lead-in (`Never discuss:`) it sits under, its constraint
//! families and key words, and whether it is an instruction.

use super::super::lookup::{CLAUSE_JOINER, Cue, Lookup};
use super::super::reading::Reading;
use super::super::vocab::{Id, Vocab};
use super::super::words::{Tok, Token};
use super::instruct::{self, ORDERED_ITEM};
use super::lists::{self, Item};

/// Where a unit stands in the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Plain,
    Item { ordered: bool },
    Heading,
    Row,
}

#[derive(Debug, Clone)]
pub struct Unit {
    pub sentence: usize,
    /// Bytes of the text, first to last token.
    pub start: usize,
    pub end: usize,
    /// The unit this one is a list item of (its lead-in or heading), if any.
    pub lead: Option<usize>,
    /// The nearest heading above.
    pub heading: Option<usize>,
    /// Ends its sentence with a colon: introduces what follows.
    pub lead_in: bool,
    pub families: u16,
    pub instruction: bool,
    /// An instruction, or a heading that reads as one (`## Forbidden topics`): what a
    /// list under it inherits.
    pub gives_order: bool,
    /// Sorted, distinct key words.
    pub keys: Vec<Id>,
    /// The items of a list inside the unit (`medical, legal or tax advice`).
    pub items: Vec<Item>,
}

/// The shape of the sentence starting at byte `start`: a list item, heading or table row
/// when only its marker stands before it on its line.
pub fn shape(text: &str, start: usize) -> Shape {
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let prefix = text[line_start..start].trim_start_matches([' ', '\t', '>']);
    let prefix = prefix.trim_end();
    if prefix.is_empty() {
        return Shape::Plain;
    }
    let b = prefix.as_bytes();
    if b.iter().all(|c| *c == b'#') && b.len() <= 6 {
        return Shape::Heading;
    }
    if b[0] == b'|' {
        return Shape::Row;
    }
    // A checkbox or emphasis after the marker (`- [ ] `, `- **`) still makes an item.
    let marker = prefix.split_whitespace().next().unwrap_or("");
    if matches!(marker, "-" | "*" | "+") {
        return Shape::Item { ordered: false };
    }
    let digits = marker.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && matches!(&marker[digits..], "." | ")") {
        return Shape::Item { ordered: true };
    }
    if b[0] == b'#' {
        return Shape::Heading;
    }
    Shape::Plain
}

/// Fact keys (code, identifiers, URLs, e-mail addresses, placeholders) by offset, sorted.
pub type FactKeys = [(usize, Id)];

/// Adds to `keys` the fact keys that belong to the span `start..end`: inside it, or after
/// it on the same line before the next span (`next_start`).
pub fn facts_in(
    text: &str,
    facts: &FactKeys,
    start: usize,
    end: usize,
    next_start: usize,
    keys: &mut Vec<Id>,
) {
    let from = facts.partition_point(|f| f.0 < start);
    for &(at, id) in &facts[from..] {
        if at >= next_start {
            break;
        }
        if at <= end || !text[end..at].contains('\n') {
            keys.push(id);
        }
    }
}

/// Splits the reading of the original into units.
pub fn units(r: &Reading, vocab: &Vocab, lk: &Lookup, facts: &FactKeys) -> Vec<Unit> {
    let by_sentence = super::values_by_sentence(r);
    let mut units: Vec<Unit> = Vec::new();
    let mut heading: Option<usize> = None;
    let mut lead: Option<usize> = None;
    for (s, sentence) in r.sentences.iter().enumerate() {
        let toks = &r.tokens[sentence.tokens.clone()];
        let values = &r.values[by_sentence[s].clone()];
        let consumed = instruct::consumed(toks, values);
        let shape = shape(r.text, sentence.start);
        // Clause starts inside the sentence.
        let mut starts = vec![0];
        for i in 1..toks.len() {
            let after_mark = matches!(toks[i - 1].tok, Tok::Mark(';' | ':'));
            let split = if after_mark {
                toks[i].id().is_some()
            } else {
                // A new order after a comma or `and` (`be friendly, never promise …`), when
                // the clause before gives one too: a fronted clause (`If the parcel is
                // late, apologise`, `Over $300, ask`) stays with its main clause.
                let comma = matches!(toks[i - 1].tok, Tok::Mark(','));
                let joiner = toks[i]
                    .id()
                    .is_some_and(|w| vocab.info(w).has(CLAUSE_JOINER));
                let clause = *starts.last().unwrap_or(&0);
                (comma || joiner)
                    && instruct::clause_starts(toks, i, vocab)
                    && instruct::imperative_at(toks, clause, vocab)
                    && keys_in(&toks[clause..i], vocab) >= 1
                    && keys_in(clause_end(toks, i), vocab) >= 2
            };
            if split && i > *starts.last().unwrap_or(&0) {
                starts.push(i);
            }
        }
        let ends_with_colon = matches!(toks.last().map(|t| t.tok), Some(Tok::Mark(':')));
        // A paragraph (a sentence at the very start of a line) ends the list before it.
        if shape == Shape::Heading
            || (shape == Shape::Plain && at_line_start(r.text, sentence.start))
        {
            lead = None;
        }
        let first_unit = units.len();
        for (c, &from) in starts.iter().enumerate() {
            let to = starts.get(c + 1).copied().unwrap_or(toks.len());
            let span = &toks[from..to];
            let Some(first) = span.iter().find(|t| !matches!(t.tok, Tok::Mark(_))) else {
                continue;
            };
            let last = span
                .iter()
                .rev()
                .find(|t| !matches!(t.tok, Tok::Mark(_)))
                .unwrap_or(first);
            let bound = values
                .iter()
                .any(|v| v.bound.is_some() && v.start >= first.start && v.end <= last.end);
            let mut families =
                instruct::families(span, &consumed[from..to], bound, vocab, lk, r.text);
            if matches!(shape, Shape::Item { ordered: true }) {
                families |= ORDERED_ITEM;
            }
            let mut keys = Vec::new();
            instruct::keys(span, &consumed[from..to], r, vocab, &mut keys);
            let next_start = r.sentences.get(s + 1).map_or(r.text.len(), |n| n.start);
            let next = if c + 1 < starts.len() {
                toks[starts[c + 1]].start
            } else {
                next_start
            };
            let fact_from = if units.is_empty() { 0 } else { first.start };
            facts_in(r.text, facts, fact_from, last.end, next, &mut keys);
            keys.sort_unstable();
            keys.dedup();
            let courtesy = matches!(
                instruct::cue_at(span, 0, vocab, lk),
                Some((Cue::Courtesy, _))
            );
            let addressed = matches!(
                instruct::cue_at(span, 0, vocab, lk),
                Some((Cue::Addressee, _))
            );
            let ordering = instruct::imperative_at(span, 0, vocab)
                || span.iter().enumerate().any(|(k, t)| {
                    k > 0
                        && matches!(t.tok, Tok::Mark(','))
                        && instruct::imperative_at(span, k + 1, vocab)
                })
                || (shape == Shape::Row && row_cells_order(r.text, span, vocab));
            // A heading names a section; it leads its list but is no instruction itself.
            let instruction = !courtesy
                && !keys.is_empty()
                && shape != Shape::Heading
                && (instruct::marks_instruction(families)
                    || ordering
                    || addressed
                    || instruct::has_requirement(span, vocab, lk)
                    || matches!(shape, Shape::Item { ordered: true }));
            let gives_order = instruction
                || (shape == Shape::Heading
                    && !keys.is_empty()
                    && instruct::marks_instruction(families));
            let items = lists::items(span, vocab);
            units.push(Unit {
                sentence: s,
                start: first.start,
                end: last.end,
                lead: None,
                heading,
                lead_in: false,
                families,
                instruction,
                gives_order,
                keys,
                items,
            });
        }
        if units.len() == first_unit {
            continue;
        }
        if matches!(shape, Shape::Item { .. }) {
            // An item with nothing of its own (`- politics` under `Never discuss:`) is an
            // instruction when its lead-in is one, and carries the lead-in's constraints.
            if let Some(l) = lead {
                let (lead_families, lead_instruction) = (units[l].families, units[l].gives_order);
                for u in &mut units[first_unit..] {
                    u.lead = Some(l);
                    u.families |= lead_families & instruct::CHECKED;
                    u.instruction |= lead_instruction && !u.keys.is_empty();
                }
            }
        }
        if shape == Shape::Heading {
            heading = Some(first_unit);
            lead = Some(units.len() - 1);
        } else if ends_with_colon && !matches!(shape, Shape::Item { .. }) {
            let l = units.len() - 1;
            units[l].lead_in = true;
            lead = Some(l);
        }
    }
    units
}

/// How many key words a run of tokens has. A clause is split off only when the part
/// before it has one (`Do not, under any circumstances,` has none: it stays with the
/// clause it negates) and it has two (`and say so` is too little to find on its own).
fn keys_in(toks: &[Token], vocab: &Vocab) -> usize {
    toks.iter()
        .filter_map(Token::id)
        .filter(|&w| instruct::is_key(vocab.info(w)))
        .count()
}

/// The tokens from `i` to the next comma, semicolon or colon (or the end).
fn clause_end(toks: &[Token], i: usize) -> &[Token] {
    let len = toks[i..]
        .iter()
        .skip(1)
        .position(|t| matches!(t.tok, Tok::Mark(',' | ';' | ':')))
        .map_or(toks.len() - i, |n| n + 1);
    &toks[i..i + len]
}

pub fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes()[at - 1] == b'\n'
}

/// Whether a cell of a table row (after a `|`) starts with an imperative.
fn row_cells_order(text: &str, span: &[Token], vocab: &Vocab) -> bool {
    (1..span.len()).any(|k| {
        text[span[k - 1].end..span[k].start].contains('|')
            && instruct::imperative_at(span, k, vocab)
    })
}
