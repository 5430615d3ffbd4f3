//! `brief check`: the CI gate.

use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::json;

use crate::brief::Brief;
use crate::brief::check::{Finding, Level, Report, check};
use crate::cli::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};

/// Check briefs for CI: rules unchanged since `brief lock`, no placeholder or volatile
/// content in the cacheable prefix, within the token budget
///
/// Fails (exit 1) when a rule item differs from brief.lock, a rule is missing from the lock
/// or the lock names one that is gone, the static tier holds a placeholder, or
/// budget.max_brief_tokens is exceeded. Volatile-looking content (dates, times, UUIDs,
/// JWTs, long hex ids, unix timestamps) in the static tier is a warning, an error with
/// --strict. A changed prefix hash is reported as information.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Brief directories (or their brief.yaml)
    #[arg(required = true)]
    pub briefs: Vec<PathBuf>,
    /// Treat warnings as failures
    #[arg(long)]
    pub strict: bool,
    /// human, json (one object), or github (workflow annotations)
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    // Briefs are independent: check them on all cores, then report in the order given.
    let results = check_all(&args.briefs);
    let mut reports = Vec::new();
    let mut unreadable: Vec<Error> = Vec::new();
    for result in results {
        match result {
            Ok((report, warnings)) => {
                if args.format == Format::Human {
                    for warning in &warnings {
                        ui.warn(&warning.to_string());
                    }
                }
                reports.push(report);
            }
            Err(err) => unreadable.push(err),
        }
    }
    let failed = reports.iter().filter(|r| r.failed(args.strict)).count();
    match args.format {
        Format::Human => print_human(&reports, args.strict, ui)?,
        Format::Json => print_json(&reports, &unreadable, failed, args.strict, ui)?,
        Format::Github => print_github(&reports, &unreadable, args.strict, ui)?,
    }
    if let Some(first) = unreadable.into_iter().next() {
        return Err(first);
    }
    Ok(if failed > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

type Checked = Result<(Report, Vec<crate::brief::Problem>)>;

fn check_one(path: &std::path::Path) -> Checked {
    let brief = Brief::load_for_check(path)?;
    let report = check(&brief)?;
    Ok((report, brief.warnings))
}

fn check_all(paths: &[PathBuf]) -> Vec<Checked> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| check_one(p)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Checked>>> =
        paths.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    let result = check_one(path);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(Error::input("a check worker stopped unexpectedly")))
        })
        .collect()
}

fn level_of(finding: &Finding, strict: bool) -> Level {
    if strict && finding.level == Level::Warning {
        Level::Error
    } else {
        finding.level
    }
}

fn location(f: &Finding) -> String {
    match (f.line, f.column) {
        (0, _) => f.file.display().to_string(),
        (line, 0) => format!("{}:{line}", f.file.display()),
        (line, column) => format!("{}:{line}:{column}", f.file.display()),
    }
}

fn print_human(reports: &[Report], strict: bool, ui: &Ui) -> Result<()> {
    for report in reports {
        let status = if report.failed(strict) {
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
        }
    }
    Ok(())
}

fn print_json(
    reports: &[Report],
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
    let summary = format!(
        "{} brief{} checked, {failed} failed{}",
        reports.len() + unreadable.len(),
        if reports.len() + unreadable.len() == 1 {
            ""
        } else {
            "s"
        },
        if unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} unreadable", unreadable.len())
        }
    );
    let briefs: Vec<_> = reports
        .iter()
        .map(|r| {
            let findings: Vec<_> = r
                .findings
                .iter()
                .map(|f| {
                    let mut value = serde_json::to_value(f).unwrap_or_default();
                    value["level"] = json!(level_of(f, strict));
                    value
                })
                .collect();
            json!({
                "brief": r.brief,
                "status": if r.failed(strict) { "failed" } else { "ok" },
                "prefix_hash": r.prefix_hash,
                "locked_prefix_hash": r.locked_prefix_hash,
                "prefix_changed": r.locked_prefix_hash.as_ref().map(|h| *h != r.prefix_hash),
                "findings": findings,
            })
        })
        .collect();
    let errors: Vec<_> = unreadable
        .iter()
        .map(|e| json!({"message": e.message, "details": e.details}))
        .collect();
    ui.json(&json!({
        "status": status,
        "summary": summary,
        "briefs": briefs,
        "errors": errors,
    }))
}

/// GitHub workflow commands need `%`, CR and LF escaped in messages, and also `:` and `,`
/// in properties.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn print_github(reports: &[Report], unreadable: &[Error], strict: bool, ui: &Ui) -> Result<()> {
    for err in unreadable {
        ui.outln(&format!(
            "::error title=brief check::{}",
            escape_data(&err.message)
        ))?;
        for detail in &err.details {
            ui.outln(&format!(
                "::error title=brief check::{}",
                escape_data(detail)
            ))?;
        }
    }
    for report in reports {
        for f in &report.findings {
            let command = match level_of(f, strict) {
                Level::Error => "error",
                Level::Warning => "warning",
                Level::Note => "notice",
            };
            let mut props = format!("file={}", escape_property(&f.file.display().to_string()));
            if f.line > 0 {
                props.push_str(&format!(",line={}", f.line));
            }
            if f.column > 0 {
                props.push_str(&format!(",col={}", f.column));
            }
            props.push_str(&format!(
                ",title={}",
                escape_property(&format!("brief check: {}", f.kind))
            ));
            let mut message = f.message.clone();
            if let Some(diff) = &f.diff {
                message.push('\n');
                message.push_str(diff);
            }
            ui.outln(&format!("::{command} {props}::{}", escape_data(&message)))?;
        }
    }
    Ok(())
}
