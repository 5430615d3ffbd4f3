//! Numbers written as words: `five`, `twenty-five`, `a hundred`, `two thousand and ten`,
//! `a dozen`, `twice`. A quantity is a numeric fact like a digit (`seven days` = `7 days`),
//! compared in its digit form.
//!
//! `one` and `once` are the exception: they are far more often an article or a
//! conjunction (`one of the tools`, `once the order ships`) than a count, so they are facts
//! only where they count something: after a bound (`at most one`, `only once`) or before a
//! unit (`one business day`, `once a week`). Elsewhere they still satisfy a lookup (`1`
//! is found in `one`), as does `single`.
//!
//! One regex pass finds the number words (a finite automaton: linear); a compound is read
//! on from each match by hand, word by word.

use std::sync::LazyLock;

use regex::Regex;

use super::Kind;
use super::patterns::{Found, regex};

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

static NUMBER_WORD: LazyLock<Regex> = LazyLock::new(|| {
    let words: Vec<&str> = ONES
        .iter()
        .chain(TENS.iter())
        .copied()
        .chain([
            "hundred", "thousand", "million", "billion", "dozen", "twice", "thrice", "once",
            "single",
        ])
        .collect();
    regex(&format!(r"(?i)(?-u:\b)(?:{})(?-u:\b)", words.join("|")))
});

/// What one word is worth in a compound.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Word {
    Ones(u64),
    Tens(u64),
    Hundred,
    /// thousand, million, billion
    Scale(u64),
    Dozen,
    /// twice, thrice, once: a count of times, never part of a compound.
    Times(u64),
    /// `single`: one, for lookups only.
    Single,
}

fn word(w: &str) -> Option<Word> {
    let lower = w.to_ascii_lowercase();
    let lower = lower.as_str();
    if let Some(n) = ONES.iter().position(|o| *o == lower) {
        return Some(Word::Ones(n as u64));
    }
    if let Some(n) = TENS.iter().position(|t| *t == lower) {
        return Some(Word::Tens(20 + 10 * n as u64));
    }
    Some(match lower {
        "hundred" => Word::Hundred,
        "thousand" => Word::Scale(1_000),
        "million" => Word::Scale(1_000_000),
        "billion" => Word::Scale(1_000_000_000),
        "dozen" => Word::Dozen,
        "twice" => Word::Times(2),
        "thrice" => Word::Times(3),
        "once" => Word::Times(1),
        "single" => Word::Single,
        _ => return None,
    })
}

/// Words before `one` or `once` that make it a count.
const BOUNDS: &[&str] = &[
    "most",
    "least",
    "than",
    "only",
    "exactly",
    "to",
    "max",
    "maximum",
    "minimum",
    "just",
    "precisely",
    "over",
    "under",
    "within",
];

/// One quantity found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    pub start: usize,
    pub end: usize,
    /// The value in digits, with `%` when `percent` follows.
    pub canonical: String,
    /// Whether it is a fact (a count), not only a spelling that satisfies a lookup.
    pub fact: bool,
}

/// The word (letters only) at `at`, and where it ends.
fn word_at(text: &str, at: usize) -> Option<(&str, usize)> {
    let rest = &text[at..];
    let len = rest.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    (len > 0).then(|| (&rest[..len], at + len))
}

/// The next word after `at`, skipping spaces (and one hyphen, when `hyphen`): its start,
/// the word and its end.
fn next_word(text: &str, at: usize, hyphen: bool) -> Option<(usize, &str, usize)> {
    let bytes = text.as_bytes();
    let mut i = at;
    if hyphen && bytes.get(i) == Some(&b'-') {
        i += 1;
    } else {
        let gap = space(&bytes[i..]);
        if gap == 0 {
            return None;
        }
        i += gap;
    }
    let (w, end) = word_at(text, i)?;
    Some((i, w, end))
}

/// The length of the space between two words of one phrase at the start of `bytes`:
/// spaces and tabs and at most one line break (a reflowed line), else 0.
fn space(bytes: &[u8]) -> usize {
    let n = bytes
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    let breaks = bytes[..n].iter().filter(|b| **b == b'\n').count();
    if breaks > 1 || n > 8 { 0 } else { n }
}

