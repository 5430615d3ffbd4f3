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

use super::{CallSettings, Compressor, build, eligible, prompts, refusal, status};
use crate::brief::{Brief, Item, ItemType, Policy};
use crate::cache::ledger;
use crate::error::{CallStatus, Error, ErrorKind, Result};
use crate::guard::{ChangeJson, DroppedInstruction, Fact, Report as GuardReport};
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
    /// Where it was saved.
    pub path: PathBuf,
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
    let path = proposals::save(&request.brief.dir, &proposal)?;
    let (status, summary) = status(item, &proposal);
    Ok(Proposed {
        proposal,
        path,
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
    if let Err(err) = request.ledger.record(&row) {
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
        let made = ask(request, item, watch)
            .and_then(|p| proposals::save(&request.brief.dir, &p).map(|_| p));
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

/// One proposal's figures, as `brief compress --json` prints them after `status` and
/// `summary`: its id and item, the token counts and the guard's findings.
#[derive(Debug)]
pub struct ProposalFigures {
    pub proposal_id: String,
    pub item: String,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub guard: GuardReport,
}

impl ProposalFigures {
    pub fn of(proposal: &Proposal) -> Self {
        ProposalFigures {
            proposal_id: proposal.id.clone(),
            item: proposal.item.clone(),
            tokens_before: proposal.tokens_before,
            tokens_after: proposal.tokens_after,
            guard: proposal.guard.clone(),
        }
    }
}

impl Serialize for ProposalFigures {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            proposal_id: &'a str,
            item: &'a str,
            tokens_before: usize,
            tokens_after: usize,
            dropped: &'a [Fact],
            introduced: &'a [Fact],
            changed: Vec<ChangeJson<'a>>,
            dropped_instructions: &'a [DroppedInstruction],
        }
        Shown {
            proposal_id: &self.proposal_id,
            item: &self.item,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            dropped: &self.guard.dropped,
            introduced: &self.guard.introduced,
            changed: self.guard.changed.iter().map(ChangeJson::from).collect(),
            dropped_instructions: &self.guard.dropped_instructions,
        }
        .serialize(serializer)
    }
}

/// What a batch did with one eligible item.
#[derive(Debug, Serialize)]
pub struct BatchItem {
    /// A proposal's status (see [`status`]), `failed` or `not_asked`.
    pub status: &'static str,
    pub summary: String,
    /// The item's id; for a proposal it is among its figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The kind of error a failed call ended with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<&'static str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalFigures>,
    /// The proposal's guard summary and id, for the closing table.
    #[serde(skip)]
    pub guard: String,
    #[serde(skip)]
    pub error: Option<Error>,
}

impl BatchItem {
    fn proposed(item: &Item, proposal: &Proposal) -> Self {
        let (status, summary) = status(item, proposal);
        BatchItem {
            status,
            summary,
            item: None,
            error_kind: None,
            proposal: Some(ProposalFigures::of(proposal)),
            guard: proposal.guard.summary(),
            error: None,
        }
    }

    fn failed(item: &Item, err: Error) -> Self {
        BatchItem {
            status: "failed",
            summary: err.message.clone(),
            item: Some(item.id.clone()),
            error_kind: Some(err.kind.as_str()),
            proposal: None,
            guard: String::new(),
            error: Some(err),
        }
    }

    fn not_asked(item: &Item) -> Self {
        BatchItem {
            status: "not_asked",
            summary: "not asked: the server was unreachable for an earlier item".to_string(),
            item: Some(item.id.clone()),
            error_kind: None,
            proposal: None,
            guard: String::new(),
            error: None,
        }
    }

    /// The item's id, whatever happened.
    pub fn id(&self) -> &str {
        match (&self.item, &self.proposal) {
            (Some(id), _) => id,
            (None, Some(p)) => &p.item,
            (None, None) => "",
        }
    }
}

/// An item the batch did not send, and why.
#[derive(Debug, Serialize)]
pub struct RefusedItem {
    pub item: String,
    #[serde(rename = "type")]
    pub kind: ItemType,
    pub policy: Policy,
    pub reason: String,
}

/// What [`propose_all`] did, in the order `brief compress --all --json` prints it.
#[derive(Debug, Serialize)]
pub struct Batch {
    pub items: Vec<BatchItem>,
    pub refused: Vec<RefusedItem>,
    pub proposals: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub saved_tokens: i64,
}

impl Batch {
    fn new(items: Vec<BatchItem>, refused: &[(&Item, Error)]) -> Self {
        let made = items.iter().filter_map(|i| i.proposal.as_ref());
        let (before, after) = made.fold((0, 0), |(b, a), p| {
            (b + p.tokens_before, a + p.tokens_after)
        });
        Batch {
            proposals: items.iter().filter(|i| i.proposal.is_some()).count(),
            refused: refused
                .iter()
                .map(|(item, why)| RefusedItem {
                    item: item.id.clone(),
                    kind: item.kind,
                    policy: item.policy,
                    reason: why.message.clone(),
                })
                .collect(),
            items,
            tokens_before: before,
            tokens_after: after,
            saved_tokens: before as i64 - after as i64,
        }
    }

    /// The calls that failed, in order.
    pub fn failures(&self) -> impl Iterator<Item = &Error> {
        self.items.iter().filter_map(|i| i.error.as_ref())
    }

    /// Items not asked because the server was unreachable.
    pub fn not_asked(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.status == "not_asked")
            .count()
    }
}
