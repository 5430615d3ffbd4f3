//! The deterministic guard: lists every fact of an original text that a rewrite dropped,
//! and every fact the rewrite introduced.
//!
//! A reworded paragraph reads fine even when it quietly lost a price, so a model's proposal
//! is never shown to an operator before code has compared the facts of both texts. No
//! model and no I/O are involved: [`check`] is a pure function, cheap enough to run on
//! every keystroke, and it runs in time linear in its input (the `regex` crate never
//! backtracks; code spans come from one line scan; code is searched with Aho-Corasick).
//!
//! Facts are extracted in a fixed order, each pass blanking its spans before the next so
//! that nothing is reported twice: code (fenced blocks and inline spans), URLs, e-mail
//! addresses, template placeholders, prices, then loose numbers. A fact survives when the
//! rewrite contains it at least once anywhere, compared in canonical form (see [`Kind`]).

mod align;
mod bind;
mod canon;
mod changes;
mod code;
mod compare;
mod coverage;
mod extract;
mod hash;
mod identifiers;
pub mod lexicon;
mod lookup;
mod marks;
mod matching;
mod messages;
mod numbers;
mod patterns;
mod quantities;
mod reading;
mod report;
mod search;
mod stored;
mod units;
mod vocab;
mod words;

use std::collections::BTreeMap;

pub use changes::{Change, ChangeKind};
pub use compare::{compare, shift};
pub use messages::{check_item, check_messages};
pub use report::{
    ChangeJson, Confidence, Coverage, CoverageJson, DroppedContext, DroppedInstruction, Report,
    ReportJson, UnitKind,
};

use serde::{Deserialize, Serialize};

/// What a fact is. Serialised in lowercase snake case (`code_block`, `ip_address`, …),
/// the names `brief guard --json` prints.
///
/// How each kind is compared (its canonical form):
/// - `code_block`: the code between the fences, byte-exact (fence style, info string and
///   the indentation of an enclosing list do not matter); it also survives when the code
///   appears verbatim anywhere in the rewrite.
/// - `inline_code`: the content of a backtick span, byte-exact; it also survives when the
///   same text appears in the rewrite as a whole token (with or without backticks).
/// - `url`: scheme and host lowercased, trailing punctuation and a final `/` dropped.
/// - `email`: lowercased.
/// - `placeholder`: `{{name}}`, `{% … %}` or `${VAR}` with whitespace inside the
///   delimiters trimmed and collapsed (`{{ name }}` = `{{name}}`).
/// - `identifier`: a `snake_case`, `camelCase` or dotted name, a file path, an environment
///   variable or a command-line flag outside backticks, byte-exact; compared with code, so
///   `` `lookup_order` `` and `lookup_order` are one fact, found as a whole token.
/// - `price`: currency code, amount without separators or trailing zero cents, optional
///   range end and period (`$1,200.00` = `USD 1200`; `$50-200/mo` = `USD 50-200/month`).
/// - `number`, `date`, `time`, `version`, `ip_address`: compared with each other; a number
///   loses its thousands separators and unit (`1,200` = `1200`, `7s` = `7`), `K`/`M`/`B`
///   multiply (`45K` = `45000`), a percentage keeps its sign (`15%` = `15 percent`), a
///   version loses its `v` (`v2.3.1` = `2.3.1`), a time its spaces and dots
///   (`3 PM` = `3pm`). Numbers written as words are numbers (`seven` = `7`, `a hundred`
///   = `100`, `twice` = `2`; `one` and `once` only where they count something).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    CodeBlock,
    InlineCode,
    Url,
    Email,
    Placeholder,
    /// A name, path, environment variable or flag written outside backticks.
    Identifier,
    Price,
    Date,
    Time,
    Version,
    IpAddress,
    Number,
}

