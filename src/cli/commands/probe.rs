//! `brief probe`: send the brief's real request N times and see whether the provider serves
//! the repeat from its prompt cache. Every call goes to the ledger. The arguments, one call
//! to `cache::probe::run::run`, and the report's rendering with this edge's advice.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::cache::facts::Facts;
use crate::cache::ledger::Entry;
use crate::cache::probe::run::{self, Report, Request};
use crate::cache::probe::{Miss, Verdict};
use crate::cli::output::{self, Form, Outcome};
use crate::cli::shared_args::{LedgerArgs, ProviderArgs, parse_var};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::numbers::thousands;

/// Is the provider serving this brief's prefix from its cache? Ask it, with numbers
///
/// Sends the composed request (tools, static system, volatile part) with a one-word user
/// message and a one-token answer, N times, and reports each call's input, cached and
/// cache-write tokens. Then the verdict: the repeat was served from cache (tokens and
/// share), or it was not and the likely reason: the prefix is under the provider's minimum
/// cacheable length, the answer has no cached-token field, or the prefix was served once and
/// not again. Exit 0 when a repeat was served from cache, 1 when not, 3 when a call failed.
/// Every call, failed ones included, is appended to the ledger. Costs N small calls.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief probe briefs/support --var date=2026-11-30\n  brief probe briefs/support --provider anthropic --model claude-sonnet-4-5 --repeat 3"
)]
pub struct Args {
    /// The brief directory (or its brief.yaml)
    pub brief: PathBuf,
    /// A value for a `{{KEY}}` placeholder in a volatile item (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// How many times to send the request (the first may write the cache)
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=10))]
    pub repeat: u32,
    /// Send OpenAI's `prompt_cache_key` (derived from the prefix hash), as `brief compose --cache-key` does
    #[arg(long)]
    pub cache_key: bool,
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// Print one JSON object instead of the report
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    // Under --json stderr keeps warnings and errors only.
    let _notice = (!args.json).then(|| args.ledger.first_write_notice(ui));
    let brief = super::load_brief(&args.brief, ui)?;
    let vars: BTreeMap<String, String> = crate::cli::shared_args::var_map(&args.vars, ui);
    let settings = args.provider.settings(&brief)?;
    ui.info(&format!(
        "probing {} {} at {}: {}",
        settings.wire,
        settings.model,
        settings.base_url,
        crate::numbers::count(args.repeat as u64, "call", "calls")
    ));
    let report = run::run(Request {
        brief: &brief,
        vars: &vars,
        settings,
        repeat: args.repeat,
        cache_key: args.cache_key,
        ledger: args.ledger.destination()?,
        sinks,
        on_call: &|n, of, entry| {
            if ui.stderr_is_terminal() {
                ui.info(&progress_line(n, of, entry));
            }
        },
    })?;
    output::print(
        ui,
        Form::json_if(args.json),
        &ProbeReport {
            hint: hint(&report.verdict, report.facts),
            report,
        },
    )
}

/// The probe's report with the advice of this edge (it names `brief probe`'s flags).
struct ProbeReport {
    report: Report,
    hint: Option<String>,
}

impl Serialize for ProbeReport {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.report.json(self.hint.clone()).serialize(serializer)
    }
}

impl output::Report for ProbeReport {
    fn status(&self) -> &str {
        self.report.status()
    }

    fn summary(&self) -> String {
        self.report.verdict.sentence()
    }

