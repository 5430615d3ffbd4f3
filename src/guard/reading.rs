//! One text as the second layer reads it: sentences, the numeric values in them with what
//! each is bound to (unit, bound, counted noun, subject: see `bind.rs`), and the
//! constraint words of each sentence (negation, modality, exclusivity, exceptions and
//! conditions, absolutes: see `marks.rs`).

use super::bind;
use super::extract::Extracted;
use super::lookup::{self, Lookup, Mark};
use super::marks;
use super::vocab::{Id, Vocab};
use super::words::{Sentence, Tok, Token, Tokens};
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

/// How a value compares across texts: its canonical form interned (`#15%`, `$USD 500`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub id: Id,
    pub price: bool,
    pub percent: bool,
    /// Spelled as a word (`five`): not a fact of the first layer.
    pub word: bool,
}

#[derive(Debug, Clone)]
pub struct Value {
    pub key: Key,
    pub start: usize,
    pub end: usize,
    pub sentence: usize,
    pub unit: Option<Unit>,
    pub bound: Option<Bound>,
    /// Stems of the counted noun phrase (`3 free bags` → free, bag).
    pub noun: Vec<Id>,
    pub noun_end: usize,
    /// Stems of the words naming whose value it is (`gold members get 3` → gold, member).
    pub subject: Vec<Id>,
    pub subject_start: usize,
}

/// A modal verb with the verb it governs.
#[derive(Debug, Clone)]
pub struct Modal {
    pub mark: Mark,
    pub negated: bool,
    pub verb: Option<Id>,
    pub at: usize,
}

/// The constraint words of one sentence (byte offsets of each).
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    pub negation: Vec<usize>,
    /// Content stems right after the first negation (`not resolved` → resolv).
    pub negated: Vec<Id>,
    /// Stems of words negated by a prefix, without it (`unresolved` → resolv).
    pub affixed: Vec<Id>,
    pub modals: Vec<Modal>,
    pub only: Vec<usize>,
    pub only_weak: Vec<usize>,
    pub exception: Vec<usize>,
    pub condition: Vec<usize>,
    /// Content stems of the first condition's clause, in order (`if the customer wants
    /// an exchange` → customer, want, exchange).
    pub clause: Vec<Id>,
    /// Content stems right after a word that can carry a condition (`for an exchange`).
    pub carried: Vec<Id>,
    pub until: Vec<usize>,
    pub universal: Vec<usize>,
    pub partial: Vec<usize>,
}

pub struct Reading<'t> {
    pub text: &'t str,
    /// Every token of the text, in order (sentences index into it).
    pub tokens: Vec<Token>,
    /// The key of each value token (`Tok::Num(n)` is `keys[n]`).
    pub keys: Vec<Key>,
    pub sentences: Vec<Sentence>,
    pub values: Vec<Value>,
    /// Per sentence: distinct content stems and value keys (sorted), for alignment.
    pub content: Vec<Vec<Id>>,
    /// Per sentence: constraint words, when the sentence is in a tabled language.
    pub constraints: Vec<Option<Constraints>>,
}

/// What [`read`] needs of one text: its tokens and the key of each value token.
pub struct Prepared {
    pub tokens: Tokens,
    pub keys: Vec<Key>,
}

fn is_value(kind: Kind) -> bool {
    matches!(kind, Kind::Number | Kind::Price | Kind::Date | Kind::Time)
}

/// Tokenizes one text (its prose view) into `vocab`, values as single tokens.
pub fn tokenize<'t>(extracted: &'t Extracted<'_>, vocab: &mut Vocab<'t>) -> Prepared {
    let found: Vec<_> = extracted
        .occurrences
        .iter()
        .filter(|f| is_value(f.kind))
        .collect();
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.start, f.end)).collect();
    let tokens = super::words::tokenize(&extracted.view, extracted.text, &spans, vocab);
    let mut buf = String::new();
    let keys = found
        .iter()
        .map(|f| {
            let price = f.kind.class() == Class::Price;
            buf.clear();
            buf.push(if price { '$' } else { '#' });
            buf.push_str(&f.canonical);
            Key {
                id: vocab.intern_str(&buf),
                price,
                percent: f.canonical.ends_with('%'),
                word: false,
            }
        })
        .collect();
    Prepared { tokens, keys }
}