impl Kind {
    /// The name used in JSON and in the human report.
    pub fn name(self) -> &'static str {
        match self {
            Kind::CodeBlock => "code_block",
            Kind::InlineCode => "inline_code",
            Kind::Url => "url",
            Kind::Email => "email",
            Kind::Placeholder => "placeholder",
            Kind::Identifier => "identifier",
            Kind::Price => "price",
            Kind::Date => "date",
            Kind::Time => "time",
            Kind::Version => "version",
            Kind::IpAddress => "ip_address",
            Kind::Number => "number",
        }
    }

    /// Kinds compared with each other: a date in one text may be matched by the same
    /// canonical string of another numeric kind in the other, since the boundary between
    /// them is a guess from the text alone.
    pub(crate) fn class(self) -> Class {
        match self {
            Kind::CodeBlock | Kind::InlineCode | Kind::Identifier => Class::Code,
            Kind::Url => Class::Url,
            Kind::Email => Class::Email,
            Kind::Placeholder => Class::Placeholder,
            Kind::Price => Class::Price,
            Kind::Date | Kind::Time | Kind::Version | Kind::IpAddress | Kind::Number => {
                Class::Numeric
            }
        }
    }
}

/// The comparison class of a kind: facts match only within one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    Code,
    Url,
    Email,
    Placeholder,
    Price,
    Numeric,
}

/// One fact found in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    pub kind: Kind,
    /// The fact as written in its text (for a code block, the whole block with its fences).
    pub value: String,
    /// The form it is compared in; not serialised (it can be derived from `value`).
    #[serde(skip)]
    pub canonical: String,
    /// 1-based line of the fact's first character in its text.
    pub line: usize,
    /// 1-based column of the fact's first character, counted in characters.
    pub column: usize,
    /// Byte offset of the fact in its text, for callers that highlight it.
    #[serde(skip)]
    pub offset: usize,
    /// The sample message it is in (`message 2 (assistant)`), when the texts were compared
    /// message by message; `line` and `column` are then within that message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_message: Option<String>,
    /// The item file the line and column are in (for a dropped fact), when the original was an item's body
    /// judged against its file (front matter counted); absent for plain texts and for
    /// findings inside a sample message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<std::path::PathBuf>,
}

/// Compares `original` and `proposal`: which facts of the original the proposal dropped,
/// which survive with another binding or lost a constraint, which instructions have no
/// counterpart, and which facts the proposal introduced.
pub fn check(original: &str, proposal: &str) -> Report {
    let original_facts = extract::extract(original);
    let proposal_facts = extract::extract(proposal);
    let dropped = matching::missing(&original_facts, &proposal_facts, proposal);
    let introduced = matching::missing(&proposal_facts, &original_facts, original);
    let deeper = deeper(
        original,
        proposal,
        &original_facts,
        &proposal_facts,
        &dropped,
    );
    let mut counts = BTreeMap::new();
    for fact in &original_facts.facts {
        *counts.entry(fact.kind).or_default() += 1;
    }
    let mut coverage = deeper.coverage;
    coverage.original_chars = original.chars().count();
    coverage.proposal_chars = proposal.chars().count();
    Report {
        dropped,
        introduced,
        changed: deeper.changed,
        dropped_instructions: deeper.instructions,
        counts,
        coverage,
        context_dropped: deeper.context,
    }
}

/// What the second and third layers found.
struct Deeper {
    changed: Vec<Change>,
    instructions: Vec<DroppedInstruction>,
    coverage: Coverage,
    context: Vec<DroppedContext>,
}

