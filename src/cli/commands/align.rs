//! `brief align`: is this agent's sequence of requests cacheable? A detector only.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cache::align::{self, Baseline, Part, Report, Request, State, WakeReport};
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};

/// Human output shows this many warnings per wake; `--json` shows them all.
const SHOWN_WARNINGS: usize = 10;

/// Check provider request bodies ("wakes") for prefix drift and volatile content
///
/// Each PAYLOAD is an OpenAI chat completions or Anthropic messages request body, in the
/// order the agent sent them. Tools and system must stay byte-identical from wake to wake;
/// the conversation may only grow at its end. Reports, per wake, each part's size and hash,
/// which part drifted and where, and timestamps, ids or tokens that would break the cache.
/// Never rewrites anything. Exit 0 when nothing drifted and nothing was flagged, 1 otherwise.
///
/// A `cache_control` marker counts as content in tools and system (moving it there moves
/// what is cached); in the conversation it is ignored, so a marker that slides to the newest
/// message on each call is not drift. Volatile values are looked for in tools, system and
/// every message but the newest, and each is reported once per run.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Request body files, in order; `-` reads JSON lines (one body per line) from stdin,
    /// and a file ending in `.jsonl` is read the same way
    #[arg(required = true, value_name = "PAYLOAD")]
    payloads: Vec<PathBuf>,

    /// Compare the first wake with the last wake of an earlier run, then save this run's
    /// last wake there (hashes only, never text)
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,

    /// Print one JSON object instead of the human report
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let requests = read_requests(&args.payloads)?;
    let baseline = match &args.state {
        Some(path) => State::load(path)?,
        None => None,
    };
    let report = align::analyse(&requests, baseline.as_ref()).ok_or_else(|| {
        Error::input("no request bodies to check")
            .with_hint("pass request body files, or JSON lines on stdin with `-`")
    })?;
    if let Some(path) = &args.state {
        report.state.save(path)?;
    }
    if args.json {
        ui.json(&json_report(&report))?;
    } else {
        ui.out(&human_report(&report, ui))?;
    }
    Ok(if report.clean() {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}

fn read_requests(payloads: &[PathBuf]) -> Result<Vec<Request>> {
    if payloads.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(Error::input("`-` (stdin) given more than once")
            .with_hint("stdin can be read once: put all its bodies on its lines"));
    }
    let mut requests = Vec::new();
    for path in payloads {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::input(format!("<stdin>: {e}")))?;
            read_lines("<stdin>", &text, &mut requests)?;
            continue;
        }
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, &e))?;
        let name = path.display().to_string();
        if path.extension().is_some_and(|ext| ext == "jsonl") {
            read_lines(&name, &text, &mut requests)?;
        } else {
            let body: Value = serde_json::from_str(&text)
                .map_err(|e| bad_json(format!("{name}:{}:{}", e.line(), e.column()), &e))?;
            requests.push(Request::parse(&name, &body)?);
        }
    }
    Ok(requests)
}

fn read_lines(name: &str, text: &str, requests: &mut Vec<Request>) -> Result<()> {
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let source = format!("{name}:{}", i + 1);
        let body: Value = serde_json::from_str(line)
            .map_err(|e| bad_json(format!("{source}:{}", e.column()), &e))?;
        requests.push(Request::parse(&source, &body)?);
    }
    Ok(())
}

fn bad_json(place: String, err: &serde_json::Error) -> Error {
    Error::input(format!("{place}: not valid JSON: {err}"))
        .with_hint("each payload is one JSON request body; on stdin, one body per line")
}

fn json_report(report: &Report) -> Value {
    let status = if report.clean() { "ok" } else { "failed" };
    let wakes: Vec<Value> = report.wakes.iter().map(json_wake).collect();
    json!({
        "status": status,
        "summary": summary(report),
        "wakes": wakes,
        "totals": report.totals,
    })
}

fn json_wake(wake: &WakeReport) -> Value {
    json!({
        "wake": wake.wake,
        "source": wake.source,
        "shape": wake.shape,
        "compared_with": wake.compared_with,
        "stable_prefix_bytes": wake.stable_prefix_bytes,
        "stable_prefix_tokens_est": wake.stable_prefix_tokens_est,
        "stable_prefix_hash": wake.stable_prefix_hash,
        "previous_hash": wake.previous_hash,
        "prefix_changed": wake.prefix_changed,
        "drifted_parts": wake.drifted_parts,
        "parts": wake.parts,
        "warnings": wake.warnings,
        "first_difference": wake.first_difference,
    })
}

