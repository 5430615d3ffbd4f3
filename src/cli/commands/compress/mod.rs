//! `brief compress`: arguments, one call to [`compress::run`] (a proposal, or with `--all`
//! a batch), and the report; on a terminal the review question follows. `--estimate`
//! prints what the calls would send and cost ([`compress::estimate_run`]), and calls
//! nothing.

mod batch;
mod estimate;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::Item;
use crate::cli::interrupt;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review;
use crate::cli::shared_args::{LedgerArgs, ProviderArgs};
use crate::cli::ui::Ui;
use crate::compress::{self, Event, Job, PendingCall, Proposed, Ran, Watch};
use crate::error::Result;
use crate::provider::{self, CallOptions};

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

pub fn run(args: Args, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    // Under --json stderr keeps warnings and errors only.
    let _notice = (!args.json).then(|| args.ledger.first_write_notice(ui));
    let brief = super::load_brief(&args.brief, ui)?;
    if args.estimate {
        return estimate::run(&args, ui, &brief);
    }
    let form = Form::json_if(args.json);
    let watcher = Watcher {
        ui,
        form,
        brief: &args.brief,
    };
    let job = Job {
        brief: &brief,
        item: args.item.as_deref(),
        compressor: args.compressor.as_deref(),
        provider: args.provider.overrides(),
        options: CallOptions {
            temperature: args.temperature,
            ..CallOptions::text(args.max_tokens)
        },
        ledger: args.ledger.destination()?,
        sinks,
    };
    let proposed = match compress::run(job, &watcher)? {
        Ran::All(batch) => return batch::run(&args, ui, form, batch),
        Ran::One(proposed) => *proposed,
    };
    let item = brief.require_item(&proposed.proposal.item)?;
    let report = ProposedReport {
        proposed: &proposed,
        item,
        brief: &args.brief,
        asks: form == Form::Human && ui.interactive() && proposed.saved,
    };
    let outcome = output::print(ui, form, &report)?;
    if report.asks {
        return crate::cli::interactive::ask(ui, &args.brief, &brief, item, proposed.proposal);
    }
    Ok(outcome)
}

/// How the CLI waits for a call (a spinner, Ctrl-C) and what it shows meanwhile (on
/// stderr, in the human form only; a ledger that was not written is said in every form).
pub(super) struct Watcher<'a> {
    ui: &'a Ui,
    form: Form,
    brief: &'a Path,
}

impl Watch for Watcher<'_> {
    fn call(&self, label: &str, call: PendingCall) -> Result<provider::Answer> {
        interrupt::run(self.ui, label, call).and_then(|answer| answer)
    }

    fn event(&self, event: Event<'_>) {
        let ui = self.ui;
        match event {
            Event::NotRecorded(err) => ui.warn(&format!(
                "the call was not recorded in the ledger: {}",
                err.message
            )),
            _ if self.form != Form::Human => {}
            Event::Pending(items) => batch::warn_pending(ui, self.brief, items),
            Event::Proposed(item, proposal) => ui.info(&compress::status(item, proposal).1),
            Event::Failed(item, err) => ui.warn(&format!("`{}`: {}", item.id, err.message)),
        }
    }
}

/// `brief compress BRIEF ITEM`: the saved proposal's document, and how to act on it.
#[derive(Serialize)]
#[serde(transparent)]
struct ProposedReport<'a> {
    proposed: &'a Proposed,
    #[serde(skip)]
    item: &'a Item,
    #[serde(skip)]
    brief: &'a Path,
    /// The review question follows on a terminal; else the commands are printed.
    #[serde(skip)]
    asks: bool,
}

impl Report for ProposedReport<'_> {
    fn status(&self) -> &str {
        self.proposed.status
    }

    fn summary(&self) -> String {
        self.proposed.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let proposal = &self.proposed.proposal;
        review::show_proposal(ui, self.item, proposal, &self.proposed.summary)?;
        if !self.proposed.saved {
            ui.info("the model returned the body unchanged: no proposal was saved");
            return Ok(());
        }
        ui.info(&format!("saved {}", self.proposed.path.display()));
        if !self.asks {
            review::print_commands(ui, self.brief, &proposal.id, proposal.guard.is_flagged())?;
        }
        Ok(())
    }
}

/// The brief directory as typed, quoted for a shell.
pub(super) fn quoted(dir: &Path) -> String {
    crate::cli::ui::shell_quote(&dir.display().to_string())
}
