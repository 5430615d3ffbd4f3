//! The per-brief writer lock: two processes never write one brief at the same time.
//!
//! An OS advisory lock on `BRIEF/.writer.lock` (released by the OS when the process dies,
//! so a crash never leaves a brief locked). A second writer gets a conflict (exit 4).

use std::fs::{File, OpenOptions};
use std::path::Path;

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
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, &e))?;
        match file.try_lock() {
            Ok(()) => Ok(WriterLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::conflict(format!(
                "{} is being changed by another brief process",
                brief_dir.display()
            ))
            .with_hint("wait for it to finish, then run the command again")),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, &e)),
        }
    }
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
