//! The prose passes of the extractor: URLs, e-mail addresses, placeholders and prices, each
//! over text where the earlier passes' spans are already blanked (numbers: `numbers.rs`).
//!
//! Every pattern is a `regex` (finite automata, linear time, no backtracking). What a
//! regex cannot say (look-behind, look-ahead) is checked in code around each match.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::Kind;
use super::canon;

/// A fact found by a pass: where it is (byte offsets, identical in the blanked and the
/// original text) and how it compares.
#[derive(Debug, Clone)]
pub struct Found {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    pub canonical: String,
}

pub(super) fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this file, checked by the unit tests; a bad one is a
    // programming error, not a user's input.
    Regex::new(pattern).expect("guard pattern compiles")
}

static URL: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"(?:(?i:https?|ftp)://|(?i:www)\.)[^\s<>"'`]+"#));

static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"));

static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\{\{[^\n]*?\}\}|\{%[^\n]*?%\}|\$\{[^}\n]*\}"));

const AMOUNT: &str = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?(?:bn|[kKMB])?";
const SYMBOL: &str = r"[$€£¥₹]";
const CODE: &str =
    r"(?:USD|EUR|GBP|JPY|CNY|RMB|INR|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|BRL|MXN|KRW|SGD|HKD|ZAR)";

static PRICE: LazyLock<Regex> = LazyLock::new(|| {
    let sp = r"[ \x{a0}]?";
    let dash = r"[-–—]";
    let pre_symbol = format!(
        r"(?P<s1>{SYMBOL}){sp}(?P<a1>{AMOUNT})(?:{sp}{dash}{sp}(?:{SYMBOL}{sp})?(?P<b1>{AMOUNT})| to {SYMBOL}{sp}(?P<c1>{AMOUNT}))?"
    );
    let pre_code = format!(
        r"(?P<s2>{CODE}){sp}(?P<a2>{AMOUNT})(?:{sp}{dash}{sp}(?:{CODE}{sp})?(?P<b2>{AMOUNT})| to {CODE}{sp}(?P<c2>{AMOUNT}))?"
    );
    let post = format!(
        r"(?P<a3>{AMOUNT})(?:{sp}{dash}{sp}(?P<b3>{AMOUNT}))?{sp}(?P<s3>{SYMBOL}|{CODE}|(?i:dollars?|euros?|yen))"
    );
    let period = format!(
        r"(?:{sp}/{sp}(?P<p1>[A-Za-z]+(?:/[A-Za-z]+)?)|[ \x{{a0}}]+(?:per|each)[ \x{{a0}}]+(?P<p2>[A-Za-z]+)|[ \x{{a0}}]+(?:a|an)[ \x{{a0}}]+(?P<p3>month|year|week|day|hour|minute))?"
    );
    regex(&format!("(?:{pre_symbol}|{pre_code}|{post}){period}"))
});

/// What every price contains: found first, cheaply, to pick the lines worth matching.
static CURRENCY_MARK: LazyLock<Regex> =
    LazyLock::new(|| regex(&format!(r"{SYMBOL}|{CODE}|(?i:dollar|euro|yen)")));

pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

pub(super) fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

pub(super) fn char_after(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

/// URLs, with trailing punctuation and unbalanced closing brackets left out.
pub fn urls(text: &str, out: &mut Vec<Found>) {
    for m in URL.find_iter(text) {
        let is_www = !m.as_str().contains("://");
        if is_www
            && char_before(text, m.start())
                .is_some_and(|c| is_word(c) || matches!(c, '.' | '/' | '@' | '-'))
        {
            continue;
        }
        let url = trim_url(m.as_str());
        let body = url.split_once("://").map_or(url, |(_, body)| body);
        let body = body.strip_prefix("www.").unwrap_or(body);
        if !body.chars().any(char::is_alphanumeric) {
            continue;
        }
        out.push(Found {
            kind: Kind::Url,
            start: m.start(),
            end: m.start() + url.len(),
            canonical: canon::url(url),
        });
    }
}

/// Drops sentence punctuation after a URL, and a closing bracket that has no opening
/// partner inside it (`(see https://x.io/a)` ends before the `)`).
fn trim_url(url: &str) -> &str {
    const PAIRS: [(char, char); 4] = [('(', ')'), ('[', ']'), ('{', '}'), ('<', '>')];
    let mut balance = [0i64; 4];
    for c in url.chars() {
        for (i, (open, close)) in PAIRS.iter().enumerate() {
            if c == *open {
                balance[i] += 1;
            } else if c == *close {
                balance[i] -= 1;
            }
        }
    }
    let mut end = url.len();
    while let Some(c) = url[..end].chars().next_back() {
        if matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '*' | '\'' | '"') {
            end -= c.len_utf8();
        } else if let Some(i) = PAIRS.iter().position(|(_, close)| *close == c) {
            if balance[i] >= 0 {
                break;
            }
            balance[i] += 1;
            end -= c.len_utf8();
        } else {
            break;
        }
    }
    &url[..end]
}

