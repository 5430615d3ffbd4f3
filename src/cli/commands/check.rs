//! `brief check`: the CI gate. Arguments, one call to `prompt::check`, and the three
//! renderings of its reports (human, JSON, GitHub annotations).

use std::path::PathBuf;

use clap::ValueEnum;
use serde::Serialize;

use crate::brief::Problem;
use crate::cli::output::{self, AnnotationLevel, Outcome, annotation, error_annotations};
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Location, Result};
use crate::prompt::check::{Checked, Finding, Level, Options, Report, check_paths};

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
    let format = if args.json { Format::Json } else { args.format };
    let mut checked = Vec::new();
    let mut unreadable: Vec<Error> = Vec::new();
    let options = Options {
        strict: args.strict,
        allow_prefix_change: args.allow_prefix_change,
    };
    for result in check_paths(&args.briefs, options) {
        match result {
            Ok(one) => checked.push(one),
            Err(err) => unreadable.push(err),
        }
    }
    let failed = checked
        .iter()
        .filter(|c| c.report.failed(args.strict))
        .count();
    match format {
        Format::Human => print_human(&checked, &unreadable, args.strict, ui)?,
        Format::Json => print_json(&checked, &unreadable, failed, args.strict, ui)?,
        Format::Github => print_github(&checked, &unreadable, args.strict, ui)?,
    }
    if let Some(first) = unreadable.into_iter().next() {
        // The report above already holds it (JSON, GitHub); the text goes to stderr.
        return Err(if format == Format::Human {
            first
        } else {
            first.reported()
        });
    }
    Ok(if failed > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

fn level_of(finding: &Finding, strict: bool) -> Level {
    if strict && finding.level == Level::Warning {
        Level::Error
    } else {
        finding.level
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
    briefs: Vec<BriefJson<'a>>,
    errors: Vec<UnreadableJson<'a>>,
}

#[derive(Debug, Serialize)]
struct BriefJson<'a> {
    brief: &'a std::path::Path,
    status: &'static str,
    prefix_hash: &'a str,
    locked_prefix_hash: Option<&'a str>,
    prefix_changed: Option<bool>,
    /// When the prefix changed: the tokens the provider writes to its cache again.
    tokens_rewritten: Option<usize>,
    findings: Vec<Finding>,
    /// Problems loading raised that do not stop the check (e.g. an unlisted item file).
    load_warnings: Vec<Location>,
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

fn brief_json<'a>(report: &'a Report, warnings: &[Problem], strict: bool) -> BriefJson<'a> {
    BriefJson {
        brief: &report.brief,
        status: if report.failed(strict) {
            "failed"
        } else {
            "ok"
        },
        prefix_hash: &report.prefix_hash,
        locked_prefix_hash: report.locked_prefix_hash.as_deref(),
        prefix_changed: report
            .locked_prefix_hash
            .as_ref()
            .map(|h| *h != report.prefix_hash),
        tokens_rewritten: report.tokens_rewritten,
        findings: report
            .findings
            .iter()
            .map(|f| Finding {
                level: level_of(f, strict),
                ..f.clone()
            })
            .collect(),
        load_warnings: warnings.iter().map(Problem::to_location).collect(),
    }
}

fn print_json(
    checked: &[Checked],
    unreadable: &[Error],
    failed: usize,
    strict: bool,
    ui: &Ui,
) -> Result<()> {
    let status = if !unreadable.is_empty() {
        "error"
    } else if failed > 0 {
        "failed"
    } else {
        "ok"
    };
    let total = checked.len() + unreadable.len();
    let mut summary = format!(
        "{total} brief{} checked, {failed} failed",
        if total == 1 { "" } else { "s" }
    );
    if !unreadable.is_empty() {
        summary.push_str(&format!(", {} unreadable", unreadable.len()));
    }
    let body = CheckJson {
        briefs: checked
            .iter()
            .map(|c| brief_json(&c.report, &c.load_warnings, strict))
            .collect(),
        errors: unreadable
            .iter()
            .map(|e| UnreadableJson {
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
            })
            .collect(),
    };
    output::json(ui, status, &summary, &body)
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
