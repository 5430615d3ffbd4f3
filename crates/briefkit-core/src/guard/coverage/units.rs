//! The units of a text: its sentences (the second layer's, which already end at list
//! items, headings, quotes and table rows) split into clauses where a new order starts
//! (`…; never promise…`, `…, and check…`), each with its shape (list item, heading,
//! table row), the heading or lead-in (`Never discuss:`) it sits under, its constraint
//! families and key words, and whether it is an instruction.

use super::super::hash::FxMap;
use super::super::lexicon::data;
use super::super::lookup::{CLAUSE_JOINER, Cue, Lookup};
use super::super::reading::SentenceView;
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
    /// The bytes of the lead-in or heading the unit sits under (for the report).
    pub under: Option<(usize, usize)>,
    pub families: u16,
    pub instruction: bool,
    /// A statement the agent must know that gives no order (`Staging deploys from the
    /// `dev` branch`): compared too, and reported only when it went whole.
    pub statement: bool,
    /// Sorted, distinct key words.
    pub keys: Box<[Id]>,
    /// The items of a list inside the unit (`medical, legal or tax advice`).
    pub items: Box<[Item]>,
    /// What the unit is when it only explains or illustrates (`rationale`, `example`,
    /// `preface`): context, whose loss is information, never a finding.
    pub context: Option<&'static str>,
}

/// A unit while its sentence is read: whether it gives an order before its key words are
/// all known (a fact after it on its line may still join it).
struct Pending {
    unit: Unit,
    /// Its key words so far (a fact after it on its line may still join them).
    keys: Vec<Id>,
    order: bool,
    heading: bool,
    /// It may be a statement: no courtesy (`Thank you!`), and no clause of its sentence
    /// gives an order (else it is the rest of an instruction cut at a colon).
    alone: bool,
}

/// A lead-in (`Never discuss:`) or heading that a list under it inherits from.
#[derive(Clone, Copy)]
struct Lead {
    span: (usize, usize),
    families: u16,
    /// Gives an order, so its list items are instructions.
    order: bool,
    /// Names what its items illustrate or explain (`Bad examples:`): they are context.
    context: Option<&'static str>,
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

/// Whether the text between a span's end and a fact keeps the fact in the span's sentence:
/// no sentence end, blank line or new list item, heading, quote or table row between them
/// (a line break alone does not end a sentence).
fn same_sentence(gap: &str) -> bool {
    if gap.contains(['.', '!', '?', ';']) || gap.contains("\n\n") {
        return false;
    }
    gap.split('\n').skip(1).all(|line| {
        let t = line.trim_start();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let marker = t.starts_with(['-', '*', '+', '#', '>', '|'])
            || (digits > 0 && t[digits..].starts_with(['.', ')']));
        !marker
    })
}

/// Hands out the fact keys of a text to the spans read in order: a fact belongs to the
/// span it is in, or to the span before it in the same sentence (`Call it via `x`.`),
/// else to the next span.
pub struct FactCursor<'a> {
    facts: &'a FactKeys,
    next: usize,
}

impl<'a> FactCursor<'a> {
    pub fn new(facts: &'a FactKeys) -> Self {
        FactCursor { facts, next: 0 }
    }

    /// The facts up to `end` of a span starting at `start`: those for the previous span
    /// (ending at `prev_end`, on the same line) go to `prev`, the rest to `this`.
    pub fn take(
        &mut self,
        text: &str,
        prev_end: Option<usize>,
        end: usize,
        prev: &mut Vec<Id>,
        this: &mut Vec<Id>,
    ) {
        while let Some(&(at, id)) = self.facts.get(self.next) {
            if at > end {
                break;
            }
            match prev_end {
                Some(p) if p <= at && same_sentence(&text[p..at]) => prev.push(id),
                _ => this.push(id),
            }
            self.next += 1;
        }
    }

    /// The facts after the last span, in its sentence.
    pub fn rest(&mut self, text: &str, prev_end: usize, prev: &mut Vec<Id>) {
        while let Some(&(at, id)) = self.facts.get(self.next) {
            if at >= prev_end && same_sentence(&text[prev_end..at]) {
                prev.push(id);
            }
            self.next += 1;
        }
    }
}

