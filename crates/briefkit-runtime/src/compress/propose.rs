//! `brief compress` as one library operation: ask a model for a shorter body of one item
//! (or of every eligible item), record every call in the ledger (failed and cancelled ones
//! too), build the proposal and save it. Nothing but the proposal is written; the item
//! changes only when a human accepts.
//!
//! The caller decides how a call is waited for and what is shown meanwhile through
//! [`Watch`]: the CLI draws a spinner and turns Ctrl-C into an interrupted error; a library
//! user can run the calls as they come ([`Unwatched`]).

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::figures::{Batch, BatchItem, ProposalFigures};
use super::{CallSettings, Compressor, build, eligible, prompts, refusal, status};
use crate::brief::{Brief, Item};
use crate::cache::ledger;
use crate::error::{CallStatus, Error, ErrorKind, Result};
use crate::provider::{self, Answer, CallOptions, Settings};
use crate::store::proposals::{self, Proposal};
use crate::wire::Prompt;

/// What every compress call of one run shares.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The brief whose items are compressed.
    pub brief: &'a Brief,
    pub compressor: &'a Compressor,
    pub settings: Settings,
    pub options: CallOptions,
    /// The ledger every call is recorded in (checked by the caller, before any call: a
    /// ledger that cannot be written is bad input, not a lost record).
    pub ledger: ledger::Destination,
    /// The sinks the rows go through; the caller settles them when it is done.
    pub sinks: &'a ledger::Sinks,
}

/// One model call, ready to run on any thread.
pub type PendingCall = Box<dyn FnOnce() -> Result<Answer> + Send>;

/// How the caller waits for the calls and hears of what happens meanwhile.
pub trait Watch {
    /// Runs one call; `label` says what it is for (`asking MODEL to compress `ID``). An
    /// error of kind [`ErrorKind::Interrupted`] records the call as cancelled and stops.
    fn call(&self, label: &str, call: PendingCall) -> Result<Answer>;
    /// Something the caller may show; nothing depends on it.
    fn event(&self, _event: Event<'_>) {}
}

/// What a [`Watch`] hears.
pub enum Event<'a> {
    /// Before a batch asks: these items already have a pending proposal, and each gets
    /// another.
    Pending(&'a [&'a str]),
    /// A proposal was saved.
    Proposed(&'a Item, &'a Proposal),
    /// A call for the item failed; a batch goes on with the next one.
    Failed(&'a Item, &'a Error),
    /// A call could not be recorded in the ledger; the operation goes on.
    NotRecorded(&'a Error),
}

/// Runs each call as it comes, in this thread, and ignores the events.
pub struct Unwatched;

impl Watch for Unwatched {
    fn call(&self, _label: &str, call: PendingCall) -> Result<Answer> {
        call()
    }
}

/// What [`propose`] saved. Its document (what `brief compress ITEM --json` prints and the
/// MCP `compress` tool returns) is the proposal's figures, its body and who accepts it.
#[derive(Debug)]
pub struct Proposed {
    pub proposal: Proposal,
    /// Where it was saved (or, when not `saved`, would have been).
    pub path: PathBuf,
    /// False for a body identical to the item's (status `identical`): there is nothing to
    /// accept, so nothing is saved.
    pub saved: bool,
    /// `identical`, `flagged`, `longer` or `clean`, and a sentence (see [`status`]).
    pub status: &'static str,
    pub summary: String,
}

/// Who decides about a proposal: never the operation that made it.
pub const ACCEPT: &str = "a human accepts or discards it; compress never changes the item";

impl Serialize for Proposed {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            #[serde(flatten)]
            figures: ProposalFigures,
            proposal: &'a str,
            accept: &'static str,
        }
        Shown {
            figures: ProposalFigures::of(&self.proposal),
            proposal: &self.proposal.body,
            accept: ACCEPT,
        }
        .serialize(serializer)
    }
}

impl crate::document::Document for Proposed {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }
}

/// Asks for a shorter body of the item `id` and saves the proposal. A refused item (a
/// rule, a constant, `compress: never` …) is an input error before anything is sent.
pub fn propose(request: &Request, id: &str, watch: &dyn Watch) -> Result<Proposed> {
    let item = request.brief.require_item(id)?;
    if let Some(refused) = refusal(item, &request.brief.dir) {
        return Err(refused);
    }
    let proposal = ask(request, item, watch)?;
    let (status, mut summary) = status(item, &proposal);
    let saved = status != "identical";
    let path = if saved {
        proposals::save(&request.brief.dir, &proposal)?
    } else {
        summary.push_str("; nothing saved");
        proposals::path_of(&request.brief.dir, &proposal.id)?
    };
    Ok(Proposed {
        proposal,
        path,
        saved,
        status,
        summary,
    })
}

/// Asks for a shorter body of `item`, recording each call; nothing is saved here.
fn ask(request: &Request, item: &Item, watch: &dyn Watch) -> Result<Proposal> {
    // One call for a Markdown body, one per message of a conversation sample.
    let prompts = prompts(request.compressor, item);
    let count = prompts.len();
    let mut answers = Vec::with_capacity(count);
    for (i, prompt) in prompts.into_iter().enumerate() {
        let which = if count == 1 {
            String::new()
        } else {
            format!(" (message {} of {count})", i + 1)
        };
        answers.push(ask_one(request, item, prompt, &which, watch)?);
    }
    let settings = CallSettings {
        temperature: request.options.temperature,
        max_tokens: request.options.max_tokens,
        compressor: request.compressor.source.clone(),
        compressor_name: request.compressor.name.clone(),
    };
    build(
        request.brief,
        item,
        &request.compressor.hash,
        request.settings.wire.as_str(),
        settings,
        &answers,
    )
}

