//! `brief probe`: send the brief's real request N times and see whether the provider serves
//! the repeat from its prompt cache. Every call goes to the ledger.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Value, json};

use crate::brief::Brief;
use crate::cache::facts::{self, Facts};
use crate::cache::ledger::{self, Entry};
use crate::cache::probe::{Miss, Observed, Verdict, verdict};
use crate::cli::output::Outcome;
use crate::cli::shared_args::{ProviderArgs, parse_var};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::prompt::compose::{ComposeOptions, compose, prefix};
use crate::prompt::measure::prefix_tokens;
use crate::prompt::wire::{Message, Role};
use crate::provider::{CallOptions, Provider, ProviderKind, Settings};

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
    /// The ledger file [default: $BRIEF_LEDGER, else $XDG_STATE_HOME/briefkit/usage.jsonl, else ~/.local/state/briefkit/usage.jsonl]
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
    /// Print one JSON object instead of the report
    #[arg(long)]
    pub json: bool,
}

/// One call as the report shows it.
struct Call {
    entry: Entry,
    observed: Option<Observed>,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let vars: BTreeMap<String, String> = crate::cli::shared_args::var_map(&args.vars, ui);
    let composed = compose(&brief, &vars, ComposeOptions::default())?;
    let settings = args.provider.settings(&brief)?;
    let mut options = CallOptions::probe();
    // The prefix identity of what is sent, in the wire the provider speaks.
    let prefix_hash = composed.stable_prefix(settings.kind.into()).hash;
    if args.cache_key && settings.kind == ProviderKind::OpenAi {
        options.cache_key = Some(super::compose::cache_key(&prefix_hash));
    }
    let mut prompt = composed.prompt;
    // The smallest turn that still makes a whole request: the prefix is what is measured.
    prompt.messages.push(Message {
        role: Role::User,
        content: "ping".into(),
    });
    let facts = facts::lookup(settings.kind.as_str(), &settings.model);
    let prefix_tok = prefix_tokens(&brief, &prefix(&brief, ComposeOptions::default())) as u64;
    let ledger_path = ledger::resolve_path(args.ledger.clone());
    // Before any call: a ledger that cannot be written is bad input, not a lost record.
    ledger::check_path(&ledger_path)?;
    let brief_dir = brief
        .dir
        .canonicalize()
        .unwrap_or_else(|_| brief.dir.clone());
    let provider = Provider::new(settings.clone())?;
    ui.info(&format!(
        "probing {} {} at {}: {} calls",
        settings.kind, settings.model, settings.base_url, args.repeat
    ));

    let mut calls = Vec::new();
    let mut served_model = None;
    for n in 1..=args.repeat {
        let started = Instant::now();
        let result = provider.call(&prompt, &options);
        // The ledger keeps the model asked for (what briefs and prices name); the server's
        // own name for it is shown in the report.
        let mut entry = Entry::new("probe", settings.kind.as_str(), &settings.model);
        entry.brief = Some(brief.manifest.name.clone());
        entry.brief_dir = Some(brief_dir.display().to_string());
        entry.prefix_hash = Some(prefix_hash.clone());
        let entry = entry.record(started.elapsed(), &result);
        let failure = match result {
            Ok(answer) => {
                served_model = Some(answer.model.clone());
                None
            }
            Err(err) => Some(err),
        };
        if let Err(err) = ledger::append(&ledger_path, &entry) {
            ui.warn(&format!(
                "call {n} not recorded in the ledger: {}",
                err.message
            ));
        }
        if let Some(mut err) = failure {
            err.details.push(format!(
                "call {n} of {}; recorded in {} with status {}",
                args.repeat,
                ledger_path.display(),
                entry.status
            ));
            return Err(err);
        }
        let observed = entry.input_tokens.map(|input_tokens| Observed {
            input_tokens,
            cached_input_tokens: entry.cached_input_tokens,
            cache_write_tokens: entry.cache_write_tokens,
        });
        calls.push(Call { entry, observed });
    }

    let observed: Vec<Option<Observed>> = calls.iter().map(|c| c.observed).collect();
    let tokenizer = brief.manifest.tokenizer.to_string();
    let verdict = verdict(&observed, facts, prefix_tok, &tokenizer);
    let report = Report {
        brief: &brief,
        settings: &settings,
        served_model: served_model.as_deref(),
        facts,
        prefix_hash: &prefix_hash,
        prefix_tokens: prefix_tok,
        calls: &calls,
        verdict: &verdict,
        ledger: &ledger_path,
    };
    if args.json {
        ui.json(&report.json())?;
    } else {
        ui.out(&report.human(ui))?;
        if let Some(hint) = verdict.hint(facts) {
            ui.info(&format!("{} {hint}", ui.paint_err("hint:", Tone::Info)));
        }
    }
    Ok(if verdict.cached() {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}

struct Report<'a> {
    brief: &'a Brief,
    settings: &'a Settings,
    /// The model as the server named it, when it did.
    served_model: Option<&'a str>,
    facts: &'a Facts,
    prefix_hash: &'a str,
    prefix_tokens: u64,
    calls: &'a [Call],
    verdict: &'a Verdict,
    ledger: &'a std::path::Path,
}

fn opt(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| v.to_string())
}

