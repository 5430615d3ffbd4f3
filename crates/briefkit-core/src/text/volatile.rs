//! The one detector of volatile-looking content: values that change from call to call
//! (timestamps, ids, tokens) and so break a provider's prompt cache when they sit in the
//! part of a request that must stay byte-identical.
//!
//! `brief align`, `brief check` and `brief stats` all ask this module, so a brief that one
//! command calls clean the others call clean too. It only finds; it never rewrites.
//!
//! Two rules shape every pattern below:
//! - no crying wolf on ordinary briefs: version numbers, prices, phone numbers, plain
//!   years, ratios like `3:1` and opening hours like `9:00-17:00` are not findings;
//! - no secret is ever printed whole: samples of ids, hashes and tokens are cut short.

use std::sync::LazyLock;

use regex::Regex;

/// What kind of volatile value a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VolatileKind {
    Timestamp,
    Date,
    ClockTime,
    Uuid,
    Jwt,
    HexId,
    UnixTime,
    IdField,
    CurrentTimePhrase,
}

impl VolatileKind {
    /// The stable machine name (the same as the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            VolatileKind::Timestamp => "timestamp",
            VolatileKind::Date => "date",
            VolatileKind::ClockTime => "clock_time",
            VolatileKind::Uuid => "uuid",
            VolatileKind::Jwt => "jwt",
            VolatileKind::HexId => "hex_id",
            VolatileKind::UnixTime => "unix_time",
            VolatileKind::IdField => "id_field",
            VolatileKind::CurrentTimePhrase => "current_time_phrase",
        }
    }

    /// A short human description, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            VolatileKind::Timestamp => "ISO-8601 timestamp",
            VolatileKind::Date => "ISO-8601 date",
            VolatileKind::ClockTime => "clock time",
            VolatileKind::Uuid => "UUID",
            VolatileKind::Jwt => "JWT",
            VolatileKind::HexId => "hex id (hash or token)",
            VolatileKind::UnixTime => "Unix timestamp",
            VolatileKind::IdField => "request/session/trace id field",
            VolatileKind::CurrentTimePhrase => "\"current date/time\" phrasing",
        }
    }

    /// Whether the matched text may be a secret or a tracking id, so its sample is cut.
    fn is_secretive(self) -> bool {
        matches!(
            self,
            VolatileKind::Uuid | VolatileKind::Jwt | VolatileKind::HexId | VolatileKind::IdField
        )
    }
}

/// One volatile value found in a text.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Finding {
    pub kind: VolatileKind,
    /// Byte offset of the start, in the scanned text.
    pub start: usize,
    /// Byte offset just past the end, in the scanned text.
    pub end: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// The matched text, cut short for ids, hashes and tokens so no secret is printed whole.
    pub sample: String,
}

/// Every volatile value in `text`, sorted by start, non-overlapping (where two patterns
/// overlap, the one that starts first wins, then the longer one).
pub fn scan(text: &str) -> Vec<Finding> {
    let mut candidates = Vec::new();
    id_fields(text, &mut candidates);
    timestamps(text, &mut candidates);
    clock_times(text, &mut candidates);
    simple(text, &UUID, VolatileKind::Uuid, &mut candidates);
    jwts(text, &mut candidates);
    hex_ids(text, &mut candidates);
    unix_times(text, &mut candidates);
    phrases(text, &mut candidates);

    candidates.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then((b.end - b.start).cmp(&(a.end - a.start)))
    });
    let mut findings = Vec::new();
    let mut last_end = 0;
    let mut position = Position::default();
    for candidate in candidates {
        if candidate.start < last_end {
            continue;
        }
        last_end = candidate.end;
        let (line, column) = position.advance(text, candidate.start);
        findings.push(Finding {
            kind: candidate.kind,
            start: candidate.start,
            end: candidate.end,
            line,
            column,
            sample: candidate.sample(text),
        });
    }
    findings
}

/// Cuts a possibly secret value: at most 8 characters and never more than half of it.
pub fn truncate_secret(value: &str) -> String {
    let count = value.chars().count();
    let keep = (count / 2).min(8);
    let cut: String = value.chars().take(keep).collect();
    format!("{cut}…")
}

struct Candidate {
    kind: VolatileKind,
    start: usize,
    end: usize,
    /// For an id field: the key name and where its value starts.
    key: Option<(usize, usize, usize)>,
}

impl Candidate {
    fn new(kind: VolatileKind, start: usize, end: usize) -> Self {
        Candidate {
            kind,
            start,
            end,
            key: None,
        }
    }

