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
mod extract;
mod hash;
pub mod lexicon;
mod lookup;
mod marks;
mod matching;
mod messages;
mod numbers;
mod patterns;
mod reading;
mod search;
mod units;
mod vocab;
mod words;

use std::collections::BTreeMap;

pub use changes::{Change, ChangeKind};
pub use messages::{check_item, check_messages};

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
/// - `price`: currency code, amount without separators or trailing zero cents, optional
///   range end and period (`$1,200.00` = `USD 1200`; `$50-200/mo` = `USD 50-200/month`).
/// - `number`, `date`, `time`, `version`, `ip_address`: compared with each other; a number
///   loses its thousands separators and unit (`1,200` = `1200`, `7s` = `7`), `K`/`M`/`B`
///   multiply (`45K` = `45000`), a percentage keeps its sign (`15%` = `15 percent`), a
///   version loses its `v` (`v2.3.1` = `2.3.1`), a time its spaces and dots
///   (`3 PM` = `3pm`). Number words from zero to twenty count as their digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    CodeBlock,
    InlineCode,
    Url,
    Email,
    Placeholder,
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
            Kind::CodeBlock | Kind::InlineCode => Class::Code,
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
}

/// What [`check`] found. Each fact is listed once, at its first occurrence, in text order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Facts of the original that the proposal does not contain (positions in the original).
    pub dropped: Vec<Fact>,
    /// Facts of the proposal that the original does not contain (positions in the proposal).
    pub introduced: Vec<Fact>,
    /// Values that survive but are bound to something else, and constraints that were
    /// lost or reversed (the second layer).
    #[serde(default)]
    pub changed: Vec<Change>,
    /// How many distinct facts of each kind the original has: what was checked.
    pub counts: BTreeMap<Kind, usize>,
}

impl Report {
    /// Nothing was dropped or changed. Introduced facts are listed but do not make a
    /// report flagged.
    pub fn is_clean(&self) -> bool {
        self.dropped.is_empty() && self.changed.is_empty()
    }

    /// Every flag as one line (`price $40`, `negation: negation `not` was lost`): what an
    /// accept with `--allow-flags` records in the version.
    pub fn flag_lines(&self) -> Vec<String> {
        let within = |m: &Option<String>| m.as_ref().map_or(String::new(), |m| format!("{m}: "));
        let dropped = self
            .dropped
            .iter()
            .map(|f| format!("{}{} {}", within(&f.in_message), f.kind.name(), f.value));
        let changed = self.changed.iter().map(|c| {
            format!(
                "{}changed {}: {}",
                within(&c.in_message),
                c.kind.name(),
                c.message
            )
        });
        dropped.chain(changed).collect()
    }

    /// The number of distinct facts checked in the original.
    pub fn checked(&self) -> usize {
        self.counts.values().sum()
    }

    /// One line saying what happened, e.g.
    /// `flagged: 2 of 31 facts dropped (1 price, 1 url); 1 changed (1 bound); 1 introduced (1 price)`.
    pub fn summary(&self) -> String {
        let checked = self.checked();
        let mut text = if self.dropped.is_empty() && !self.changed.is_empty() {
            let n = self.changed.len();
            format!(
                "flagged: {n} {} changed ({})",
                if n == 1 {
                    "fact or constraint"
                } else {
                    "facts or constraints"
                },
                change_tally(&self.changed)
            )
        } else if self.dropped.is_empty() {
            match checked {
                0 => "clean: the original has no facts to check".to_string(),
                1 => "clean: the one fact of the original survives".to_string(),
                n => format!("clean: all {n} facts of the original survive"),
            }
        } else {
            format!(
                "flagged: {} of {checked} {} dropped ({})",
                self.dropped.len(),
                if checked == 1 { "fact" } else { "facts" },
                tally(&self.dropped)
            )
        };
        if !self.dropped.is_empty() && !self.changed.is_empty() {
            text.push_str(&format!(
                "; {} changed ({})",
                self.changed.len(),
                change_tally(&self.changed)
            ));
        }
        if !self.introduced.is_empty() {
            text.push_str(&format!(
                "; {} introduced ({})",
                self.introduced.len(),
                tally(&self.introduced)
            ));
        }
        text
    }
}

