//! One text as the second layer reads it: sentences, the numeric values in them with what
//! each is bound to (unit, bound, counted noun, subject), and the constraint words of each
//! sentence (negation, modality, exclusivity, exceptions and conditions, absolutes).

use super::extract::Extracted;
use super::lookup::{self, Lookup, Mark};
use super::words::{self, Sentence, Tok, Token};
use super::{Class, Kind};

/// A value's unit: dimension and magnitude (`MB` = bytes × 10⁶), and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub dimension: &'static str,
    pub magnitude: f64,
    pub text: String,
}

/// A comparison bounding a value: upper (`at most`) or lower (`at least`), and whether
/// losing it is ordinary rewording (`within 30 days` → `30-day`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub upper: bool,
    pub soft: bool,
    /// Byte where the bound's words start (or end, when they follow the value).
    pub at: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub struct Value {
    /// Compared across texts: class and canonical form (`#15%`, `$USD 500`).
    pub key: String,
    pub start: usize,
    pub end: usize,
    pub sentence: usize,
    /// Spelled as a word (`five`): not a fact of the first layer.
    pub word: bool,
    pub unit: Option<Unit>,
    pub bound: Option<Bound>,
    /// Stems of the counted noun phrase (`3 free bags` → free, bag).
    pub noun: Vec<String>,
    pub noun_end: usize,
    /// Stems of the words naming whose value it is (`gold members get 3` → gold, member).
    pub subject: Vec<String>,
    pub subject_start: usize,
}

/// A modal verb with the verb it governs.
#[derive(Debug, Clone)]
pub struct Modal {
    pub mark: Mark,
    pub negated: bool,
    pub verb: Option<String>,
    pub at: usize,
}

/// The constraint words of one sentence (byte offsets of each).
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    pub negation: Vec<usize>,
    pub modals: Vec<Modal>,
    pub only: Vec<usize>,
    pub exception: Vec<usize>,
    pub condition: Vec<usize>,
    pub until: Vec<usize>,
    pub universal: Vec<usize>,
    pub partial: Vec<usize>,
}

pub struct Reading<'t> {
    pub text: &'t str,
    pub sentences: Vec<Sentence>,
    pub values: Vec<Value>,
    /// Per sentence: distinct content stems and value keys, for alignment.
    pub content: Vec<Vec<String>>,
    /// Per sentence: constraint words, when the sentence is in a tabled language.
    pub constraints: Vec<Option<Constraints>>,
}

fn is_value(kind: Kind) -> bool {
    matches!(kind, Kind::Number | Kind::Price | Kind::Date | Kind::Time)
}

pub fn read<'t>(
    text: &'t str,
    extracted: &Extracted<'_>,
    lang: Option<&'static Lookup>,
) -> Reading<'t> {
    let found: Vec<_> = extracted
        .occurrences
        .iter()
        .filter(|f| is_value(f.kind))
        .collect();
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.start, f.end)).collect();
    let (mut tokens, sentences) = words::tokenize(&extracted.view, &spans);
    let mut keys: Vec<(String, bool)> = found
        .iter()
        .map(|f| {
            let prefix = if f.kind.class() == Class::Price {
                '$'
            } else {
                '#'
            };
            (format!("{prefix}{}", f.canonical), false)
        })
        .collect();
    if let Some(lk) = lang {
        number_words(&mut tokens, &mut keys, lk);
    }
    let mut reading = Reading {
        text,
        sentences,
        values: Vec::new(),
        content: Vec::new(),
        constraints: Vec::new(),
    };
    for (index, sentence) in reading.sentences.iter().enumerate() {
        let toks = &tokens[sentence.tokens.clone()];
        let fits = lang.filter(|lk| lookup::sentence_fits(lk, toks.iter().filter_map(Token::word)));
        let mut consumed = vec![false; toks.len()];
        let first_value = reading.values.len();
        for (i, t) in toks.iter().enumerate() {
            if let Tok::Num(n) = t.tok {
                let value = bind(
                    toks,
                    i,
                    &keys[n],
                    index,
                    fits,
                    &mut consumed,
                    text,
                    &reading.values[first_value..],
                );
                reading.values.push(value);
            }
        }
        let mut content: Vec<String> = toks
            .iter()
            .filter_map(|t| match &t.tok {
                // Constraint and bound words count here: `before` and `after` tell two
                // otherwise identical sentences apart.
                Tok::Word(w) if lang.is_none_or(|lk| !lk.stop.contains(w.as_str())) => {
                    Some(words::stem(w))
                }
                Tok::Num(n) => Some(keys[*n].0.clone()),
                _ => None,
            })
            .collect();
        content.sort();
        content.dedup();
        reading.content.push(content);
        reading
            .constraints
            .push(fits.map(|lk| constraints(toks, &consumed, lk)));
    }
    reading
}

