//! `brief compress`: ask a model for a shorter body of one item (or of every eligible item
//! with `--all`), guard it, save it as a proposal and show it for review. Nothing but the
//! proposal is written; the item changes only when a human accepts. `--estimate` prints
//! what the calls would send and cost, and calls nothing.

mod batch;
mod estimate;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::brief::{Brief, Item};
use crate::cache::ledger;
use crate::cli::interrupt;
use crate::cli::output::Outcome;
use crate::cli::review::{self, object};
use crate::cli::shared_args::{LedgerArgs, ProviderArgs};
use crate::cli::ui::Ui;
use crate::compress::{self, CallSettings, Compressor};
use crate::error::Result;
use crate::provider::{self, CallOptions, Settings};
use crate::store::proposals::{self, Proposal};

pub use crate::compress::status;

/// Ask a model for a shorter body of one item, and review it
///
/// Only identity, instruction and sample items can be compressed; rules, constants, tools,
/// context items and items with `compress: never` are refused before any network call.
/// The answer is cleaned (terminal escapes, control characters, an outer code fence),
/// checked by the guard and saved as BRIEF/proposals/<id>.yaml; nothing else is written.
/// On a terminal you then accept, discard, edit ($EDITOR) or keep it for later; elsewhere
/// the proposal id and the commands to accept or discard it are printed. There is no
/// automatic accept. With --all every eligible item gets a proposal (refused items are
/// listed, not fatal) and a closing table shows the total saving; review them later with
/// `brief proposals` and `brief review`. Ctrl-C during a call stops it (exit 130) and
/// records it in the ledger as `cancelled`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief compress briefs/support refunds\n  brief compress briefs/support --all --estimate\n  brief compress briefs/support --all --temperature 0.2 --max-tokens 2000"
)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item to compress
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub item: Option<String>,
    /// Compress every eligible item: one proposal each, refused items listed
    #[arg(long)]
    pub all: bool,
    /// Print the tokens and estimated cost of each call instead of calling
    #[arg(long)]
    pub estimate: bool,
    /// Use the brief in DIR as the compressor (it must pass `brief check`) [default: the bundled one]
    #[arg(long, value_name = "DIR")]
    pub compressor: Option<PathBuf>,
    /// Sampling temperature, 0 to 2 [default: the model's]
    #[arg(long, value_name = "T", value_parser = parse_temperature)]
    pub temperature: Option<f64>,
    /// The longest answer asked for, in tokens
    #[arg(long, value_name = "N", default_value_t = MAX_ANSWER_TOKENS, value_parser = clap::value_parser!(u32).range(1..=200_000))]
    pub max_tokens: u32,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Input price per million tokens for --estimate [default: the brief's pricing]
    #[arg(long, value_name = "PRICE", requires = "estimate")]
    pub price_input: Option<f64>,
    /// Output price per million tokens for --estimate [default: the brief's pricing]
    #[arg(long, value_name = "PRICE", requires = "estimate")]
    pub price_output: Option<f64>,
    /// Print one JSON object instead of the review screen, and do not ask
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ledger: LedgerArgs,
}

/// The longest answer asked for unless --max-tokens says: a shorter body never needs more.
const MAX_ANSWER_TOKENS: u32 = 8192;

fn parse_temperature(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if (0.0..=2.0).contains(&t) => Ok(t),
        _ => Err(format!("expected a number from 0 to 2, got `{text}`")),
    }
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let targets: Vec<&Item> = match &args.item {
        Some(id) => {
            let item = brief.require_item(id)?;
            // Before anything else: a refused item's text never reaches a prompt.
            if let Some(refusal) = compress::refusal(item, &args.brief) {
                return Err(refusal);
            }
            vec![item]
        }
        None => compress::eligible(&brief).0,
    };
    let compressor = match &args.compressor {
        Some(dir) => compress::from_dir(dir)?,
        None => compress::bundled()?,
    };
    if args.estimate {
        return estimate::run(&args, ui, &brief, &targets, &compressor);
    }
    let settings = args.provider.settings(&brief)?;
    // Before any call: a ledger that cannot be written is bad input, not a lost record.
    let ledger_path = args.ledger.destination()?;
    ledger_path.check()?;
    let call = Call {
        brief: &brief,
        compressor: &compressor,
        settings,
        options: CallOptions {
            temperature: args.temperature,
            ..CallOptions::text(args.max_tokens)
        },
        ledger: ledger_path,
    };
    if args.all {
        return batch::run(&args, ui, &call);
    }
    let item = targets[0];
    let proposal = call.ask(ui, item)?;
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

