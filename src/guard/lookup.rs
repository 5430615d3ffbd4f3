//! The word lists of a [`Language`] compiled for lookup: one hash lookup per token
//! instead of a scan of every list, so reading a text stays linear with a small constant.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

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

pub struct Lookup {
    pub function: HashSet<&'static str>,
    pub stop: HashSet<&'static str>,
    pub verbs: HashSet<&'static str>,
    pub modal_skip: HashSet<&'static str>,
    pub whether: HashSet<&'static str>,
    pub not_negation: HashSet<&'static str>,
    pub bound_skip: HashSet<&'static str>,
    pub numbers: HashMap<&'static str, u32>,
    /// Constraint phrases by first word, longest first.
    pub marks: HashMap<&'static str, Vec<Phrase<Mark>>>,
    /// Bounds before a number, by last word, longest first: (upper, soft).
    pub before: HashMap<&'static str, Vec<Phrase<(bool, bool)>>>,
    /// Bounds after a number, by first word, longest first: upper.
    pub after: HashMap<&'static str, Vec<Phrase<bool>>>,
    /// One-word bounds and constraint words: not content, not a noun.
    pub bound_words: HashSet<&'static str>,
}

impl Lookup {
    fn new(lang: &'static Language) -> Self {
        let set = |list: &[&'static str]| list.iter().copied().collect::<HashSet<_>>();
        let mut marks: HashMap<&'static str, Vec<Phrase<Mark>>> = HashMap::new();
        let mut bound_words = HashSet::new();
        let lists: [(&[&'static str], Mark); 12] = [
            (lang.negation, Mark::Negation),
            (lang.obligation, Mark::Obligation),
            (lang.recommendation, Mark::Recommendation),
            (lang.permission, Mark::Permission),
            (lang.optional, Mark::Optional),
            (lang.exclusivity, Mark::Only),
            (&["only if"], Mark::OnlyIf),
            (lang.exception, Mark::Exception),
            (lang.condition, Mark::Condition),
            (lang.until, Mark::Until),
            (lang.universal, Mark::Universal),
            (lang.partial, Mark::Partial),
        ];
        for (list, what) in lists {
            for phrase in list {
                let words: Vec<&str> = phrase.split(' ').collect();
                if words.len() == 1 {
                    bound_words.insert(words[0]);
                }
                marks
                    .entry(words[0])
                    .or_default()
                    .push(Phrase { words, what });
            }
        }
        let mut before: HashMap<&'static str, Vec<Phrase<(bool, bool)>>> = HashMap::new();
        let soft = set(lang.bound_soft);
        for (list, upper) in [(lang.bound_max, true), (lang.bound_min, false)] {
            for phrase in list {
                let words: Vec<&str> = phrase.split(' ').collect();
                if words.len() == 1 {
                    bound_words.insert(words[0]);
                }
                let last = words[words.len() - 1];
                let what = (upper, soft.contains(phrase));
                before.entry(last).or_default().push(Phrase { words, what });
            }
        }
        let mut after: HashMap<&'static str, Vec<Phrase<bool>>> = HashMap::new();
        for (list, upper) in [(lang.post_max, true), (lang.post_min, false)] {
            for phrase in list {
                let words: Vec<&str> = phrase.split(' ').collect();
                if words.len() == 1 {
                    bound_words.insert(words[0]);
                }
                after
                    .entry(words[0])
                    .or_default()
                    .push(Phrase { words, what: upper });
            }
        }
        for map in marks.values_mut() {
            map.sort_by_key(|p| std::cmp::Reverse(p.words.len()));
        }
        for map in before.values_mut() {
            map.sort_by_key(|p| std::cmp::Reverse(p.words.len()));
        }
        for map in after.values_mut() {
            map.sort_by_key(|p| std::cmp::Reverse(p.words.len()));
        }
        Lookup {
            function: set(lang.function_words),
            stop: set(lang.stop_words),
            verbs: set(lang.verbs),
            modal_skip: set(lang.modal_skip),
            whether: set(lang.whether_verbs),
            not_negation: set(lang.not_negation),
            bound_skip: set(lang.bound_skip),
            numbers: lang.numbers.iter().copied().collect(),
            marks,
            before,
            after,
            bound_words,
        }
    }

    /// Whether a word carries content: not a stop word, verb, constraint or bound word.
    pub fn is_content(&self, word: &str) -> bool {
        !self.stop.contains(word)
            && !self.verbs.contains(word)
            && !self.bound_words.contains(word)
            && word.chars().next().is_some_and(char::is_alphanumeric)
    }
}

static COMPILED: LazyLock<Vec<Lookup>> =
    LazyLock::new(|| LANGUAGES.iter().map(|l| Lookup::new(l)).collect());

/// The language a text is written in, from its words: the tabled language whose function
/// words it uses most, unless it uses more frequent words of an untabled language
/// ([`FOREIGN`]); a text with neither (a short rule) is read as the first table's.
/// `None` for text in a language without a table.
pub fn detect(text: &str) -> Option<&'static Lookup> {
    /// Enough words to tell; a sample keeps detection cheap on a long text.
    const SAMPLE: usize = 4000;
    let compiled = &*COMPILED;
    let mut hits = vec![0usize; compiled.len()];
    let mut foreign = 0usize;
    for word in super::words::words(text).take(SAMPLE) {
        let word = word.to_lowercase();
        let word = word.as_str();
        if FOREIGN.contains(&word) {
            foreign += 1;
        }
        for (i, lookup) in compiled.iter().enumerate() {
            if lookup.function.contains(word) {
                hits[i] += 1;
            }
        }
    }
    let (best, &n) = hits
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, usize::MAX - i))?;
    (n >= foreign && (n > 0 || foreign == 0)).then(|| &compiled[best])
}

/// Whether a sentence is in the text's language: one using more frequent words of an
/// untabled language than of this one (a quoted reply, say) is not.
pub fn sentence_fits<'w>(lookup: &Lookup, words: impl Iterator<Item = &'w str>) -> bool {
    let (mut own, mut foreign) = (0, 0);
    for w in words {
        own += usize::from(lookup.function.contains(w));
        foreign += usize::from(FOREIGN.contains(&w));
    }
    foreign <= own
}
