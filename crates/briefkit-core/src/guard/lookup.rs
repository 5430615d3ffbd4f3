//! The word lists of a [`Language`] compiled for lookup: every listed word maps to one
//! [`Info`] record (its flags and the phrases it starts or ends), so a token costs one
//! hash lookup per distinct word of a check instead of a scan of every list.

use std::sync::LazyLock;

use super::hash::FxMap;
use super::lexicon::{FOREIGN, LANGUAGES, Language};

/// What a constraint word or phrase marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Negation,
    Obligation,
    Recommendation,
    Permission,
    Optional,
    Only,
    /// A word that may stand for `only` (`alone`) but is not required to survive.
    OnlyWeak,
    OnlyIf,
    Exception,
    Condition,
    Until,
    Universal,
    Partial,
}

/// A phrase: its words and what it marks (for bounds: upper bound, soft).
pub struct Phrase<T> {
    pub words: Vec<&'static str>,
    pub what: T,
}

/// Flags of a word in one language (bits of [`Info::flags`]).
pub const FUNCTION: u32 = 1;
pub const STOP: u32 = 1 << 1;
pub const VERB: u32 = 1 << 2;
pub const MODAL_SKIP: u32 = 1 << 3;
pub const WHETHER: u32 = 1 << 4;
pub const NOT_NEGATION: u32 = 1 << 5;
pub const BOUND_SKIP: u32 = 1 << 6;
/// A one-word bound or constraint word: not content, not a noun.
pub const BOUND_WORD: u32 = 1 << 7;
/// A frequent word of a language without a table.
pub const FOREIGN_WORD: u32 = 1 << 8;
/// Carries content: none of the above kinds of word, and starts with a letter or digit.
pub const CONTENT: u32 = 1 << 9;
/// Can carry a condition as a phrase (`for an exchange`).
pub const CARRIER: u32 = 1 << 10;
/// The third layer's words (see [`Instructions`](super::lexicon::Instructions)).
pub const IMPERATIVE: u32 = 1 << 11;
pub const LEAD: u32 = 1 << 12;
pub const OBJECT_START: u32 = 1 << 13;
pub const AUXILIARY: u32 = 1 << 14;
pub const FILLER: u32 = 1 << 15;
pub const META: u32 = 1 << 16;
pub const LIST_JOINER: u32 = 1 << 17;
pub const CLAUSE_JOINER: u32 = 1 << 18;
pub const HEDGE: u32 = 1 << 19;
pub const ORDER: u32 = 1 << 20;
pub const SEQUENCE: u32 = 1 << 21;

/// What a phrase of the third layer's lists says about the unit it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    /// A requirement or an order of steps: the unit is instruction-bearing.
    Requirement,
    /// A courtesy (`thank you`): at a unit's start, the unit is not an instruction.
    Courtesy,
    /// The agent addressed as subject (`you`, `your task`).
    Addressee,
}

/// No phrase list / no number.
pub const NONE: u32 = u32::MAX;

/// What one word is in one language.
#[derive(Debug, Clone, Copy)]
pub struct Info {
    pub flags: u32,
    /// The value of a number word, or [`NONE`].
    pub number: u32,
    /// Indices into [`Lookup::marks`], [`Lookup::before`], [`Lookup::after`], or [`NONE`].
    pub marks: u32,
    pub before: u32,
    pub after: u32,
    /// Index into [`Lookup::cues`], or [`NONE`].
    pub cues: u32,
}

impl Default for Info {
    fn default() -> Self {
        Info {
            flags: 0,
            number: NONE,
            marks: NONE,
            before: NONE,
            after: NONE,
            cues: NONE,
        }
    }
}

impl Info {
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }
}