/// The word before `at` (lowercased), skipping the space of one phrase.
fn previous_word(text: &str, at: usize) -> Option<String> {
    let trimmed = text[..at].trim_end_matches([' ', '\t', '\n', '\r']);
    let gap = at - trimmed.len();
    let before = if gap > 8 || text[trimmed.len()..at].matches('\n').count() > 1 {
        return None;
    } else {
        trimmed
    };
    let len = before
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    (len > 0).then(|| before[before.len() - len..].to_ascii_lowercase())
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Every quantity of `text`, in order: compounds read whole (`two hundred and fifty`),
/// `a`/`an` before a scale counted as one (`a hundred`), a hyphenated word only when every
/// part is a number word (`twenty-five`, not `one-time`).
pub fn quantities(text: &str) -> Vec<Quantity> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut resume = 0;
    for m in NUMBER_WORD.find_iter(text) {
        if m.start() < resume {
            continue;
        }
        // A part of a hyphenated word that is not all number words (`one-time`).
        if m.start() > 0 && matches!(bytes[m.start() - 1], b'-' | b'\'') {
            continue;
        }
        let Some(first) = word(m.as_str()) else {
            continue;
        };
        let mut start = m.start();
        let mut end = m.end();
        let (mut total, mut current, mut last) = (0u64, 0u64, first);
        let mut words = 1;
        let mut article = false;
        match first {
            Word::Ones(n) | Word::Tens(n) => current = n,
            Word::Hundred | Word::Dozen | Word::Scale(_) => {
                // `a hundred`, `one thousand`: the article counts as one.
                let Some(before) = previous_word(text, start).filter(|w| w == "a" || w == "an")
                else {
                    continue;
                };
                article = true;
                let at = text[..start]
                    .trim_end_matches([' ', '\t', '\n', '\r'])
                    .len()
                    - before.len();
                start = at;
                current = 1;
                apply(first, &mut total, &mut current);
            }
            Word::Times(_) | Word::Single => {}
        }
        if !matches!(first, Word::Times(_) | Word::Single) {
            // Read the compound on: `twenty-five`, `two hundred and ten`, `five thousand`.
            loop {
                let hyphen = matches!(last, Word::Tens(_)) && bytes.get(end) == Some(&b'-');
                let Some((_, mut w, mut w_end)) = next_word(text, end, hyphen) else {
                    break;
                };
                let mut and_skip = false;
                if w.eq_ignore_ascii_case("and")
                    && matches!(last, Word::Hundred | Word::Scale(_))
                    && let Some((_, after, after_end)) = next_word(text, w_end, false)
                {
                    (w, w_end, and_skip) = (after, after_end, true);
                }
                let Some(next) = word(w) else { break };
                let fits = match (last, next) {
                    (Word::Tens(_), Word::Ones(n)) => n > 0 && n < 10,
                    (Word::Ones(_) | Word::Tens(_), Word::Hundred) => !and_skip,
                    (Word::Ones(_) | Word::Tens(_) | Word::Hundred, Word::Scale(_)) => !and_skip,
                    (Word::Ones(_) | Word::Tens(_), Word::Dozen) => !and_skip,
                    (Word::Hundred | Word::Scale(_), Word::Ones(n)) => n > 0,
                    (Word::Hundred | Word::Scale(_), Word::Tens(_)) => true,
                    _ => false,
                };
                if !fits {
                    break;
                }
                match next {
                    Word::Ones(n) | Word::Tens(n) => current += n,
                    other => apply(other, &mut total, &mut current),
                }
                last = next;
                end = w_end;
                words += 1;
            }
        }
        resume = end;
        if bytes
            .get(end)
            .is_some_and(|&b| is_word_byte(b) || b == b'-')
        {
            // `ten-day` reads as ten; `fiftyfold` is not a number word at all (the regex
            // saw a boundary there only for a hyphen).
            if bytes[end] != b'-' {
                continue;
            }
        }
        let value = match first {
            Word::Times(n) => n,
            Word::Single => 1,
            _ => total + current,
        };
        let (canonical, end) = match percent_after(text, end) {
            Some(pct_end) => (format!("{value}%"), pct_end),
            None => (value.to_string(), end),
        };
        let fact = match first {
            Word::Single => false,
            Word::Ones(1) if words == 1 => counts(text, start, end, false),
            Word::Times(1) => counts(text, start, end, true),
            _ => true,
        } || article;
        out.push(Quantity {
            start,
            end,
            canonical,
            fact,
        });
    }
    out
}

