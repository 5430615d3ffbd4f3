//! `brief lock` as one library operation: compose the brief's stable prefix, and write
//! brief.lock with every rule item's exact bytes and the prefix's hashes (what `brief
//! check` then holds the brief to).
//!
//! It composes the brief, so it lives here beside [`super::check`], above the lock file's
//! format (`crate::brief::Lock`), which never depends on composition.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::{Brief, Lock, Problem};
use crate::error::Result;
use crate::files::inside;
use crate::prompt::compose::{ComposeOptions, prefix};
use crate::prompt::measure::prefix_tokens;
use crate::store::WriterLock;

/// What [`write`] wrote.
#[derive(Debug, Serialize)]
pub struct Locked {
    /// The lock file's path.
    pub lock: PathBuf,
    /// The rule items locked, by id.
    pub rules: Vec<String>,
    pub prefix_hash: String,
    pub prefix_tokens: usize,
    /// A lock was there before and differed from this one.
    pub changed: bool,
}

impl Locked {
    /// `updated` when a different lock was replaced, else `wrote`.
    pub fn verb(&self) -> &'static str {
        if self.changed { "updated" } else { "wrote" }
    }

    /// `brief.lock: 2 rule items locked, prefix 0123456789ab (812 tokens)`
    pub fn figures(&self) -> String {
        let rules = self.rules.len();
        format!(
            "{}: {rules} rule item{} locked, prefix {} ({} tokens)",
            self.lock.display(),
            if rules == 1 { "" } else { "s" },
            &self.prefix_hash[..12.min(self.prefix_hash.len())],
            self.prefix_tokens,
        )
    }

    /// Always `ok`: a lock that could not be written is an error.
    pub fn status(&self) -> &'static str {
        "ok"
    }

    pub fn summary(&self) -> String {
        format!("{} {}", self.verb(), self.figures())
    }
}

/// Loads the brief at `path` (its warnings go to `warn`) and writes its `brief.lock`.
pub fn write(path: &Path, warn: &mut dyn FnMut(&Problem)) -> Result<Locked> {
    let brief = Brief::load(path)?;
    brief.warnings.iter().for_each(&mut *warn);
    write_loaded(&brief)
}

/// Writes `brief.lock` for `brief`, under the brief's writer lock. Needs no vars: volatile
/// items are not locked.
pub fn write_loaded(brief: &Brief) -> Result<Locked> {
    let _writer = WriterLock::acquire(&brief.dir)?;
    let prefix = prefix(brief, ComposeOptions::default());
    let tokens = prefix_tokens(brief, &prefix);
    let lock = Lock::new(brief, &prefix.hashes, tokens);
    let path = brief.lock_path();
    inside::check_target(&brief.dir, &path)?;
    let previous = Lock::read(&path).ok().flatten();
    inside::write_file(&brief.dir, &path, lock.to_yaml()?.as_bytes())?;
    Ok(Locked {
        lock: path,
        rules: lock.rules.keys().cloned().collect(),
        changed: previous.is_some_and(|p| p != lock),
        prefix_hash: lock.prefix.hash,
        prefix_tokens: tokens,
    })
}
