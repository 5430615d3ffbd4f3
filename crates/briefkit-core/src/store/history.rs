//! The versions of an item: `BRIEF/history/<item>/NNNN.md`, one accepted body each.
//!
//! History is append-only. A version file is YAML front matter (what happened, when, the
//! body's sha256) and then the body, byte for byte. Each version's `chain` is the sha256 of
//! its front matter (every other field) and the previous version's `chain`, so editing any
//! field, removing a version or reordering versions breaks the chain at a named file.
//! Versions written before `chain` existed are legacy: checked by their body's hash, and
//! chained on from by every later version, so only a broken chain reads as tampering.
//! Reading checks the whole history, so a gap, a hand-edited body or front matter, or an
//! unparsable file is reported by name instead of being shown as if it were a real version.
//! This is evidence against accidents and casual edits, not a signature: whoever rewrites
//! a history can recompute the hashes; git's history is the record of who did.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::inside;
use crate::files::write_atomic;
use crate::wire::canonical::sha256_hex;

pub const HISTORY_DIR: &str = "history";

/// Why a version exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The body the item had before its first accept.
    Import,
    /// An accepted model proposal.
    Compress,
    /// An earlier version made current again (`from` names it).
    Restore,
    /// A body edited by hand, recorded with `brief record` (or before an accept or a
    /// restore replaced it).
    Record,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Import => "import",
            Action::Compress => "compress",
            Action::Restore => "restore",
            Action::Record => "record",
        }
    }
}

/// The front matter of a version file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionMeta {
    pub version: u32,
    /// RFC 3339, UTC.
    pub created: String,
    pub action: Action,
    /// For a restore: the version whose body this is.
    pub from: Option<u32>,
    /// Of the body below the front matter.
    pub sha256: String,
    /// The body's tokens in the brief's tokenizer.
    pub tokens: usize,
    /// For an accepted proposal: its id.
    pub proposal: Option<String>,
    /// For an accepted proposal: the model that wrote it.
    pub model: Option<String>,
    /// Guard findings (dropped facts) the operator accepted explicitly.
    #[serde(default)]
    pub accepted_flags: Vec<String>,
    pub note: Option<String>,
    /// sha256 of this front matter (without `chain`) and the previous version's `chain`.
    #[serde(default)]
    pub chain: Option<String>,
}

impl VersionMeta {
    /// The chain hash of this front matter after `previous` (the previous version's
    /// `chain`, empty for version 1).
    fn chain_after(&self, previous: &str) -> Result<String> {
        let unchained = VersionMeta {
            chain: None,
            ..self.clone()
        };
        let yaml = serde_yaml::to_string(&unchained).map_err(|e| {
            Error::input(format!("cannot render version {}: {e}", self.version)).with_source(e)
        })?;
        Ok(sha256_hex(
            format!("briefkit-version-chain\n{previous}\n{yaml}").as_bytes(),
        ))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    pub meta: VersionMeta,
    pub body: String,
    pub path: PathBuf,
    /// The hash the next version chains on from: `meta.chain`, or for a legacy version
    /// (written before `chain` existed) the same hash computed from its front matter.
    link: String,
}

/// What a new version records; the number, time and hash are filled in on write.
#[derive(Debug, Clone, Default)]
pub struct NewVersion {
    pub action: Option<Action>,
    pub from: Option<u32>,
    pub tokens: usize,
    pub proposal: Option<String>,
    pub model: Option<String>,
    pub accepted_flags: Vec<String>,
    pub note: Option<String>,
}

/// Every version of one item, in order.
#[derive(Debug, Clone)]
pub struct History {
    /// The brief directory: every path below is checked to stay inside it.
    pub brief_dir: PathBuf,
    pub dir: PathBuf,
    pub item: String,
    pub versions: Vec<Version>,
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::input(format!("{}: {what}", path.display())).with_hint(
        "history files are written only by brief; restore the file from version control \
         (e.g. `git checkout -- <file>`), or move the item's history directory aside",
    )
}

/// The version number a history file name stands for: `0007.md` → 7.
fn number_of(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".md")?;
    if stem.len() < 4 || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = stem.parse().ok()?;
    (n > 0 && format!("{n:04}") == stem).then_some(n)
}

/// Splits `---\n<yaml>---\n<body>` exactly.
fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---\n")?;
    if let Some(body) = rest.strip_prefix("---\n") {
        return Some(("", body));
    }
    let end = rest.find("\n---\n")?;
    Some((&rest[..=end], &rest[end + 5..]))
}

/// A version file larger than this is refused. Generous: `record` and `restore` work on
/// an item over the loader's limits, and its versions must stay readable.
pub const MAX_VERSION_BYTES: u64 = 64 * 1024 * 1024;

