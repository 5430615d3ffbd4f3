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
pub use super::lines::{FactCursor, FactKeys, Shape, at_line_start, shape};
use super::lines::{list_follows, reference_line, sample_line};
use super::lists::{self, Item};

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
    /// A list item or table row.
    listed: bool,
    /// Opens with an imperative (`Look the order up first:`).
    imperative: bool,
    /// A heading: it names a section, never an instruction or a fact itself.
    heading: bool,
    /// States a fact (code, a name, a path, a value): checked like an order, since a
    /// reference line (`- **Config**: `app/config.toml``) that went is a loss too.
    fact: bool,
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
        // A fact is checked on a line of a list or a table with two key words or more
        // (`- **Config**: `app.toml``); a lone word or a fact inside prose or sample
        // text (`input`, `timeout: 5000`) is the first layer's.
        let fact = p.fact && p.listed && keys.len() >= 2;
        unit.instruction = (p.order || fact) && !keys.is_empty();
        unit.statement = !unit.instruction
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
            let mark = self.facts.position();
            self.facts
                .take(text, prev_end, last.end, &mut for_prev, &mut keys);
            // A fact in the unit, or before it on its line (`- `KEY` — what it is for`),
            // makes it a statement of fact; one before a colon belongs to the clause it
            // stands in (`- `a`, `b`: lists of names`), one on a later line (code under
            // `- input: |`) follows it.
            let taken = self.facts.since(mark);
            let on_line = |a: usize, b: usize| !text[a.min(b)..a.max(b)].contains('\n');
            let fact = taken.iter().any(|&(at, id)| {
                !for_prev.contains(&id)
                    && (at >= first.start || !text[at..first.start].contains([':', '\n']))
            }) || (reference_line(text, first.start)
                && keys.iter().any(|&k| vocab.word(k).starts_with(['#', '$'])));
            let prev_fact = prev_end.is_some_and(|end| {
                taken
                    .iter()
                    .any(|&(at, id)| for_prev.contains(&id) && on_line(at, end))
            });
            if let Some(p) = made.last_mut().or(self.pending.as_mut()) {
                p.fact |= prev_fact && !p.heading;
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
            // A purpose split off the rule before it is context wherever it stands.
            let purpose = (c > 0 && data::context_role(&text[first.start..]) == Some("purpose"))
                .then_some("purpose");
            let context = purpose
                .or_else(|| sample_line(text, first.start, last.end))
                .or_else(|| {
                    (families & instruct::ORDER_MARKS == 0)
                        // An item under a lead-in giving an order (`Include:` `- Examples for
                        // complex functions`) is one of the things ordered.
                        .then(|| {
                            data::context_role(&text[first.start..])
                                .filter(|_| !inherited.is_some_and(|l| l.order))
                                .or(section)
                        })
                        .flatten()
                        .filter(|role| {
                            !matches!(*role, "rationale" | "purpose")
                                || !ordering
                                || section.is_some()
                        })
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
                fact: fact && !heading,
                listed: matches!(shape, Shape::Item { .. } | Shape::Row),
                imperative: ordering,
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
            // A lead-in (`Common errors to handle:`, `Here's the pattern:`) introduces
            // what follows, which says the rule (its items inherit its constraints): its
            // own loss is context, never a dropped instruction. One in the imperative
            // before anything but a list (`Look the order up first:` and a code block)
            // orders something of its own.
            let list_next = list_follows(text, view.sentence.end);
            if let Some(last) = made.last_mut().filter(|p| list_next || !p.imperative) {
                last.unit.context = last.unit.context.or(Some("list intro"));
                last.order = true;
            }
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
            let mark = self.facts.position();
            self.facts.rest(self.text, p.unit.end, &mut p.keys);
            let end = p.unit.end;
            p.fact |= !p.heading
                && self
                    .facts
                    .since(mark)
                    .iter()
                    .any(|&(at, _)| at >= end && !self.text[end..at].contains('\n'));
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
        // So is what a rule is for (`Read the code first to understand its patterns`).
        // Not the verb a need or an attempt governs (`You need to ensure …`, `try to
        // keep …`): that is the order itself.
        let governed = text
            .get(toks[i - 1].start..toks[i - 1].end)
            .is_some_and(|w| GOVERNING.contains(&w.to_lowercase().as_str()));
        let purpose = !governed
            && !matches!(toks[i - 1].tok, Tok::Mark(_))
            && data::context_role(&text[toks[i].start..]) == Some("purpose");
        let split = if rationale || purpose {
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

/// Words whose `to` clause is their object, not a purpose (`need to ensure`).
const GOVERNING: &[&str] = &[
    "need", "needs", "have", "has", "had", "want", "wants", "ought", "going", "able", "try",
    "tries", "required", "expected", "supposed", "allowed", "used", "is", "are", "be", "how",
    "sure", "remember", "forget", "fail", "fails", "attempt", "continue", "begin", "start",
];

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
