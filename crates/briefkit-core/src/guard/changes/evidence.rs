//! Evidence that a constraint or a binding really changed between two counterparts, read
//! from the words of both sides. A telegraphic rewrite moves words (`if there's a
//! tradeoff` → `Tradeoffs:`), shortens them (`requests per minute` → `req/min`) and writes
//! symbols for them (`w/o`, `>`): a change is reported only when the words it is about
//! survive and the constraint on them does not, or when they went and the rest stayed.

use std::sync::OnceLock;

use super::super::hash::FxMap;
use super::super::lexicon::data;
use super::super::reading::{Reading, Value};

/// The lowercased words of a text (letters, digits, `_`, `'`), symbols a telegraphic
/// rewrite writes for words (`w/o`, `>`, `→`) kept as words of their own.
pub(super) fn words(lower: &str) -> Vec<&str> {
    let mut out: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    for &(symbol, meaning) in symbols() {
        let found = lower.match_indices(symbol).any(|(at, _)| {
            // `w/o` is a symbol only as a word of its own (not the end of `kw/o`).
            !symbol.starts_with(char::is_alphanumeric)
                || lower[..at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
        });
        if found {
            out.push(symbol);
            out.extend(meaning.split(' '));
        }
    }
    out
}

/// Whether `word` is kept among `others`: the same word, an inflection (a shared stem of
/// at least four letters: `refactoring` ~ `refactors`, `deeply` ~ `deep`), a short form
/// (`req` for `requests`, `deps` for `dependencies`) or a numeral for a number word.
pub(super) fn kept(word: &str, others: &[&str]) -> bool {
    others.iter().any(|o| same_word(word, o))
}

fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() >= 4 {
        let n = short.len().min(5);
        if long.is_char_boundary(n) && short.is_char_boundary(n) && short[..n] == long[..n] {
            return true;
        }
    }
    if short.len() >= 3 && long.starts_with(short) {
        return true;
    }
    // `building` ~ `MSBuild`: a stem of five letters inside a compound.
    let inside = |x: &str, y: &str| x.len() >= 5 && x.is_char_boundary(5) && y.contains(&x[..5]);
    if inside(a, b) || inside(b, a) {
        return true;
    }
    let full = |w: &str| short_forms().get(w).copied();
    full(a).is_some_and(|f| f == b || same_stem(f, b))
        || full(b).is_some_and(|f| f == a || same_stem(f, a))
        || number(a).is_some_and(|n| number(b) == Some(n))
}

/// Each short form with the word it stands for, read once.
fn short_forms() -> &'static FxMap<&'static str, &'static str> {
    static FORMS: OnceLock<FxMap<&'static str, &'static str>> = OnceLock::new();
    FORMS.get_or_init(|| data::abbreviations().collect())
}

/// The symbols that are not words (`w/o`, `>`, `→`) with what they stand for, read once.
fn symbols() -> &'static [(&'static str, &'static str)] {
    static SYMBOLS: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    SYMBOLS.get_or_init(|| {
        data::symbols()
            .filter(|(s, _)| !s.chars().all(char::is_alphanumeric))
            .collect()
    })
}

fn same_stem(a: &str, b: &str) -> bool {
    let n = a.len().min(b.len()).min(5);
    n >= 4 && a.is_char_boundary(n) && b.is_char_boundary(n) && a[..n] == b[..n]
}

/// A small count as a number, whether written as a numeral or a word.
fn number(w: &str) -> Option<u32> {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    w.parse()
        .ok()
        .or_else(|| WORDS.iter().position(|x| *x == w).map(|n| n as u32))
}

/// The share of `mine` kept among `others` (1.0 when `mine` is empty).
pub(super) fn kept_share(mine: &[&str], others: &[&str]) -> f64 {
    if mine.is_empty() {
        return 1.0;
    }
    mine.iter().filter(|w| kept(w, others)).count() as f64 / mine.len() as f64
}

/// Whether a (lowercased) text sets one thing against another (`rather than`, `instead
/// of`, `over`, `>`): a rewrite saying it with `not` keeps the contrast, and a preference
/// said with a contrast (`X > Y`, `X over Y`) is still a preference.
pub(super) fn contrasts(lower: &str) -> bool {
    [
        "rather than",
        "instead of",
        "instead",
        "over",
        "than",
        "versus",
        "vs",
        "as opposed to",
    ]
    .iter()
    .any(|w| data::has_phrase(lower, w))
        || lower.contains(" > ")
}

/// Whether a (lowercased) text still orders things in time (`before`, `after`, `first`,
/// `once`, `→`): an `until` said another way.
pub(super) fn orders_in_time(lower: &str) -> bool {
    [
        "before", "after", "first", "once", "till", "then", "when", "wait",
    ]
    .iter()
    .any(|w| data::has_phrase(lower, w))
        || lower.contains('→')
        || lower.contains("->")
}