fn read_version(
    brief_dir: &Path,
    path: &Path,
    number: u32,
    previous: &str,
    chained_before: bool,
) -> Result<Version> {
    let text = inside::read_text(brief_dir, path, MAX_VERSION_BYTES).map_err(|e| {
        if e.message.contains("not valid UTF-8") {
            bad(path, "not valid UTF-8")
        } else {
            e
        }
    })?;
    let (yaml, body) = split(&text).ok_or_else(|| {
        bad(
            path,
            "not a version file: it must start with front matter between `---` lines",
        )
    })?;
    let meta: VersionMeta = crate::text::yaml::from_str(yaml).map_err(|e| {
        let message = e.to_string();
        bad(path, format!("unreadable front matter: {message}"))
    })?;
    if meta.version != number {
        return Err(bad(
            path,
            format!(
                "its front matter says version {}, its name says {number}",
                meta.version
            ),
        ));
    }
    if sha256_hex(body.as_bytes()) != meta.sha256 {
        return Err(bad(
            path,
            "its body does not match its sha256: the file was edited",
        ));
    }
    let link = meta.chain_after(previous)?;
    match &meta.chain {
        // Written before `chain` existed: its body is checked by its sha256 above, and the
        // versions after it chain on from `link`. Only a history that had started chaining
        // cannot lose a `chain` honestly.
        None if !chained_before => {}
        None => {
            return Err(bad(
                path,
                "its front matter has no `chain` hash, though an earlier version has one: the field was removed",
            ));
        }
        Some(chain) if *chain != link => {
            return Err(bad(
                path,
                "its front matter does not match its chain hash: a field was edited, or a version before it was removed, replaced or reordered",
            ));
        }
        Some(_) => {}
    }
    Ok(Version {
        meta: printable(meta),
        body: body.to_string(),
        path: path.to_path_buf(),
        link,
    })
}

/// The version's text fields as they may be printed: a version file can arrive in a pull
/// request, so they get the same cleaning as a server's text.
fn printable(mut meta: VersionMeta) -> VersionMeta {
    let clean = |text: &mut String| *text = crate::text::sanitize::one_line(text, 300);
    clean(&mut meta.created);
    for field in [&mut meta.model, &mut meta.note, &mut meta.proposal]
        .into_iter()
        .flatten()
    {
        clean(field);
    }
    meta.accepted_flags.iter_mut().for_each(clean);
    meta
}

impl History {
    pub fn dir_for(brief_dir: &Path, item: &str) -> PathBuf {
        brief_dir.join(HISTORY_DIR).join(item)
    }

    /// Reads and checks every version of `item`; an item never versioned has none.
    pub fn load(brief_dir: &Path, item: &str) -> Result<History> {
        let dir = Self::dir_for(brief_dir, item);
        let mut numbered = Vec::new();
        for level in [dir.parent().unwrap_or(&dir), &dir] {
            if fs::symlink_metadata(level).is_ok() {
                inside::check_inside(brief_dir, level)?;
            }
        }
        match fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries {
                    let entry = entry.map_err(|e| Error::io(&dir, &e))?;
                    let name = entry.file_name().to_string_lossy().into_owned();
                    // Dot files are temporary files of an interrupted atomic write.
                    if name.starts_with('.') {
                        continue;
                    }
                    let path = entry.path();
                    let number = number_of(&name).ok_or_else(|| {
                        bad(
                            &path,
                            "not a version file: names are NNNN.md (0001.md, 0002.md, …)",
                        )
                    })?;
                    numbered.push((number, path));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&dir, &e)),
        }
        numbered.sort();
        let mut versions: Vec<Version> = Vec::with_capacity(numbered.len());
        let mut chained = false;
        for (index, (number, path)) in numbered.iter().enumerate() {
            let expected = u32::try_from(index + 1).unwrap_or(u32::MAX);
            if *number != expected {
                let missing = dir.join(format!("{expected:04}.md"));
                return Err(bad(
                    &missing,
                    format!("missing: the history jumps to version {number}"),
                ));
            }
            let previous = versions.last().map(|v| v.link.as_str()).unwrap_or_default();
            let version = read_version(brief_dir, path, *number, previous, chained)?;
            chained |= version.meta.chain.is_some();
            versions.push(version);
        }
        Ok(History {
            brief_dir: brief_dir.to_path_buf(),
            dir,
            item: item.to_string(),
            versions,
        })
    }

    pub fn latest(&self) -> Option<&Version> {
        self.versions.last()
    }

    /// The version before the latest.
    pub fn previous(&self) -> Option<&Version> {
        self.versions
            .len()
            .checked_sub(2)
            .map(|i| &self.versions[i])
    }

    pub fn get(&self, number: u32) -> Option<&Version> {
        let index = usize::try_from(number).ok()?.checked_sub(1)?;
        self.versions.get(index)
    }

    pub fn next_number(&self) -> u32 {
        u32::try_from(self.versions.len() + 1).unwrap_or(u32::MAX)
    }

    /// Writes the next version atomically and adds it to this history. The caller holds
    /// the brief's writer lock.
    pub fn append(&mut self, new: NewVersion, body: &str, created: &str) -> Result<&Version> {
        let number = self.next_number();
        let mut meta = VersionMeta {
            version: number,
            created: created.to_string(),
            action: new.action.unwrap_or(Action::Record),
            from: new.from,
            sha256: sha256_hex(body.as_bytes()),
            tokens: new.tokens,
            proposal: new.proposal,
            model: new.model,
            accepted_flags: new.accepted_flags,
            note: new.note,
            chain: None,
        };
        let previous = self.latest().map(|v| v.link.as_str()).unwrap_or_default();
        let link = meta.chain_after(previous)?;
        meta.chain = Some(link.clone());
        let yaml = serde_yaml::to_string(&meta).map_err(|e| {
            Error::input(format!("cannot render version {number}: {e}")).with_source(e)
        })?;
        let path = self.dir.join(format!("{number:04}.md"));
        if fs::symlink_metadata(&path).is_ok() {
            return Err(
                Error::conflict(format!("{}: already exists", path.display()))
                    .with_hint("another process wrote this history; run the command again"),
            );
        }
        inside::create_dir(&self.brief_dir, &self.dir)?;
        write_atomic(&path, format!("---\n{yaml}---\n{body}").as_bytes())?;
        self.versions.push(Version {
            meta,
            body: body.to_string(),
            path,
            link,
        });
        Ok(self.versions.last().expect("just pushed"))
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
