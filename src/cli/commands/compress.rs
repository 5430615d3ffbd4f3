//! `brief compress`: ask a model for a shorter body of one item, guard it, save it as a
//! proposal and show it for review. Nothing but the proposal is written; the item changes
//! only when a human accepts.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::brief::{Brief, Item};
use crate::cache::ledger;
use crate::cli::Outcome;
use crate::cli::review::{self, object};
use crate::cli::ui::Ui;
use crate::compress;
use crate::error::{Error, Result};
use crate::guard;
use crate::provider::{self, BriefModel, CallOptions, Overrides, ProviderKind, Settings};
use crate::store::clock::Stamp;
use crate::store::history::History;
use crate::store::proposals::{self, CallUsage, Proposal};
use crate::tokens;

/// Ask a model for a shorter body of one item, and review it
///
/// Only identity, instruction and sample items can be compressed; rules, constants, tools,
/// context items and items with `compress: never` are refused before any network call.
/// The answer is cleaned (terminal escapes, control characters, an outer code fence),
/// checked by the guard and saved as BRIEF/proposals/<id>.yaml; nothing else is written.
/// On a terminal you then accept, discard, edit ($EDITOR) or keep it for later; elsewhere
/// the proposal id and the commands to accept or discard it are printed. There is no
/// automatic accept.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item to compress
    pub item: String,
    /// `openai` (any OpenAI-compatible server) or `anthropic` [default: the brief's, else openai]
    #[arg(long, value_name = "NAME", value_parser = parse_kind)]
    pub provider: Option<ProviderKind>,
    /// The model [default: the brief's `model.name`]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL [default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, the brief's, the official one]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Give up when the server sends nothing for this long (an idle timeout: a slow but
    /// live stream is never cut off), e.g. `90s`, `1500ms`, `2m` [default: $BRIEF_TIMEOUT, else 120s]
    #[arg(long, value_name = "DURATION", value_parser = crate::provider::parse_duration)]
    pub timeout: Option<std::time::Duration>,
    /// Print one JSON object instead of the review screen, and do not ask
    #[arg(long)]
    pub json: bool,
    /// The ledger file the call is recorded in [default: $BRIEF_LEDGER, else $XDG_STATE_HOME/briefkit/usage.jsonl, else ~/.local/state/briefkit/usage.jsonl]
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
}

fn parse_kind(text: &str) -> Result<ProviderKind, String> {
    text.parse()
}

/// The longest answer asked for: a shorter body never needs more than its original.
const MAX_ANSWER_TOKENS: u32 = 8192;

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let item = brief.require_item(&args.item)?;
    // Before anything else: a refused item's text never reaches a prompt.
    if let Some(refusal) = compress::refusal(item, &args.brief) {
        return Err(refusal);
    }
    let settings = settings(&args, &brief)?;
    let compressor = compress::compressor()?;
    let history = History::load(&brief.dir, &item.id)?;
    let prompt = compress::prompt(&compressor, item);
    // Before any call: a ledger that cannot be written is bad input, not a lost record.
    ledger::check_path(&ledger::resolve_path(args.ledger.clone()))?;
    let options = CallOptions::text(MAX_ANSWER_TOKENS);
    let waiting = format!("asking {} to compress `{}`", settings.model, item.id);
    let started = std::time::Instant::now();
    let result = with_spinner(ui, &waiting, || {
        provider::call(&settings, &prompt, &options)
    });
    // Every call is recorded, failed ones too; the prefix sent is the compressor's.
    let mut entry = ledger::Entry::new("compress", settings.kind.as_str(), &settings.model);
    entry.brief = Some(brief.manifest.name.clone());
    entry.brief_dir = std::fs::canonicalize(&brief.dir)
        .ok()
        .map(|d| d.display().to_string());
    entry.item = Some(item.id.clone());
    entry.prefix_hash = Some(compressor.hash.clone());
    let entry = entry.record(started.elapsed(), &result);
    let ledger_path = ledger::resolve_path(args.ledger.clone());
    if let Err(err) = ledger::append(&ledger_path, &entry) {
        ui.warn(&format!(
            "the call was not recorded in the ledger: {}",
            err.message
        ));
    }
    let answer = result?;
    if answer.contains_key {
        // Flagged, never saved: a proposal is shown, stored and maybe committed.
        return Err(Error::failed(format!(
            "{}'s answer contains the API key (as sent, or changed: case, URL- or base64-encoding): nothing saved",
            answer.model
        ))
        .with_hint("the server echoed your key into the answer; revoke the key if it was not a local test server"));
    }
    let body = compress::sanitize(&answer.text, item.body());
    if body.trim().is_empty() {
        return Err(Error::provider(format!(
            "{} answered with no text once escapes and control characters were removed: nothing saved",
            answer.model
        )));
    }
    let encoding = brief.manifest.tokenizer;
    let now = Stamp::now();
    let usage = answer
        .usage
        .clone()
        .map_or_else(CallUsage::default, |u| CallUsage {
            input_tokens: u.input_tokens,
            cached_input_tokens: u.cached_input_tokens.unwrap_or(0),
            cache_write_tokens: u.cache_write_tokens.unwrap_or(0),
            output_tokens: u.output_tokens,
        });
    let proposal = Proposal {
        id: proposals::new_id(&item.id, &now),
        item: item.id.clone(),
        base_sha256: crate::prompt::canonical::sha256_hex(item.body().as_bytes()),
        base_version: history.latest().map(|v| v.meta.version),
        created: now.rfc3339(),
        provider: settings.kind.to_string(),
        model: answer.model.clone(),
        compressor: compressor.hash.clone(),
        usage,
        tokens_before: tokens::count(encoding, item.body()),
        tokens_after: tokens::count(encoding, &body),
        guard: guard::check(item.body(), &body),
        body,
    };
    let path = proposals::save(&brief.dir, &proposal)?;
    if args.json {
        ui.json(&summary_json(item, &proposal))?;
        return Ok(Outcome::Ok);
    }
    review::show_proposal(ui, item, &proposal, &status(item, &proposal).1)?;
    ui.info(&format!("saved {}", path.display()));
    if ui.interactive() {
        crate::cli::interactive::ask(ui, &args.brief, &brief, item, proposal)
    } else {
        review::print_commands(ui, &args.brief, &proposal.id, !proposal.guard.is_clean())?;
        Ok(Outcome::Ok)
    }
}

