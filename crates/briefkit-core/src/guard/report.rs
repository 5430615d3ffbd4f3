//! What the guard reports, and the one status every surface derives from it: `brief
//! guard`, `compress`, `proposals`, `review`, `accept` and the MCP `guard` tool all call
//! [`Report::is_clean`] / [`Report::status`] on the same report, so they cannot disagree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Change, Fact, Kind};

/// How sure a finding is: `high` makes the report `flagged` (accept refuses without
/// `--allow-flags`); `review` makes it `review` (shown first, counted, recorded with the
/// version, never blocking). Only what is surely lost is high: a dropped fact, a flipped
/// negation, a changed value or bound, an instruction with no counterpart at all. A lost
/// qualifier, a strength or scope that moved, a unit only partly kept is worth a look,
/// and an alarm that rings for those would soon be silenced with `--allow-flags`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    #[default]
    High,
    Review,
}

impl Confidence {
    pub fn name(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Review => "review",
        }
    }
}

/// A unit of the original that only explains or illustrates (a rationale, a purpose
/// clause, an example, a preface, a list intro) and has no counterpart in the proposal:
/// information, never a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedContext {
    pub text: String,
    pub line: usize,
    pub column: usize,
    /// What kind of context it is (`rationale`, `example`, `preface`, `description`).
    pub role: String,
}

/// An instruction of the original without a counterpart in the proposal (the third
/// layer), or one whose list lost some items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedInstruction {
    /// The unit as written in the original, whitespace runs as one space.
    pub text: String,
    /// 1-based line and column (in characters) of the unit's first word in the original.
    pub line: usize,
    pub column: usize,
    /// The items of a list in the unit that went, when the rest of it was kept (`legal`,
    /// `tax` of `medical, legal or tax advice`); empty when the whole unit went.
    #[serde(default)]
    pub items: Vec<String>,
    /// Why it counts as dropped, in words (`no counterpart in the proposal`, `` its `never`
    /// was lost ``, `2 of its 4 list items went`).
    #[serde(default)]
    pub reason: String,
    /// The heading or lead-in (`Never discuss:`) the unit sits under, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under: Option<String>,
    /// The sample message it is in, when the texts were compared message by message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_message: Option<String>,
    /// The item file the line and column are in, when the original was an item's body
    /// judged against its file (front matter counted); absent for plain texts and for
    /// findings inside a sample message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<std::path::PathBuf>,
    /// `high` (no counterpart at all: the report is flagged) or `review` (a counterpart
    /// that keeps part of it, or lost one of its constraints).
    #[serde(default)]
    pub confidence: Confidence,
    /// The evidence: the unit's key words that no counterpart has (as written).
    #[serde(default)]
    pub missing: Vec<String>,
    /// What went: an `instruction` (an order) or a `statement` (a fact the agent must know,
    /// reported only when it went whole). Written only for statements.
    #[serde(default, skip_serializing_if = "UnitKind::is_instruction")]
    pub unit: UnitKind,
}

/// The kind of unit a [`DroppedInstruction`] is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    #[default]
    Instruction,
    Statement,
}

impl UnitKind {
    fn is_instruction(&self) -> bool {
        *self == UnitKind::Instruction
    }

    /// `instruction` or `statement`, as every surface names it.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Instruction => "instruction",
            UnitKind::Statement => "statement",
        }
    }

    /// `1 instruction`, `3 statements`.
    pub fn count(self, n: usize) -> String {
        format!("{n} {}{}", self.name(), if n == 1 { "" } else { "s" })
    }
}

/// How much of the original's instructions and length the proposal kept: a signal beside
/// the findings, and a verdict only when under half of the instructions survive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Instruction-bearing units of the original (a repeated unit counted once).
    pub instructions: usize,
    /// Units with a counterpart that keeps at least half of their words (weighted) and
    /// every constraint.
    pub kept: usize,
    /// Units whose best match keeps only a third to a half of their words, or that lost
    /// items of a list: not counted as kept (a borderline unit is not reported on its own).
    pub borderline: usize,
    /// Units without a counterpart (each is in `dropped_instructions`).
    pub dropped: usize,
    /// Length of each text in characters.
    pub original_chars: usize,
    pub proposal_chars: usize,
}

