//! `brief guard`: the deterministic guard on any two text files, for operators and CI.
//!
//! Also home of [`render`], the human rendering of a guard report, so that every command
//! that shows one (`compress`, `accept`) shows it the same way.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::files::input::{self, is_stdin, label};
use crate::files::limits::TEXT_FILE;
use crate::guard::{self, Fact, Kind, ReportJson};

/// Check that every fact, constraint and instruction of ORIGINAL survives in PROPOSAL
///
/// Lists each price, number (also in words: `five`, `a hundred`), date, URL, e-mail
/// address, placeholder, identifier (`lookup_order`, `src/main.rs`, `$HOME`, `--json`) and
/// piece of code of the original that the proposal dropped; then each value that survives
/// but changed its unit, bound, counted noun or subject (or lost it everywhere), and each
/// negation, modal, `only`, exception, condition or absolute that was lost or reversed in
/// the aligned sentence (`changed`); then each instruction of the original (a sentence,
/// clause, list item or table row that tells the agent what to do or not do) without a
/// counterpart in the proposal (`dropped_instructions`); then the facts the proposal
/// introduced. The summary ends with the share of instructions kept and the size ratio. A
/// fact survives when it appears at least once anywhere in the proposal, compared in
/// canonical form (`1,200` = `1200`, `$1,200.00` = `USD 1200`, `15%` = `15 percent`); code
/// is compared byte for byte. A conversation sample (`format: messages`) is compared
/// message by message: the proposal (a sample file or its body) keeps every message and
/// role, else exit 2. Each finding carries a confidence: `high` (a dropped fact, a
/// flipped negation, a changed value or bound, an instruction with no counterpart at
/// all) makes the status `flagged`; the rest (a lost qualifier, condition or strength, an
/// instruction only partly kept) makes it `review`. Context that went (a rationale, an
/// example, a preface) is listed as information. Exit status: 0 clean or review, 1
/// flagged, 2 bad input.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The original text: a file, or - for stdin
    #[arg(value_name = "ORIGINAL")]
    original: PathBuf,

    /// The rewrite to check: a file, or - for stdin
    #[arg(value_name = "PROPOSAL")]
    proposal: PathBuf,

    /// Print one JSON object: status, summary, dropped, changed, dropped_instructions,
    /// introduced, counts, coverage, context_dropped
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    if is_stdin(&args.original) && is_stdin(&args.proposal) {
        return Err(Error::input(
            "ORIGINAL and PROPOSAL are both `-`: only one can be read from stdin",
        )
        .with_hint("save one of the two texts to a file and pass its path"));
    }
    let original = read_text(&args.original)?;
    let proposal = read_text(&args.proposal)?;
    let report = guard::compare(&args.original, &original, &args.proposal, &proposal)?;
    let shown = Shown {
        json: ReportJson::from(&report),
        original: label(&args.original),
        proposal: label(&args.proposal),
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

/// Moves the lines of a report on an item's body to the lines of its file.
pub use crate::guard::shift;

/// `brief guard`'s report: the guard's JSON document, and the labels the human form
/// names the two texts by.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a> {
    json: ReportJson<'a>,
    #[serde(skip)]
    original: String,
    #[serde(skip)]
    proposal: String,
}

impl Report for Shown<'_> {
    fn status(&self) -> &str {
        self.json.status()
    }

    fn summary(&self) -> String {
        self.json.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&render(
            self.json.report(),
            &self.original,
            &self.proposal,
            ui,
        ))
    }

    fn outcome(&self) -> Outcome {
        // `review` is for a person to look at, not a failed check: only `flagged` fails.
        if !self.json.report().is_flagged() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}

/// Reads a file (or stdin for `-`) that must be UTF-8 text within the guard's limit.
fn read_text(path: &Path) -> Result<String> {
    input::read_text(path, TEXT_FILE)
}

