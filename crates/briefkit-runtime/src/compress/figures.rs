//! What a compress run reports: one proposal's figures, and a batch's items, refusals and
//! totals, in the order `brief compress --json` and `--all --json` print them.

use serde::Serialize;

use super::status;
use crate::brief::{Item, ItemType, Policy};
use crate::error::Error;
use crate::guard::{ChangeJson, DroppedInstruction, Fact, Report as GuardReport};
use crate::store::proposals::Proposal;

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
    pub(super) fn proposed(item: &Item, proposal: &Proposal) -> Self {
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

    pub(super) fn failed(item: &Item, err: Error) -> Self {
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

    pub(super) fn not_asked(item: &Item) -> Self {
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
    pub(super) fn new(items: Vec<BatchItem>, refused: &[(&Item, Error)]) -> Self {
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