impl Coverage {
    /// The share of instruction-bearing units kept (1 when the original has none).
    pub fn share(&self) -> f64 {
        if self.instructions == 0 {
            1.0
        } else {
            self.kept as f64 / self.instructions as f64
        }
    }

    /// The proposal's length over the original's, in characters (`None` for an empty
    /// original).
    pub fn size_ratio(&self) -> Option<f64> {
        (self.original_chars > 0).then(|| self.proposal_chars as f64 / self.original_chars as f64)
    }

    /// Under half of two or more instruction-bearing units kept: flagged even when no unit
    /// is missing outright (each kept only in part).
    pub fn under_half(&self) -> bool {
        self.instructions >= 2 && self.kept * 2 < self.instructions
    }

    pub(crate) fn add(&mut self, other: &Coverage) {
        self.instructions += other.instructions;
        self.kept += other.kept;
        self.borderline += other.borderline;
        self.dropped += other.dropped;
        self.original_chars += other.original_chars;
        self.proposal_chars += other.proposal_chars;
    }
}

/// What [`check`](super::check) found. Each fact is listed once, at its first occurrence,
/// in text order.
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
    /// Instructions of the original without a counterpart in the proposal (the third
    /// layer).
    #[serde(default)]
    pub dropped_instructions: Vec<DroppedInstruction>,
    /// How many distinct facts of each kind the original has: what was checked.
    pub counts: BTreeMap<Kind, usize>,
    /// Instructions and length kept.
    #[serde(default)]
    pub coverage: Coverage,
    /// Context of the original (rationale, examples, prefaces) without a counterpart:
    /// information only, never a finding.
    #[serde(default)]
    pub context_dropped: Vec<DroppedContext>,
}

impl Report {
    /// Nothing was dropped or changed, no instruction went, and at least half of the
    /// instructions were kept. Introduced facts are listed but do not make a report
    /// flagged.
    pub fn is_clean(&self) -> bool {
        self.dropped.is_empty()
            && self.changed.is_empty()
            && self.dropped_instructions.is_empty()
            && !self.coverage.under_half()
    }

    /// A finding that is surely a loss: a dropped fact, or a change or dropped
    /// instruction at high confidence. Accept refuses a flagged proposal without
    /// `--allow-flags`; `brief guard` exits 1.
    pub fn is_flagged(&self) -> bool {
        !self.dropped.is_empty()
            || self
                .changed
                .iter()
                .any(|c| c.confidence() == Confidence::High)
            || self
                .dropped_instructions
                .iter()
                .any(|d| d.confidence == Confidence::High)
    }

    /// How many instructions and how many statements went, each kind that did, in that
    /// order (`[(Instruction, 2), (Statement, 1)]`).
    pub fn dropped_units(&self) -> Vec<(UnitKind, usize)> {
        [UnitKind::Instruction, UnitKind::Statement]
            .into_iter()
            .map(|kind| {
                let n = self.dropped_instructions.iter().filter(|d| d.unit == kind);
                (kind, n.count())
            })
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// `clean`, `review` (findings to look at, none sure: not blocking) or `flagged`:
    /// the status every command prints for this report.
    pub fn status(&self) -> &'static str {
        if self.is_flagged() {
            "flagged"
        } else if self.is_clean() {
            "clean"
        } else {
            "review"
        }
    }

