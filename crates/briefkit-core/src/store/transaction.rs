//! The only writes that change an item's body: accept, restore and record.
//!
//! Each runs under the brief's writer lock and writes the new version first and the body
//! second, each atomically. So after a completed transaction the latest version's sha256
//! equals the item's body, and a crash between the two writes leaves a recognisable state:
//! the latest version is not the body, the version before it is ("interrupted"). A rerun of
//! the same command finishes the job (writes the body that the version already records);
//! anything else treats the body as edited by hand and records it before replacing it, so
//! no body that was ever current is lost and history is never rewritten.

use std::path::Path;

use super::history::{Action, History, NewVersion};
use super::proposals::{self, Proposal};
use super::refusal;
use super::{WriterLock, write_atomic};
use crate::brief::{Brief, Item, Policy};
use crate::clock::Stamp;
use crate::error::{Error, Result, StoreTopic, Topic};
use crate::tokens;
use crate::wire::canonical::sha256_hex;

/// How an item's body stands against its history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyState {
    /// No version yet.
    Unversioned,
    /// The body is the latest version.
    Current,
    /// The latest version was written but never became the body (a crash between the two
    /// writes); the body is still the version before it.
    Interrupted,
    /// The body was changed by hand since the latest version.
    Edited,
}

pub fn body_state(history: &History, body: &str) -> BodyState {
    let sha = sha256_hex(body.as_bytes());
    match (history.latest(), history.previous()) {
        (None, _) => BodyState::Unversioned,
        (Some(latest), _) if latest.meta.sha256 == sha => BodyState::Current,
        (Some(_), Some(previous)) if previous.meta.sha256 == sha => BodyState::Interrupted,
        _ => BodyState::Edited,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The change was made.
    Applied,
    /// An interrupted run of the same change was finished.
    Completed,
    /// Nothing needed to change.
    Unchanged,
}

/// What a transaction did.
#[derive(Debug, Clone)]
pub struct Change {
    pub item: String,
    pub status: Status,
    /// Versions written, in order.
    pub versions: Vec<(u32, Action)>,
    pub body_written: bool,
    /// The version the body now is, if any.
    pub current: Option<u32>,
}

/// The crash tests' one switch (the store's and the session log's): whether
/// `BRIEF_FAULT_INJECT` names this point. Always false in release builds.
pub fn fault_active(point: &str) -> bool {
    cfg!(debug_assertions) && std::env::var("BRIEF_FAULT_INJECT").is_ok_and(|v| v == point)
}

/// Aborts the process at `point` when the switch names it (or pauses, for `pause-…`
/// points).
pub fn fault_point(point: &str) {
    if fault_active(point) {
        if point.starts_with("pause") {
            std::thread::sleep(std::time::Duration::from_millis(1500));
        } else {
            std::process::abort();
        }
    }
}

/// The brief and one of its Markdown items, read under the writer lock.
struct Locked {
    _lock: WriterLock,
    brief: Brief,
    item: Item,
    history: History,
    now: String,
}

/// `oversized_ok`: restore and record work on an item over the loader's size limit (they
/// are the way back from one); accept does not.
fn lock_item(brief_dir: &Path, item_id: &str, oversized_ok: bool) -> Result<Locked> {
    let lock = WriterLock::acquire(brief_dir)?;
    fault_point("pause-after-lock");
    let brief = if oversized_ok {
        Brief::load_for_versions(brief_dir, item_id)?
    } else {
        Brief::load(brief_dir)?
    };
    let item = find_item(&brief, item_id)?.clone();
    let history = History::load(&brief.dir, &item.id)?;
    Ok(Locked {
        _lock: lock,
        brief,
        item,
        history,
        now: Stamp::now().rfc3339(),
    })
}

/// An item that has a body to version (every item but a tool).
pub fn find_item<'b>(brief: &'b Brief, id: &str) -> Result<&'b Item> {
    let item = brief.require_item(id)?;
    if item.is_tool() {
        return Err(Error::input(format!(
            "`{id}` is a tool ({}): tools have no body to version",
            item.path.display()
        ))
        .with_topic(Topic::Store(StoreTopic::ToolFile)));
    }
    Ok(item)
}

impl Locked {
    fn tokens(&self, body: &str) -> usize {
        tokens::count(self.brief.manifest.tokenizer, body)
    }

    fn append(&mut self, new: NewVersion, body: &str) -> Result<(u32, Action)> {
        let new = NewVersion {
            tokens: self.tokens(body),
            ..new
        };
        let version = self.history.append(new, body, &self.now)?;
        Ok((version.meta.version, version.meta.action))
    }

