//! The proposal as the third layer reads it for counterparts, when a compressor wrote it
//! in a notation rather than in prose.
//!
//! Three things hide a kept instruction from a word-by-word search:
//! - a rewrite inside a fenced block (```` ```crux ````) whose body is no code of the
//!   original but the instructions in a notation: read as text, one list item per line or
//!   `;`-separated clause;
//! - symbols written for words (`¬` for `not`, `∀` for `every`, `→` for `then`; the
//!   `symbols.txt` lexicon): read as their words;
//! - short forms: a legend the proposal defines (`fn=function; cls=class`), and a word of
//!   the proposal that is no word of the original but abbreviates one of them — a prefix
//!   (`desc` → `description`) or its letters in order from the same first letter (`mgmt`
//!   → `management`, `ctx` → `context`): read with the words it may stand for.
//!
//! Counterparts are only searched in this text (the second layer still reads the
//! proposal as written, positions unchanged), so a wrong guess can only make a unit look
//! kept, never invent a report. Linear: each word is looked up once, and the search for
//! the words a short form may stand for has a budget proportional to the texts.

use super::super::Kind;
use super::super::code::code_spans;
use super::super::hash::{FxMap, FxSet};
use super::super::lexicon::data;
use super::super::lookup::{CONTENT, Lookup};

/// A short form is at least this long (`ctx`), a prefix standing for a word at least
/// this plus one (`desc`).
const SHORT_MIN: usize = 3;
/// A short form is at most this long (`creds`, `params`).
const SHORT_MAX: usize = 7;
/// A short form standing for more words than this is too vague to read as any of them.
const CANDIDATES: usize = 3;

/// The proposal rewritten for the counterpart search, or `None` when it reads as written.
pub fn readable(original: &str, proposal: &str, lk: &Lookup) -> Option<String> {
    let code = code_spans(proposal);
    let original_words = words_of(original);
    let mut out = String::with_capacity(proposal.len() + proposal.len() / 4);
    let mut legend: FxMap<String, String> = FxMap::default();
    let mut at = 0;
    for span in &code.spans {
        if span.start < at {
            continue;
        }
        prose(&proposal[at..span.start], &mut out);
        let block = code
            .found
            .iter()
            .find(|f| f.kind == Kind::CodeBlock && f.start == span.start);
        match block {
            Some(f)
                if is_notation(
                    &proposal[span.clone()],
                    &f.canonical,
                    original,
                    &original_words,
                ) =>
            {
                read_legend(&f.canonical, &mut legend);
                out.push('\n');
                body(&f.canonical, &mut out);
                out.push('\n');
            }
            _ => out.push_str(&proposal[span.clone()]),
        }
        at = span.end;
    }
    prose(&proposal[at..], &mut out);
    // The code left (blocks of the original, inline spans) is kept as written.
    let code_left = code_spans(&out).spans;
    let expanded = expand(&out, &code_left, original, &original_words, &legend, lk);
    let text = expanded.unwrap_or(out);
    (text != proposal).then_some(text)
}

/// The lowercased words (letters only) of a text.
fn words_of(text: &str) -> FxSet<String> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A fenced block of the proposal is notation, not code, when its info string names no
/// programming or data language, its body is not a block of the original, and most of
/// its words are words of the original (a rule set retold, not a program).
fn is_notation(block: &str, body: &str, original: &str, original_words: &FxSet<String>) -> bool {
    let info = block
        .lines()
        .next()
        .unwrap_or("")
        .trim_start()
        .trim_start_matches(['`', '~'])
        .trim();
    let tag = info
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
        .to_lowercase();
    if data::is_code_language(&tag) || body.trim().is_empty() || original.contains(body.trim()) {
        return false;
    }
    let words: Vec<String> = body
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect();
    let known = words.iter().filter(|w| original_words.contains(*w)).count();
    words.len() >= 8 && known * 2 >= words.len()
}

/// A notation block's body as list items: one per line or `;`-separated clause, its
/// brackets and operators read as words.
fn body(body: &str, out: &mut String) {
    for line in body.lines() {
        for clause in line.split(';') {
            let clause = clause.trim();
            if clause.chars().any(char::is_alphanumeric) {
                out.push_str("- ");
                symbols(clause, true, out);
                out.push('\n');
            }
        }
    }
}

/// Prose as written, with its symbols read as words.
fn prose(text: &str, out: &mut String) {
    symbols(text, false, out);
}

/// Writes `text` with each symbol of the lexicon as its words. ASCII operators (`+`,
/// `|`, `&`) and brackets are read as words only in notation: in prose they are too often
/// part of a name, a path or Markdown.
fn symbols(text: &str, notation: bool, out: &mut String) {
    let table = data::symbol_words();
    let mut rest = text;
    'next: while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphanumeric() && c != 'w' || c == ' ' {
            out.push(c);
            rest = &rest[1..];
            continue;
        }
        let boundary = out.chars().next_back().is_none_or(|p| !p.is_alphanumeric());
        for (symbol, words) in table {
            let ascii = symbol.is_ascii();
            if (ascii && !notation && symbol.len() == 1)
                || !rest.starts_with(symbol)
                || (symbol.starts_with(char::is_alphabetic) && !boundary)
            {
                continue;
            }
            let after = rest[symbol.len()..].chars().next();
            if symbol.ends_with(char::is_alphabetic) && after.is_some_and(char::is_alphanumeric) {
                continue;
            }
            out.push(' ');
            out.push_str(words);
            out.push(' ');
            rest = &rest[symbol.len()..];
            continue 'next;
        }
        if notation && matches!(c, '{' | '}' | '[' | ']' | '=') {
            out.push(' ');
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
}

