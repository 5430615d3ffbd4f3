//! Pending proposals judged against today's bodies: one proposal for `brief review`, all of
//! them for `brief proposals`. The guard runs again against each item's current body (see
//! [`super::rejudge`]), so the findings agree with `accept`; a proposal whose item changed
//! since it was made is `stale`. Each is one call taking the brief's directory, returning
//! one typed report for the command line, the MCP server and library users alike.

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use super::{rejudge, status};
use crate::brief::{Brief, Item, Problem};
use crate::error::{Error, Result, StoreTopic, Topic};
use crate::guard::{ChangeJson, CoverageJson, DroppedInstruction, Fact};
use crate::store::proposals::{self, Proposal};

/// One pending proposal with the guard's findings of today. Serialised as `brief review
/// --json`'s fields: `proposal_id`, `item`, `stale`, `created`, `provider`, `model`,
/// `tokens_before`, `tokens_after`, `dropped`, `changed`, `dropped_instructions`,
/// `introduced`, `coverage`, `body`.
#[derive(Debug)]
pub struct Reviewed {
    /// `stale`, or the proposal's status against the body (`clean`, `flagged`, `longer`,
    /// `identical`).
    pub status: &'static str,
    pub summary: String,
    /// The item's body changed since the proposal was made: `accept` refuses it.
    pub stale: bool,
    pub proposal: Proposal,
    /// The item as it is now.
    pub item: Item,
    /// The brief's directory.
    pub brief_dir: PathBuf,
}

/// Proposal `id` of the brief at `dir`, judged against its item's current body. A
/// proposal whose item left the brief is a conflict (exit 4).
pub fn review(dir: &Path, id: &str, warn: &mut dyn FnMut(&Problem)) -> Result<Reviewed> {
    let brief = Brief::load(dir)?;
    brief.warnings.iter().for_each(&mut *warn);
    let mut proposal = proposals::load(&brief.dir, id)?;
    let Some(item) = brief.item(&proposal.item) else {
        return Err(Error::conflict(format!(
            "proposal {} is for `{}`, which is no longer in {}",
            proposal.id,
            proposal.item,
            brief.dir.display()
        ))
        .with_topic(Topic::Store(StoreTopic::Orphan {
            brief: dir.to_path_buf(),
            id: proposal.id,
        })));
    };
    let stale = proposal.is_stale(Some(item.body()));
    rejudge(item, &mut proposal)?;
    let (status, mut summary) = status(item, &proposal);
    let status = if stale { "stale" } else { status };
    if stale {
        summary = format!(
            "`{}` changed since this proposal was made: `brief accept` refuses it; {summary}",
            item.id
        );
    }
    Ok(Reviewed {
        status,
        summary,
        stale,
        proposal,
        item: item.clone(),
        brief_dir: brief.dir,
    })
}

/// Replaces the body of pending proposal `id` with the operator's own `body` (edited in
/// review): checked by the guard against the item's current body (a conversation sample
/// must keep its messages and roles, else an input error and nothing is written), counted
/// in the brief's tokenizer, saved over the old, and returned judged.
pub fn revise(dir: &Path, id: &str, body: String) -> Result<Reviewed> {
    let brief = Brief::load(dir)?;
    let proposal = proposals::load(&brief.dir, id)?;
    let item = brief.require_item(&proposal.item)?;
    let revised = proposals::revise(&brief, item, &proposal, body)?;
    let (status, summary) = status(item, &revised);
    Ok(Reviewed {
        status,
        summary,
        stale: revised.is_stale(Some(item.body())),
        proposal: revised,
        item: item.clone(),
        brief_dir: brief.dir,
    })
}

impl Reviewed {
    /// A proposal just made for `item` (by `brief compress`), as the review question
    /// shows it.
    pub fn fresh(brief: &Brief, item: &Item, proposal: Proposal) -> Self {
        let (status, summary) = status(item, &proposal);
        Reviewed {
            status,
            summary,
            stale: false,
            proposal,
            item: item.clone(),
            brief_dir: brief.dir.clone(),
        }
    }
}

