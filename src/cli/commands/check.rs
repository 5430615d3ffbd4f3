//! `brief check`: the CI gate. Arguments, one call to `prompt::check_run::check_all`, and
//! the three renderings of its report (human, JSON, GitHub annotations).

use std::path::PathBuf;

use clap::ValueEnum;
use serde::Serialize;

use crate::cli::output::{
    self, AnnotationLevel, Form, Outcome, Report, annotation, error_annotations,
};
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Location, Result};
use crate::prompt::check::{Checked, Finding, Level, Options};
use crate::prompt::check_run::{BriefResult, CheckRun, check_all, level_of};

/// Check briefs for CI: rules unchanged since `brief lock`, no placeholder or volatile
/// content in the cacheable prefix, within the token budget
///
/// Fails (exit 1) when a rule item differs from brief.lock, a rule is missing from the lock
/// or the lock names one that is gone, the static tier holds a placeholder, a tool's input
/// schema is not valid JSON Schema or breaks a provider's rules, or budget.max_brief_tokens
/// is exceeded. Volatile-looking content (dates, times, UUIDs, JWTs, long hex ids, unix
/// timestamps) in the static tier is a warning, an error with --strict. A prefix hash that
/// differs from the lock (the provider's prompt cache is written again) is a note, and an
/// error with --strict unless --allow-prefix-change. A brief that cannot be loaded exits 2;
/// in JSON and GitHub output its problems are listed with file and line.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief check briefs/*\n  brief check --json briefs/support\n  brief check --format github briefs/*   # annotations in a GitHub workflow\n  brief check --strict briefs/*          # CI: a change that breaks the prompt cache fails\n  brief check --strict --allow-prefix-change briefs/support   # the change is intended"
)]
pub struct Args {
    /// Brief directories (or their brief.yaml)
    #[arg(required = true)]
    pub briefs: Vec<PathBuf>,
    /// Treat warnings as failures, and a prefix that differs from the lock (the provider's
    /// prompt cache is written again) as a failure
    #[arg(long)]
    pub strict: bool,
    /// With --strict: a prefix that differs from the lock is intended (a note, not a failure)
    #[arg(long)]
    pub allow_prefix_change: bool,
    /// human, json (one object), or github (workflow annotations)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Print one JSON object (the same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let form = match (args.json, args.format) {
        (true, _) | (_, Format::Json) => Form::Json,
        (_, Format::Human) => Form::Human,
        (_, Format::Github) => Form::Github,
    };
    let report = CheckReport(check_all(
        &args.briefs,
        Options {
            strict: args.strict,
            allow_prefix_change: args.allow_prefix_change,
        },
    ));
    match report.0.unreadable.first().cloned() {
        // The first unreadable brief is the command's error.
        Some(first) => output::print_then_fail(ui, form, &report, first),
        None => output::print(ui, form, &report),
    }
}

/// The run, rendered: its JSON carries each unreadable brief's error with the hint in
/// this edge's words.
struct CheckReport(CheckRun);

impl Serialize for CheckReport {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        CheckJson {
            briefs: self.0.briefs(),
            errors: self.0.unreadable.iter().map(unreadable_json).collect(),
        }
        .serialize(serializer)
    }
}

impl Report for CheckReport {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        print_human(&self.0.checked, &self.0.unreadable, self.0.strict, ui)
    }

    fn github(&self, ui: &Ui) -> Result<()> {
        print_github(&self.0.checked, &self.0.unreadable, self.0.strict, ui)
    }

    fn outcome(&self) -> Outcome {
        if self.0.failed() > 0 {
            Outcome::Failed
        } else {
            Outcome::Ok
        }
    }
}

fn location(f: &Finding) -> String {
    Location::new(&f.file, f.line, f.column, "").position()
}