    /// Every flag as one line (`price $40`, ``changed negation: negation `not` was lost``,
    /// `dropped instruction (items/tone.md:5:1): Never promise a delivery date`): what an
    /// accept with `--allow-flags` records in the version. A finding located in an item
    /// file says where, as `FILE:LINE:COL`, the position every other surface shows.
    pub fn flag_lines(&self) -> Vec<String> {
        let within = |m: &Option<String>| m.as_ref().map_or(String::new(), |m| format!("{m}: "));
        let at = |file: &Option<std::path::PathBuf>, line: usize, column: usize| {
            file.as_ref().map_or(String::new(), |f| {
                format!(" ({}:{line}:{column})", f.display())
            })
        };
        let dropped = self.dropped.iter().map(|f| {
            format!(
                "{}{} {}{}",
                within(&f.in_message),
                f.kind.name(),
                f.value,
                at(&f.file, f.line, f.column)
            )
        });
        let changed = self.changed.iter().map(|c| {
            format!(
                "{}changed {}: {}{}",
                within(&c.in_message),
                c.kind.name(),
                c.message,
                at(&c.file, c.line, c.column)
            )
        });
        let instructions = self.dropped_instructions.iter().map(|d| {
            let items = if d.items.is_empty() {
                String::new()
            } else {
                format!(" (items gone: {})", d.items.join(", "))
            };
            let position = match &d.file {
                Some(file) => format!("{}:{}:{}", file.display(), d.line, d.column),
                None => format!("line {}", d.line),
            };
            format!(
                "{}dropped {} ({position}): {}{items}",
                within(&d.in_message),
                d.unit.name(),
                d.text
            )
        });
        let mut lines: Vec<String> = dropped.chain(changed).chain(instructions).collect();
        if self.coverage.under_half() {
            lines.push(format!(
                "coverage: only {} of {} instructions kept",
                self.coverage.kept, self.coverage.instructions
            ));
        }
        lines
    }

    /// The number of distinct facts checked in the original.
    pub fn checked(&self) -> usize {
        self.counts.values().sum()
    }

    /// One line saying what happened, e.g. `flagged: 2 of 31 facts dropped (1 price, 1
    /// url); 1 changed (1 bound); 1 instruction dropped; 1 introduced (1 price)`. What was
    /// kept of the instructions and length is [`Report::coverage_line`].
    pub fn summary(&self) -> String {
        let checked = self.checked();
        let mut flags = Vec::new();
        if !self.dropped.is_empty() {
            flags.push(format!(
                "{} of {checked} {} dropped ({})",
                self.dropped.len(),
                if checked == 1 { "fact" } else { "facts" },
                tally(&self.dropped)
            ));
        }
        if !self.changed.is_empty() {
            let n = self.changed.len();
            let what = match (flags.is_empty(), n) {
                (false, _) => "",
                (true, 1) => " fact or constraint",
                (true, _) => " facts or constraints",
            };
            flags.push(format!(
                "{n}{what} changed ({})",
                change_tally(&self.changed)
            ));
        }
        for (kind, n) in self.dropped_units() {
            flags.push(format!("{} dropped", kind.count(n)));
        }
        if self.coverage.under_half() {
            flags.push(format!(
                "only {} of {} instructions kept",
                self.coverage.kept, self.coverage.instructions
            ));
        }
        let mut text = if flags.is_empty() {
            match checked {
                0 => "clean: the original has no facts to check".to_string(),
                1 => "clean: the one fact of the original survives".to_string(),
                n => format!("clean: all {n} facts of the original survive"),
            }
        } else {
            format!("{}: {}", self.status(), flags.join("; "))
        };
        if !self.introduced.is_empty() {
            text.push_str(&format!(
                "; {} introduced ({})",
                self.introduced.len(),
                tally(&self.introduced)
            ));
        }
        text
    }

