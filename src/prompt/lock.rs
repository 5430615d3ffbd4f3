//! `brief lock` as one library operation: compose the brief's stable prefix, and write
//! brief.lock with every rule item's exact bytes and the prefix's hashes (what `brief
//! check` then holds the brief to).
//!
//! It composes the brief, so it lives here beside [`super::check`], above the lock file's
//! format (`crate::brief::Lock`), which never depends on composition.

use std::path::PathBuf;

use serde::Serialize;

use crate::brief::{Brief, Lock};
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

/// Writes `brief.lock` for `brief`, under the brief's writer lock. Needs no vars: volatile
/// items are not locked.
pub fn write(brief: &Brief) -> Result<Locked> {
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
