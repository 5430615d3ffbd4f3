//! Which pending proposal a command means: its whole id (`tone-20261202012447-8a5e`), its
//! item's name when that item has exactly one pending proposal (`tone`), or the newest one
//! (`--latest`, of the item when one is named). An ambiguous or unknown name is refused with
//! the candidates listed, so the operator never pastes a long id to find out.

use std::path::Path;

use super::proposals::{self, valid_proposal_id};
use crate::error::{Error, Result, StoreTopic, Topic};

/// The id of the proposal `reference` (an id or an item name) and `latest` pick.
pub fn proposal_id(brief_dir: &Path, reference: Option<&str>, latest: bool) -> Result<String> {
    if let Some(id) = reference.filter(|r| valid_proposal_id(r)) {
        return Ok(id.to_string());
    }
    let pending = proposals::list(brief_dir)?;
    let unknown = |message: String| {
        Error::input(message).with_topic(Topic::Store(StoreTopic::UnknownProposal {
            brief: brief_dir.to_path_buf(),
        }))
    };
    // `list` is oldest first.
    let candidates: Vec<&proposals::Proposal> = pending
        .iter()
        .filter(|p| reference.is_none_or(|item| p.item == item))
        .collect();
    let listed = || {
        candidates
            .iter()
            .map(|p| format!("{} ({})", p.id, p.created))
            .collect::<Vec<_>>()
    };
    match (candidates.as_slice(), reference) {
        ([], Some(item)) => {
            let items: Vec<&str> = pending.iter().map(|p| p.item.as_str()).collect();
            let mut err = unknown(format!(
                "no pending proposal `{item}` in {}: not a proposal id, and no proposal for an item of that name",
                brief_dir.display()
            ));
            if !items.is_empty() {
                err = err.with_details(vec![format!(
                    "items with pending proposals: {}",
                    dedup(items)
                )]);
            }
            Err(err)
        }
        ([], None) => Err(unknown(format!(
            "no pending proposal in {}",
            brief_dir.display()
        ))),
        ([only], _) => Ok(only.id.clone()),
        ([.., newest], _) if latest => Ok(newest.id.clone()),
        (_, reference) => {
            let whose = reference.map_or(String::new(), |item| format!(" for `{item}`"));
            Err(unknown(format!(
                "{} pending proposals{whose}: name one by its id, or pass --latest for the newest",
                candidates.len()
            ))
            .with_details(listed()))
        }
    }
}

fn dedup(mut items: Vec<&str>) -> String {
    items.sort_unstable();
    items.dedup();
    items.join(", ")
}
