//! The words the guard's second layer reads constraints and bindings from, per language:
//! one data table, so that supporting a language is adding a table, not code.
//!
//! How to add a language:
//! 1. Write a `pub const XX: Language = Language { … }` in its own file beside
//!    `english.rs` (and a `mod` line here), filling every list with the
//!    language's own words, lowercased, multi-word entries separated by single spaces
//!    (`"no more than"`). Contractions are split before lookup (`can't` → `can not`), so
//!    list the full forms.
//! 2. `function_words` decides which language a text is written in: list frequent words
//!    that are *not* also frequent in the other tabled languages.
//! 3. Add it to [`LANGUAGES`], and take its words out of [`FOREIGN`]. A text whose
//!    function words match no table gets no constraint or binding checks beyond
//!    language-neutral units (no false flags).
//! 4. Unit words live in `units.rs`; the crude stemmer in `vocab.rs` strips English
//!    suffixes, which for another language only makes fewer inflections agree (quieter,
//!    never noisier: stems are only compared with stems).
//!
//! Every entry is compared against whole, lowercased tokens; a phrase matches a run of
//! tokens. The first matching entry of the longest phrase wins.

pub mod data;
mod english;
mod english_instructions;
mod english_synonyms;

pub use english::ENGLISH;

/// The word lists of one language.
pub struct Language {
    pub name: &'static str,
    /// Frequent words typical of the language: how a text is recognised.
    pub function_words: &'static [&'static str],
    /// Words that carry no content: ignored when aligning sentences and reading nouns.
    pub stop_words: &'static [&'static str],
    /// Frequent verbs that end a counted noun phrase (`3 bags need…`).
    pub verbs: &'static [&'static str],
    pub negation: &'static [&'static str],
    /// Words after which `not` belongs to something else (`not only`).
    pub not_negation: &'static [&'static str],
    /// Prefixes that negate a word (`unresolved` = `not resolved`): a negation reworded
    /// into such a word is not lost.
    pub negative_prefixes: &'static [&'static str],
    pub obligation: &'static [&'static str],
    pub recommendation: &'static [&'static str],
    pub permission: &'static [&'static str],
    /// A negated obligation: permission not to (`need not`, `do not have to`).
    pub optional: &'static [&'static str],
    /// Words skipped between a modal and the verb it governs.
    pub modal_skip: &'static [&'static str],
    pub exclusivity: &'static [&'static str],
    /// Words that may stand for `only` in a rewording (`the section alone`) but whose loss
    /// is not reported: too often they are mere emphasis.
    pub exclusivity_weak: &'static [&'static str],
    pub exception: &'static [&'static str],
    pub condition: &'static [&'static str],
    pub until: &'static [&'static str],
    /// Words that can carry a condition as a phrase (`if the customer wants an exchange`
    /// → `for an exchange`): a lost condition whose clause reappears after one of these
    /// in the aligned sentence is rewording, not a lost condition.
    pub condition_carriers: &'static [&'static str],
    /// Verbs after which `if` means "whether" (`ask if`), not a condition.
    pub whether_verbs: &'static [&'static str],
    pub universal: &'static [&'static str],
    pub partial: &'static [&'static str],
    /// Phrases that make a following number an upper bound (`at most 5`).
    pub bound_max: &'static [&'static str],
    /// Phrases that make a following number a lower bound (`at least 5`).
    pub bound_min: &'static [&'static str],
    /// Bounds whose loss is ordinary rewording (`within 30 days` → `30-day`).
    pub bound_soft: &'static [&'static str],
    /// Phrases after a number (and its noun) making it an upper bound (`5 or fewer`).
    pub post_max: &'static [&'static str],
    pub post_min: &'static [&'static str],
    /// Words skipped between a bound and its number (`at most a 15% …`).
    pub bound_skip: &'static [&'static str],
    /// Number words and their values.
    pub numbers: &'static [(&'static str, u32)],
    /// What the third layer reads instructions with.
    pub instructions: &'static Instructions,
}