/// `1 price, 2 number` — facts counted by kind, in kind order.
fn tally(facts: &[Fact]) -> String {
    let mut by_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    for fact in facts {
        *by_kind.entry(fact.kind).or_default() += 1;
    }
    by_kind
        .iter()
        .map(|(kind, n)| format!("{n} {}", kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1 bound, 2 negation` — changes counted by kind, in kind order.
fn change_tally(changes: &[Change]) -> String {
    let mut by_kind: BTreeMap<ChangeKind, usize> = BTreeMap::new();
    for change in changes {
        *by_kind.entry(change.kind).or_default() += 1;
    }
    by_kind
        .iter()
        .map(|(kind, n)| format!("{n} {}", kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Compares `original` and `proposal`: which facts of the original the proposal dropped,
/// which survive with another binding or lost a constraint, and which facts the proposal
/// introduced.
pub fn check(original: &str, proposal: &str) -> Report {
    let original_facts = extract::extract(original);
    let proposal_facts = extract::extract(proposal);
    let dropped = matching::missing(&original_facts, &proposal_facts, proposal);
    let introduced = matching::missing(&proposal_facts, &original_facts, original);
    // A text is identical to itself: nothing can have moved or flipped.
    let changed = if original == proposal {
        Vec::new()
    } else {
        second_layer(
            original,
            proposal,
            &original_facts,
            &proposal_facts,
            &dropped,
        )
    };
    let mut counts = BTreeMap::new();
    for fact in &original_facts.facts {
        *counts.entry(fact.kind).or_default() += 1;
    }
    Report {
        dropped,
        introduced,
        changed,
        counts,
    }
}

/// Both texts are read in the original's language; a language without a table gets only
/// the language-neutral comparison of units.
fn second_layer(
    original: &str,
    proposal: &str,
    original_facts: &extract::Extracted,
    proposal_facts: &extract::Extracted,
    dropped: &[Fact],
) -> Vec<Change> {
    /// Enough words to tell the language; a sample keeps detection cheap on a long text.
    const SAMPLE: usize = 4000;
    let mut vocab = vocab::Vocab::default();
    let mut o = reading::tokenize(original_facts, &mut vocab);
    let sample = o
        .tokens
        .tokens
        .iter()
        .filter_map(words::Token::id)
        .take(SAMPLE);
    let language = lookup::detect(vocab.counts(sample).into_iter());
    let mut p = reading::tokenize(proposal_facts, &mut vocab);
    vocab.finish(language);
    if language.is_some() {
        reading::number_words(&mut o, &mut vocab);
        reading::number_words(&mut p, &mut vocab);
        vocab.finish(language);
    }
    let dropped: hash::FxSet<vocab::Id> = dropped
        .iter()
        .filter_map(|f| {
            let prefix = if f.kind.class() == Class::Price {
                '$'
            } else {
                '#'
            };
            vocab.get(&format!("{prefix}{}", f.canonical))
        })
        .collect();
    let o = reading::read(original, o, &vocab, language);
    let p = reading::read(proposal, p, &vocab, language);
    changes::compare(&o, &p, &dropped)
}

/// The facts of one text, deduplicated, in text order (what [`check`] compares).
pub fn facts(text: &str) -> Vec<Fact> {
    extract::extract(text).facts
}

/// The report as the one JSON object `brief guard --json` prints and the MCP `guard` tool
/// returns: `{"status": "clean"|"flagged", "summary", "dropped": [{"kind", "value",
/// "line", "column"}], "changed": [{"kind", "original", "proposal", "line", "column",
/// "proposal_line", "proposal_column"}], "introduced": [...], "counts": {"<kind>": n}}`.
#[derive(Debug, Serialize)]
pub struct Verdict<'a> {
    pub status: &'static str,
    pub summary: String,
    #[serde(flatten)]
    pub findings: Findings<'a>,
}

/// A report's findings, as reports print them after `status` and `summary`.
#[derive(Debug, Serialize)]
pub struct Findings<'a> {
    pub dropped: &'a [Fact],
    pub changed: Vec<ChangeReport>,
    pub introduced: &'a [Fact],
    pub counts: &'a BTreeMap<Kind, usize>,
}

impl Report {
    /// `clean` or `flagged`.
    pub fn status_word(&self) -> &'static str {
        if self.is_clean() { "clean" } else { "flagged" }
    }

    /// What the report found, for a report that prints its own status and summary.
    pub fn findings(&self) -> Findings<'_> {
        Findings {
            dropped: &self.dropped,
            changed: ChangeReport::all(&self.changed),
            introduced: &self.introduced,
            counts: &self.counts,
        }
    }

    /// The whole report as `brief guard --json` prints it.
    pub fn verdict(&self) -> Verdict<'_> {
        Verdict {
            status: self.status_word(),
            summary: self.summary(),
            findings: self.findings(),
        }
    }
}

/// [`Report::verdict`] as a JSON value (for the MCP tool's structured content).
pub fn to_json(report: &Report) -> serde_json::Value {
    serde_json::to_value(report.verdict()).unwrap_or_default()
}

/// A change as reports print it: the keys `kind`, `original`, `proposal`, `line`,
/// `column`, `proposal_line`, `proposal_column` and, when the texts were compared message
/// by message, `in_message` (the message is for people: it is in the human report).
#[derive(Debug, Clone, Serialize)]
pub struct ChangeReport {
    pub kind: &'static str,
    pub original: String,
    pub proposal: String,
    pub line: usize,
    pub column: usize,
    pub proposal_line: usize,
    pub proposal_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_message: Option<String>,
}

impl ChangeReport {
    pub fn of(change: &Change) -> Self {
        ChangeReport {
            kind: change.kind.name(),
            original: change.original.clone(),
            proposal: change.proposal.clone(),
            line: change.line,
            column: change.column,
            proposal_line: change.proposal_line,
            proposal_column: change.proposal_column,
            in_message: change.in_message.clone(),
        }
    }

    pub fn all(changes: &[Change]) -> Vec<ChangeReport> {
        changes.iter().map(ChangeReport::of).collect()
    }
}

/// The changes as JSON objects (see [`ChangeReport`]).
pub fn changes_json(changes: &[Change]) -> serde_json::Value {
    serde_json::json!(ChangeReport::all(changes))
}