pub struct Lookup {
    words: FxMap<&'static str, Info>,
    pub negative_prefixes: &'static [&'static str],
    /// Constraint phrases starting with one word, longest first.
    pub marks: Vec<Vec<Phrase<Mark>>>,
    /// Bounds before a number ending with one word, longest first: (upper, soft).
    pub before: Vec<Vec<Phrase<(bool, bool)>>>,
    /// Bounds after a number starting with one word, longest first: upper.
    pub after: Vec<Vec<Phrase<bool>>>,
    /// The third layer's phrases starting with one word, longest first.
    pub cues: Vec<Vec<Phrase<Cue>>>,
    /// A word's synonym group, by the group's first word.
    pub synonyms: FxMap<&'static str, &'static str>,
    /// A verb's particle and the word the two mean together (`send` → `back`, `return`).
    pub phrasal: FxMap<&'static str, (&'static str, &'static str)>,
}

/// The entry of `key`, the word a phrase of `len` words is found by; a one-word phrase
/// marks it [`BOUND_WORD`].
fn bound_entry<'a>(
    words: &'a mut FxMap<&'static str, Info>,
    key: &'static str,
    len: usize,
) -> &'a mut Info {
    let info = words.entry(key).or_default();
    if len == 1 {
        info.flags |= BOUND_WORD;
    }
    info
}

/// Adds `phrase` to the list of `lists` that `slot` (an [`Info`] field) points at,
/// creating it on first use.
fn push<T>(lists: &mut Vec<Vec<Phrase<T>>>, slot: &mut u32, phrase: Phrase<T>) {
    if *slot == NONE {
        *slot = lists.len() as u32;
        lists.push(Vec::new());
    }
    lists[*slot as usize].push(phrase);
}