    /// What the proposal kept of the original's instructions and length, e.g.
    /// `instructions kept: 11 of 12 (1 borderline); size: 62% of the original`.
    pub fn coverage_line(&self) -> String {
        let c = &self.coverage;
        let mut text = match c.instructions {
            0 => "instructions kept: the original gives none".to_string(),
            n => format!(
                "instructions kept: {} of {n} ({:.0}%)",
                c.kept,
                c.share() * 100.0
            ),
        };
        if c.borderline > 0 {
            text.push_str(&format!(", {} borderline", c.borderline));
        }
        match c.size_ratio() {
            Some(ratio) => text.push_str(&format!("; size: {:.0}% of the original", ratio * 100.0)),
            None => text.push_str("; size: the original is empty"),
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
    let mut by_kind: BTreeMap<super::ChangeKind, usize> = BTreeMap::new();
    for change in changes {
        *by_kind.entry(change.kind).or_default() += 1;
    }
    by_kind
        .iter()
        .map(|(kind, n)| format!("{n} {}", kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The JSON form of a change: the keys `kind`, `original`, `proposal`, `line`, `column`,
/// `proposal_line`, `proposal_column` (and `in_message`); the message is for people and
/// is in the human report.
#[derive(Serialize)]
pub struct ChangeJson<'a> {
    kind: &'static str,
    original: &'a str,
    proposal: &'a str,
    line: usize,
    column: usize,
    proposal_line: usize,
    proposal_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a std::path::Path>,
    /// `high` or `review` (see [`Confidence`]).
    confidence: &'static str,
    /// The evidence, in words (`` `only` was lost ``).
    evidence: &'a str,
}

impl<'a> From<&'a Change> for ChangeJson<'a> {
    fn from(c: &'a Change) -> Self {
        ChangeJson {
            kind: c.kind.name(),
            original: &c.original,
            proposal: &c.proposal,
            line: c.line,
            column: c.column,
            proposal_line: c.proposal_line,
            proposal_column: c.proposal_column,
            in_message: c.in_message.as_deref(),
            file: c.file.as_deref(),
            confidence: c.confidence().name(),
            evidence: &c.message,
        }
    }
}

/// [`Coverage`] as JSON: the counts, with the share kept and the size ratio worked out
/// (rounded to three places).
#[derive(Serialize)]
pub struct CoverageJson {
    instructions: usize,
    kept: usize,
    borderline: usize,
    dropped: usize,
    share: f64,
    original_chars: usize,
    proposal_chars: usize,
    size_ratio: Option<f64>,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl From<&Coverage> for CoverageJson {
    fn from(c: &Coverage) -> Self {
        CoverageJson {
            instructions: c.instructions,
            kept: c.kept,
            borderline: c.borderline,
            dropped: c.dropped,
            share: round3(c.share()),
            original_chars: c.original_chars,
            proposal_chars: c.proposal_chars,
            size_ratio: c.size_ratio().map(round3),
        }
    }
}

/// The report as the one JSON document `brief guard --json` prints and the MCP `guard`
/// tool returns: `{"status": "clean"|"review"|"flagged", "summary", "dropped": [{"kind", "value",
/// "line", "column"}], "changed": [{"kind", "original", "proposal", "line", "column",
/// "proposal_line", "proposal_column"}], "dropped_instructions": [{"text", "line",
/// "column", "items", "reason"}], "introduced": [...], "counts": {"<kind>": n},
/// "coverage": {"instructions", "kept", "borderline", "dropped", "share",
/// "original_chars", "proposal_chars", "size_ratio"}}`.
#[derive(Serialize)]
pub struct ReportJson<'a> {
    #[serde(skip)]
    report: &'a Report,
    dropped: &'a [Fact],
    changed: Vec<ChangeJson<'a>>,
    dropped_instructions: &'a [DroppedInstruction],
    introduced: &'a [Fact],
    counts: &'a BTreeMap<Kind, usize>,
    coverage: CoverageJson,
    context_dropped: &'a [DroppedContext],
}

impl<'a> From<&'a Report> for ReportJson<'a> {
    fn from(r: &'a Report) -> Self {
        ReportJson {
            report: r,
            dropped: &r.dropped,
            changed: r.changed.iter().map(ChangeJson::from).collect(),
            dropped_instructions: &r.dropped_instructions,
            introduced: &r.introduced,
            counts: &r.counts,
            coverage: CoverageJson::from(&r.coverage),
            context_dropped: &r.context_dropped,
        }
    }
}

impl<'a> ReportJson<'a> {
    /// The report shown.
    pub fn report(&self) -> &'a Report {
        self.report
    }
}

impl crate::document::Document for ReportJson<'_> {
    fn status(&self) -> &str {
        self.report.status()
    }

    fn summary(&self) -> String {
        self.report.summary()
    }
}