    fn sample(&self, text: &str) -> String {
        let matched = &text[self.start..self.end];
        match self.key {
            Some((key_start, key_end, value_start)) => format!(
                "{}: {}",
                &text[key_start..key_end],
                truncate_secret(&text[value_start..self.end])
            ),
            None if self.kind.is_secretive() => truncate_secret(matched),
            None => matched.to_string(),
        }
    }
}

/// Walks forward through the text once, turning byte offsets into line and column.
#[derive(Default)]
struct Position {
    offset: usize,
    line: usize,
    line_start: usize,
}

impl Position {
    fn advance(&mut self, text: &str, to: usize) -> (usize, usize) {
        for (i, b) in text.as_bytes()[self.offset..to].iter().enumerate() {
            if *b == b'\n' {
                self.line += 1;
                self.line_start = self.offset + i + 1;
            }
        }
        self.offset = to;
        let column = text[self.line_start..to].chars().count() + 1;
        (self.line + 1, column)
    }
}

/// Every `\b` is an ASCII word boundary: a Unicode `\b` keeps the regex engine off its
/// DFAs for any text with a non-ASCII character (nearly every real brief), and the scan then
/// ran at a few MB/s, as slow as counting the tokens. The values looked for are ASCII, so
/// the only difference is at a non-ASCII letter touching one (`时间戳1700000000`), which
/// is now found too.
fn regex(pattern: &str) -> Regex {
    Regex::new(&pattern.replace(r"\b", r"(?-u:\b)")).expect("built-in volatile pattern is valid")
}

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
});
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",
    )
});
static CLOCK: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"\b(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:\s?([AaPp])\.?[Mm]\b\.?)?")
});
static TIME_RANGE_JOIN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^\s*(?:-|–|—|to|until|till|and)\s*$"));
static JWT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"));
static HEX: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\b(?:0x)?(?:[0-9a-fA-F]{64}|[0-9a-fA-F]{40}|[0-9a-fA-F]{32})\b"));
static UNIX: LazyLock<Regex> = LazyLock::new(|| regex(r"\b(\d{13}|\d{10})(?:\.\d{1,9})?\b"));
static ID_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)((?:x-)?(?:request|session|trace|correlation|span)[_-]?id)\b"?\s*[:=]\s*"?([A-Za-z0-9][A-Za-z0-9._~+=-]{3,})"#,
    )
});
static PHRASE_ALWAYS: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\bcurrent\s+(?:date\s*(?:and|&|/)\s*time|date|time|datetime|timestamp)\s*(?:is\b|:|=)",
    )
});
static PHRASE_WITH_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(today\s+is|today'?s\s+date\s+is|today’s\s+date\s+is|now\s+is|it\s+is\s+now|the\s+time\s+is)\s+(?:the\s+)?(?:\d|\{|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)",
    )
});

fn simple(text: &str, re: &Regex, kind: VolatileKind, out: &mut Vec<Candidate>) {
    out.extend(
        re.find_iter(text)
            .map(|m| Candidate::new(kind, m.start(), m.end())),
    );
}

fn number(caps: &regex::Captures<'_>, i: usize) -> Option<u32> {
    caps.get(i).and_then(|m| m.as_str().parse().ok())
}

fn timestamps(text: &str, out: &mut Vec<Candidate>) {
    for caps in TIMESTAMP.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always matches");
        let (Some(year), Some(month), Some(day)) =
            (number(&caps, 1), number(&caps, 2), number(&caps, 3))
        else {
            continue;
        };
        if !(1900..=2199).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day)
        {
            continue;
        }
        let kind = match (number(&caps, 4), number(&caps, 5)) {
            (Some(hour), Some(minute)) => {
                if hour > 23 || minute > 59 || number(&caps, 6).is_some_and(|s| s > 60) {
                    continue;
                }
                VolatileKind::Timestamp
            }
            _ => VolatileKind::Date,
        };
        // A date glued into a longer dashed number (a part number, a phone) is not a date.
        if next_char(text, whole.end()) == Some('-') || prev_char(text, whole.start()) == Some('-')
        {
            continue;
        }
        out.push(Candidate::new(kind, whole.start(), whole.end()));
    }
}