impl Lookup {
    fn new(lang: &'static Language) -> Self {
        let mut words: FxMap<&'static str, Info> = FxMap::default();
        let mut flag = |list: &[&'static str], f: u32| {
            for w in list {
                words.entry(w).or_default().flags |= f;
            }
        };
        flag(lang.function_words, FUNCTION);
        flag(lang.stop_words, STOP);
        flag(lang.verbs, VERB);
        flag(lang.modal_skip, MODAL_SKIP);
        flag(lang.whether_verbs, WHETHER);
        flag(lang.not_negation, NOT_NEGATION);
        flag(lang.bound_skip, BOUND_SKIP);
        flag(FOREIGN, FOREIGN_WORD);
        flag(lang.condition_carriers, CARRIER);
        let ins = lang.instructions;
        flag(ins.imperative_verbs, IMPERATIVE);
        flag(ins.imperative_lead, LEAD);
        flag(ins.object_starts, OBJECT_START);
        flag(ins.auxiliaries, AUXILIARY);
        flag(ins.filler, FILLER);
        flag(ins.meta, META);
        flag(ins.list_joiners, LIST_JOINER);
        flag(ins.clause_joiners, CLAUSE_JOINER);
        flag(ins.hedge_conditions, HEDGE);
        flag(ins.order, ORDER);
        flag(ins.sequence, SEQUENCE);
        for &(w, n) in lang.numbers {
            words.entry(w).or_default().number = n;
        }
        let (mut marks, mut before, mut after) = (Vec::new(), Vec::new(), Vec::new());
        let lists: [(&[&'static str], Mark); 13] = [
            (lang.negation, Mark::Negation),
            (lang.obligation, Mark::Obligation),
            (lang.recommendation, Mark::Recommendation),
            (lang.permission, Mark::Permission),
            (lang.optional, Mark::Optional),
            (lang.exclusivity, Mark::Only),
            (lang.exclusivity_weak, Mark::OnlyWeak),
            (&["only if"], Mark::OnlyIf),
            (lang.exception, Mark::Exception),
            (lang.condition, Mark::Condition),
            (lang.until, Mark::Until),
            (lang.universal, Mark::Universal),
            (lang.partial, Mark::Partial),
        ];
        let split = |phrase: &'static str| phrase.split(' ').collect::<Vec<&'static str>>();
        for (list, what) in lists {
            for phrase in list {
                let w = split(phrase);
                let info = bound_entry(&mut words, w[0], w.len());
                push(&mut marks, &mut info.marks, Phrase { words: w, what });
            }
        }
        for (list, upper) in [(lang.bound_max, true), (lang.bound_min, false)] {
            for phrase in list {
                let w = split(phrase);
                let what = (upper, lang.bound_soft.contains(phrase));
                let info = bound_entry(&mut words, w[w.len() - 1], w.len());
                push(&mut before, &mut info.before, Phrase { words: w, what });
            }
        }
        for (list, upper) in [(lang.post_max, true), (lang.post_min, false)] {
            for phrase in list {
                let w = split(phrase);
                let info = bound_entry(&mut words, w[0], w.len());
                push(
                    &mut after,
                    &mut info.after,
                    Phrase {
                        words: w,
                        what: upper,
                    },
                );
            }
        }
        let mut cues = Vec::new();
        for (list, what) in [
            (ins.requirement, Cue::Requirement),
            (ins.courtesy, Cue::Courtesy),
            (ins.addressee, Cue::Addressee),
        ] {
            for phrase in list {
                let w = split(phrase);
                let info = words.entry(w[0]).or_default();
                push(&mut cues, &mut info.cues, Phrase { words: w, what });
            }
        }
        for list in &mut cues {
            list.sort_by_key(|p: &Phrase<Cue>| std::cmp::Reverse(p.words.len()));
        }
        let mut synonyms: FxMap<&'static str, &'static str> = ins
            .synonyms
            .iter()
            .flat_map(|group| group.iter().map(move |w| (*w, group[0])))
            .collect();
        // A short form (`deps`, `repo`) compares as the word it stands for, in that
        // word's synonym group when it has one.
        if lang.name == "English" {
            for (short, word) in super::lexicon::data::abbreviations() {
                let head = synonyms.get(word).copied().unwrap_or(word);
                synonyms.entry(word).or_insert(head);
                synonyms.entry(short).or_insert(head);
            }
        }
        let phrasal = ins
            .phrasal
            .iter()
            .map(|&(verb, particle, means)| (verb, (particle, means)))
            .collect();
        for list in &mut marks {
            list.sort_by_key(|p: &Phrase<Mark>| std::cmp::Reverse(p.words.len()));
        }
        for list in &mut before {
            list.sort_by_key(|p: &Phrase<(bool, bool)>| std::cmp::Reverse(p.words.len()));
        }
        for list in &mut after {
            list.sort_by_key(|p: &Phrase<bool>| std::cmp::Reverse(p.words.len()));
        }
        Lookup {
            words,
            negative_prefixes: lang.negative_prefixes,
            marks,
            before,
            after,
            cues,
            synonyms,
            phrasal,
        }
    }

    /// What `word` (lowercased) is in this language; [`CONTENT`] is set for a word of
    /// none of the non-content kinds that starts with a letter or digit.
    pub fn info(&self, word: &str) -> Info {
        let mut info = self.words.get(word).copied().unwrap_or_default();
        if info.flags & (STOP | VERB | BOUND_WORD) == 0
            && word.chars().next().is_some_and(char::is_alphanumeric)
        {
            info.flags |= CONTENT;
        }
        info
    }
}

static COMPILED: LazyLock<Vec<Lookup>> =
    LazyLock::new(|| LANGUAGES.iter().map(|l| Lookup::new(l)).collect());

/// Every tabled language, compiled, in [`LANGUAGES`] order.
pub fn compiled() -> &'static [Lookup] {
    &COMPILED
}

/// The language a text is written in, from its distinct words and how often each occurs:
/// the tabled language whose function words it uses most, unless it uses more frequent
/// words of an untabled language ([`FOREIGN`]); a text with neither (a short rule) is read
/// as the first table's. `None` for text in a language without a table.
pub fn detect<'w>(words: impl Iterator<Item = (&'w str, usize)>) -> Option<&'static Lookup> {
    let compiled = compiled();
    let mut hits = vec![0usize; compiled.len()];
    let mut foreign = 0usize;
    for (word, n) in words {
        for (i, lookup) in compiled.iter().enumerate() {
            let info = lookup.info(word);
            if info.has(FUNCTION) {
                hits[i] += n;
            }
            if i == 0 && info.has(FOREIGN_WORD) {
                foreign += n;
            }
        }
    }
    let (best, &n) = hits
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, usize::MAX - i))?;
    (n >= foreign && (n > 0 || foreign == 0)).then(|| &compiled[best])
}
