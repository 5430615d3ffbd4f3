//! Reading one item's versions without writing anything: its history with the state of its
//! body (`brief history`), the body of a version (`brief show`) and the two sides of a
//! comparison (`brief diff`). Each is one call taking the brief's directory, so the command
//! line, the MCP server and library users get the same report from the same code.
//!
//! The reports hold data, their status word and their summary; advice that names a command
//! or a flag is the edge's to add (errors carry a [`Topic`] for it).

use std::path::Path;

use serde::Serialize;

use super::history::History;
use super::transaction::{BodyState, body_state, find_item};
use crate::brief::{Brief, Item, Problem};
use crate::error::{Error, Result, StoreTopic, Topic};

/// Loads the brief for a command on one item's versions (the item may be over the loader's
/// size limit, so that it can be recorded or restored) and finds the item, passing the
/// loader's warnings to `warn` first.
fn open(dir: &Path, item: &str, warn: &mut dyn FnMut(&Problem)) -> Result<(Brief, Item)> {
    let brief = Brief::load_for_versions(dir, item)?;
    brief.warnings.iter().for_each(&mut *warn);
    let item = find_item(&brief, item)?.clone();
    Ok((brief, item))
}

/// An item's versions, and how its body stands against them.
#[derive(Debug, Serialize)]
pub struct ItemHistory {
    /// `ok`, `unversioned`, `edited` or `interrupted`.
    #[serde(skip)]
    pub status: &'static str,
    #[serde(skip)]
    pub summary: String,
    /// How the body stands against the latest version.
    #[serde(skip)]
    pub state: BodyState,
    /// The version the body is, when it is one.
    #[serde(skip)]
    pub current: Option<u32>,
    pub item: String,
    pub versions: Vec<VersionRow>,
}

/// One version as the history lists it; the serialised keys and their order are the JSON
/// contract of `brief history`.
#[derive(Debug, Serialize)]
pub struct VersionRow {
    pub version: u32,
    pub created: String,
    pub action: &'static str,
    pub from: Option<u32>,
    pub sha256: String,
    pub tokens: usize,
    pub note: Option<String>,
    /// For an accepted proposal: its id and the model that wrote it.
    #[serde(skip)]
    pub proposal: Option<String>,
    #[serde(skip)]
    pub model: Option<String>,
    /// Guard findings the operator accepted explicitly (`--allow-flags`), each as the
    /// guard named it; empty for a version accepted clean or not accepted at all.
    pub accepted_flags: Vec<String>,
}

impl ItemHistory {
    /// The body is not the latest version: the summary is a warning.
    pub fn warns(&self) -> bool {
        matches!(self.state, BodyState::Edited | BodyState::Interrupted)
    }
}

/// The versions of `item` in the brief at `dir`, with the state of its body.
pub fn overview(dir: &Path, item: &str, warn: &mut dyn FnMut(&Problem)) -> Result<ItemHistory> {
    let (brief, item) = open(dir, item, warn)?;
    let history = History::load(&brief.dir, &item.id)?;
    let state = body_state(&history, item.body());
    let count = history.versions.len();
    let plural = if count == 1 { "" } else { "s" };
    let (status, summary) = match state {
        BodyState::Unversioned => ("unversioned", format!("`{}` has no versions yet", item.id)),
        BodyState::Current => (
            "ok",
            format!(
                "`{}`: {count} version{plural}, the latest is current",
                item.id
            ),
        ),
        BodyState::Edited => (
            "edited",
            format!(
                "`{}`: {count} version{plural}; the file was edited since version {count}",
                item.id
            ),
        ),
        BodyState::Interrupted => (
            "interrupted",
            format!(
                "`{}`: version {count} was written but never became the body (an interrupted command); the body is version {}",
                item.id,
                count - 1
            ),
        ),
    };
    let latest = history.latest().map(|v| v.meta.version);
    let current = match state {
        BodyState::Current => latest,
        BodyState::Interrupted => latest.map(|n| n - 1),
        _ => None,
    };
    Ok(ItemHistory {
        status,
        summary,
        state,
        current,
        item: item.id,
        versions: history
            .versions
            .into_iter()
            .map(|v| VersionRow {
                version: v.meta.version,
                created: v.meta.created,
                action: v.meta.action.as_str(),
                from: v.meta.from,
                sha256: v.meta.sha256,
                tokens: v.meta.tokens,
                note: v.meta.note,
                proposal: v.meta.proposal,
                model: v.meta.model,
                accepted_flags: v.meta.accepted_flags,
            })
            .collect(),
    })
}