/// One call, recorded in the ledger whatever its outcome.
fn ask_one(
    request: &Request,
    item: &Item,
    prompt: Prompt,
    which: &str,
    watch: &dyn Watch,
) -> Result<Answer> {
    let label = format!(
        "asking {} to compress `{}`{which}",
        request.settings.model, item.id
    );
    let started = Instant::now();
    let (settings, options) = (request.settings.clone(), request.options.clone());
    let result = watch.call(
        &label,
        Box::new(move || provider::call(&settings, &prompt, &options)),
    );
    // The prefix sent is the compressor's; the item's brief is the target.
    let entry = ledger::Entry::new(
        "compress",
        request.settings.wire.as_str(),
        &request.settings.model,
    )
    .for_brief(
        &request.compressor.name,
        request.compressor.dir.as_deref(),
        &request.compressor.hash,
    )
    .targeting(&request.brief.manifest.name, &request.brief.dir, &item.id);
    let row = match &result {
        Err(err) if err.kind == ErrorKind::Interrupted => entry.cancelled(started.elapsed()),
        Err(_) | Ok(_) => entry.record(started.elapsed(), &result),
    };
    if let Err(err) = request.ledger.record(request.sinks, &row) {
        watch.event(Event::NotRecorded(&err));
    }
    result
}

/// `brief compress --all`: one proposal per eligible item, the refused items listed. A
/// failed call does not stop the others, except when the server cannot be reached at all
/// (then the rest are not asked); Ctrl-C stops the batch with its error.
pub fn propose_all(request: &Request, watch: &dyn Watch) -> Result<Batch> {
    let (eligible, refused) = eligible(request.brief);
    let pending = pending_items(request.brief, &eligible);
    if !pending.is_empty() {
        watch.event(Event::Pending(&pending));
    }
    let mut items = Vec::with_capacity(eligible.len());
    let mut unreachable = false;
    for item in eligible {
        if unreachable {
            items.push(BatchItem::not_asked(item));
            continue;
        }
        // A body the model returned unchanged has nothing to accept: it is not saved.
        let made = ask(request, item, watch).and_then(|p| {
            if p.body == item.body() {
                Ok(p)
            } else {
                proposals::save(&request.brief.dir, &p).map(|_| p)
            }
        });
        match made {
            Ok(proposal) => {
                watch.event(Event::Proposed(item, &proposal));
                items.push(BatchItem::proposed(item, &proposal));
            }
            Err(err) if err.kind == ErrorKind::Interrupted => return Err(err),
            Err(err) => {
                unreachable = matches!(
                    err.call_status(),
                    Some(CallStatus::Connect | CallStatus::Timeout)
                );
                watch.event(Event::Failed(item, &err));
                items.push(BatchItem::failed(item, err));
            }
        }
    }
    Ok(Batch::new(items, &refused))
}

/// The eligible items that already wait for review: a second `--all` pays again for them.
/// A proposals directory that cannot be listed is not this run's problem: none then.
fn pending_items<'b>(brief: &Brief, eligible: &[&'b Item]) -> Vec<&'b str> {
    let Ok(pending) = proposals::list(&brief.dir) else {
        return Vec::new();
    };
    let pending: HashSet<&str> = pending.iter().map(|p| p.item.as_str()).collect();
    eligible
        .iter()
        .filter(|item| pending.contains(item.id.as_str()))
        .map(|item| item.id.as_str())
        .collect()
}

/// A compress run as a command or a tool asks for it: the item (or every eligible one),
/// the compressor, the provider settings given and the ledger; [`run`] checks each in turn.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    pub brief: &'a Brief,
    /// The item to compress; `None`: every eligible item.
    pub item: Option<&'a str>,
    /// A compressor brief's directory; `None`: the bundled compressor.
    pub compressor: Option<&'a std::path::Path>,
    /// The provider settings given (over the environment and the brief's `model:`).
    pub provider: provider::Overrides,
    pub options: CallOptions,
    pub ledger: ledger::Destination,
    /// The sinks the rows go through; the caller settles them when it is done.
    pub sinks: &'a ledger::Sinks,
}

/// What [`run`] did: one proposal, or a batch.
#[derive(Debug)]
pub enum Ran {
    One(Box<Proposed>),
    All(Batch),
}

/// `brief compress` and the MCP `compress` tool: a refused item is refused before
/// anything else (its text never reaches a prompt), then the compressor is loaded, the
/// ledger checked (one that cannot be written is bad input, not a lost record) and the
/// provider settings resolved, all before the first call.
pub fn run(job: Job, watch: &dyn Watch) -> Result<Ran> {
    super::targets(job.brief, job.item)?;
    let compressor = match job.compressor {
        Some(dir) => super::from_dir(dir)?,
        None => super::bundled()?,
    };
    job.ledger.check(job.sinks)?;
    let request = Request {
        brief: job.brief,
        compressor: &compressor,
        settings: Settings::resolve(job.provider, job.brief.manifest.model.as_ref())?,
        options: job.options,
        ledger: job.ledger,
        sinks: job.sinks,
    };
    Ok(match job.item {
        Some(id) => Ran::One(Box::new(propose(&request, id, watch)?)),
        None => Ran::All(propose_all(&request, watch)?),
    })
}
