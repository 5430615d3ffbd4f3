//! The proposals waiting for review: each with whether its item changed since it was made
//! (stale: `accept` refuses it), and `brief discard --all|--stale` as one operation, so the
//! command only renders what it returns.

use serde::Serialize;

use super::proposals;
use super::transaction;
use crate::brief::Brief;
use crate::error::{Error, Result};
use crate::guard::Fact;

/// A pending proposal as the list shows it.
#[derive(Debug, Serialize)]
pub struct Pending {
    pub id: String,
    pub item: String,
    pub created: String,
    pub provider: String,
    pub model: String,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// Its item changed (or is gone) since it was made.
    pub stale: bool,
    pub dropped: Vec<Fact>,
    pub introduced: Vec<Fact>,
}

/// Every pending proposal of `brief`, oldest first.
pub fn pending(brief: &Brief) -> Result<Vec<Pending>> {
    let items = brief.items_by_id();
    Ok(proposals::list(&brief.dir)?
        .into_iter()
        .map(|p| Pending {
            stale: p.is_stale(items.get(p.item.as_str()).map(|item| item.body())),
            id: p.id,
            item: p.item,
            created: p.created,
            provider: p.provider,
            model: p.model,
            tokens_before: p.tokens_before,
            tokens_after: p.tokens_after,
            dropped: p.guard.dropped,
            introduced: p.guard.introduced,
        })
        .collect())
}

/// Which pending proposals [`discard_many`] drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Every pending one.
    All,
    /// Those whose item changed since they were made.
    Stale,
}

/// A discarded proposal.
#[derive(Debug, Serialize)]
pub struct Discarded {
    pub proposal_id: String,
    pub item: String,
}

/// Discards the proposals `which` names, one by one under the writer lock; an error says
/// how many were discarded before it.
pub fn discard_many(brief: &Brief, which: Which) -> Result<Vec<Discarded>> {
    let chosen: Vec<Pending> = pending(brief)?
        .into_iter()
        .filter(|p| which == Which::All || p.stale)
        .collect();
    let mut discarded = Vec::with_capacity(chosen.len());
    for proposal in &chosen {
        let gone = transaction::discard(&brief.dir, &proposal.id).map_err(|e| {
            Error::new(
                e.kind,
                format!(
                    "{} (after discarding {} of {})",
                    e.message,
                    discarded.len(),
                    chosen.len()
                ),
            )
        })?;
        discarded.push(Discarded {
            proposal_id: gone.id,
            item: gone.item,
        });
    }
    Ok(discarded)
}
