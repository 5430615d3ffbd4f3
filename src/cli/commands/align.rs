//! `brief align`: is this agent's sequence of requests cacheable? A detector only. The
//! arguments, one call to `cache::align::run::check`, and the report's human form.

use std::path::PathBuf;

use crate::cache::align::run::Request;
use crate::cache::align::warnings::Warning;
use crate::cache::align::{self, Baseline, Options, Report, WakeReport};
use crate::cli::hints::setting_words;
use crate::cli::output::{self, Form, Outcome};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::{Result, Setting};
use crate::numbers::noun;

/// Human output shows this many warnings per wake; `--json` shows them all.
const SHOWN_WARNINGS: usize = 10;

/// Check provider request bodies ("wakes") for prefix drift and volatile content
///
/// Each PAYLOAD is a request body in any wire (OpenAI Chat Completions or Responses,
/// Anthropic Messages, Gemini generateContent; a JSONL capture may mix them), in the
/// order the agent sent them. The stable prefix (tools and static system, hashed as sent)
/// must stay byte-identical from wake to wake; the conversation may only grow at its end.
/// Reports, per wake, each part's size and hash, which part drifted and where, and
/// timestamps, ids or tokens that would break the cache. Never rewrites anything. Exit 0
/// when nothing drifted and nothing was flagged, 1 otherwise.
///
/// The live zone is measured, never compared or flagged: Anthropic tools and system blocks
/// after the last `cache_control` breakpoint there; OpenAI system/developer messages after
/// the first one, before the conversation (where `brief compose` puts the volatile part).
///
/// A `cache_control` marker counts as content in tools and system (moving it there moves
/// what is cached); in the conversation it is ignored, so a marker that slides to the newest
/// message on each call is not drift. Volatile values are looked for in tools, system and
/// every message but the newest, and each is reported once per run; one that is
/// byte-identical at the same place in every wake of a run of two or more is listed as a
/// constant value, not flagged. A changed element that holds a known client's marker (Claude
/// Code's cc_version block, Codex's environment context) is named with what it means.
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

    /// Each payload is a separate wake with its own conversation: compare the stable
    /// prefix only
    #[arg(long)]
    wakes: bool,

    /// Leave the last N messages of every wake (a volatile tail, such as a session's
    /// Tier 3) out of the comparison and the warnings, and report their size
    #[arg(long, value_name = "N", default_value_t = 0)]
    volatile_tail: usize,

    /// Print one JSON object instead of the human report
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let report = align::run::check(&Request {
        payloads: args.payloads,
        state: args.state,
        options: Options {
            wakes: args.wakes,
            volatile_tail: args.volatile_tail,
        },
    })?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl output::Report for Report {
    fn status(&self) -> &str {
        Report::status(self)
    }

    fn summary(&self) -> String {
        self.summary_naming(setting_words(Setting::AlignState))
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&human_report(self, ui))
    }

    fn outcome(&self) -> Outcome {
        if self.clean() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

fn human_report(report: &Report, ui: &Ui) -> String {
    let mut out = String::new();
    let total = report.wakes.len();
    for wake in &report.wakes {
        human_wake(&mut out, wake, total, report.options.wakes, ui);
        out.push('\n');
    }
    out.push_str(&ui.verdict_line(
        "summary:",
        report.clean(),
        &report.summary_naming(setting_words(Setting::AlignState)),
    ));
    out
}

/// The first [`SHOWN_WARNINGS`] of `warnings`, one a line between `lead` and `tail`, then
/// how many more `--json` shows.
fn shown_warnings(out: &mut String, warnings: &[Warning], lead: &str, tail: &str, what: &str) {
    for warning in warnings.iter().take(SHOWN_WARNINGS) {
        out.push_str(&format!(
            "  {lead}{} at {} (line {}, column {}): {}{tail}\n",
            warning.kind.describe(),
            warning.location,
            warning.line,
            warning.column,
            warning.sample
        ));
    }
    if warnings.len() > SHOWN_WARNINGS {
        out.push_str(&format!(
            "  … and {} more {what} (see --json)\n",
            warnings.len() - SHOWN_WARNINGS
        ));
    }
}

fn human_wake(out: &mut String, wake: &WakeReport, total: usize, wakes_only: bool, ui: &Ui) {
    let title = format!("wake {} of {total}", wake.wake);
    out.push_str(&format!(
        "{}  {}  ({})\n",
        ui.paint(&title, Tone::Strong),
        wake.source,
        wake.shape.as_str()
    ));
    use Align::{Left, Right};
    let mut table = Table::new(&[Left, Right, Right, Left, Right])
        .indent("  ")
        .header(["part", "bytes", "~tokens", "sha256", "count"]);
    let p = &wake.parts;
    let rows = [
        ("tools", Some(&p.tools)),
        ("system", Some(&p.system)),
        ("examples", p.examples.as_ref()),
        ("messages", Some(&p.messages)),
    ];
    for (name, stats) in rows.into_iter().filter_map(|(n, s)| Some((n, s?))) {
        table.row([
            name.to_string(),
            stats.bytes.to_string(),
            stats.tokens_est.to_string(),
            short(&stats.sha256).to_string(),
            stats.count.to_string(),
        ]);
    }
    out.push_str(&table.render());
    out.push_str(&format!(
        "  stable prefix (tools + system{}): {} bytes, ~{} tokens\n",
        if p.examples.is_some() {
            " + examples"
        } else {
            ""
        },
        wake.stable_prefix_bytes,
        wake.stable_prefix_tokens_est
    ));
    for (name, zone) in [
        ("live zone", &wake.live_zone),
        ("volatile tail", &wake.volatile_tail),
    ] {
        if zone.count > 0 {
            out.push_str(&format!(
                "  {name} (not compared): {} {}, {} bytes, ~{} tokens: {}\n",
                zone.count,
                noun(zone.count as u64, "element", "elements"),
                zone.bytes,
                zone.tokens_est,
                zone.pointers.join(" ")
            ));
        }
    }
    let against = match wake.compared_with {
        Baseline::None => None,
        Baseline::PreviousWake => Some("the previous wake"),
        Baseline::StateFile => Some("the state file"),
    };
    match (against, wake.drifted_parts.is_empty()) {
        (None, _) => out.push_str("  first wake: nothing to compare with\n"),
        (Some(against), true) => out.push_str(&format!(
            "  {} against {against}: {} unchanged{}\n",
            ui.paint("no drift", Tone::Good),
            if p.examples.is_some() {
                "tools, system and examples"
            } else {
                "tools and system"
            },
            if wakes_only {
                ""
            } else {
                ", conversation only grew"
            }
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
            format!(", byte {o} of the {} as sent", diff.part.as_str())
        });
        out.push_str(&format!("    first difference: {}{at}\n", diff.pointer));
        if let (Some(before), Some(now)) = (&diff.previous, &diff.current) {
            out.push_str(&format!("      previous: {before}\n"));
            out.push_str(&format!("      current:  {now}\n"));
        }
        if let Some(marker) = &diff.client_marker {
            out.push_str(&format!(
                "    {}'s {}: {}\n",
                marker.client, marker.marker, marker.meaning
            ));
        }
    }
    let warning = ui.paint("warning:", Tone::Warning);
    shown_warnings(out, &wake.warnings, &format!("{warning} "), "", "warnings");
    shown_warnings(
        out,
        &wake.constant_values,
        "constant: ",
        " (identical in every wake)",
        "constant values",
    );
    out.push_str(&format!("stable_prefix_hash:{}\n", wake.stable_prefix_hash));
}