/// The second and third layers, on one reading of each text. Both texts are read in the
/// original's language; a language without a table gets only the language-neutral
/// comparison of values and no instruction check. A text identical to its proposal is
/// read once: nothing can have moved, flipped or gone, but its instructions are counted.
/// Each text is read sentence by sentence, so its tokens are never all held at once.
fn deeper(
    original: &str,
    proposal: &str,
    original_facts: &extract::Extracted,
    proposal_facts: &extract::Extracted,
    dropped: &[Fact],
) -> Deeper {
    let identical = original == proposal;
    // The proposal as the third layer searches it, when a notation hides its words.
    let mut vocab = vocab::Vocab::default();
    let language = reading::language(original_facts, &mut vocab);
    let readable = language
        .filter(|_| !identical)
        .and_then(|lk| coverage::readable(original, proposal, lk));
    let readable_facts = readable.as_deref().map(extract::extract);
    let o_facts = fact_keys(original_facts, &mut vocab);
    let p_facts = if identical {
        Vec::new()
    } else {
        fact_keys(proposal_facts, &mut vocab)
    };
    let dropped: hash::FxSet<vocab::Id> = dropped
        .iter()
        .map(|f| vocab.intern_str(&format!("{}{}", key_tag(f.kind.class()), f.canonical)))
        .collect();
    let mut units = language.map(|lk| coverage::Units::new(original, lk, &o_facts));
    let o = reading::read(original_facts, &mut vocab, language, |vocab, view| {
        if let Some(units) = units.as_mut() {
            units.sentence(vocab, view);
        }
    });
    let mut windows = None;
    let p = (!identical).then(|| {
        let mut building = language
            .filter(|_| readable_facts.is_none())
            .map(|lk| coverage::Windows::new(proposal, lk, &p_facts));
        let p = reading::read(proposal_facts, &mut vocab, language, |vocab, view| {
            if let Some(building) = building.as_mut() {
                building.sentence(vocab, view);
            }
        });
        windows = building.map(coverage::Windows::finish);
        if let (Some(facts), Some(lk)) = (readable_facts.as_ref(), language) {
            let keys = fact_keys(facts, &mut vocab);
            let mut building = coverage::Windows::new(facts.text, lk, &keys);
            reading::read(facts, &mut vocab, language, |vocab, view| {
                building.sentence(vocab, view);
            });
            windows = Some(building.finish());
        }
        p
    });
    let (changed, linked) = match &p {
        Some(p) => changes::compare(&o, p, &dropped),
        None => (Vec::new(), Vec::new()),
    };
    let (instructions, coverage, context) = match units {
        Some(units) => coverage::check(coverage::Input {
            text: original,
            units: units.finish(),
            windows,
            sentences: o.sentences.len(),
            vocab: &vocab,
            linked: &linked,
            dropped: &dropped,
        }),
        None => (Vec::new(), Coverage::default(), Vec::new()),
    };
    Deeper {
        changed,
        instructions,
        coverage,
        context,
    }
}

/// What a fact's key starts with in the vocabulary of a check (values: `$` and `#`, as
/// the second layer interns them).
fn key_tag(class: Class) -> &'static str {
    match class {
        Class::Price => "$",
        Class::Numeric => "#",
        Class::Code => "@",
        Class::Url => "url:",
        Class::Email => "mail:",
        Class::Placeholder => "ph:",
    }
}

/// The facts of a text that are not values (code, identifiers, URLs, e-mail addresses,
/// placeholders) as `(offset, key)`, sorted: key words of the unit they are in.
fn fact_keys(extracted: &extract::Extracted, vocab: &mut vocab::Vocab) -> Vec<(usize, vocab::Id)> {
    let mut out: Vec<(usize, vocab::Id)> = extracted
        .occurrences
        .iter()
        .chain(&extracted.code_found)
        .filter(|f| !matches!(f.kind.class(), Class::Price | Class::Numeric))
        .map(|f| {
            let key = format!("{}{}", key_tag(f.kind.class()), f.canonical);
            (f.start, vocab.intern_str(&key))
        })
        .collect();
    out.sort_unstable();
    out
}

/// One instruction-bearing unit of a text: what the third layer needs a counterpart for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Instruction {
    /// The unit as written, whitespace runs as one space.
    pub text: String,
    /// 1-based line and column (in characters) of its first word.
    pub line: usize,
    pub column: usize,
    /// Its bytes in the text, first word to last.
    pub start: usize,
    pub end: usize,
}

/// The instruction-bearing units of a text, in order (none for a language without a
/// word table).
pub fn instructions(text: &str) -> Vec<Instruction> {
    let extracted = extract::extract(text);
    let mut vocab = vocab::Vocab::default();
    let Some(language) = reading::language(&extracted, &mut vocab) else {
        return Vec::new();
    };
    let facts = fact_keys(&extracted, &mut vocab);
    let mut units = coverage::Units::new(text, language, &facts);
    reading::read(&extracted, &mut vocab, Some(language), |vocab, view| {
        units.sentence(vocab, view);
    });
    let lines = changes::Lines::new(text);
    units
        .finish()
        .units
        .into_iter()
        .filter(|u| u.instruction && u.context.is_none())
        .map(|u| {
            let (line, column) = lines.at(text, u.start);
            Instruction {
                text: changes::squash(&text[u.start..u.end]),
                line,
                column,
                start: u.start,
                end: u.end,
            }
        })
        .collect()
}

/// The facts of one text, deduplicated, in text order (what [`check`] compares).
pub fn facts(text: &str) -> Vec<Fact> {
    extract::extract(text).facts
}