/// One sentence across the wakes: how many could reuse the cache and what broke the rest.
fn summary(report: &Report) -> String {
    let t = &report.totals;
    let mut text = format!("{} {}", t.wakes, plural(t.wakes, "wake", "wakes"));
    if t.compared == 0 {
        text.push_str(", none compared (pass more wakes or --state)");
    } else {
        text.push_str(&format!(
            ": {} of {} could have been served from cache",
            t.cacheable, t.compared
        ));
    }
    if t.drifted > 0 {
        let broken: Vec<String> = [
            (Part::Tools, t.broken_by_tools),
            (Part::System, t.broken_by_system),
            (Part::Messages, t.broken_by_messages),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(part, n)| format!("{} {n}", part.as_str()))
        .collect();
        text.push_str(&format!("; broken by {}", broken.join(", ")));
    }
    text.push_str(&format!(
        "; {} {}",
        t.warnings,
        plural(t.warnings, "warning", "warnings")
    ));
    text
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

fn human_report(report: &Report, ui: &Ui) -> String {
    let mut out = String::new();
    let total = report.wakes.len();
    for wake in &report.wakes {
        human_wake(&mut out, wake, total, ui);
        out.push('\n');
    }
    let tone = if report.clean() {
        Tone::Good
    } else {
        Tone::Warning
    };
    out.push_str(&format!(
        "{} {}\n",
        ui.paint("summary:", tone),
        summary(report)
    ));
    out
}

fn human_wake(out: &mut String, wake: &WakeReport, total: usize, ui: &Ui) {
    let title = format!("wake {} of {total}", wake.wake);
    out.push_str(&format!(
        "{}  {}  ({})\n",
        ui.paint(&title, Tone::Strong),
        wake.source,
        wake.shape.as_str()
    ));
    out.push_str(&format!(
        "  {:<9} {:>9} {:>8}  {:<12}  {}\n",
        "part", "bytes", "~tokens", "sha256", "count"
    ));
    let p = &wake.parts;
    for (name, stats) in [
        ("tools", &p.tools),
        ("system", &p.system),
        ("messages", &p.messages),
    ] {
        out.push_str(&format!(
            "  {:<9} {:>9} {:>8}  {:<12}  {}\n",
            name,
            stats.bytes,
            stats.tokens_est,
            short(&stats.sha256),
            stats.count
        ));
    }
    out.push_str(&format!(
        "  stable prefix (tools + system): {} bytes, ~{} tokens\n",
        wake.stable_prefix_bytes, wake.stable_prefix_tokens_est
    ));
    let against = match wake.compared_with {
        Baseline::None => None,
        Baseline::PreviousWake => Some("the previous wake"),
        Baseline::StateFile => Some("the state file"),
    };
    match (against, wake.drifted_parts.is_empty()) {
        (None, _) => out.push_str("  first wake: nothing to compare with\n"),
        (Some(against), true) => out.push_str(&format!(
            "  {} against {against}: tools and system unchanged, conversation only grew\n",
            ui.paint("no drift", Tone::Good)
        )),
        (Some(against), false) => {
            let parts: Vec<&str> = wake.drifted_parts.iter().map(|p| p.as_str()).collect();
            let prefix = match (&wake.previous_hash, wake.prefix_changed) {
                (Some(before), true) => format!(
                    "; stable prefix {} -> {}",
                    short(before),
                    short(&wake.stable_prefix_hash)
                ),
                _ => "; stable prefix unchanged".to_string(),
            };
            out.push_str(&format!(
                "  {} against {against}: {}{prefix}\n",
                ui.paint("drift", Tone::Error),
                parts.join(", ")
            ));
        }
    }
    if let Some(diff) = &wake.first_difference {
        let at = diff.offset.map_or(String::new(), |o| {
            format!(", byte {o} of the canonical {}", diff.part.as_str())
        });
        out.push_str(&format!("    first difference: {}{at}\n", diff.pointer));
        if let (Some(before), Some(now)) = (&diff.previous, &diff.current) {
            out.push_str(&format!("      previous: {before}\n"));
            out.push_str(&format!("      current:  {now}\n"));
        }
    }
    for warning in wake.warnings.iter().take(SHOWN_WARNINGS) {
        out.push_str(&format!(
            "  {} {} at {} (line {}, column {}): {}\n",
            ui.paint("warning:", Tone::Warning),
            warning.kind.describe(),
            warning.location,
            warning.line,
            warning.column,
            warning.sample
        ));
    }
    if wake.warnings.len() > SHOWN_WARNINGS {
        out.push_str(&format!(
            "  … and {} more warnings (see --json)\n",
            wake.warnings.len() - SHOWN_WARNINGS
        ));
    }
    out.push_str(&format!("stable_prefix_hash:{}\n", wake.stable_prefix_hash));
}
