//! The per-brief writer lock: two processes never write one brief at the same time.
//!
//! An OS advisory lock on `BRIEF/.writer.lock` (released by the OS when the process dies,
//! so a crash never leaves a brief locked). A second writer gets a conflict (exit 4).
//! The lock file is opened without following a link, so a planted (even dangling) link
//! cannot make it create or touch a file outside the brief. Whoever holds the lock is the
//! only writer, so temporary files it finds were left by a killed one: it removes them.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const WRITER_LOCK_FILE: &str = ".writer.lock";

#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

impl WriterLock {
    /// Takes the lock without waiting; a conflict when another process holds it.
    pub fn acquire(brief_dir: &Path) -> Result<WriterLock> {
        let path = brief_dir.join(WRITER_LOCK_FILE);
        let file = crate::files::inside::open_no_follow(&path)?;
        match file.try_lock() {
            Ok(()) => {
                crate::files::inside::remove_orphans(&writable_dirs(brief_dir));
                Ok(WriterLock { _file: file })
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::conflict(format!(
                "{} is being changed by another brief process",
                brief_dir.display()
            ))
            .with_hint("wait for it to finish, then run the command again")),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, &e)),
        }
    }
}

/// The directories the toolkit writes into: where a killed writer's temporary files are.
fn writable_dirs(brief_dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![
        brief_dir.to_path_buf(),
        brief_dir.join("items"),
        brief_dir.join(super::proposals::PROPOSALS_DIR),
    ];
    let history = brief_dir.join(super::history::HISTORY_DIR);
    if std::fs::symlink_metadata(&history).is_ok_and(|m| m.is_dir())
        && let Ok(entries) = std::fs::read_dir(&history)
    {
        dirs.extend(
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_gets_a_conflict_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path()).unwrap();
        let err = WriterLock::acquire(dir.path()).unwrap_err();
        assert_eq!(err.exit_code(), 4);
        drop(first);
        WriterLock::acquire(dir.path()).unwrap();
    }
}