/// Number words become values: `five` → `#5`, `five percent` → `#5%`. Token count and
/// order stay as they are: sentences refer to tokens by index. Needs `vocab` finished.
pub fn number_words(prepared: &mut Prepared, vocab: &mut Vocab) {
    let tokens = &mut prepared.tokens.tokens;
    for i in 0..tokens.len() {
        let Tok::Word(w) = tokens[i].tok else {
            continue;
        };
        let n = vocab.info(w).number;
        if n == lookup::NONE {
            continue;
        }
        let percent = tokens
            .get(i + 1)
            .and_then(Token::id)
            .is_some_and(|next| vocab.word(next) == "percent");
        if percent {
            tokens[i].end = tokens[i + 1].end;
        }
        let key = format!("#{n}{}", if percent { "%" } else { "" });
        tokens[i].tok = Tok::Num(prepared.keys.len());
        prepared.keys.push(Key {
            id: vocab.intern_str(&key),
            price: false,
            percent,
            word: true,
        });
    }
}

pub fn read<'t>(
    text: &'t str,
    prepared: Prepared,
    vocab: &Vocab,
    lang: Option<&'static Lookup>,
) -> Reading<'t> {
    let Prepared { tokens, keys } = prepared;
    let Tokens { tokens, sentences } = tokens;
    let mut reading = Reading {
        text,
        tokens: Vec::new(),
        keys: Vec::new(),
        values: Vec::new(),
        content: Vec::with_capacity(sentences.len()),
        constraints: Vec::with_capacity(sentences.len()),
        sentences,
    };
    let mut consumed = Vec::new();
    for (index, sentence) in reading.sentences.iter().enumerate() {
        let toks = &tokens[sentence.tokens.clone()];
        let fits = lang.filter(|_| sentence_fits(vocab, toks));
        consumed.clear();
        consumed.resize(toks.len(), false);
        let first_value = reading.values.len();
        for (i, t) in toks.iter().enumerate() {
            if let Tok::Num(n) = t.tok {
                let at = bind::At {
                    toks,
                    i,
                    sentence: index,
                    text,
                    vocab,
                };
                let value = bind::bind(
                    &at,
                    keys[n],
                    fits,
                    &mut consumed,
                    &reading.values[first_value..],
                );
                reading.values.push(value);
            }
        }
        let mut content: Vec<Id> = toks
            .iter()
            .filter_map(|t| match t.tok {
                // Constraint and bound words count here: `before` and `after` tell two
                // otherwise identical sentences apart.
                Tok::Word(w) if lang.is_none() || !vocab.info(w).has(lookup::STOP) => {
                    Some(vocab.stem(w))
                }
                Tok::Num(n) => Some(keys[n].id),
                _ => None,
            })
            .collect();
        content.sort_unstable();
        content.dedup();
        reading.content.push(content);
        reading
            .constraints
            .push(fits.map(|lk| marks::constraints(toks, &consumed, vocab, lk)));
    }
    reading.tokens = tokens;
    reading.keys = keys;
    reading
}

/// Whether a sentence is in the text's language: one using more frequent words of an
/// untabled language than of this one (a quoted reply, say) is not.
fn sentence_fits(vocab: &Vocab, toks: &[Token]) -> bool {
    let (mut own, mut foreign) = (0, 0);
    for w in toks.iter().filter_map(Token::id) {
        let info = vocab.info(w);
        own += usize::from(info.has(lookup::FUNCTION));
        foreign += usize::from(info.has(lookup::FOREIGN_WORD));
    }
    foreign <= own
}
