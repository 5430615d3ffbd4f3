//! Extraction: the facts of one text, pass by pass, each pass blanking its spans before
//! the next so that nothing is reported twice (the digits of a price are not also a loose
//! number, the digits of a URL not a price).
//!
//! Blanking replaces every byte of a span with a space except newlines, so byte offsets
//! and line numbers stay those of the original text.

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::patterns::{self, Found};
use super::{Class, Fact, Kind};

/// The facts of a text, and what a fact of another text is looked up in.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Distinct facts (by class and canonical form), first occurrence, in text order.
    pub facts: Vec<Fact>,
    /// Canonical forms of every non-code fact, including those inside code and number
    /// words: a value moved into backticks, or spelled out, still counts as present.
    pub keys: HashSet<(Class, String)>,
    /// Canonical forms of every code block and inline code span.
    pub code: HashSet<String>,
}

pub fn extract(text: &str) -> Extracted {
    let code = code_spans(text);
    let prose = blanked(text, &code.spans);
    let (mut found, rest) = scan(&prose);
    let mut keys: HashSet<(Class, String)> = found
        .iter()
        .map(|f| (f.kind.class(), f.canonical.clone()))
        .collect();
    keys.extend(patterns::number_words(&rest).map(|n| (Class::Numeric, n)));
    if !code.inner.is_empty() {
        let inside = kept(text, &code.inner);
        let (inner, inner_rest) = scan(&inside);
        keys.extend(inner.into_iter().map(|f| (f.kind.class(), f.canonical)));
        keys.extend(patterns::number_words(&inner_rest).map(|n| (Class::Numeric, n)));
    }
    let code_set = code.found.iter().map(|f| f.canonical.clone()).collect();
    found.extend(code.found);
    found.sort_by_key(|f| (f.start, f.end));
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert((f.kind.class(), f.canonical.clone())));
    Extracted {
        facts: located(text, found),
        keys,
        code: code_set,
    }
}

/// Runs the prose passes in order over `text`; returns what they found and the text with
/// every found span (and Markdown structure) blanked.
fn scan(text: &str) -> (Vec<Found>, String) {
    type Pass = fn(&str, &mut Vec<Found>);
    const PASSES: [Pass; 4] = [
        patterns::urls,
        patterns::emails,
        patterns::placeholders,
        patterns::prices,
    ];
    let mut found = Vec::new();
    let mut text = text.to_string();
    for pass in PASSES {
        let before = found.len();
        pass(&text, &mut found);
        if found.len() > before {
            let spans: Vec<Range<usize>> = found[before..].iter().map(|f| f.start..f.end).collect();
            text = blanked(&text, &spans);
        }
    }
    let structure = patterns::structure(&text);
    if !structure.is_empty() {
        text = blanked(&text, &structure);
    }
    let before = found.len();
    patterns::numbers(&text, &mut found);
    let spans: Vec<Range<usize>> = found[before..].iter().map(|f| f.start..f.end).collect();
    (found, blanked(&text, &spans))
}

/// Code facts, the spans to blank for the prose passes, and the ranges of code content
/// (scanned separately, for lookup only).
#[derive(Default)]
struct Code {
    found: Vec<Found>,
    spans: Vec<Range<usize>>,
    inner: Vec<Range<usize>>,
}

fn code_spans(text: &str) -> Code {
    let mut code = Code::default();
    // Fenced blocks only: an indented block is too often a nested paragraph in a brief.
    let mut block: Option<(Range<usize>, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => {
                block = Some((range, String::new()));
            }
            Event::Text(content) => {
                if let Some((_, body)) = block.as_mut() {
                    body.push_str(&content);
                    code.inner.push(range);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((range, body)) = block.take() {
                    let written = text[range.clone()].trim_end_matches(['\n', '\r']);
                    let canonical = body.strip_suffix('\n').unwrap_or(&body);
                    if !canonical.is_empty() {
                        code.found.push(Found {
                            kind: Kind::CodeBlock,
                            start: range.start,
                            end: range.start + written.len(),
                            canonical: canonical.to_string(),
                        });
                    }
                    code.spans.push(range);
                }
            }
            Event::Code(content) => {
                let written = &text[range.clone()];
                let ticks = written.len() - written.trim_start_matches('`').len();
                let inner_end = range.end - (written.len() - written.trim_end_matches('`').len());
                if range.start + ticks < inner_end {
                    code.inner.push(range.start + ticks..inner_end);
                }
                if !content.is_empty() {
                    code.found.push(Found {
                        kind: Kind::InlineCode,
                        start: range.start,
                        end: range.end,
                        canonical: content.to_string(),
                    });
                }
                code.spans.push(range);
            }
            _ => {}
        }
    }
    code.spans.sort_by_key(|r| r.start);
    code.inner.sort_by_key(|r| r.start);
    code
}

/// `text` with the given spans blanked (spaces, newlines kept); offsets are unchanged.
pub fn blanked(text: &str, spans: &[Range<usize>]) -> String {
    let mut sorted: Vec<&Range<usize>> = spans.iter().collect();
    sorted.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in sorted {
        let start = span.start.max(at);
        if start >= span.end {
            continue;
        }
        out.push_str(&text[at..start]);
        blank_into(&mut out, &text[start..span.end]);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` with everything outside the given spans blanked.
fn kept(text: &str, spans: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        let start = span.start.max(at);
        if start >= span.end {
            continue;
        }
        blank_into(&mut out, &text[at..start]);
        out.push_str(&text[start..span.end]);
        at = span.end;
    }
    blank_into(&mut out, &text[at..]);
    out
}

fn blank_into(out: &mut String, text: &str) {
    for c in text.chars() {
        if c == '\n' {
            out.push('\n');
        } else {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        }
    }
}

/// Turns found spans (sorted by start) into facts with 1-based line and character column,
/// walking the text once.
fn located(text: &str, found: Vec<Found>) -> Vec<Fact> {
    let mut facts = Vec::with_capacity(found.len());
    let (mut at, mut line, mut column) = (0usize, 1usize, 1usize);
    for f in found {
        for c in text[at..f.start].chars() {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        at = f.start;
        facts.push(Fact {
            kind: f.kind,
            value: text[f.start..f.end].to_string(),
            canonical: f.canonical,
            line,
            column,
            offset: f.start,
        });
    }
    facts
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