fn settings(args: &Args, brief: &Brief) -> Result<Settings> {
    let from_brief = match &brief.manifest.model {
        Some(model) => Some(BriefModel {
            kind: model.provider.parse().map_err(|e: String| {
                Error::input(format!(
                    "{}: model.provider: {e}",
                    brief.manifest_path().display()
                ))
            })?,
            model: model.name.clone(),
            base_url: model.base_url.clone(),
        }),
        None => None,
    };
    let flags = Overrides {
        kind: args.provider,
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        timeout: args.timeout,
    };
    Settings::resolve(flags, from_brief)
}

/// `(status, summary)`: `identical`, `flagged`, `longer` or `clean`.
pub fn status(item: &Item, proposal: &Proposal) -> (&'static str, String) {
    let change = review::token_change(proposal.tokens_before, proposal.tokens_after);
    let guard = proposal.guard.summary();
    if proposal.body == item.body() {
        (
            "identical",
            format!(
                "`{}`: the proposal is identical to the current body; guard {guard}",
                item.id
            ),
        )
    } else if !proposal.guard.is_clean() {
        ("flagged", format!("`{}`: {change}; guard {guard}", item.id))
    } else if proposal.tokens_after >= proposal.tokens_before {
        (
            "longer",
            format!(
                "`{}`: the proposal is not shorter ({change}); guard {guard}",
                item.id
            ),
        )
    } else {
        ("clean", format!("`{}`: {change}; guard {guard}", item.id))
    }
}

fn summary_json(item: &Item, proposal: &Proposal) -> Value {
    let (status, summary) = status(item, proposal);
    let fields = vec![
        ("proposal_id", Value::from(proposal.id.clone())),
        ("item", Value::from(proposal.item.clone())),
        ("tokens_before", Value::from(proposal.tokens_before)),
        ("tokens_after", Value::from(proposal.tokens_after)),
        ("dropped", json!(proposal.guard.dropped)),
        ("introduced", json!(proposal.guard.introduced)),
    ];
    object(status, &summary, fields)
}

/// Runs `work` with a spinner on stderr when stderr is a terminal.
fn with_spinner<T>(ui: &Ui, label: &str, work: impl FnOnce() -> T) -> T {
    if !ui.stderr_is_terminal() || ui.quiet() {
        return work();
    }
    let done = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&done);
    let label = label.to_string();
    let spinner = std::thread::spawn(move || {
        let term = console::Term::stderr();
        let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        let mut i = 0;
        while !flag.load(Ordering::Relaxed) {
            let _ = term.write_str(&format!("\r{} {label}…", frames[i % frames.len()]));
            i += 1;
            std::thread::sleep(std::time::Duration::from_millis(80));
        }
        let _ = term.clear_line();
    });
    let result = work();
    done.store(true, Ordering::Relaxed);
    let _ = spinner.join();
    result
}