impl Report<'_> {
    fn reason(&self) -> Option<&'static str> {
        match self.verdict {
            Verdict::Cached { .. } => None,
            Verdict::NotCached(Miss::UnderMinimum { .. }) => Some("under_minimum"),
            Verdict::NotCached(Miss::NoCachedField { no_usage: true }) => Some("no_usage"),
            Verdict::NotCached(Miss::NoCachedField { no_usage: false }) => Some("no_cached_field"),
            Verdict::NotCached(Miss::NotServedAgain { .. }) => Some("not_served_again"),
        }
    }

    fn json(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let e = &c.entry;
                let share = match (e.cached_input_tokens, e.input_tokens) {
                    (Some(cached), Some(input)) if input > 0 => Some(((cached as f64 / input as f64) * 10_000.0).round() / 10_000.0),
                    _ => None,
                };
                json!({
                    "call": i + 1, "input_tokens": e.input_tokens, "cached_input_tokens": e.cached_input_tokens,
                    "cache_write_tokens": e.cache_write_tokens, "output_tokens": e.output_tokens,
                    "cached_share": share, "latency_ms": e.latency_ms, "attempts": e.attempts,
                })
            })
            .collect();
        let (tokens, share) = match self.verdict {
            Verdict::Cached { tokens, share, .. } => {
                (Some(*tokens), Some((share * 10_000.0).round() / 10_000.0))
            }
            _ => (None, None),
        };
        json!({
            "status": if self.verdict.cached() { "ok" } else { "not_cached" },
            "summary": self.verdict.sentence(),
            "brief": self.brief.manifest.name,
            "provider": self.settings.kind.as_str(),
            "model": self.settings.model,
            "served_model": self.served_model,
            "base_url": self.settings.base_url,
            "prefix": {"hash": self.prefix_hash, "tokens": self.prefix_tokens, "tokenizer": self.brief.manifest.tokenizer.to_string()},
            "cache_facts": {"label": self.facts.label, "min_cacheable_tokens": self.facts.min_cacheable_tokens, "cached_field": self.facts.cached_field},
            "calls": calls,
            "verdict": {"cached": self.verdict.cached(), "reason": self.reason(), "cached_input_tokens": tokens, "cached_share": share},
            "hint": self.verdict.hint(self.facts),
            "ledger": self.ledger.display().to_string(),
        })
    }

    fn human(&self, ui: &Ui) -> String {
        let mut out = String::new();
        let mut model = self.settings.model.clone();
        if let Some(served) = self.served_model.filter(|s| *s != model) {
            model.push_str(&format!(" (served as {served})"));
        }
        out.push_str(&ui.paint(
            &format!(
                "{}: {} {model} at {}",
                self.brief.manifest.name, self.settings.kind, self.settings.base_url
            ),
            Tone::Strong,
        ));
        out.push('\n');
        let minimum = self
            .facts
            .min_cacheable_tokens
            .map_or_else(|| "unknown".to_string(), |m| format!("{m} tokens"));
        out.push_str(&format!(
            "prefix {}  {} tokens ({})  minimum for {}: {minimum}\n",
            &self.prefix_hash[..12],
            self.prefix_tokens,
            self.brief.manifest.tokenizer,
            self.facts.label
        ));
        out.push_str(&ui.paint(
            &format!(
                "{:>4} {:>8} {:>8} {:>7} {:>8} {:>7} {:>9}",
                "CALL", "INPUT", "CACHED", "SHARE", "WRITES", "OUTPUT", "LATENCY"
            ),
            Tone::Dim,
        ));
        out.push('\n');
        for (i, c) in self.calls.iter().enumerate() {
            let e = &c.entry;
            let share = match (e.cached_input_tokens, e.input_tokens) {
                (Some(cached), Some(input)) if input > 0 => {
                    format!("{:.1}%", 100.0 * cached as f64 / input as f64)
                }
                _ => "-".to_string(),
            };
            out.push_str(&format!(
                "{:>4} {:>8} {:>8} {:>7} {:>8} {:>7} {:>6} ms\n",
                i + 1,
                opt(e.input_tokens),
                opt(e.cached_input_tokens),
                share,
                opt(e.cache_write_tokens),
                opt(e.output_tokens),
                e.latency_ms
            ));
        }
        let tone = if self.verdict.cached() {
            Tone::Good
        } else {
            Tone::Warning
        };
        out.push_str(&format!(
            "{} {}\n",
            ui.paint("verdict:", tone),
            self.verdict.sentence()
        ));
        out
    }
}