/// Number words become values: `five` → `#5`, `five percent` → `#5%`. Token count and
/// order stay as they are: sentences refer to tokens by index.
fn number_words(tokens: &mut [Token], keys: &mut Vec<(String, bool)>, lk: &Lookup) {
    for i in 0..tokens.len() {
        let Tok::Word(w) = &tokens[i].tok else {
            continue;
        };
        let Some(&n) = lk.numbers.get(w.as_str()) else {
            continue;
        };
        let mut key = format!("#{n}");
        if let Some(next) = tokens.get(i + 1)
            && next.word() == Some("percent")
        {
            key.push('%');
            tokens[i].end = next.end;
        }
        tokens[i].tok = Tok::Num(keys.len());
        keys.push((key, true));
    }
}

/// The bindings of the value at `toks[i]`.
#[allow(clippy::too_many_arguments)]
fn bind(
    toks: &[Token],
    i: usize,
    key: &(String, bool),
    sentence: usize,
    lang: Option<&Lookup>,
    consumed: &mut [bool],
    text: &str,
    earlier: &[Value],
) -> Value {
    let t = &toks[i];
    let mut value = Value {
        key: key.0.clone(),
        start: t.start,
        end: t.end,
        sentence,
        word: key.1,
        unit: None,
        bound: None,
        noun: Vec::new(),
        noun_end: t.end,
        subject: Vec::new(),
        subject_start: t.start,
    };
    // A unit written onto the number (`10MB`, `24h`), else the next word (`10 MB`).
    let written = &text[t.start..t.end];
    let suffix = written.trim_start_matches(|c: char| !c.is_alphabetic());
    let attached = !key.0.starts_with('$') && !suffix.is_empty() && !key.1;
    if attached && let Some((dimension, magnitude)) = super::lexicon::unit(suffix) {
        value.unit = Some(Unit {
            dimension,
            magnitude,
            text: suffix.to_string(),
        });
    }
    let mut j = i + 1;
    if value.unit.is_none()
        && !key.0.ends_with('%')
        && !key.0.starts_with('$')
        && let Some(next) = toks.get(j)
        && let Tok::Word(_) = next.tok
    {
        let raw = &text[next.start..next.end];
        if let Some((dimension, magnitude)) = super::lexicon::unit(raw) {
            value.unit = Some(Unit {
                dimension,
                magnitude,
                text: raw.to_string(),
            });
            value.noun_end = next.end;
            j += 1;
        }
    }
    let Some(lk) = lang else { return value };
    // The counted noun: up to two content words right after the value.
    if value.unit.is_none() && key.0.starts_with('#') && !key.0.ends_with('%') {
        while let Some(Tok::Word(w)) = toks.get(j).map(|t| &t.tok) {
            if !lk.is_content(w) || value.noun.len() == 2 {
                break;
            }
            value.noun.push(words::stem(w));
            value.noun_end = toks[j].end;
            j += 1;
        }
    }
    // A bound after the value and its noun (`5 or fewer`, `18+`, `5 passengers max`).
    if let Some(Tok::Word(w)) = toks.get(j).map(|t| &t.tok)
        && let Some(phrases) = lk.after.get(w.as_str())
        && let Some(p) = phrases.iter().find(|p| matches_at(toks, j, &p.words))
    {
        let end = toks[j + p.words.len() - 1].end;
        value.bound = Some(Bound {
            upper: p.what,
            soft: false,
            at: toks[j].start,
            end,
        });
        consumed[j..j + p.words.len()].fill(true);
    }
    // A bound before it, over skippable words (`at most a 15%`, `more than 3`).
    let mut k = i;
    while k > 0
        && toks[k - 1]
            .word()
            .is_some_and(|w| lk.bound_skip.contains(w))
    {
        k -= 1;
    }
    if value.bound.is_none()
        && k > 0
        && let Some(w) = toks[k - 1].word()
        && let Some(phrases) = lk.before.get(w)
        && let Some(p) = phrases
            .iter()
            .find(|p| k >= p.words.len() && matches_at(toks, k - p.words.len(), &p.words))
    {
        let from = k - p.words.len();
        let (upper, soft) = p.what;
        value.bound = Some(Bound {
            upper,
            soft,
            at: toks[from].start,
            end: toks[k - 1].end,
        });
        consumed[from..k].fill(true);
        k = from;
    }
    // A bound shared by coordination: `at most 5 travellers and 3 bags`.
    if value.bound.is_none()
        && let Some(prev) = earlier.last()
        && prev.bound.is_some()
        && k > 0
        && (toks[k - 1].word().is_some_and(|w| w == "and" || w == "or")
            || toks[k - 1].tok == Tok::Mark(','))
        && toks[k - 1].start >= prev.noun_end
        && toks[k - 1].start - prev.noun_end <= 2
    {
        value.bound = prev.bound;
    }
    // The subject: content words since the clause or the previous value's noun began.
    let floor = earlier.last().map_or(0, |p| p.noun_end);
    let mut subject = Vec::new();
    let mut s = k;
    while s > 0 {
        let t = &toks[s - 1];
        if t.start < floor || matches!(t.tok, Tok::Mark(';' | ':' | '(' | ')')) {
            break;
        }
        if let Tok::Word(w) = &t.tok
            && lk.is_content(w)
        {
            subject.push(words::stem(w));
            value.subject_start = t.start;
        }
        if subject.len() == 3 {
            break;
        }
        s -= 1;
    }
    subject.reverse();
    value.subject = subject;
    value
}