    /// Records the current body when it is not the latest version, so replacing it loses
    /// nothing.
    fn record_current(&mut self, why: &str, written: &mut Vec<(u32, Action)>) -> Result<()> {
        let body = self.item.body().to_string();
        let state = body_state(&self.history, &body);
        let edited_since_commit =
            state == BodyState::Unversioned && self.import_committed(written)?;
        let (action, note) = match state {
            BodyState::Current => return Ok(()),
            BodyState::Unversioned if edited_since_commit => (
                Action::Record,
                Some(format!("the body as edited by hand, recorded before {why}")),
            ),
            BodyState::Unversioned => (Action::Import, None),
            BodyState::Interrupted | BodyState::Edited => (
                Action::Record,
                Some(format!("the body as edited by hand, recorded before {why}")),
            ),
        };
        written.push(self.append(
            NewVersion {
                action: Some(action),
                note,
                ..NewVersion::default()
            },
            &body,
        )?);
        fault_point("after-record");
        Ok(())
    }

    /// For an item with no history: when git has committed a different body for its file,
    /// that body becomes version 1 (`import`), so the text a hand edit replaced is kept.
    /// True when it did.
    fn import_committed(&mut self, written: &mut Vec<(u32, Action)>) -> Result<bool> {
        if !self.history.versions.is_empty() {
            return Ok(false);
        }
        let Some(committed) = super::git::committed_body(&self.item.id, &self.item.path) else {
            return Ok(false);
        };
        if committed == self.item.body() {
            return Ok(false);
        }
        written.push(self.append(
            NewVersion {
                action: Some(Action::Import),
                note: Some("the body git has committed (HEAD), before a hand edit".to_string()),
                ..NewVersion::default()
            },
            &committed,
        )?);
        Ok(true)
    }

    fn write_body(&self, body: &str) -> Result<()> {
        let front = self.item.front_matter();
        let mut text = String::with_capacity(front.len() + body.len());
        text.push_str(front);
        text.push_str(body);
        write_atomic(&self.item.path, text.as_bytes())
    }

    fn change(&self, status: Status, versions: Vec<(u32, Action)>, body_written: bool) -> Change {
        Change {
            item: self.item.id.clone(),
            status,
            versions,
            body_written,
            current: self.history.latest().map(|v| v.meta.version),
        }
    }
}

/// Accepts proposal `id`: the current body is versioned if it is not yet, the proposed
/// body becomes the next version, then the item's body. Refuses (exit 4) when the body
/// changed since the proposal, and (exit 1) a proposal with dropped facts unless
/// `allow_flags`.
pub fn accept(brief_dir: &Path, id: &str, allow_flags: bool) -> Result<Change> {
    let path = proposals::path_of(brief_dir, id)?;
    let item_id = proposals::item_of(id).unwrap_or_default();
    if !path.is_file()
        && let Some(err) = refusal::already_accepted(brief_dir, item_id, id)?
    {
        return Err(err);
    }
    let proposal = proposals::load(brief_dir, id)?;
    let mut locked = lock_item(brief_dir, &proposal.item, false)?;
    // `brief compress` never saves a longer answer; a bigger body was planted. A
    // conversation sample's body holds one answer per message (as YAML), so only the
    // loader's item limit applies to it: an item file over it every command would refuse.
    let one_answer = locked.item.messages().is_none();
    if one_answer && proposal.body.len() > crate::files::limits::MAX_ANSWER_BYTES {
        return Err(Error::input(format!(
            "proposal {id}: its body is {} bytes, over the {} KiB an answer may have; refused",
            proposal.body.len(),
            crate::files::limits::MAX_ANSWER_BYTES / 1024
        ))
        .with_topic(refusal::only_discard(brief_dir, id)));
    }
    let file_bytes = locked.item.front_matter().len() + proposal.body.len();
    if file_bytes as u64 > crate::brief::MAX_FILE_BYTES {
        return Err(Error::input(format!(
            "proposal {id}: the item file would be {file_bytes} bytes, over the {} MiB an item may have; refused",
            crate::brief::MAX_FILE_BYTES / (1024 * 1024)
        ))
        .with_topic(refusal::only_discard(brief_dir, id)));
    }
    if locked.item.policy != Policy::Reviewable {
        return Err(Error::input(format!(
            "`{}` is a {} item ({}): its wording is never replaced by a model's proposal",
            locked.item.id, locked.item.kind, locked.item.policy
        ))
        .with_topic(refusal::only_discard(brief_dir, id)));
    }
    let body = locked.item.body().to_string();
    let state = body_state(&locked.history, &body);
    let latest_is_this = locked.history.latest().is_some_and(|v| {
        v.meta.proposal.as_deref() == Some(id) && v.meta.sha256 == proposal.body_sha256()
    });
    if latest_is_this && state == BodyState::Interrupted {
        locked.write_body(&proposal.body)?;
        proposals::remove(brief_dir, id)?;
        return Ok(locked.change(Status::Completed, Vec::new(), true));
    }
    if latest_is_this && state == BodyState::Current {
        proposals::remove(brief_dir, id)?;
        return Ok(locked.change(Status::Completed, Vec::new(), false));
    }
    if sha256_hex(body.as_bytes()) != proposal.base_sha256 {
        return Err(refusal::stale(brief_dir, &locked.item, &proposal));
    }
    // Nothing to accept: no version, no body write; the proposal is used up.
    if proposal.body == body {
        proposals::remove(brief_dir, id)?;
        return Ok(locked.change(Status::Unchanged, Vec::new(), false));
    }
    // The guard runs again: a proposal file is plain text, and its stored report could
    // have been edited.
    // A flagged report (a finding at high confidence) is refused without `--allow-flags`;
    // findings for review do not block, but every finding is recorded with the version.
    let report = crate::guard::check_item(&locked.item, &proposal.body)?;
    let dropped = report.flag_lines();
    if report.is_flagged() && !allow_flags {
        return Err(refusal::flagged(brief_dir, &proposal, &report, &dropped));
    }
    let mut written = Vec::new();
    locked.record_current("an accept", &mut written)?;
    let new = NewVersion {
        action: Some(Action::Compress),
        proposal: Some(proposal.id.clone()),
        model: Some(proposal.model.clone()),
        accepted_flags: dropped,
        ..NewVersion::default()
    };
    written.push(locked.append(new, &proposal.body)?);
    fault_point("after-version");
    locked.write_body(&proposal.body)?;
    fault_point("after-body");
    proposals::remove(brief_dir, id)?;
    Ok(locked.change(Status::Applied, written, true))
}

