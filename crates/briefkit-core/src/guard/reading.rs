//! One text as the second layer reads it: sentences, the numeric values in them with what
//! each is bound to (unit, bound, counted noun, subject: see `bind.rs`), and the
//! constraint words of each sentence (negation, modality, exclusivity, exceptions and
//! conditions, absolutes: see `marks.rs`).

use super::bind;
use super::extract::Extracted;
use super::lookup::{self, Lookup, Mark};
use super::marks;
use super::vocab::{Id, Vocab};
use super::words::{Sentence, Tok, Token};
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
    pub sentences: Vec<Sentence>,
    pub values: Vec<Value>,
    /// Per sentence: distinct content stems and value keys (sorted), for alignment.
    pub content: super::align::Content,
    /// Per sentence: its constraints' index in `table` ([`EMPTY`] when it has none,
    /// [`UNREAD`] when it is not in a tabled language).
    constraint_of: Vec<u32>,
    table: super::stored::Store,
}

/// A sentence with no constraint words.
const EMPTY: u32 = 0;
/// A sentence not read for constraints.
const UNREAD: u32 = u32::MAX;

impl Reading<'_> {
    /// The constraint words of sentence `s`, when it is in a tabled language.
    pub fn constraints(&self, s: usize) -> Option<Constraints> {
        match self.constraint_of.get(s).copied().unwrap_or(UNREAD) {
            UNREAD => None,
            EMPTY => Some(Constraints::default()),
            i => Some(self.table.get(i)),
        }
    }
}

impl Constraints {
    fn is_empty(&self) -> bool {
        self.negation.is_empty()
            && self.affixed.is_empty()
            && self.modals.is_empty()
            && self.only.is_empty()
            && self.only_weak.is_empty()
            && self.exception.is_empty()
            && self.condition.is_empty()
            && self.carried.is_empty()
            && self.until.is_empty()
            && self.universal.is_empty()
            && self.partial.is_empty()
    }
}

/// One sentence as it is read, for a reader that needs its tokens (the third layer).
pub struct SentenceView<'a> {
    pub index: usize,
    pub sentence: Sentence,
    pub tokens: &'a [Token],
    /// The key of each value token (`Tok::Num(n)` is `keys[n]`).
    pub keys: &'a [Key],
    /// The sentence's values.
    pub values: &'a [Value],
    /// Tokens of a value's bound phrase (`no more than 5`): not constraint words.
    pub consumed: &'a [bool],
    /// The sentence's constraint words, when it is in a tabled language.
    pub constraints: Option<&'a Constraints>,
}

fn is_value(kind: Kind) -> bool {
    matches!(kind, Kind::Number | Kind::Price | Kind::Date | Kind::Time)
}

/// Enough words to tell the language; a sample keeps detection cheap on a long text.
const SAMPLE: usize = 1000;

/// The language of a text, from the first words of its prose.
pub fn language<'t>(
    extracted: &'t Extracted<'_>,
    vocab: &mut Vocab<'t>,
) -> Option<&'static Lookup> {
    let mut sample: Vec<Id> = Vec::with_capacity(SAMPLE);
    let spans = value_spans(extracted);
    super::words::each_sentence(
        extracted.text,
        &extracted.hidden,
        &spans,
        vocab,
        |_, toks, _| {
            sample.extend(toks.iter().filter_map(Token::id));
            sample.len() < SAMPLE
        },
    );
    sample.truncate(SAMPLE);
    lookup::detect(vocab.counts(sample.into_iter()).into_iter())
}

fn value_spans(extracted: &Extracted) -> Vec<(usize, usize)> {
    extracted
        .occurrences
        .iter()
        .filter(|f| is_value(f.kind))
        .map(|f| (f.start, f.end))
        .collect()
}

/// Reads one text sentence by sentence (its tokens are never all held at once): values
/// with their bindings, content stems, constraints. `each` sees every sentence with its
/// tokens while they are at hand.
pub fn read<'t>(
    extracted: &'t Extracted<'_>,
    vocab: &mut Vocab<'t>,
    lang: Option<&'static Lookup>,
    mut each: impl FnMut(&Vocab, &SentenceView),
) -> Reading<'t> {
    let text = extracted.text;
    let found: Vec<_> = extracted
        .occurrences
        .iter()
        .filter(|f| is_value(f.kind))
        .collect();
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.start, f.end)).collect();
    let mut buf = String::new();
    let mut keys: Vec<Key> = found
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
    drop(found);
    let mut reading = Reading {
        text,
        sentences: Vec::new(),
        values: Vec::new(),
        content: super::align::Content::default(),
        constraint_of: Vec::new(),
        table: {
            let mut table = super::stored::Store::default();
            table.push(&Constraints::default());
            table
        },
    };
    let mut consumed = Vec::new();
    super::words::each_sentence(
        text,
        &extracted.hidden,
        &spans,
        vocab,
        |vocab, toks, sentence| {
            vocab.finish(lang);
            if lang.is_some() {
                number_words(toks, &mut keys, vocab);
                vocab.finish(lang);
            }
            let vocab: &Vocab = vocab;
            let index = reading.sentences.len();
            reading.sentences.push(sentence);
            let fits = lang.filter(|_| sentence_fits(vocab, toks));
            consumed.clear();
            consumed.resize(toks.len(), false);
            let first_value = reading.values.len();
            for i in 0..toks.len() {
                if let Tok::Num(n) = toks[i].tok {
                    let at = bind::At {
                        toks,
                        i,
                        sentence: index,
                        text,
                        vocab,
                    };
                    let value = bind::bind(
                        &at,
                        keys[n as usize],
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
                    Tok::Num(n) => Some(keys[n as usize].id),
                    _ => None,
                })
                .collect();
            content.sort_unstable();
            content.dedup();
            reading.content.push(&content);
            let constraints = fits.map(|lk| marks::constraints(toks, &consumed, vocab, lk));
            let slot = match &constraints {
                None => UNREAD,
                Some(c) if c.is_empty() => EMPTY,
                Some(c) => reading.table.push(c),
            };
            reading.constraint_of.push(slot);
            each(
                vocab,
                &SentenceView {
                    index,
                    sentence,
                    tokens: toks,
                    keys: &keys,
                    values: &reading.values[first_value..],
                    consumed: &consumed,
                    constraints: constraints.as_ref(),
                },
            );
            true
        },
    );
    // Both readings are held through the comparison: the first without the slack of its
    // growth while the second is read (a quarter of its size on average, half at worst).
    reading.sentences.shrink_to_fit();
    reading.values.shrink_to_fit();
    reading.content.shrink_to_fit();
    reading.constraint_of.shrink_to_fit();
    reading.table.shrink_to_fit();
    reading
}

/// Number words become values: `five` → `#5`, `five percent` → `#5%`. Token count and
/// order stay as they are. Needs `vocab` finished.
fn number_words(tokens: &mut [Token], keys: &mut Vec<Key>, vocab: &mut Vocab) {
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
        tokens[i].tok = Tok::Num(keys.len() as u32);
        keys.push(Key {
            id: vocab.intern_str(&key),
            price: false,
            percent,
            word: true,
        });
    }
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