fn clock_times(text: &str, out: &mut Vec<Candidate>) {
    let mut times: Vec<Candidate> = Vec::new();
    for caps in CLOCK.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always matches");
        let (Some(hour), Some(minute)) = (number(&caps, 1), number(&caps, 2)) else {
            continue;
        };
        let max_hour = if caps.get(4).is_some() { 12 } else { 23 };
        if hour > max_hour || minute > 59 || number(&caps, 3).is_some_and(|s| s > 60) {
            continue;
        }
        // Part of something longer: an address `10.0.0.1:80`, a MAC `12:34:56:78`, a
        // version `1.12:30`, or glued to another number.
        if matches!(prev_char(text, whole.start()), Some(':' | '.' | '/'))
            || followed_by_digit_after(text, whole.end(), &[':', '.', ','])
            || next_char(text, whole.end()).is_some_and(|c| c.is_ascii_digit())
        {
            continue;
        }
        times.push(Candidate::new(
            VolatileKind::ClockTime,
            whole.start(),
            whole.end(),
        ));
    }
    // Opening hours (`9:00-17:00`, `9:00 to 17:30`) are fixed facts, not the time of a call.
    let mut in_range = vec![false; times.len()];
    for i in 1..times.len() {
        if TIME_RANGE_JOIN.is_match(&text[times[i - 1].end..times[i].start]) {
            in_range[i - 1] = true;
            in_range[i] = true;
        }
    }
    out.extend(
        times
            .into_iter()
            .zip(in_range)
            .filter(|(_, ranged)| !ranged)
            .map(|(time, _)| time),
    );
}

fn jwts(text: &str, out: &mut Vec<Candidate>) {
    for m in JWT.find_iter(text) {
        let glued = prev_char(text, m.start())
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !glued {
            out.push(Candidate::new(VolatileKind::Jwt, m.start(), m.end()));
        }
    }
}

fn hex_ids(text: &str, out: &mut Vec<Candidate>) {
    for m in HEX.find_iter(text) {
        let digits = m.as_str().trim_start_matches("0x");
        // A run of only digits is a number; a run of only letters is a word (or padding).
        let has_digit = digits.bytes().any(|b| b.is_ascii_digit());
        let has_letter = digits.bytes().any(|b| b.is_ascii_alphabetic());
        if has_digit && has_letter && next_char(text, m.end()) != Some('-') {
            out.push(Candidate::new(VolatileKind::HexId, m.start(), m.end()));
        }
    }
}

/// 2001-09-09 (the first 10-digit second) to 2100-01-01.
const UNIX_SECONDS: std::ops::RangeInclusive<u64> = 1_000_000_000..=4_102_444_800;

fn unix_times(text: &str, out: &mut Vec<Candidate>) {
    for caps in UNIX.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always matches");
        let digits = caps.get(1).map_or("", |m| m.as_str());
        let Ok(value) = digits.parse::<u64>() else {
            continue;
        };
        let seconds = if digits.len() == 13 {
            value / 1000
        } else {
            value
        };
        if !UNIX_SECONDS.contains(&seconds) {
            continue;
        }
        // Money, a phone number (`+1 ...`, `555-...`), a percentage or a bigger number.
        let prev = prev_char(text, whole.start());
        if matches!(
            prev,
            Some('+' | '$' | '€' | '£' | '¥' | '#' | '.' | ',' | '-')
        ) || next_char(text, whole.end()).is_some_and(|c| matches!(c, '%' | '-'))
            || followed_by_digit_after(text, whole.end(), &[',', '.'])
        {
            continue;
        }
        out.push(Candidate::new(
            VolatileKind::UnixTime,
            whole.start(),
            whole.end(),
        ));
    }
}

fn id_fields(text: &str, out: &mut Vec<Candidate>) {
    for caps in ID_FIELD.captures_iter(text) {
        let (Some(key), Some(value)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        // Prose about the field ("pass the request_id: always") has no digits in the value.
        if !value.as_str().bytes().any(|b| b.is_ascii_digit()) {
            continue;
        }
        out.push(Candidate {
            kind: VolatileKind::IdField,
            start: key.start(),
            end: value.end(),
            key: Some((key.start(), key.end(), value.start())),
        });
    }
}

fn phrases(text: &str, out: &mut Vec<Candidate>) {
    simple(text, &PHRASE_ALWAYS, VolatileKind::CurrentTimePhrase, out);
    for caps in PHRASE_WITH_VALUE.captures_iter(text) {
        if let Some(phrase) = caps.get(1) {
            out.push(Candidate::new(
                VolatileKind::CurrentTimePhrase,
                phrase.start(),
                phrase.end(),
            ));
        }
    }
}

fn prev_char(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

fn next_char(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

/// Whether the text at `at` is one of `joiners` followed by an ASCII digit.
fn followed_by_digit_after(text: &str, at: usize, joiners: &[char]) -> bool {
    let mut rest = text[at..].chars();
    rest.next().is_some_and(|c| joiners.contains(&c))
        && rest.next().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests;