/// The `short=long` entries of a notation's legend (`fn=function; cls=class`): a short
/// form whose letters are, in order, letters of the word it is defined as, from the same
/// first letter (`cls=PascalCase` is a value, not a legend entry).
fn read_legend(body: &str, legend: &mut FxMap<String, String>) {
    for piece in body.split([';', ',', '\n', '{', '}']) {
        let Some((short, long)) = piece.trim().split_once('=') else {
            continue;
        };
        let (short, long) = (short.trim().to_lowercase(), long.trim().to_lowercase());
        let letters = |w: &str| !w.is_empty() && w.chars().all(char::is_alphabetic);
        if letters(&short)
            && letters(&long)
            && short.len() < long.len()
            && abbreviates(&short, &long)
        {
            legend.insert(short, long);
        }
    }
}

/// Whether `short` may abbreviate `word`: a prefix of it, or its letters in order from
/// the same first letter.
fn abbreviates(short: &str, word: &str) -> bool {
    let mut letters = word.chars();
    short.chars().next() == word.chars().next() && short.chars().all(|c| letters.any(|w| w == c))
}

/// The text with each short form followed by the words it may stand for; `None` when it
/// has none.
fn expand(
    text: &str,
    code: &[std::ops::Range<usize>],
    original: &str,
    original_words: &FxSet<String>,
    legend: &FxMap<String, String>,
    lk: &Lookup,
) -> Option<String> {
    let mut sorted: Vec<&str> = original_words
        .iter()
        .map(String::as_str)
        .filter(|w| w.len() > SHORT_MIN && lk.info(w).has(CONTENT))
        .collect();
    sorted.sort_unstable();
    let known_short: FxSet<&str> = data::abbreviations().map(|(s, _)| s).collect();
    let mut budget = 4 * (original.len() + text.len()) + 100_000;
    let mut memo: FxMap<String, Vec<String>> = FxMap::default();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut code_at = 0;
    let mut any = false;
    let mut i = 0;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if !c.is_alphabetic() {
            i += c.len_utf8();
            continue;
        }
        let end = text[i..]
            .find(|c: char| !c.is_alphabetic())
            .map_or(text.len(), |n| i + n);
        while code_at < code.len() && code[code_at].end <= i {
            code_at += 1;
        }
        let in_code = code.get(code_at).is_some_and(|r| r.start <= i);
        let word = text[i..end].to_lowercase();
        if !in_code && !original_words.contains(&word) {
            let words = memo
                .entry(word.clone())
                .or_insert_with(|| meanings(&word, &sorted, legend, &known_short, lk, &mut budget));
            if !words.is_empty() {
                any = true;
                out.push_str(&text[last..end]);
                for w in words.iter() {
                    out.push(' ');
                    out.push_str(w);
                }
                last = end;
            }
        }
        i = end;
    }
    out.push_str(&text[last..]);
    any.then_some(out)
}

/// The words of the original a word of the proposal may stand for: the legend's, else a
/// word it is a prefix of, else words it abbreviates (at most [`CANDIDATES`]).
fn meanings(
    word: &str,
    sorted: &[&str],
    legend: &FxMap<String, String>,
    known_short: &FxSet<&str>,
    lk: &Lookup,
    budget: &mut usize,
) -> Vec<String> {
    let singular = word.strip_suffix('s').filter(|s| s.len() >= SHORT_MIN);
    if let Some(long) = legend
        .get(word)
        .or_else(|| singular.and_then(|s| legend.get(s)))
    {
        return vec![long.clone()];
    }
    let n = word.chars().count();
    if !(SHORT_MIN..=SHORT_MAX).contains(&n)
        || !word.is_ascii()
        || known_short.contains(word)
        || !lk.info(word).has(CONTENT)
    {
        return Vec::new();
    }
    let stem = singular.unwrap_or(word);
    let mut found: Vec<&str> = Vec::new();
    if stem.len() > SHORT_MIN {
        let from = sorted.partition_point(|w| *w < stem);
        found = sorted[from..]
            .iter()
            .take_while(|w| w.starts_with(stem))
            .take(4 * CANDIDATES)
            .copied()
            .collect();
    }
    if found.is_empty() {
        let first = &word[..1];
        let from = sorted.partition_point(|w| *w < first);
        for w in sorted[from..].iter().take_while(|w| w.starts_with(first)) {
            if *budget == 0 {
                break;
            }
            *budget = budget.saturating_sub(w.len());
            if w.len() >= word.len() + 2 && abbreviates(word, w) {
                found.push(w);
                if found.len() > 4 * CANDIDATES {
                    break;
                }
            }
        }
    }
    // `descriptions` says no more than `description`.
    let all = found.clone();
    found.retain(|w| !all.iter().any(|o| o.len() < w.len() && w.starts_with(o)));
    if found.len() > CANDIDATES {
        return Vec::new();
    }
    found.into_iter().map(str::to_string).collect()
}