/// The instruction-bearing units of a text and what weighs their words.
pub struct Finished {
    pub units: Vec<Unit>,
    /// How many units (of all, not only instructions) have each key word.
    pub df: FxMap<Id, u32>,
    /// How many units there are.
    pub count: usize,
}

/// Builds the units of the original as its sentences are read. Only instructions are
/// kept: every other unit is counted (for the weights of words) and let go as soon as no
/// fact can join it.
pub struct Units<'a> {
    text: &'a str,
    lk: &'a Lookup,
    facts: FactCursor<'a>,
    done: Finished,
    pending: Option<Pending>,
    heading: Option<(usize, usize)>,
    /// What the current heading says of the units under it (`## Examples`: context).
    section: Option<&'static str>,
    lead: Option<Lead>,
}

impl<'a> Units<'a> {
    pub fn new(text: &'a str, lk: &'a Lookup, facts: &'a FactKeys) -> Self {
        Units {
            text,
            lk,
            facts: FactCursor::new(facts),
            done: Finished {
                units: Vec::new(),
                df: FxMap::default(),
                count: 0,
            },
            pending: None,
            heading: None,
            section: None,
            lead: None,
        }
    }

    /// A unit no fact can join any more: counted, and kept when it is an instruction.
    fn settle(&mut self, p: Pending) {
        let (mut unit, mut keys) = (p.unit, p.keys);
        keys.sort_unstable();
        keys.dedup();
        for &k in &keys {
            *self.done.df.entry(k).or_default() += 1;
        }
        self.done.count += 1;
        unit.instruction = p.order && !keys.is_empty();
        unit.statement = !p.order
            && !p.heading
            && p.alone
            && keys.len() >= STATEMENT_KEYS
            && !introduces(self.text, unit.end)
            && !table_header(self.text, unit.start);
        if unit.instruction || unit.statement {
            unit.keys = keys.into_boxed_slice();
            self.done.units.push(unit);
        }
    }

