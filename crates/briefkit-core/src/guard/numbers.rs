//! The last prose pass: loose numbers (dates, times, versions, IP addresses, integers,
//! decimals, percentages), after Markdown structure that looks like a number is blanked.
//! Numbers written as words are `quantities.rs`.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::Kind;
use super::canon;
use super::patterns::{Found, char_after, char_before, is_word, regex};

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

static RANGE_BETWEEN: LazyLock<Regex> = LazyLock::new(|| regex(r"^[ ]?(?:-|–|—|to)[ ]?$"));

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
