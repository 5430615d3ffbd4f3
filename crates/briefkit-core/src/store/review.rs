//! Dropping pending proposals: `brief discard` (one, `--all`, or `--stale`: those whose item
//! changed since they were made, which `accept` refuses) as one operation with one report,
//! so the command only renders what it returns. Listing them, each judged against its item,
//! belongs to `compress::review`.

use std::path::Path;

use serde::Serialize;

use super::proposals;
use super::transaction;
use crate::brief::{Brief, Problem};
use crate::error::{Error, Result};

/// Which pending proposals [`discard`] drops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// The one with this id.
    One(String),
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

/// What [`discard`] did: the one proposal named, or the list for `All` and `Stale`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum DiscardReport {
    One(Discarded),
    Many {
        #[serde(skip)]
        stale_only: bool,
        discarded: Vec<Discarded>,
    },
}

impl DiscardReport {
    /// `discarded`, or `nothing` when no proposal was chosen.
    pub fn status(&self) -> &'static str {
        match self {
            DiscardReport::Many { discarded, .. } if discarded.is_empty() => "nothing",
            _ => "discarded",
        }
    }

    pub fn summary(&self) -> String {
        match self {
            DiscardReport::One(gone) => gone.line(),
            DiscardReport::Many {
                stale_only,
                discarded,
            } => {
                let which = if *stale_only { "stale" } else { "pending" };
                match discarded.len() {
                    0 => format!("no {which} proposals to discard"),
                    1 => format!("discarded 1 {which} proposal"),
                    n => format!("discarded {n} {which} proposals"),
                }
            }
        }
    }
}

impl Discarded {
    /// `discarded proposal ID for `ITEM``
    pub fn line(&self) -> String {
        format!(
            "discarded proposal {} for `{}`",
            self.proposal_id, self.item
        )
    }
}

/// Discards the proposals `which` names from the brief at `dir`, and nothing else, each
/// under the writer lock; the loader's warnings go to `warn` first.
pub fn discard(dir: &Path, which: Which, warn: &mut dyn FnMut(&Problem)) -> Result<DiscardReport> {
    let brief = Brief::load(dir)?;
    brief.warnings.iter().for_each(&mut *warn);
    if let Which::One(id) = &which {
        let gone = transaction::discard(&brief.dir, id)?;
        return Ok(DiscardReport::One(Discarded {
            proposal_id: gone.id,
            item: gone.item,
        }));
    }
    Ok(DiscardReport::Many {
        stale_only: which == Which::Stale,
        discarded: discard_many(&brief, which == Which::Stale)?,
    })
}

/// Discards every pending proposal (or only the stale ones), one by one under the writer
/// lock; an error says how many were discarded before it.
fn discard_many(brief: &Brief, stale_only: bool) -> Result<Vec<Discarded>> {
    let items = brief.items_by_id();
    let chosen: Vec<proposals::Proposal> = proposals::list(&brief.dir)?
        .into_iter()
        .filter(|p| !stale_only || p.is_stale(items.get(p.item.as_str()).map(|i| i.body())))
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