fn print_human(checked: &[Checked], unreadable: &[Error], strict: bool, ui: &Ui) -> Result<()> {
    // The first unreadable brief is the command's error, printed by the CLI; the others
    // are printed here so that none is lost.
    for err in unreadable.iter().skip(1) {
        ui.error(err);
    }
    for Checked {
        report,
        load_warnings,
    } in checked
    {
        for warning in load_warnings {
            ui.warn(&warning.to_string());
        }
        let failed = report.failed(strict);
        // Quiet: a brief that passed says nothing, a failed one only what failed it.
        if ui.quiet() && !failed {
            continue;
        }
        let status = if failed {
            ui.paint("FAILED", Tone::Error)
        } else {
            ui.paint("ok", Tone::Good)
        };
        ui.outln(&format!(
            "{}: {status}  (prefix {})",
            report.brief.display(),
            &report.prefix_hash[..12]
        ))?;
        for f in &report.findings {
            if ui.quiet() && level_of(f, strict) != Level::Error {
                continue;
            }
            print_finding(f, strict, ui)?;
        }
    }
    Ok(())
}

fn print_finding(f: &Finding, strict: bool, ui: &Ui) -> Result<()> {
    let label = match level_of(f, strict) {
        Level::Error => ui.paint("error:", Tone::Error),
        Level::Warning => ui.paint("warning:", Tone::Warning),
        Level::Note => ui.paint("note:", Tone::Info),
    };
    ui.outln(&format!("  {label} {}: {}", location(f), f.message))?;
    if let Some(diff) = &f.diff {
        for line in diff.lines() {
            let tone = match line.chars().next() {
                Some('+') if !line.starts_with("+++") => Some(Tone::Good),
                Some('-') if !line.starts_with("---") => Some(Tone::Error),
                Some('@') => Some(Tone::Info),
                _ => None,
            };
            let text = tone.map_or_else(|| line.to_string(), |t| ui.paint(line, t));
            ui.outln(&format!("    {text}"))?;
        }
    }
    Ok(())
}

/// `brief check --json`: `status` is `ok`, `failed` (a check did not pass) or `error` (a
/// brief could not be loaded).
#[derive(Debug, Serialize)]
struct CheckJson<'a> {
    briefs: Vec<BriefResult<'a>>,
    errors: Vec<UnreadableJson<'a>>,
}

#[derive(Debug, Serialize)]
struct UnreadableJson<'a> {
    kind: &'static str,
    message: &'a str,
    hint: Option<String>,
    locations: &'a [Location],
    /// Each problem as one `file:line:column: message` line, then any other detail.
    details: Vec<String>,
}

fn unreadable_json(e: &Error) -> UnreadableJson<'_> {
    UnreadableJson {
        kind: e.kind.as_str(),
        message: &e.message,
        hint: crate::cli::hints::for_cli(e),
        locations: &e.locations,
        details: e
            .locations
            .iter()
            .map(ToString::to_string)
            .chain(e.details.iter().cloned())
            .collect(),
    }
}

fn print_github(checked: &[Checked], unreadable: &[Error], strict: bool, ui: &Ui) -> Result<()> {
    for err in unreadable {
        for line in error_annotations(err, "brief check") {
            ui.outln(&line)?;
        }
    }
    for Checked {
        report,
        load_warnings,
    } in checked
    {
        for warning in load_warnings {
            ui.outln(&annotation(
                AnnotationLevel::Warning,
                Some(&warning.file),
                warning.line,
                warning.column,
                "brief check: load",
                &warning.message,
            ))?;
        }
        for f in &report.findings {
            let level = match level_of(f, strict) {
                Level::Error => AnnotationLevel::Error,
                Level::Warning => AnnotationLevel::Warning,
                Level::Note => AnnotationLevel::Notice,
            };
            let mut message = f.message.clone();
            if let Some(diff) = &f.diff {
                message.push('\n');
                message.push_str(diff);
            }
            ui.outln(&annotation(
                level,
                Some(&f.file),
                f.line,
                f.column,
                &format!("brief check: {}", f.kind),
                &message,
            ))?;
        }
    }
    Ok(())
}
