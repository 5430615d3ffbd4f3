//! Why `accept` refuses a proposal, as errors that carry their cause and a [`Topic`] for
//! the edge to word its advice: already accepted, stale, flagged by the guard, or one that
//! can only be discarded. Kept apart from the transactions so those read as the steps
//! they take.

use std::path::Path;

use super::history::History;
use super::proposals::Proposal;
use crate::brief::Item;
use crate::error::{Error, Result, StoreTopic, Topic};

/// The guard flagged proposal `proposal` (`dropped`: its flag lines): exit 1, naming what
/// was dropped or changed.
pub(super) fn flagged(
    brief_dir: &Path,
    proposal: &Proposal,
    report: &crate::guard::Report,
    dropped: &[String],
) -> Error {
    let id = &proposal.id;
    let plural = |n: usize, what: &str| crate::numbers::count(n as u64, what, &format!("{what}s"));
    let facts = report.dropped.len() + report.changed.len();
    let verb = match (report.dropped.is_empty(), report.changed.is_empty()) {
        (false, true) => "dropped",
        (true, false) => "changed",
        _ => "dropped or changed",
    };
    // Counted as the guard's summary counts them (compress, review): the findings, not
    // the flag lines, one of which may be the coverage line.
    let units: Vec<String> = report
        .dropped_units()
        .into_iter()
        .map(|(kind, n)| plural(n, kind.name()))
        .collect();
    let units = units.join(" and ");
    let what = match (facts, units.is_empty()) {
        (0, true) if report.coverage.under_half() => format!(
            "kept only {} of {} instructions",
            report.coverage.kept, report.coverage.instructions
        ),
        (_, true) => format!("{verb} {}", plural(facts, "fact")),
        (0, false) => format!("dropped {units}"),
        (_, false) => format!("{verb} {} and dropped {units}", plural(facts, "fact")),
    };
    Error::failed(format!(
        "proposal {id} {what} of `{}`: {}",
        proposal.item,
        dropped.join(", ")
    ))
    .with_topic(Topic::Store(StoreTopic::Flagged {
        brief: brief_dir.to_path_buf(),
        id: id.to_string(),
    }))
}

/// A proposal that is gone because it was accepted: a conflict naming the version.
pub(super) fn already_accepted(brief_dir: &Path, item: &str, id: &str) -> Result<Option<Error>> {
    if item.is_empty() || !History::dir_for(brief_dir, item).is_dir() {
        return Ok(None);
    }
    let history = History::load(brief_dir, item)?;
    Ok(history
        .versions
        .iter()
        .find(|v| v.meta.proposal.as_deref() == Some(id))
        .map(|v| {
            Error::conflict(format!(
                "proposal {id} was already accepted: it is version {} of `{item}`",
                v.meta.version
            ))
            .with_topic(Topic::Store(StoreTopic::History {
                brief: brief_dir.to_path_buf(),
                item: item.to_string(),
            }))
        }))
}

pub(super) fn stale(brief_dir: &Path, item: &Item, proposal: &Proposal) -> Error {
    Error::conflict(format!(
        "`{}` changed since proposal {} was made ({}): accepting it would overwrite that change",
        item.id,
        proposal.id,
        item.path.display()
    ))
    .with_topic(Topic::Store(StoreTopic::Stale {
        brief: brief_dir.to_path_buf(),
        id: proposal.id.clone(),
        item: item.id.clone(),
    }))
}

/// A proposal the operator can only discard.
pub(super) fn only_discard(brief_dir: &Path, id: &str) -> Topic {
    Topic::Store(StoreTopic::Discard {
        brief: brief_dir.to_path_buf(),
        id: id.to_string(),
    })
}