/// An item's body: the current file's, or that of one version.
#[derive(Debug, Serialize)]
pub struct Body {
    pub item: String,
    /// The version whose body this is; `None` for the current file.
    pub version: Option<u32>,
    pub body: String,
}

/// The body of `item`: the current file's, or (with `version`) that version's.
pub fn body(
    dir: &Path,
    item: &str,
    version: Option<u32>,
    warn: &mut dyn FnMut(&Problem),
) -> Result<Body> {
    let (brief, item) = open(dir, item, warn)?;
    let body = match version {
        None => item.body().to_string(),
        Some(number) => {
            let history = History::load(&brief.dir, &item.id)?;
            version_of(dir, &history, number)?.to_string()
        }
    };
    Ok(Body {
        item: item.id,
        version,
        body,
    })
}

/// Two bodies of one item to compare, each with what it is.
#[derive(Debug, Serialize)]
pub struct Comparison {
    pub item: String,
    /// The older side's version.
    pub from: u32,
    /// The newer side's version; `None` for the current file.
    pub to: Option<u32>,
    pub old: String,
    pub new: String,
}

impl Comparison {
    /// `version 3`, `the current file`.
    pub fn from_label(&self) -> String {
        format!("version {}", self.from)
    }

    pub fn to_label(&self) -> String {
        match self.to {
            Some(n) => format!("version {n}"),
            None => "the current file".to_string(),
        }
    }
}

/// The two sides of a comparison of `item`: version `from` (default: the latest) against
/// version `to` (default: the current file). An item without versions has nothing to
/// compare with: an input error.
pub fn compare(
    dir: &Path,
    item: &str,
    from: Option<u32>,
    to: Option<u32>,
    warn: &mut dyn FnMut(&Problem),
) -> Result<Comparison> {
    let (brief, item) = open(dir, item, warn)?;
    let history = History::load(&brief.dir, &item.id)?;
    let (from, old) = match from {
        Some(n) => (n, version_of(dir, &history, n)?.to_string()),
        None => match history.latest() {
            Some(latest) => (latest.meta.version, latest.body.clone()),
            None => {
                return Err(Error::input(format!(
                    "`{}` has no versions yet: nothing to compare with",
                    item.id
                ))
                .with_topic(Topic::Store(StoreTopic::NoVersions {
                    brief: dir.to_path_buf(),
                    item: item.id,
                })));
            }
        },
    };
    let new = match to {
        Some(n) => version_of(dir, &history, n)?.to_string(),
        None => item.body().to_string(),
    };
    Ok(Comparison {
        item: item.id,
        from,
        to,
        old,
        new,
    })
}

/// The body of version `number`, or an input error saying which versions there are.
fn version_of<'h>(dir: &Path, history: &'h History, number: u32) -> Result<&'h str> {
    history
        .get(number)
        .map(|v| v.body.as_str())
        .ok_or_else(|| no_version(dir, history, number))
}

/// The error for a version number an item does not have.
pub(crate) fn no_version(dir: &Path, history: &History, number: u32) -> Error {
    let have = match history.versions.len() {
        0 => "none yet".to_string(),
        1 => "version 1 only".to_string(),
        n => format!("versions 1 to {n}"),
    };
    Error::input(format!(
        "`{}` has no version {number}: it has {have}",
        history.item
    ))
    .with_topic(Topic::Store(StoreTopic::History {
        brief: dir.to_path_buf(),
        item: history.item.clone(),
    }))
}
