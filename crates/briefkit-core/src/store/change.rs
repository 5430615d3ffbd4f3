//! The body-changing operations as a caller sees them: `accept`, `restore` and `record`
//! each load the brief (its warnings go to the caller first), run their transaction and
//! return one typed report, with its status word and summary, that the command line, the
//! MCP server and library users all print the same way.

use std::path::Path;

use serde::Serialize;

use super::transaction::{self, Change, Status};
use crate::brief::{Brief, Problem};
use crate::error::Result;

/// What a body-changing operation did: the item, the version it now is, the versions
/// written and whether the item file's body was written. The serialised keys and their
/// order are the JSON contract of `accept`, `restore` and `record`.
#[derive(Debug, Serialize)]
pub struct ChangeReport {
    /// `accepted`, `restored`, `recorded`, `completed` or `unchanged`.
    #[serde(skip)]
    pub status: &'static str,
    #[serde(skip)]
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<String>,
    pub item: String,
    pub version: Option<u32>,
    pub written: Vec<Written>,
    pub body_written: bool,
    /// When the change left brief.lock behind (the cached prefix or a locked rule moved):
    /// the command to run next and what the change costs in cache writes. Filled by
    /// `prompt::relock` (a layer above the store); absent when the lock still holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relock: Option<Relock>,
}

/// `brief lock` is next: the body change moved what brief.lock holds.
#[derive(Debug, Clone, Serialize)]
pub struct Relock {
    /// The command that brings the lock up to date: `brief lock BRIEF`.
    pub next: String,
    /// Whether the cacheable prefix moved (the provider writes it to its cache again).
    pub prefix_changed: bool,
    /// The tokens of the new prefix, written to the provider's cache on the next call.
    pub tokens_rewritten: Option<usize>,
    /// What that write costs at the manifest's cache-write price (its input price when it
    /// names none); absent when the manifest has no pricing.
    pub cache_write_cost: Option<Money>,
}

/// An amount of money in a currency (an ISO 4217 code).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Money {
    pub amount: f64,
    pub currency: String,
}

/// One version a change wrote.
#[derive(Debug, Serialize)]
pub struct Written {
    pub version: u32,
    pub action: &'static str,
}

impl ChangeReport {
    fn new(change: Change, status: &'static str, summary: String) -> Self {
        ChangeReport {
            status,
            summary,
            proposal_id: None,
            written: change
                .versions
                .iter()
                .map(|(n, action)| Written {
                    version: *n,
                    action: action.as_str(),
                })
                .collect(),
            item: change.item,
            version: change.current,
            body_written: change.body_written,
            relock: None,
        }
    }
}

impl ChangeReport {
    /// `version 2 (compress)`, `versions 1 (import), 2 (compress)`: what the change wrote.
    pub fn versions_written(&self) -> String {
        listed(self.written.iter().map(|w| (w.version, w.action)))
    }
}

fn versions_written(change: &Change) -> String {
    listed(
        change
            .versions
            .iter()
            .map(|(n, action)| (*n, action.as_str())),
    )
}

fn listed(versions: impl Iterator<Item = (u32, &'static str)>) -> String {
    let list: Vec<String> = versions
        .map(|(n, action)| format!("{n} ({action})"))
        .collect();
    match list.len() {
        0 => "no version".to_string(),
        1 => format!("version {}", list[0]),
        _ => format!("versions {}", list.join(", ")),
    }
}

/// Accepts proposal `id` of the brief at `dir` (see [`transaction::accept`]).
pub fn accept(
    dir: &Path,
    id: &str,
    allow_flags: bool,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    Brief::load(dir)?.warnings.iter().for_each(&mut *warn);
    let change = transaction::accept(dir, id, allow_flags)?;
    let version = change.current.unwrap_or_default();
    let (status, summary) = match change.status {
        Status::Unchanged => (
            "unchanged",
            format!(
                "proposal {id} is identical to the body of `{}`: nothing written (the proposal is removed)",
                change.item
            ),
        ),
        Status::Completed => (
            "completed",
            format!(
                "finished an interrupted accept of {id}: `{}` is version {version}",
                change.item
            ),
        ),
        Status::Applied => (
            "accepted",
            format!(
                "accepted {id}: `{}` is now version {version} (wrote {})",
                change.item,
                versions_written(&change)
            ),
        ),
    };
    Ok(ChangeReport {
        proposal_id: Some(id.to_string()),
        ..ChangeReport::new(change, status, summary)
    })
}

/// Makes version `number` of `item` its body again (see [`transaction::restore`]).
pub fn restore(
    dir: &Path,
    item: &str,
    number: u32,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    warn_loading_versions(dir, item, warn)?;
    let change = transaction::restore(dir, item, number)?;
    let (name, current) = (&change.item, change.current.unwrap_or_default());
    let (status, summary) = match change.status {
        Status::Unchanged => (
            "unchanged",
            format!("`{name}` already has the body of version {number}: nothing written"),
        ),
        Status::Completed => (
            "completed",
            format!("finished an interrupted restore: `{name}` is version {current}"),
        ),
        Status::Applied => (
            "restored",
            format!(
                "restored version {number} of `{name}` as version {current} (wrote {})",
                versions_written(&change)
            ),
        ),
    };
    Ok(ChangeReport::new(change, status, summary))
}

/// Versions the hand-edited body of `item` (see [`transaction::record`]).
pub fn record(
    dir: &Path,
    item: &str,
    note: Option<String>,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    warn_loading_versions(dir, item, warn)?;
    let change = transaction::record(dir, item, note)?;
    let (name, current) = (&change.item, change.current.unwrap_or_default());
    let summary = match change.status {
        Status::Unchanged => {
            let summary = format!("`{name}` is unchanged since version {current}: nothing written");
            return Ok(ChangeReport::new(change, "unchanged", summary));
        }
        _ if change.versions.len() > 1 => format!(
            "recorded `{name}` as version {current} (wrote {}: the body git has committed came first)",
            versions_written(&change)
        ),
        _ => format!("recorded `{name}` as version {current}"),
    };
    Ok(ChangeReport::new(change, "recorded", summary))
}

/// Loads the brief as the version commands do (an item over the loader's limit allowed)
/// and passes its warnings on.
fn warn_loading_versions(dir: &Path, item: &str, warn: &mut dyn FnMut(&Problem)) -> Result<()> {
    let brief = Brief::load_for_versions(dir, item)?;
    brief.warnings.iter().for_each(warn);
    Ok(())
}