fn apply(w: Word, total: &mut u64, current: &mut u64) {
    match w {
        Word::Hundred => *current = (*current).max(1) * 100,
        Word::Dozen => *current = (*current).max(1) * 12,
        Word::Scale(s) => {
            *total += (*current).max(1) * s;
            *current = 0;
        }
        _ => {}
    }
}

/// The end of ` percent` / ` per cent` right after `at`, if it follows.
fn percent_after(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    for word in [" percent", " per cent"] {
        let bytes = rest.as_bytes();
        if bytes.len() >= word.len()
            && bytes[..word.len()].eq_ignore_ascii_case(word.as_bytes())
            && !bytes[word.len()..]
                .iter()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric())
        {
            return Some(at + word.len());
        }
    }
    None
}

/// Whether `one` or `once` at `start..end` counts something. `one`: a bound before it
/// or a counted noun or unit within the next two words (`at most one`, `one business
/// day`). `once`: the end of the clause or a frequency after it (`retry once.`, `once per
/// session`, `once a week`), never a clause (`once the customer confirms`).
fn counts(text: &str, start: usize, end: usize, times: bool) -> bool {
    let unit = |w: &str| super::units::unit(w).is_some() || COUNTED.contains(&w);
    if times {
        let rest = text[end..].trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with(['.', ',', ';', ':', ')', '!', '?', '\n']) {
            return true;
        }
        let Some((_, first, first_end)) = next_word(text, end, false) else {
            return false;
        };
        let first = first.to_ascii_lowercase();
        return match first.as_str() {
            "per" | "every" | "each" => true,
            "a" | "an" => next_word(text, first_end, false)
                .is_some_and(|(_, w, _)| unit(&w.to_ascii_lowercase())),
            _ => false,
        };
    }
    if previous_word(text, start).is_some_and(|w| BOUNDS.contains(&w.as_str())) {
        return true;
    }
    let Some((_, first, first_end)) = next_word(text, end, false) else {
        return false;
    };
    let second = next_word(text, first_end, false).map(|(_, w, _)| w.to_ascii_lowercase());
    [Some(first.to_ascii_lowercase()), second]
        .iter()
        .flatten()
        .any(|w| unit(w))
}

/// Nouns that `one` counts in a brief (beside the units of `units.rs`).
const COUNTED: &[&str] = &[
    "question",
    "questions",
    "sentence",
    "sentences",
    "paragraph",
    "paragraphs",
    "message",
    "messages",
    "emoji",
    "attempt",
    "attempts",
    "retry",
    "retries",
    "item",
    "items",
    "tool",
    "call",
    "calls",
    "request",
    "bullet",
    "time",
    "page",
    "option",
    "suggestion",
    "follow",
    "refund",
    "voucher",
    "exchange",
    "reminder",
    "session",
    "conversation",
    "turn",
    "visit",
];

/// The quantities of `text` that are facts, as found spans.
pub fn facts(text: &str, out: &mut Vec<Found>) {
    out.extend(
        quantities(text)
            .into_iter()
            .filter(|q| q.fact)
            .map(|q| Found {
                kind: Kind::Number,
                start: q.start,
                end: q.end,
                canonical: q.canonical,
            }),
    );
}

/// Canonical values of every quantity of `text`, facts or not: what a number fact of
/// another text may be found as.
pub fn spellings(text: &str) -> impl Iterator<Item = String> {
    quantities(text).into_iter().map(|q| q.canonical)
}

#[cfg(test)]
#[path = "quantities_tests.rs"]
mod tests;