/// A line without its list marker (`1. `, `2) `, `- `): a numbered item's number counts
/// nothing.
pub(super) fn unmarked(line: &str) -> &str {
    let rest = line.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = &rest[digits..];
    match after.strip_prefix(['.', ')']) {
        Some(tail) if digits > 0 && tail.starts_with(' ') => tail,
        _ => rest.strip_prefix(['-', '*', '+']).unwrap_or(rest),
    }
}

/// Whether the proposal sets a bound on the same side for the list or label `c` is in:
/// its own line before it (`Max wait: 60s`) or the lines above, up to a heading or a
/// blank line after text (`Limits:` over `* Authenticated: 100 req/min`).
pub(super) fn bound_nearby(p: &Reading, c: &Value, upper: bool) -> bool {
    let words = super::weakening::list(if upper { "bound-upper" } else { "bound-lower" });
    let mut start = p.text[..c.start].rfind('\n').map_or(0, |n| n + 1);
    let mut lines = 0;
    loop {
        let line = p.text[start..c.start.max(start)].to_lowercase();
        let line = line.replace("/min", " ").replace("/max", " ");
        if words
            .iter()
            .any(|w| super::super::lexicon::data::has_phrase(&line, w))
        {
            return true;
        }
        let this = p.text[start..].lines().next().unwrap_or("").trim_start();
        if start == 0 || lines >= 8 || this.starts_with('#') {
            return false;
        }
        let prev_end = start - 1;
        start = p.text[..prev_end].rfind('\n').map_or(0, |n| n + 1);
        let prev = p.text[start..prev_end].trim_start();
        let item = prev.starts_with(['*', '-', '+']) || prev.is_empty();
        if !item && lines > 0 && !prev.ends_with(':') {
            return false;
        }
        lines += 1;
    }
}

/// Whether value `v` is a rate: a count per unit of time or of something else (`100
/// requests per minute`, `100 req/min`, `5/s`).
pub(super) fn rate(r: &Reading, v: &Value) -> bool {
    let end = v.noun_end.max(v.end);
    let after = r.text[end..]
        .char_indices()
        .nth(12)
        .map_or(&r.text[end..], |(n, _)| &r.text[end..end + n]);
    let own = r.text.get(v.start..end).unwrap_or("");
    own.contains('/') || after.starts_with('/') || format!("{own} {after}").contains(" per ")
}

/// Where a (lowercased) phrase first stands as words of its own in a (lowercased) text.
pub(super) fn phrase_at(lower: &str, phrase: &str) -> Option<usize> {
    let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '\'');
    lower.match_indices(phrase).map(|(at, _)| at).find(|&at| {
        bounded(lower[..at].chars().next_back())
            && bounded(lower[at + phrase.len()..].chars().next())
    })
}

/// Whether the part of a table row or run-on item holding byte `at` of `sentence`
/// (between `|`, `<br>`, `•`, `;` and a label's `:`) went with the constraint word in it: fewer than half
/// of its other content words survive among `other`. A constraint in a cell the rewrite
/// dropped is a dropped clause (the instruction layer's finding), not a weakened one.
/// A sentence without such parts has none to lose.
pub(super) fn part_gone(sentence: &str, at: usize, word: &str, other: &[&str]) -> bool {
    let lower = sentence.to_lowercase();
    // Offsets hold while lowercasing keeps every length (`<br>` becomes as long a cut).
    let lower = lower.replace("<br>", " ;  ");
    let cut = |c: char| matches!(c, '|' | '•' | ';' | ':');
    if lower.len() != sentence.len()
        || !lower.contains(cut)
        || !lower.is_char_boundary(at.min(lower.len()))
    {
        return false;
    }
    let at = at.min(lower.len());
    let start = lower[..at].rfind(cut).map_or(0, |n| {
        n + lower[n..].chars().next().map_or(1, char::len_utf8)
    });
    let end = lower[at..].find(cut).map_or(lower.len(), |n| at + n);
    let part = words(&lower[start..end]);
    let content: Vec<&str> = part
        .into_iter()
        .filter(|w| {
            w.len() >= 3 && *w != word && !super::super::lexicon::ENGLISH.stop_words.contains(w)
        })
        .collect();
    !content.is_empty() && kept_share(&content, other) < 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_short_forms_and_numerals_are_kept() {
        for (a, b) in [
            ("refactoring", "refactors"),
            ("deeply", "deep"),
            ("requests", "req"),
            ("three", "3"),
            ("tokens", "token"),
        ] {
            assert!(kept(a, &[b]), "{a} ~ {b}");
        }
        for (a, b) in [("approval", "apple"), ("one", "two"), ("rate", "ratio")] {
            assert!(!kept(a, &[b]), "{a} !~ {b}");
        }
    }

    #[test]
    fn symbols_are_read_as_their_words() {
        let w = words("completes w/o errors");
        assert!(w.contains(&"without"), "{w:?}");
        assert!(contrasts("3 small > 1 large"));
        assert!(orders_in_time("wait for 3+ use cases before extracting"));
    }
}