pub fn emails(text: &str, out: &mut Vec<Found>) {
    for m in EMAIL.find_iter(text) {
        out.push(Found {
            kind: Kind::Email,
            start: m.start(),
            end: m.end(),
            canonical: m.as_str().to_lowercase(),
        });
    }
}

pub fn placeholders(text: &str, out: &mut Vec<Found>) {
    for m in PLACEHOLDER.find_iter(text) {
        out.push(Found {
            kind: Kind::Placeholder,
            start: m.start(),
            end: m.end(),
            canonical: canon::placeholder(m.as_str()),
        });
    }
}

fn group<'t>(caps: &Captures<'t>, names: &[&str]) -> Option<regex::Match<'t>> {
    names.iter().find_map(|name| caps.name(name))
}

/// An amount with its `K`/`M`/`B` suffix applied, separators and zero cents dropped.
fn amount(text: &str) -> String {
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    canon::decimal(&text[..split], canon::multiplier(&text[split..]), true)
}

/// Prices: a currency symbol, code or word with an amount before or after it.
///
/// Every price has a currency mark and lies on one line, so only lines with a mark are
/// matched against the full pattern (each line once): most lines of a brief have digits
/// and no currency, and the full pattern would otherwise run on all of them.
pub fn prices(text: &str, out: &mut Vec<Found>) {
    let mut scanned_to = 0;
    for mark in CURRENCY_MARK.find_iter(text) {
        if mark.start() < scanned_to {
            continue;
        }
        let line_start = text[..mark.start()].rfind('\n').map_or(0, |n| n + 1);
        let line_end = text[mark.end()..]
            .find('\n')
            .map_or(text.len(), |n| mark.end() + n);
        prices_in_line(text, line_start.max(scanned_to)..line_end, out);
        scanned_to = line_end;
    }
}

/// A gap between two words of a price that may hold one line break (a reflowed line).
const GAP: &str = r"(?:[ \t\x{a0}]*\r?\n[ \t>]*|[ \t\x{a0}]+)";

static NEXT_LINE_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^{GAP}(?:(?:per|each){GAP}(?P<p2>[A-Za-z]+)|(?:a|an){GAP}(?P<p3>month|year|week|day|hour|minute))"
    ))
});

/// A price's period across a line break (`$150.00` at a line's end, `per order` on the
/// next, or `per` / `order` split): the period word and where it ends.
fn period_on_next_line(text: &str, end: usize) -> Option<(&str, usize)> {
    let rest = text.get(end..)?;
    let mut cut = rest.len().min(64);
    while !rest.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &rest[..cut];
    let caps = NEXT_LINE_PERIOD.captures(head)?;
    let word = group(&caps, &["p2", "p3"])?;
    if char_after(text, end + word.end()).is_some_and(is_word) {
        return None;
    }
    Some((word.as_str(), end + word.end()))
}

fn prices_in_line(text: &str, line: std::ops::Range<usize>, out: &mut Vec<Found>) {
    for caps in PRICE.captures_iter(&text[line.clone()]) {
        let Some(whole) = caps.get(0) else { continue };
        let (start, end) = (line.start + whole.start(), line.start + whole.end());
        let symbol_first = caps.name("s1").is_some();
        if !symbol_first && char_before(text, start).is_some_and(is_word) {
            continue;
        }
        if char_after(text, end).is_some_and(is_word) {
            continue;
        }
        let (Some(mark), Some(low)) = (
            group(&caps, &["s1", "s2", "s3"]),
            group(&caps, &["a1", "a2", "a3"]),
        ) else {
            continue;
        };
        let mut canonical = format!(
            "{} {}",
            canon::currency(mark.as_str()),
            amount(low.as_str())
        );
        if let Some(high) = group(&caps, &["b1", "b2", "b3", "c1", "c2"]) {
            canonical.push('-');
            canonical.push_str(&amount(high.as_str()));
        }
        let mut end = end;
        if let Some(per) = group(&caps, &["p1", "p2", "p3"]) {
            for word in per.as_str().split('/') {
                canonical.push('/');
                canonical.push_str(&canon::period(word));
            }
        } else if let Some((word, period_end)) = period_on_next_line(text, end) {
            // `$150.00` at a line's end, `per order` on the next: a reflowed price.
            canonical.push('/');
            canonical.push_str(&canon::period(word));
            end = period_end;
        }
        out.push(Found {
            kind: Kind::Price,
            start,
            end,
            canonical,
        });
    }
}