/// Renders a report for people: each dropped fact as `FILE:LINE:COL  kind  value`, then
/// each change as `FILE:LINE:COL  kind  what changed (PROPOSAL:LINE:COL)`, then each
/// dropped instruction as `FILE:LINE:COL  instruction  text` (`statement` for a statement
/// that went whole; with the list items that
/// went, or why it counts as gone), then each introduced fact, then the one-line summary
/// (which ends with the instructions kept and the size ratio). Drops, changes and dropped
/// instructions are errors (red), introduced facts warnings (yellow). Ends with a newline.
pub fn render(report: &guard::Report, original: &str, proposal: &str, ui: &Ui) -> String {
    let mut out = String::new();
    let rows = |facts: &[Fact], file: &str| -> Vec<(String, &'static str, String)> {
        facts
            .iter()
            .map(|f| {
                (
                    match &f.in_message {
                        Some(m) => format!("{file} {m}:{}:{}", f.line, f.column),
                        None => format!("{file}:{}:{}", f.line, f.column),
                    },
                    f.kind.name(),
                    shown(f),
                )
            })
            .collect()
    };
    let dropped = rows(&report.dropped, original);
    let introduced = rows(&report.introduced, proposal);
    let changed: Vec<(String, &'static str, String)> = report
        .changed
        .iter()
        .map(|c| {
            (
                match &c.in_message {
                    Some(m) => format!("{original} {m}:{}:{}", c.line, c.column),
                    None => format!("{original}:{}:{}", c.line, c.column),
                },
                c.kind.name(),
                format!(
                    "{}{}\n      was: {}\n      now: {}  ({proposal}:{}:{})",
                    one_line(&c.message),
                    review_mark(c.confidence()),
                    one_line(&c.original),
                    one_line(&c.proposal),
                    c.proposal_line,
                    c.proposal_column
                ),
            )
        })
        .collect();
    let instructions: Vec<(String, &'static str, String)> = report
        .dropped_instructions
        .iter()
        .map(|d| {
            let mut text = escaped_line(&d.text, 160);
            text.push_str(review_mark(d.confidence));
            if !d.items.is_empty() {
                text.push_str(&format!(
                    "\n      items gone: {}",
                    escaped_line(&d.items.join(", "), 160)
                ));
            } else if !d.reason.is_empty() {
                text.push_str(&format!("\n      {}", one_line(&d.reason)));
            }
            if let Some(under) = &d.under {
                text.push_str(&format!("\n      under: {}", escaped_line(under, 100)));
            }
            (
                match &d.in_message {
                    Some(m) => format!("{original} {m}:{}:{}", d.line, d.column),
                    None => format!("{original}:{}:{}", d.line, d.column),
                },
                d.unit.name(),
                text,
            )
        })
        .collect();
    let place_width = dropped
        .iter()
        .chain(&changed)
        .chain(&instructions)
        .chain(&introduced)
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0);
    let kind_width = dropped
        .iter()
        .chain(&changed)
        .chain(&instructions)
        .chain(&introduced)
        .map(|r| r.1.len())
        .max()
        .unwrap_or(0);
    let sections = [
        (
            dropped,
            format!("Dropped from {original}"),
            Tone::Error,
            report.dropped.len(),
        ),
        (
            changed,
            format!("Changed in {proposal}"),
            Tone::Error,
            report.changed.len(),
        ),
        (
            instructions,
            format!("Instructions of {original} without a counterpart in {proposal}"),
            Tone::Error,
            report.dropped_instructions.len(),
        ),
        (
            introduced,
            format!("Introduced in {proposal}"),
            Tone::Warning,
            report.introduced.len(),
        ),
    ];
    for (rows, title, tone, n) in sections {
        if rows.is_empty() {
            continue;
        }
        out.push_str(&ui.paint(&format!("{title} ({n}):"), tone));
        out.push('\n');
        for (place, kind, value) in rows {
            let kind = format!("{kind:<kind_width$}");
            out.push_str(&format!(
                "  {place:<place_width$}  {}  {value}\n",
                ui.paint(&kind, tone)
            ));
        }
        out.push('\n');
    }
    out.push_str(&ui.paint(&report.coverage_line(), Tone::Dim));
    out.push('\n');
    if !report.context_dropped.is_empty() {
        out.push_str(&ui.paint(
            &format!(
                "Context of {original} not in {proposal} (information, {}):",
                report.context_dropped.len()
            ),
            Tone::Dim,
        ));
        out.push('\n');
        for c in &report.context_dropped {
            out.push_str(&ui.paint(
                &format!(
                    "  {original}:{}:{}  {}  {}",
                    c.line,
                    c.column,
                    c.role,
                    escaped_line(&c.text, 120)
                ),
                Tone::Dim,
            ));
            out.push('\n');
        }
        out.push('\n');
    }
    let tone = match report.status() {
        "clean" => Tone::Good,
        "review" => Tone::Warning,
        _ => Tone::Error,
    };
    let summary = report.summary();
    out.push_str(&ui.paint(&summary, tone));
    out.push('\n');
    out
}

/// ` [review]` after a finding that is not sure enough to flag, else nothing.
fn review_mark(confidence: guard::Confidence) -> &'static str {
    match confidence {
        guard::Confidence::High => "",
        guard::Confidence::Review => "  [review]",
    }
}

/// A change's message on one line: control characters escaped, at most 160 characters.
fn one_line(text: &str) -> String {
    escaped_line(text, 160)
}

/// `text` with control characters written as escapes (so a change in one stays visible
/// and cannot drive the terminal), cut to `width` characters with an ellipsis.
fn escaped_line(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if out.chars().count() > width {
        out = out.chars().take(width - 1).collect();
        out.push('…');
    }
    out
}

/// A fact's value on one line: control characters escaped, a code block shown as its
/// first line of code and the number of lines left, anything longer than 72 characters
/// cut with an ellipsis.
fn shown(fact: &Fact) -> String {
    const WIDTH: usize = 72;
    let text = if fact.kind == Kind::CodeBlock {
        &fact.canonical
    } else {
        &fact.value
    };
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.first().copied().unwrap_or("");
    let more = lines.len().saturating_sub(1);
    let text = escaped_line(first, WIDTH);
    match more {
        0 => text,
        1 => format!("{text} … (+1 line)"),
        n => format!("{text} … (+{n} lines)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Fact {
        guard::facts(text).remove(0)
    }

    #[test]
    fn a_code_block_is_shown_as_its_first_line_of_code_and_a_count() {
        assert_eq!(
            shown(&first("```sh\nmake\nmake test\n```")),
            "make … (+1 line)"
        );
        assert_eq!(shown(&first("`a\tb`")), "`a\\tb`");
        let long = format!("`{}`", "x".repeat(100));
        assert_eq!(shown(&first(&long)).chars().count(), 72);
    }
}