/// The words of one language that tell an instruction from filler (the guard's third
/// layer): what makes a unit of text instruction-bearing, and what a faithful rewrite may
/// leave out of it. Entries are lowercased; multi-word entries are separated by single
/// spaces and match a run of tokens.
pub struct Instructions {
    /// Base forms of verbs that start an imperative (`verify the caller's identity`). A
    /// first word that is not listed still reads as an imperative when it looks like a
    /// base form and an object follows it (see `object_starts`).
    pub imperative_verbs: &'static [&'static str],
    /// Words skipped before an imperative's verb (`please`, `always`, `first`, `do not`).
    pub imperative_lead: &'static [&'static str],
    /// Words that start an object or complement (determiners, pronouns, prepositions):
    /// after one of these, an unlisted first word reads as a verb (`greet the customer`).
    pub object_starts: &'static [&'static str],
    /// Auxiliaries: one right after the first words makes them a subject, not an
    /// imperative (`return shipping is free`).
    pub auxiliaries: &'static [&'static str],
    /// Words and phrases that state a requirement or an order of steps (`before`,
    /// `required`, `first`, `make sure`): a unit with one is instruction-bearing.
    pub requirement: &'static [&'static str],
    /// Words that order one step against another (`before`, `after`, `until`): a unit
    /// with one needs a word of this or the next list in its counterpart.
    pub order: &'static [&'static str],
    /// Words that put steps in a sequence (`first`, `then`, `once`, `when`): enough to
    /// keep an order, not required to survive (a numbered list says it too).
    pub sequence: &'static [&'static str],
    /// Hedges, intensifiers and discourse markers (`basically`, `please`, `really`,
    /// `note`): never needed in a counterpart.
    pub filler: &'static [&'static str],
    /// Words about the text itself (`rules`, `section`, `following`, `below`): a unit of
    /// only these and filler announces instructions instead of giving one (a preface).
    pub meta: &'static [&'static str],
    /// Words that open a courtesy (`thank`, `hello`, `good luck`): never an instruction.
    pub courtesy: &'static [&'static str],
    /// Words that address the agent as subject (`you`, `your task`): a unit starting with
    /// one tells the agent what it is or does.
    pub addressee: &'static [&'static str],
    /// Words that join the last item of a list (`and`, `or`).
    pub list_joiners: &'static [&'static str],
    /// Words that can start a new clause after a comma (`and`, `but`, `then`).
    pub clause_joiners: &'static [&'static str],
    /// Words that make an `if` clause a hedge rather than a condition (`if at all
    /// possible`, `if appropriate`): read as `where possible`.
    pub hedge_conditions: &'static [&'static str],
    /// Groups of words a rewording may use for one another (`concise`, `brief`): compared
    /// as one word when looking for a counterpart.
    pub synonyms: &'static [&'static [&'static str]],
    /// Verbs with a particle that mean one word (`send … back` = `return`): `(verb,
    /// particle, word)`; the particle may come up to three words after the verb.
    pub phrasal: &'static [(&'static str, &'static str, &'static str)],
}

/// Every tabled language; a text is read with the one whose function words it uses most.
pub const LANGUAGES: &[&Language] = &[&english::ENGLISH];

/// Frequent words of languages without a table (German, French, Spanish, Italian, Dutch,
/// Portuguese), none of them frequent in a tabled language: a text or sentence that uses
/// more of these than of its table's function words is not read for constraints, so
/// another language never produces a false flag. Remove a language's words here when
/// adding its table.
pub const FOREIGN: &[&str] = &[
    "der", "das", "und", "nicht", "ist", "mit", "von", "zu", "den", "dem", "ein", "eine", "auf",
    "für", "sie", "wir", "wird", "werden", "oder", "bei", "nur", "sind", "kann", "le", "la", "les",
    "et", "est", "des", "une", "du", "pas", "pour", "avec", "vous", "sont", "qui", "dans", "sur",
    "ne", "el", "los", "las", "y", "es", "con", "por", "para", "una", "del", "que", "se", "su",
    "lo", "il", "di", "che", "gli", "della", "sono", "het", "een", "niet", "voor", "met", "zijn",
    "op", "os", "não", "em", "um", "uma", "com", "ao", "au", "aux", "ces", "nous", "ou", "sera",
    "peut", "muss",
];