fn matches_at(toks: &[Token], at: usize, words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .all(|(n, w)| toks.get(at + n).and_then(Token::word) == Some(*w))
}

/// The constraint words of one sentence's tokens; tokens of bound phrases are skipped
/// (`no more than` is a bound, not a negation).
fn constraints(toks: &[Token], consumed: &[bool], lk: &Lookup) -> Constraints {
    let mut c = Constraints::default();
    let mut i = 0;
    while i < toks.len() {
        let Some(w) = toks[i].word().filter(|_| !consumed[i]) else {
            i += 1;
            continue;
        };
        let at = toks[i].start;
        let found = lk
            .marks
            .get(w)
            .and_then(|ps| ps.iter().find(|p| matches_at(toks, i, &p.words)));
        let Some(phrase) = found else {
            // `nonrefundable`, `non-returnable`: a negation inside a word.
            if w.len() > 6 && w.starts_with("non") && !w.starts_with("none") {
                c.negation.push(at);
            }
            i += 1;
            continue;
        };
        let len = phrase.words.len();
        match phrase.what {
            Mark::Negation => {
                let next = toks.get(i + 1).and_then(Token::word);
                if len == 1 && next.is_some_and(|n| lk.not_negation.contains(n)) {
                    i += 2;
                    continue;
                }
                c.negation.push(at);
            }
            Mark::Obligation | Mark::Recommendation | Mark::Permission | Mark::Optional => {
                // `May 5` is a date, not a permission.
                if !matches!(toks.get(i + len).map(|t| &t.tok), Some(Tok::Num(_))) {
                    c.modals.push(modal(toks, i, len, phrase.what, lk));
                }
            }
            Mark::Only => c.only.push(at),
            Mark::OnlyIf => {
                c.only.push(at);
                c.condition.push(at);
            }
            Mark::Exception => c.exception.push(at),
            Mark::Condition => {
                let before = i.checked_sub(1).and_then(|b| toks[b].word());
                if !before.is_some_and(|b| lk.whether.contains(b)) {
                    c.condition.push(at);
                }
            }
            Mark::Until => c.until.push(at),
            Mark::Universal => {
                // `at all` is emphasis, not a quantifier.
                if !(w == "all" && i > 0 && toks[i - 1].word() == Some("at")) {
                    c.universal.push(at);
                }
            }
            Mark::Partial => c.partial.push(at),
        }
        i += len;
    }
    c
}

/// A modal at `toks[i..i + len]`: negated by a `not`/`never` right before or after it,
/// governing the first word after it that is not skippable.
fn modal(toks: &[Token], i: usize, len: usize, mark: Mark, lk: &Lookup) -> Modal {
    let negator = |t: Option<&Token>| {
        t.and_then(Token::word)
            .is_some_and(|w| matches!(w, "not" | "never" | "no"))
    };
    let negated = mark != Mark::Optional
        && (negator(toks.get(i + len))
            || negator(toks.get(i + len + 1))
            || (i > 0 && negator(toks.get(i - 1)))
            || (i > 1 && negator(toks.get(i - 2))));
    let verb = toks[i + len..]
        .iter()
        .take(4)
        .filter_map(Token::word)
        .find(|w| !lk.modal_skip.contains(w))
        .map(words::stem);
    Modal {
        mark,
        negated,
        verb,
        at: toks[i].start,
    }
}