/// What every compress call of one run shares.
pub(super) struct Call<'a> {
    brief: &'a Brief,
    compressor: &'a Compressor,
    settings: Settings,
    options: CallOptions,
    ledger: ledger::Destination,
}

impl Call<'_> {
    /// Asks for a shorter body of `item`, records the call in the ledger (failed and
    /// cancelled ones too) and builds the proposal; nothing is saved here.
    fn ask(&self, ui: &Ui, item: &Item) -> Result<Proposal> {
        // One call for a Markdown body, one per message of a conversation sample.
        let prompts = compress::prompts(self.compressor, item);
        let mut answers = Vec::with_capacity(prompts.len());
        let count = prompts.len();
        for (i, prompt) in prompts.into_iter().enumerate() {
            let which = if count == 1 {
                String::new()
            } else {
                format!(" (message {} of {count})", i + 1)
            };
            answers.push(self.ask_one(ui, item, prompt, &which)?);
        }
        let settings = CallSettings {
            temperature: self.options.temperature,
            max_tokens: self.options.max_tokens,
            compressor: self.compressor.source.clone(),
            compressor_name: self.compressor.name.clone(),
        };
        compress::build(
            self.brief,
            item,
            &self.compressor.hash,
            self.settings.wire.as_str(),
            settings,
            &answers,
        )
    }

    /// One call, recorded in the ledger (failed and cancelled ones too).
    fn ask_one(
        &self,
        ui: &Ui,
        item: &Item,
        prompt: crate::wire::Prompt,
        which: &str,
    ) -> Result<provider::Answer> {
        let waiting = format!(
            "asking {} to compress `{}`{which}",
            self.settings.model, item.id
        );
        let started = std::time::Instant::now();
        let (settings, options) = (self.settings.clone(), self.options.clone());
        let result = interrupt::run(ui, &waiting, move || {
            provider::call(&settings, &prompt, &options)
        });
        // Every call is recorded; the prefix sent is the compressor's, the item's brief is
        // the target.
        let entry = ledger::Entry::new(
            "compress",
            self.settings.wire.as_str(),
            &self.settings.model,
        )
        .for_brief(
            &self.compressor.name,
            self.compressor.dir.as_deref(),
            &self.compressor.hash,
        )
        .targeting(&self.brief.manifest.name, &self.brief.dir, &item.id);
        let result = match result {
            Ok(result) => result,
            Err(interrupted) => {
                if interrupted.kind == crate::error::ErrorKind::Interrupted {
                    self.record(ui, &entry.cancelled(started.elapsed()));
                }
                return Err(interrupted);
            }
        };
        self.record(ui, &entry.record(started.elapsed(), &result));
        result
    }

    fn record(&self, ui: &Ui, entry: &ledger::Entry) {
        if let Err(err) = self.ledger.record(entry) {
            ui.warn(&format!(
                "the call was not recorded in the ledger: {}",
                err.message
            ));
        }
    }
}

/// The JSON fields of one proposal, after `status` and `summary`.
pub(super) fn proposal_fields(proposal: &Proposal) -> Vec<(&'static str, Value)> {
    vec![
        ("proposal_id", Value::from(proposal.id.clone())),
        ("item", Value::from(proposal.item.clone())),
        ("tokens_before", Value::from(proposal.tokens_before)),
        ("tokens_after", Value::from(proposal.tokens_after)),
        ("dropped", json!(proposal.guard.dropped)),
        ("introduced", json!(proposal.guard.introduced)),
        (
            "changed",
            crate::guard::changes_json(&proposal.guard.changed),
        ),
        (
            "dropped_instructions",
            json!(proposal.guard.dropped_instructions),
        ),
    ]
}

fn summary_json(item: &Item, proposal: &Proposal) -> Value {
    let (status, summary) = status(item, proposal);
    object(status, &summary, proposal_fields(proposal))
}

/// The brief directory as typed, quoted for a shell.
pub(super) fn quoted(dir: &Path) -> String {
    crate::cli::ui::shell_quote(&dir.display().to_string())
}