impl Serialize for Reviewed {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let p = &self.proposal;
        let findings = Findings::of(p);
        ReviewView {
            proposal_id: &p.id,
            item: &p.item,
            stale: self.stale,
            created: &p.created,
            provider: &p.provider,
            model: &p.model,
            tokens_before: p.tokens_before,
            tokens_after: p.tokens_after,
            findings,
            body: &p.body,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct ReviewView<'a> {
    proposal_id: &'a str,
    item: &'a str,
    stale: bool,
    created: &'a str,
    provider: &'a str,
    model: &'a str,
    tokens_before: usize,
    tokens_after: usize,
    #[serde(flatten)]
    findings: Findings<'a>,
    body: &'a str,
}

/// The guard's findings on a proposal, in the order every report lists them.
#[derive(Serialize)]
struct Findings<'a> {
    dropped: &'a [Fact],
    changed: Vec<ChangeJson<'a>>,
    dropped_instructions: &'a [DroppedInstruction],
    introduced: &'a [Fact],
    coverage: CoverageJson,
}

impl<'a> Findings<'a> {
    fn of(p: &'a Proposal) -> Self {
        Findings {
            dropped: &p.guard.dropped,
            changed: p.guard.changed.iter().map(ChangeJson::from).collect(),
            dropped_instructions: &p.guard.dropped_instructions,
            introduced: &p.guard.introduced,
            coverage: CoverageJson::from(&p.guard.coverage),
        }
    }
}

/// Every pending proposal of a brief, oldest first, each judged against its item's body.
/// Its status is `ok`: each proposal has its own.
#[derive(Debug, Serialize)]
pub struct PendingProposals {
    #[serde(skip)]
    pub status: &'static str,
    #[serde(skip)]
    pub summary: String,
    pub proposals: Vec<Judged>,
}

/// A pending proposal in the list. Serialised as `brief proposals --json`'s rows: `id`,
/// `item`, `created`, `provider`, `model`, `tokens_before`, `tokens_after`, `stale`,
/// `status`, `guard`, `guard_summary`, then the findings.
#[derive(Debug)]
pub struct Judged {
    pub proposal: Proposal,
    pub stale: bool,
    /// The review status (`stale` when its item's body changed since, or left the brief).
    pub status: &'static str,
}

/// The pending proposals of the brief at `dir`, judged against today's bodies. A body the
/// guard refuses keeps its stored report here; `review` says why.
pub fn pending(dir: &Path, warn: &mut dyn FnMut(&Problem)) -> Result<PendingProposals> {
    let brief = Brief::load(dir)?;
    brief.warnings.iter().for_each(&mut *warn);
    let items = brief.items_by_id();
    let mut judged = Vec::new();
    for mut proposal in proposals::list(&brief.dir)? {
        let item = items.get(proposal.item.as_str()).copied();
        let stale = proposal.is_stale(item.map(Item::body));
        if let Some(item) = item {
            let _ = rejudge(item, &mut proposal);
        }
        let status = match item {
            Some(item) if !stale => status(item, &proposal).0,
            _ => "stale",
        };
        judged.push(Judged {
            proposal,
            stale,
            status,
        });
    }
    let mut summary = match judged.len() {
        0 => "no pending proposals".to_string(),
        1 => "1 pending proposal".to_string(),
        n => format!("{n} pending proposals"),
    };
    let count = |s: &str| judged.iter().filter(|j| j.status == s).count();
    let (flagged, review) = (count("flagged"), count("review"));
    if flagged + review > 0 {
        summary.push_str(&format!(" ({flagged} flagged, {review} for review)"));
    }
    Ok(PendingProposals {
        status: "ok",
        summary,
        proposals: judged,
    })
}

impl Serialize for Judged {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let p = &self.proposal;
        JudgedView {
            id: &p.id,
            item: &p.item,
            created: &p.created,
            provider: &p.provider,
            model: &p.model,
            tokens_before: p.tokens_before,
            tokens_after: p.tokens_after,
            stale: self.stale,
            status: self.status,
            guard: p.guard.status(),
            guard_summary: p.guard.summary(),
            findings: Findings::of(p),
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct JudgedView<'a> {
    id: &'a str,
    item: &'a str,
    created: &'a str,
    provider: &'a str,
    model: &'a str,
    tokens_before: usize,
    tokens_after: usize,
    stale: bool,
    status: &'static str,
    guard: &'static str,
    guard_summary: String,
    #[serde(flatten)]
    findings: Findings<'a>,
}
