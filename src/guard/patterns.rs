//! The prose passes of the extractor: URLs, e-mail addresses, placeholders, prices, then
//! loose numbers, each over text where the earlier passes' spans are already blanked.
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

fn regex(pattern: &str) -> Regex {
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
        r"(?:{sp}/{sp}(?P<p1>[A-Za-z]+(?:/[A-Za-z]+)?)|[ \x{{a0}}](?:per|each)[ \x{{a0}}](?P<p2>[A-Za-z]+)|[ \x{{a0}}](?:a|an)[ \x{{a0}}](?P<p3>month|year|week|day|hour|minute))?"
    );
    regex(&format!("(?:{pre_symbol}|{pre_code}|{post}){period}"))
});

const NUM: &str = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?";
const PERCENT: &str = r"[ ]?%|[ ](?i:percent|per cent|pct)";

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?P<date>[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}(?:T[0-9]{{2}}:[0-9]{{2}}(?::[0-9]{{2}}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{{2}}:?[0-9]{{2}})?)?|[0-9]{{4}}/[0-9]{{2}}/[0-9]{{2}}|[0-9]{{1,2}}/[0-9]{{1,2}}/[0-9]{{4}})|(?P<time>[0-9]{{1,2}}:[0-9]{{2}}(?::[0-9]{{2}}(?:\.[0-9]+)?)?(?:[ ]?(?i:[ap]\.?m\.?))?|[0-9]{{1,2}}[ ]?(?i:[ap]\.?m\.?))|(?P<ver>[vV][0-9]+(?:\.[0-9]+)*|[0-9]+(?:\.[0-9]+){{2,}})|(?P<num>{NUM})(?P<pct>{PERCENT})?(?P<unit>[A-Za-z]+)?"
    ))
});

/// A plain number at the start of a slice: the fallback when a date, time or version
/// match turns out to run into a word (`5 amazing` is the number 5, not 5 a.m.).
static PLAIN_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^(?P<num>{NUM})(?P<pct>{PERCENT})?(?P<unit>[A-Za-z]+)?"
    ))
});

static NUMBER_WORD: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?P<word>zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)(?-u:\b)(?P<pct> percent| per cent)?",
    )
});

static RANGE_BETWEEN: LazyLock<Regex> = LazyLock::new(|| regex(r"^[ ]?(?:-|–|—|to)[ ]?$"));

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

fn char_after(text: &str, at: usize) -> Option<char> {
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

pub fn prices(text: &str, out: &mut Vec<Found>) {
    for caps in PRICE.captures_iter(text) {
        let Some(whole) = caps.get(0) else { continue };
        let symbol_first = caps.name("s1").is_some();
        if !symbol_first && char_before(text, whole.start()).is_some_and(is_word) {
            continue;
        }
        if char_after(text, whole.end()).is_some_and(is_word) {
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
        if let Some(per) = group(&caps, &["p1", "p2", "p3"]) {
            for word in per.as_str().split('/') {
                canonical.push('/');
                canonical.push_str(&canon::period(word));
            }
        }
        out.push(Found {
            kind: Kind::Price,
            start: whole.start(),
            end: whole.end(),
            canonical,
        });
    }
}

/// Spans of Markdown structure that look like numbers: ordered-list markers (`1.`, `2)`,
/// also in block quotes and nested lists) and section numbers of headings (`## 3.`).
/// A hand-written line scan: cheaper than a multi-line regex and just as linear.
pub fn structure(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        if let Some(range) = marker(line.as_bytes()) {
            out.push(start + range.start..start + range.end);
        }
        start += line.len() + 1;
    }
    out
}

fn marker(line: &[u8]) -> Option<std::ops::Range<usize>> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let count = |from: usize, pred: &dyn Fn(u8) -> bool| {
        line[from..].iter().take_while(|b| pred(**b)).count()
    };
    let indent = count(0, &|b| blank(b));
    let hashes = count(indent, &|b| b == b'#');
    let (start, sections) = if indent <= 3 && (1..=6).contains(&hashes) {
        let gap = count(indent + hashes, &|b| blank(b));
        if gap == 0 {
            return None;
        }
        (indent + hashes + gap, true)
    } else {
        let mut at = count(0, &|b| blank(b) || b == b'>');
        if matches!(line.get(at), Some(b'-' | b'*' | b'+')) {
            let gap = count(at + 1, &|b| blank(b));
            if gap == 0 {
                return None;
            }
            at += 1 + gap;
        }
        (at, false)
    };
    let mut at = start;
    loop {
        let digits = count(at, &|b| b.is_ascii_digit());
        let limit = if sections { 3 } else { 9 };
        if digits == 0 || digits > limit {
            return None;
        }
        at += digits;
        let more = sections
            && line.get(at) == Some(&b'.')
            && line.get(at + 1).is_some_and(u8::is_ascii_digit);
        if !more {
            break;
        }
        at += 1;
    }
    if !matches!(line.get(at), Some(b'.' | b')')) {
        return None;
    }
    at += 1;
    match line.get(at) {
        None | Some(b' ' | b'\t' | b'\r') => Some(start..at),
        Some(_) => None,
    }
}

