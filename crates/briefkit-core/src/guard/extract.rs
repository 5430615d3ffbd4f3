//! Extraction: the facts of one text, pass by pass, each pass blanking its spans before
//! the next so that nothing is reported twice (the digits of a price are not also a loose
//! number, the digits of a URL not a price).
//!
//! Blanking replaces every byte of a span with a space except newlines, so byte offsets
//! and line numbers stay those of the original text.

use std::cell::OnceCell;
use std::ops::Range;

use super::code::code_spans;
use super::hash::FxSet;
use super::patterns::{self, Found};
use super::{Class, Fact};
use super::{identifiers, numbers, quantities};

/// The facts of a text, and what a fact of another text is looked up in.
#[derive(Debug)]
pub struct Extracted<'t> {
    /// Distinct facts (by class and canonical form), first occurrence, in text order.
    pub facts: Vec<Fact>,
    /// Canonical forms of every non-code fact.
    pub keys: Keys,
    /// Canonical forms of every code block and inline code span.
    pub code: FxSet<String>,
    /// Every prose fact, repeats included, in text order: what the second layer binds.
    pub occurrences: Vec<Found>,
    /// Every code block and inline code span, repeats included, in text order.
    pub code_found: Vec<Found>,
    /// Code, URLs, e-mail addresses and placeholders, sorted: what the second and third
    /// layers do not read words from.
    pub hidden: Vec<Range<usize>>,
    /// The text itself.
    pub text: &'t str,
    /// Where code content is: scanned for facts only when a lookup needs it.
    inner: Vec<Range<usize>>,
    in_code: OnceCell<Keys>,
    in_words: OnceCell<Keys>,
}

/// Canonical forms by class, looked up without allocating.
#[derive(Debug, Default)]
pub struct Keys([FxSet<String>; 6]);

impl Keys {
    fn slot(class: Class) -> usize {
        match class {
            Class::Code => 0,
            Class::Url => 1,
            Class::Email => 2,
            Class::Placeholder => 3,
            Class::Price => 4,
            Class::Numeric => 5,
        }
    }

    pub fn insert(&mut self, class: Class, canonical: String) {
        self.0[Self::slot(class)].insert(canonical);
    }

    /// Inserts a copy of `canonical` unless it is there: a text repeating one fact
    /// (a number on every line) allocates it once.
    pub fn insert_copy(&mut self, class: Class, canonical: &str) {
        let set = &mut self.0[Self::slot(class)];
        if !set.contains(canonical) {
            set.insert(canonical.to_string());
        }
    }

    pub fn contains(&self, class: Class, canonical: &str) -> bool {
        self.0[Self::slot(class)].contains(canonical)
    }
}

impl Extend<(Class, String)> for Keys {
    fn extend<I: IntoIterator<Item = (Class, String)>>(&mut self, items: I) {
        for (class, canonical) in items {
            self.insert(class, canonical);
        }
    }
}

impl Extracted<'_> {
    /// Whether the text has a non-code fact of this class and canonical form: as a fact,
    /// inside code (a value moved into backticks) or, for a number, as a word that is not
    /// a fact itself (`one of`, `single`). The last two are scanned for on the first lookup
    /// that needs them: most facts of a faithful rewrite are found among the facts.
    pub fn has(&self, class: Class, canonical: &str) -> bool {
        if self.keys.contains(class, canonical) {
            return true;
        }
        if self.in_code().contains(class, canonical) {
            return true;
        }
        class == Class::Numeric
            && canonical.trim_end_matches('%').parse::<u64>().is_ok()
            && self.in_words().contains(class, canonical)
    }

    fn in_code(&self) -> &Keys {
        self.in_code.get_or_init(|| {
            let mut keys = Keys::default();
            if !self.inner.is_empty() {
                let (inner, _) = scan(joined(self.text, &self.inner));
                keys.extend(inner.into_iter().map(|f| (f.kind.class(), f.canonical)));
            }
            keys
        })
    }

    /// Every number written as a word anywhere in the text, counts or not (`one of`,
    /// `single`), code included: only ever looked up in.
    fn in_words(&self) -> &Keys {
        self.in_words.get_or_init(|| {
            let mut keys = Keys::default();
            keys.extend(quantities::spellings(self.text).map(|n| (Class::Numeric, n)));
            keys
        })
    }
}