    /// Calls the ledger could not take.
    fn notes(&self, ui: &Ui) {
        for warning in &self.report.unrecorded {
            ui.warn(warning);
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&human(&self.report, ui))?;
        if let Some(hint) = &self.hint {
            ui.info(&format!("{} {hint}", ui.paint_err("hint:", Tone::Info)));
        }
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        if self.report.verdict.cached() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}

/// What to try next when the repeat was not served from cache.
fn hint(verdict: &Verdict, facts: &Facts) -> Option<String> {
    match verdict {
        Verdict::Cached { .. } => None,
        Verdict::NotCached(Miss::UnderMinimum { .. }) => Some(
            "grow the static tier (more worked examples, tool schemas) past the minimum, or accept paying full price for a short brief".to_string(),
        ),
        Verdict::NotCached(Miss::NoCachedField { no_usage }) => Some(if *no_usage {
            "the server ignored stream_options.include_usage; check a gateway or server setting for usage reporting".to_string()
        } else {
            format!("the usage has no {}; a gateway or compatible server may drop it: probe the provider directly", facts.cached_field.unwrap_or("cached-token field"))
        }),
        Verdict::NotCached(Miss::NotServedAgain { .. }) => Some(if facts.needs_marker {
            "check that cache_control reaches the provider (some gateways drop it), that calls are minutes apart at most, and run `brief probe` again".to_string()
        } else {
            "caches are per machine and fill asynchronously: run the probe again, pass --cache-key to route calls to one cache, and keep calls to one prefix under about 15 a minute".to_string()
        }),
    }
}

/// `call 2/3: 1,204 input tokens, 1,152 cached, 0 written (412 ms)`, shown on a terminal
/// as each call ends.
fn progress_line(n: u32, of: u32, entry: &Entry) -> String {
    let tokens = |v: Option<u64>| v.map_or_else(|| "?".to_string(), thousands);
    if entry.status != "ok" {
        return format!(
            "call {n}/{of}: {} ({} ms)",
            entry.status,
            thousands(entry.latency_ms)
        );
    }
    format!(
        "call {n}/{of}: {} input tokens, {} cached, {} written ({} ms)",
        tokens(entry.input_tokens),
        tokens(entry.cached_input_tokens),
        tokens(entry.cache_write_tokens),
        thousands(entry.latency_ms)
    )
}

fn opt(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn human(report: &Report, ui: &Ui) -> String {
    let settings = &report.settings;
    let mut out = String::new();
    let mut model = settings.model.clone();
    if let Some(served) = report.served_model.as_deref().filter(|s| *s != model) {
        model.push_str(&format!(" (served as {served})"));
    }
    out.push_str(&ui.paint(
        &format!(
            "{}: {} {model} at {}",
            report.brief, settings.wire, settings.base_url
        ),
        Tone::Strong,
    ));
    out.push('\n');
    let minimum = report
        .facts
        .min_cacheable_tokens
        .map_or_else(|| "unknown".to_string(), |m| format!("{m} tokens"));
    out.push_str(&format!(
        "prefix {}  {} tokens ({})  minimum for {}: {minimum}\n",
        &report.prefix_hash[..12],
        report.prefix_tokens,
        report.tokenizer,
        report.facts.label
    ));
    let mut table = Table::new(&[Align::Right; 7]).header([
        "CALL", "INPUT", "CACHED", "SHARE", "WRITES", "OUTPUT", "LATENCY",
    ]);
    for (i, c) in report.calls.iter().enumerate() {
        let e = &c.entry;
        let share = match (e.cached_input_tokens, e.input_tokens) {
            (Some(cached), Some(input)) if input > 0 => {
                format!("{:.1}%", 100.0 * cached as f64 / input as f64)
            }
            _ => "-".to_string(),
        };
        table.row([
            (i + 1).to_string(),
            opt(e.input_tokens),
            opt(e.cached_input_tokens),
            share,
            opt(e.cache_write_tokens),
            opt(e.output_tokens),
            format!("{} ms", e.latency_ms),
        ]);
    }
    out.push_str(&table.render_header_with(|line| ui.paint(line, Tone::Dim)));
    out.push_str(&ui.verdict_line(
        "verdict:",
        report.verdict.cached(),
        &report.verdict.sentence(),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::facts::lookup;

    fn not_served_again() -> Verdict {
        Verdict::NotCached(Miss::NotServedAgain {
            written: None,
            minimum_known: true,
        })
    }

    #[test]
    fn a_miss_behind_a_marker_points_at_cache_control() {
        let facts = lookup("anthropic", "claude-sonnet-4-5");
        let advice = hint(&not_served_again(), facts).unwrap();
        assert!(advice.contains("cache_control"), "{advice}");
    }

    #[test]
    fn a_miss_without_a_marker_points_at_the_cache_key_flag() {
        let facts = lookup("openai", "gpt-4.1-mini");
        let advice = hint(&not_served_again(), facts).unwrap();
        assert!(advice.contains("--cache-key"), "{advice}");
        let hit = Verdict::Cached {
            call: 2,
            tokens: 1,
            share: 0.5,
        };
        assert_eq!(hint(&hit, facts), None);
    }
}