    /// Splits one sentence into units.
    pub fn sentence(&mut self, vocab: &Vocab, view: &SentenceView) {
        let (toks, consumed, values) = (view.tokens, view.consumed, view.values);
        let (text, lk) = (self.text, self.lk);
        let start = view.sentence.start;
        let shape = shape(text, start);
        let starts = clause_starts(toks, vocab, text);
        let ends_with_colon = matches!(toks.last().map(|t| t.tok), Some(Tok::Mark(':')));
        // A paragraph (a sentence at the very start of a line) ends the list before it.
        if shape == Shape::Heading || (shape == Shape::Plain && at_line_start(text, start)) {
            self.lead = None;
        }
        // An item with nothing of its own (`- politics` under `Never discuss:`) is an
        // instruction when its lead-in gives an order, and carries its constraints.
        let inherited = self.lead.filter(|_| matches!(shape, Shape::Item { .. }));
        let mut made: Vec<Pending> = Vec::with_capacity(starts.len());
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
            // One clause: the sentence's constraint words, already read, are its own.
            let mut families = match view.constraints.filter(|_| starts.len() == 1) {
                Some(c) => instruct::families_of(c, span, &consumed[from..to], bound, vocab, text),
                None => instruct::families(span, &consumed[from..to], bound, vocab, lk, text),
            };
            if matches!(shape, Shape::Item { ordered: true }) {
                families |= ORDERED_ITEM;
            }
            let mut keys = Vec::new();
            instruct::keys(span, &consumed[from..to], view.keys, vocab, &mut keys);
            let prev_end = made
                .last()
                .map(|p| p.unit.end)
                .or(self.pending.as_ref().map(|p| p.unit.end));
            let mut for_prev = Vec::new();
            self.facts
                .take(text, prev_end, last.end, &mut for_prev, &mut keys);
            if let Some(p) = made.last_mut().or(self.pending.as_mut()) {
                p.keys.extend(for_prev);
            }
            let cue = instruct::cue_at(span, 0, vocab, lk).map(|c| c.0);
            let ordering = instruct::imperative_at(span, 0, vocab)
                || span.iter().enumerate().any(|(k, t)| {
                    k > 0
                        && matches!(t.tok, Tok::Mark(','))
                        && instruct::imperative_at(span, k + 1, vocab)
                })
                || (shape == Shape::Row && row_cells_order(text, span, vocab));
            let order = cue != Some(Cue::Courtesy)
                && (instruct::marks_instruction(families)
                    || ordering
                    || cue == Some(Cue::Addressee)
                    || instruct::has_requirement(span, vocab, lk)
                    || matches!(shape, Shape::Item { ordered: true }));
            // A unit that opens like a rationale, an example or a preface (`It makes …`,
            // `For example, …`) and gives no order of its own is context.
            // An example or a preface is context even in the imperative (`For example,
            // run …`); a rationale only when it gives no order.
            // A unit inside a quotation, a line of a sample dialogue or a line of code
            // illustrates, whatever it says; so does one under a heading or lead-in that
            // names examples or reasons, unless it gives an order of its own.
            let section = inherited
                .and_then(|l| l.context)
                .or(self.section.filter(|_| shape != Shape::Heading));
            let context = sample_line(text, first.start, last.end).or_else(|| {
                (families & instruct::ORDER_MARKS == 0)
                    // An item under a lead-in giving an order (`Include:` `- Examples for
                    // complex functions`) is one of the things ordered.
                    .then(|| {
                        data::context_role(&text[first.start..])
                            .filter(|_| !inherited.is_some_and(|l| l.order))
                            .or(section)
                    })
                    .flatten()
                    .filter(|role| *role != "rationale" || !ordering || section.is_some())
            });
            let order = order || context.is_some();
            if let Some(lead) = inherited {
                families |= lead.families & instruct::CHECKED;
            }
            // A heading names a section: it leads the list under it but is no
            // instruction itself.
            let heading = shape == Shape::Heading;
            made.push(Pending {
                unit: Unit {
                    sentence: view.index,
                    start: first.start,
                    end: last.end,
                    under: inherited.map(|l| l.span).or(self.heading),
                    families,
                    instruction: false,
                    statement: false,
                    keys: Box::default(),
                    items: lists::items(span, vocab).into_boxed_slice(),
                    context,
                },
                keys,
                order: !heading && (order || inherited.is_some_and(|l| l.order)),
                heading,
                alone: cue != Some(Cue::Courtesy),
            });
            if heading {
                let role = data::section_role(&text[first.start..last.end]);
                self.heading = Some((first.start, last.end));
                self.section = role.filter(|r| *r != "order");
                self.lead = Some(Lead {
                    span: (first.start, last.end),
                    families,
                    order: instruct::marks_instruction(families) || role == Some("order"),
                    context: self.section,
                });
            }
        }
        if made.iter().any(|p| p.order) {
            for p in &mut made {
                p.alone = false;
            }
        }
        let Some(last) = made.last() else {
            return;
        };
        if ends_with_colon && !matches!(shape, Shape::Item { .. } | Shape::Heading) {
            let role = data::section_role(&text[last.unit.start..last.unit.end]);
            let context = role.filter(|r| *r != "order").or(self.section);
            self.lead = Some(Lead {
                span: (last.unit.start, last.unit.end),
                families: last.unit.families,
                // A lead-in that is context (`It has these fields:`) lends no order.
                order: last.order && last.unit.context.is_none() && context.is_none(),
                context,
            });
        }
        // Facts can join only the last unit read: the others are settled.
        let newest = made.pop();
        if let Some(p) = self.pending.take() {
            self.settle(p);
        }
        for p in made {
            self.settle(p);
        }
        self.pending = newest;
    }

    /// The instruction-bearing units, each with its key words sorted; how many units
    /// there were and how many of them have each key word (the rarer a word, the more it
    /// says).
    pub fn finish(mut self) -> Finished {
        if let Some(mut p) = self.pending.take() {
            self.facts.rest(self.text, p.unit.end, &mut p.keys);
            self.settle(p);
        }
        self.done
    }
}