/// Makes the body of version `number` current again, as a new version (`action: restore`).
pub fn restore(brief_dir: &Path, item_id: &str, number: u32) -> Result<Change> {
    let mut locked = lock_item(brief_dir, item_id, true)?;
    let Some(target) = locked.history.get(number).cloned() else {
        return Err(super::inspect::no_version(
            brief_dir,
            &locked.history,
            number,
        ));
    };
    let body = locked.item.body().to_string();
    let state = body_state(&locked.history, &body);
    let latest = locked
        .history
        .latest()
        .map(|v| (v.meta.action, v.meta.from));
    if state == BodyState::Interrupted && latest == Some((Action::Restore, Some(number))) {
        locked.write_body(&target.body)?;
        return Ok(locked.change(Status::Completed, Vec::new(), true));
    }
    if state == BodyState::Current && target.meta.sha256 == sha256_hex(body.as_bytes()) {
        return Ok(locked.change(Status::Unchanged, Vec::new(), false));
    }
    let mut written = Vec::new();
    locked.record_current("a restore", &mut written)?;
    let new = NewVersion {
        action: Some(Action::Restore),
        from: Some(number),
        ..NewVersion::default()
    };
    written.push(locked.append(new, &target.body)?);
    fault_point("after-version");
    locked.write_body(&target.body)?;
    Ok(locked.change(Status::Applied, written, true))
}

/// Versions a body edited by hand; nothing is written when the body is already the
/// latest version.
pub fn record(brief_dir: &Path, item_id: &str, note: Option<String>) -> Result<Change> {
    let mut locked = lock_item(brief_dir, item_id, true)?;
    let body = locked.item.body().to_string();
    if body_state(&locked.history, &body) == BodyState::Current {
        return Ok(locked.change(Status::Unchanged, Vec::new(), false));
    }
    let mut written = Vec::new();
    locked.import_committed(&mut written)?;
    let new = NewVersion {
        action: Some(Action::Record),
        note,
        ..NewVersion::default()
    };
    written.push(locked.append(new, &body)?);
    Ok(locked.change(Status::Applied, written, false))
}

/// Removes proposal `id` under the writer lock, and nothing else.
pub fn discard(brief_dir: &Path, id: &str) -> Result<Proposal> {
    let proposal = proposals::load(brief_dir, id)?;
    let _lock = WriterLock::acquire(brief_dir)?;
    proposals::remove(brief_dir, id)?;
    Ok(proposal)
}