/// One loose number as the pass sees it, before ranges are resolved.
struct Token {
    found: Found,
    percent: bool,
    plain: bool,
}

fn plain_number(caps: &Captures<'_>, offset: usize) -> Option<Token> {
    let num = caps.name("num")?;
    let (end, canonical, percent, plain) = match (caps.name("pct"), caps.name("unit")) {
        // `15 percentage points`: the word is not a percent sign.
        (Some(pct), Some(_)) if pct.as_str().trim() != "%" => (
            num.end(),
            canon::decimal(num.as_str(), 0, false),
            false,
            true,
        ),
        (Some(pct), _) => (
            pct.end(),
            format!("{}%", canon::decimal(num.as_str(), 0, false)),
            true,
            false,
        ),
        (None, Some(unit)) => (
            unit.end(),
            canon::decimal(num.as_str(), canon::multiplier(unit.as_str()), false),
            false,
            false,
        ),
        (None, None) => (
            num.end(),
            canon::decimal(num.as_str(), 0, false),
            false,
            true,
        ),
    };
    Some(Token {
        found: Found {
            kind: Kind::Number,
            start: offset + num.start(),
            end: offset + end,
            canonical,
        },
        percent,
        plain,
    })
}

fn is_ip(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| p.len() <= 3 && p.parse::<u16>().is_ok_and(|n| n <= 255))
}

/// Loose numbers: dates, times, versions and IP addresses as atomic tokens, then
/// integers, decimals and percentages; `8–12%` makes both ends percentages.
pub fn numbers(text: &str, out: &mut Vec<Found>) {
    let mut tokens: Vec<Token> = Vec::new();
    let mut at = 0;
    while let Some(caps) = NUMBER.captures_at(text, at) {
        let Some(whole) = caps.get(0) else { break };
        at = whole.end().max(at + 1);
        if char_before(text, whole.start()).is_some_and(is_word) {
            continue;
        }
        let atomic = [
            ("date", Kind::Date),
            ("time", Kind::Time),
            ("ver", Kind::Version),
        ]
        .into_iter()
        .find_map(|(name, kind)| caps.name(name).map(|m| (m, kind)));
        let token = match atomic {
            Some((m, kind)) if !char_after(text, m.end()).is_some_and(is_word) => {
                let value = m.as_str();
                let (kind, canonical) = match kind {
                    Kind::Time => (kind, canon::time(value)),
                    Kind::Version if is_ip(value) => (Kind::IpAddress, value.to_string()),
                    Kind::Version => (kind, canon::version(value)),
                    _ => (kind, value.to_string()),
                };
                Some(Token {
                    found: Found {
                        kind,
                        start: m.start(),
                        end: m.end(),
                        canonical,
                    },
                    percent: false,
                    plain: false,
                })
            }
            Some((m, _)) => {
                let fallback = PLAIN_NUMBER.captures(&text[m.start()..]);
                let token = fallback.and_then(|c| plain_number(&c, m.start()));
                if let Some(token) = &token {
                    at = token.found.end;
                }
                token
            }
            None => plain_number(&caps, 0),
        };
        tokens.extend(token);
    }
    for i in 1..tokens.len() {
        let (before, after) = tokens.split_at_mut(i);
        let (low, high) = (&mut before[i - 1], &after[0]);
        if low.plain
            && high.percent
            && RANGE_BETWEEN.is_match(&text[low.found.end..high.found.start])
        {
            low.found.canonical.push('%');
        }
    }
    out.extend(tokens.into_iter().map(|t| t.found));
}

/// Canonical numbers spelled as words (`twelve` = `12`, `five percent` = `5%`): they
/// satisfy a number fact but are never reported as facts themselves.
pub fn number_words(text: &str) -> impl Iterator<Item = String> + '_ {
    NUMBER_WORD.captures_iter(text).filter_map(|caps| {
        let n = canon::number_word(caps.name("word")?.as_str())?;
        Some(match caps.name("pct") {
            Some(_) => format!("{n}%"),
            None => n.to_string(),
        })
    })
}