/// A statement with fewer key words than this (`Notes`, `See below`) says too little to
/// look for on its own.
const STATEMENT_KEYS: usize = 2;

/// Whether the unit ending at `end` introduces what follows (`The layout:`): a list
/// intro, not a statement of its own.
fn introduces(text: &str, end: usize) -> bool {
    text.get(end..)
        .and_then(|rest| rest.chars().find(|c| !matches!(c, ' ' | '*' | '_' | '`')))
        == Some(':')
        && text
            .get(end..)
            .and_then(|rest| rest.split('\n').next())
            .is_some_and(|line| {
                line.trim_start_matches([' ', '*', '_', '`', ':'])
                    .trim()
                    .is_empty()
            })
}

/// Whether the table row starting at or before `start` is a header: the next line is the
/// `| --- |` separator.
fn table_header(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..].trim_start().starts_with('|') {
        return false;
    }
    let mut lines = text[line_start..].split('\n');
    lines.next();
    lines.next().is_some_and(|next| {
        let next = next.trim();
        next.starts_with('|') && next.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
    })
}

/// Where the clauses of a sentence start: after `;` and `:`, and where a new order starts
/// after a comma or `and` (`be friendly, never promise …`) when the clause before gives
/// one too. A fronted clause (`If the parcel is late, apologise`, `Over $300, ask`) stays
/// with its main clause.
fn clause_starts(toks: &[Token], vocab: &Vocab, text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    for i in 1..toks.len() {
        let after_mark = matches!(toks[i - 1].tok, Tok::Mark(';' | ':'));
        let clause = *starts.last().unwrap_or(&0);
        // A rationale after a dash (`No class components — they're harder to read`) is a
        // unit of its own: context, whose loss never flags the rule.
        let gap = text
            .get(toks[i - 1].end..toks[i].start.max(toks[i - 1].end))
            .unwrap_or("");
        let rationale = (gap.contains(['—', '–']) || gap.contains(" - "))
            .then(|| data::context_role(&text[toks[i].start..]))
            .flatten()
            == Some("rationale");
        let split = if rationale {
            keys_in(&toks[clause..i], vocab) >= 1 && keys_in(&toks[i..], vocab) >= 2
        } else if after_mark {
            toks[i].id().is_some()
        } else {
            let comma = matches!(toks[i - 1].tok, Tok::Mark(','));
            let joiner = toks[i]
                .id()
                .is_some_and(|w| vocab.info(w).has(CLAUSE_JOINER));
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
    starts
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

/// Whether the unit at `start..end` only shows what something looks like: it starts
/// inside a quotation, or on a line of a sample dialogue (`User: …`) or of code (`//
/// comment`, `return x;`, `fn main() {`).
fn sample_line(text: &str, start: usize, end: usize) -> Option<&'static str> {
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |n| end + n);
    let before = &text[line_start..start];
    let quoted = (before.matches('"').count() % 2 == 1 && text[end..line_end].contains('"'))
        || before.matches('“').count() > before.matches('”').count();
    let line = text[line_start..line_end].trim_start_matches([' ', '\t', '>']);
    let content = line
        .strip_prefix(['-', '*', '+'])
        .map_or(line, str::trim_start);
    let trimmed = line.trim_end();
    let code = line.starts_with("//")
        || line.starts_with("/*")
        || trimmed.ends_with('{')
        || trimmed.ends_with("};")
        || trimmed.ends_with(");")
        || (trimmed.ends_with(';') && trimmed.contains(" = "));
    (quoted || code || data::starts_with_speaker(content)).then_some("example")
}

pub fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes()[at - 1] == b'\n'
}

/// Whether a cell of a table row (after a `|`) starts with an imperative.
fn row_cells_order(text: &str, span: &[Token], vocab: &Vocab) -> bool {
    (1..span.len()).any(|k| {
        // Tokens may overlap (`!!!` and `can't` are read twice), so the gap between
        // two of them can be empty or reversed: read it, never slice it blindly.
        text.get(span[k - 1].end..span[k].start.max(span[k - 1].end))
            .is_some_and(|gap| gap.contains('|'))
            && instruct::imperative_at(span, k, vocab)
    })
}
