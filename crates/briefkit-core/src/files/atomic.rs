//! Atomic file replacement: a crash leaves the old file or the new one, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory: write, fsync,
/// rename over the target, then fsync the directory so the rename itself is durable.
///
/// The temporary file has an unpredictable name and is created new without following a
/// link (`O_EXCL | O_NOFOLLOW`), so a link planted in the directory can never redirect the
/// write; the rename replaces a link at `path` itself rather than writing through it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Durability::Synced)
}

/// Like [`write_atomic`], without the two `fsync`s: for a file derived from others and
/// rebuilt from them whenever it is missing, torn or stale (a session's `.cache.json`).
/// A crash may lose the new content or leave an empty file, never a mix of two writes;
/// each sync costs milliseconds on a busy disk, paid on every `session append`.
pub fn write_derived(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, Durability::Unsynced)
}

#[derive(Clone, Copy, PartialEq)]
enum Durability {
    Synced,
    Unsynced,
}

fn replace(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let tmp = dir.join(super::policy::temporary_name(&name));
    let result = (|| -> std::io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o666)
            .open(&tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the permissions of the file being replaced.
            let _ = file.set_permissions(meta.permissions());
        }
        file.write_all(bytes)?;
        if durability == Durability::Synced {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&tmp, path)?;
        if durability == Durability::Synced
            && let Ok(dir) = File::open(dir)
        {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    result.map_err(|err| {
        // Only a file this call created is removed; create_new failing means it made none.
        if err.kind() != std::io::ErrorKind::AlreadyExists {
            let _ = fs::remove_file(&tmp);
        }
        Error::io(path, &err)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.txt");
        fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_derived_file_is_replaced_whole_with_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".cache.json");
        write_derived(&path, b"first").unwrap();
        write_derived(&path, b"second").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_is_an_input_error_naming_the_path() {
        let err = write_atomic(Path::new("/nonexistent-dir/x"), b"x").unwrap_err();
        assert!(err.message.contains("/nonexistent-dir/x"));
    }
}