pub fn extract(text: &str) -> Extracted<'_> {
    let code = code_spans(text);
    let mut prose = text.to_string();
    blank(&mut prose, &code.spans);
    // The blanked copy is only needed while the passes run.
    let (mut occurrences, _) = scan(prose);
    occurrences.sort_by_key(|f| (f.start, f.end));
    let mut hidden: Vec<Range<usize>> = occurrences
        .iter()
        .filter(|f| {
            matches!(
                f.kind.class(),
                Class::Url | Class::Email | Class::Placeholder
            )
        })
        .map(|f| f.start..f.end)
        .chain(code.spans.iter().cloned())
        .collect();
    hidden.sort_by_key(|r| r.start);
    let mut keys = Keys::default();
    for f in &occurrences {
        keys.insert_copy(f.kind.class(), &f.canonical);
    }
    // Identifiers are compared with code: a name that lost or gained its backticks stays.
    let mut code_set = FxSet::default();
    for f in code.found.iter().chain(
        occurrences
            .iter()
            .filter(|f| f.kind == super::Kind::Identifier),
    ) {
        if !code_set.contains(f.canonical.as_str()) {
            code_set.insert(f.canonical.clone());
        }
    }
    let mut all: Vec<&Found> = occurrences.iter().chain(&code.found).collect();
    all.sort_by_key(|f| (f.start, f.end));
    let mut seen = FxSet::default();
    all.retain(|f| seen.insert((f.kind.class(), f.canonical.as_str())));
    let facts = located(text, &all);
    drop(seen);
    Extracted {
        facts,
        keys,
        code: code_set,
        occurrences,
        code_found: code.found,
        hidden,
        text,
        inner: code.inner,
        in_code: OnceCell::new(),
        in_words: OnceCell::new(),
    }
}

/// Runs the prose passes in order over `text`; returns what they found and the text with
/// every found span (and Markdown structure) blanked.
fn scan(text: String) -> (Vec<Found>, String) {
    type Pass = fn(&str, &mut Vec<Found>);
    const PASSES: [Pass; 5] = [
        patterns::urls,
        patterns::emails,
        patterns::placeholders,
        identifiers::identifiers,
        patterns::prices,
    ];
    let mut found = Vec::new();
    let mut text = text;
    for pass in PASSES {
        let before = found.len();
        pass(&text, &mut found);
        let spans: Vec<Range<usize>> = found[before..].iter().map(|f| f.start..f.end).collect();
        blank(&mut text, &spans);
    }
    let structure = numbers::structure(&text);
    blank(&mut text, &structure);
    for pass in [numbers::numbers as Pass, quantities::facts] {
        let before = found.len();
        pass(&text, &mut found);
        let spans: Vec<Range<usize>> = found[before..].iter().map(|f| f.start..f.end).collect();
        blank(&mut text, &spans);
    }
    (found, text)
}

/// Blanks the given spans of `text` in place: every character becomes as many spaces as
/// it has bytes, newlines stay, so offsets and line numbers do not move.
pub fn blank(text: &mut String, spans: &[Range<usize>]) {
    let mut spaces = String::new();
    for span in spans {
        let mut at = span.start;
        while at < span.end {
            let Some(segment) = text.get(at..span.end) else {
                break;
            };
            let len = segment.find('\n').unwrap_or(segment.len());
            if spaces.len() < len {
                spaces = " ".repeat(len);
            }
            text.replace_range(at..at + len, &spaces[..len]);
            at += len + 1;
        }
    }
}

/// The code content at the given spans, one span a line: only ever looked up in, so
/// positions do not matter, and a short text scans faster than a blanked long one.
fn joined(text: &str, spans: &[Range<usize>]) -> String {
    let mut out = String::new();
    for span in spans {
        if let Some(part) = text.get(span.clone()) {
            out.push_str(part);
            out.push('\n');
        }
    }
    out
}

/// Turns found spans (sorted by start) into facts with 1-based line and character column,
/// walking the text once.
fn located(text: &str, found: &[&Found]) -> Vec<Fact> {
    let bytes = text.as_bytes();
    let mut facts = Vec::with_capacity(found.len());
    let (mut at, mut line, mut column) = (0usize, 1usize, 1usize);
    for f in found {
        for &b in &bytes[at..f.start] {
            if b == b'\n' {
                line += 1;
                column = 1;
            } else if b & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: the start of a character.
                column += 1;
            }
        }
        at = f.start;
        facts.push(Fact {
            kind: f.kind,
            value: text[f.start..f.end].to_string(),
            canonical: f.canonical.clone(),
            line,
            column,
            offset: f.start,
            in_message: None,
            file: None,
        });
    }
    facts
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
