//! Where a unit stands on its lines: its Markdown shape, the facts read before and after
//! it, and what the lines around it say (a sample, a reference line, a list next).

use super::super::lexicon::data;
use super::super::vocab::Id;

/// Where a unit stands in the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Plain,
    Item { ordered: bool },
    Heading,
    Row,
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

    /// Where the cursor stands (for [`FactCursor::since`]).
    pub fn position(&self) -> usize {
        self.next
    }

    /// The facts handed out since `position`.
    pub fn since(&self, position: usize) -> &'a FactKeys {
        &self.facts[position.min(self.next)..self.next]
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

/// Whether the unit at `start..end` only shows what something looks like: it starts
/// inside a quotation, or on a line of a sample dialogue (`User: …`) or of code (`//
/// comment`, `return x;`, `fn main() {`).
pub fn sample_line(text: &str, start: usize, end: usize) -> Option<&'static str> {
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

/// Whether the first line with text after `at` (past the rest of its line) is a list item.
pub fn list_follows(text: &str, at: usize) -> bool {
    let rest = text.get(at..).unwrap_or("");
    let after = rest.find('\n').map_or("", |n| &rest[n + 1..]);
    after
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty())
        .is_some_and(|l| {
            let digits = l.bytes().take_while(u8::is_ascii_digit).count();
            l.starts_with(['-', '*', '+']) || (digits > 0 && l[digits..].starts_with(['.', ')']))
        })
}

/// Whether the line at `at` pairs a label with what it stands for (`**Timeout**: 30s`,
/// `Large file → 10 MB`, a table row): a value there is a fact of its own; in a sentence
/// (`Refunds are possible within 30 days`) it is part of the rule the words say.
pub fn reference_line(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    text[line_start..line_end].contains([':', '→', '—', '|', '='])
}

pub fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes()[at - 1] == b'\n'
}
