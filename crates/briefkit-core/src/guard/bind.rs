//! Bindings: what a numeric value in a sentence is bound to — its unit, the comparison
//! bounding it, the noun it counts and the subject it belongs to.

use super::lookup::{BOUND_SKIP, CONTENT, Lookup, NONE};
use super::reading::{Bound, Key, Unit, Value};
use super::units;
use super::vocab::{Id, Vocab};
use super::words::{Tok, Token};

/// Where a value stands: its sentence's tokens and its index among them.
pub struct At<'a> {
    pub toks: &'a [Token],
    pub i: usize,
    pub sentence: usize,
    pub text: &'a str,
    pub vocab: &'a Vocab<'a>,
}

impl At<'_> {
    fn word(&self, k: usize) -> Option<Id> {
        self.toks.get(k).and_then(Token::id)
    }

    fn is(&self, k: usize, word: &str) -> bool {
        self.word(k).is_some_and(|w| self.vocab.word(w) == word)
    }

    fn content(&self, w: Id) -> bool {
        self.vocab.info(w).has(CONTENT)
    }
}

/// Whether the tokens from `at` spell `words`.
pub fn matches_at(toks: &[Token], vocab: &Vocab, at: usize, words: &[&str]) -> bool {
    words.iter().enumerate().all(|(n, w)| {
        toks.get(at + n)
            .and_then(Token::id)
            .is_some_and(|id| vocab.word(id) == *w)
    })
}

fn unit_of(raw: &str) -> Option<Unit> {
    units::unit(raw).map(|(dimension, magnitude)| Unit {
        dimension,
        magnitude,
        text: raw.to_string(),
    })
}

/// The bindings of the value at `at.i`; marks the tokens of its bound phrase `consumed`
/// (they are not constraint words). `earlier` are the values before it in its sentence.
pub fn bind(
    at: &At,
    key: Key,
    lang: Option<&Lookup>,
    consumed: &mut [bool],
    earlier: &[Value],
) -> Value {
    let (toks, i) = (at.toks, at.i);
    let t = &toks[i];
    let mut value = Value {
        key,
        start: t.start,
        end: t.end,
        sentence: at.sentence,
        unit: None,
        bound: None,
        noun: Vec::new(),
        noun_end: t.end,
        subject: Vec::new(),
        subject_start: t.start,
    };
    // A unit written onto the number (`10MB`, `24h`), else the next word (`10 MB`).
    let written = &at.text[t.start..t.end];
    let suffix = written.trim_start_matches(|c: char| !c.is_alphabetic());
    if !key.price && !key.word && !suffix.is_empty() {
        value.unit = unit_of(suffix);
    }
    // A value ends at its line: a unit, a counted noun or a bound on the next line (a
    // list item's continuation, indented or not) is another line's word, and reading it
    // as this value's made `0⏎J+` a lower bound that `0⏎  J+` was not.
    // Tokens may overlap (a word read inside a fact) or sit in another text's offsets:
    // only a gap that is really there is looked at.
    let same_line = |j: usize| {
        toks.get(j).is_some_and(|next| {
            let from = toks[j - 1].end.min(next.start);
            !at.text.get(from..next.start).unwrap_or("").contains('\n')
        })
    };
    let mut j = i + 1;
    if value.unit.is_none()
        && !key.percent
        && !key.price
        && same_line(j)
        && let Some(next) = toks.get(j)
        && let Tok::Word(_) = next.tok
        && let Some(unit) = unit_of(&at.text[next.start..next.end])
    {
        value.unit = Some(unit);
        value.noun_end = next.end;
        j += 1;
    }
    let Some(lk) = lang else { return value };
    // The counted noun: up to two content words right after the value.
    if value.unit.is_none() && !key.price && !key.percent {
        while let Some(w) = at.word(j) {
            if !at.content(w) || value.noun.len() == 2 || !same_line(j) {
                break;
            }
            value.noun.push(at.vocab.stem(w));
            value.noun_end = toks[j].end;
            j += 1;
        }
    }
    // A bound after the value and its noun (`5 or fewer`, `18+`, `5 passengers max`).
    if same_line(j)
        && let Some(w) = at.word(j)
        && let list = at.vocab.info(w).after
        && list != NONE
        && let Some(p) = lk.after[list as usize]
            .iter()
            .find(|p| matches_at(toks, at.vocab, j, &p.words))
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
        && at
            .word(k - 1)
            .is_some_and(|w| at.vocab.info(w).has(BOUND_SKIP))
    {
        k -= 1;
    }
    if value.bound.is_none()
        && k > 0
        && let Some(w) = at.word(k - 1)
        && let list = at.vocab.info(w).before
        && list != NONE
        && let Some(p) = lk.before[list as usize]
            .iter()
            .find(|p| k >= p.words.len() && matches_at(toks, at.vocab, k - p.words.len(), &p.words))
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
        && (at.is(k - 1, "and") || at.is(k - 1, "or") || toks[k - 1].tok == Tok::Mark(','))
        && toks[k - 1].start >= prev.noun_end
        && toks[k - 1].start - prev.noun_end <= 2
    {
        value.bound = prev.bound;
    }
    // The subject: content words since the clause or the previous value's noun began.
    let floor = earlier.last().map_or(0, |p| p.noun_end);
    let mut s = k;
    while s > 0 {
        let t = &toks[s - 1];
        if t.start < floor || matches!(t.tok, Tok::Mark(';' | ':' | '(' | ')')) {
            break;
        }
        if let Tok::Word(w) = t.tok
            && at.content(w)
        {
            value.subject.push(at.vocab.stem(w));
            value.subject_start = t.start;
        }
        if value.subject.len() == 3 {
            break;
        }
        s -= 1;
    }
    value.subject.reverse();
    value
}
