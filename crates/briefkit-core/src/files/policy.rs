//! The one policy for odd files, for briefs and sessions alike.
//!
//! A brief arrives in pull requests and a session directory is shared with the agents
//! that write it, so any file in either may be a symbolic link planted to send a read or a
//! write elsewhere, a FIFO planted to hang a reader, or a device that never ends. So:
//! - anything but a regular file is refused before it is opened ([`check_regular`]), and
//!   checked again on the open file (the path could have been swapped meanwhile);
//! - the files the toolkit owns are opened without following a link at their last
//!   component and without blocking ([`read_owned`], [`open_no_follow`]);
//! - temporary files have unpredictable names ([`temporary_name`]), and those a killed
//!   writer left behind are removed by the next writer while it holds the lock
//!   ([`remove_orphans`]).

use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::limits::Limit;
use crate::error::{Error, Result};

/// What a file that is not a regular file is, in words.
pub fn kind_of(kind: fs::FileType) -> &'static str {
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

fn not_regular(path: &Path, kind: fs::FileType) -> Error {
    Error::input(format!(
        "{}: {}, not a regular file; refused without opening it",
        path.display(),
        kind_of(kind)
    ))
}

/// Refuses anything but a regular file (a FIFO would hang the reader, a device could
/// be endless). Follows links: callers that must not follow one check that first.
pub fn check_regular(path: &Path) -> Result<()> {
    let meta = fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if meta.file_type().is_file() {
        Ok(())
    } else {
        Err(not_regular(path, meta.file_type()))
    }
}

/// Checks an open file: it must be a regular file of at most `limit` bytes. Returns its
/// length.
pub(super) fn check_open(file: &File, path: &Path, limit: Limit) -> Result<u64> {
    let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(path, meta.file_type()));
    }
    if meta.len() > limit.bytes {
        return Err(too_large(&path.display().to_string(), meta.len(), limit));
    }
    Ok(meta.len())
}

pub(super) fn too_large(label: &str, bytes: u64, limit: Limit) -> Error {
    Error::input(format!(
        "{label}: {bytes} bytes is over the {limit} limit for {}; refused before reading it",
        limit.what
    ))
    .with_hint("every limit is listed in docs/security.md (\"Limits\"); nothing was written")
}

/// Reads at most `limit` bytes of an open file, refusing one that grew past it.
pub(super) fn read_within(
    file: impl Read,
    label: &str,
    expected: u64,
    limit: Limit,
) -> std::io::Result<std::result::Result<Vec<u8>, Error>> {
    let mut bytes = Vec::with_capacity(expected.min(limit.bytes) as usize);
    file.take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Ok(Err(Error::input(format!(
            "{label}: more than the {limit} limit for {}; stopped reading",
            limit.what
        ))
        .with_hint(
            "every limit is listed in docs/security.md (\"Limits\"); nothing was written",
        )));
    }
    Ok(Ok(bytes))
}

/// Reads a file the toolkit owns (in a session or a brief directory): never through a
/// symbolic link, never anything but a regular file, at most `limit` bytes. `Ok(None)`
/// when it does not exist.
pub fn read_owned(path: &Path, limit: Limit) -> Result<Option<Vec<u8>>> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(link_refused(path)),
        Ok(meta) if !meta.file_type().is_file() => {
            return Err(not_regular(path, meta.file_type()));
        }
        Ok(meta) if meta.len() > limit.bytes => {
            return Err(too_large(&path.display().to_string(), meta.len(), limit));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, &e)),
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(link_refused(path)),
        Err(e) => return Err(Error::io(path, &e)),
    };
    let len = check_open(&file, path, limit)?;
    read_within(&file, &path.display().to_string(), len, limit)
        .map_err(|e| Error::io(path, &e))?
        .map(Some)
}

/// Refuses `path` when it exists and is not a regular file, without following a link
/// and without opening it. A missing file passes.
pub fn check_owned(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(link_refused(path)),
        Ok(meta) if !meta.file_type().is_file() => Err(not_regular(path, meta.file_type())),
        _ => Ok(()),
    }
}

fn link_refused(path: &Path) -> Error {
    Error::input(format!(
        "{}: a symbolic link; refused (brief never reads or writes its own files through a link)",
        path.display()
    ))
    .with_hint("delete the link; brief creates this file itself")
}

/// Opens (creating it) a file the toolkit owns for writing, without following a link at
/// its last component and without blocking: for lock files, which a planted dangling link
/// would otherwise create outside the brief or session, and a planted FIFO would hang.
/// Anything but a regular file there is refused.
pub fn open_no_follow(path: &Path) -> Result<File> {
    check_owned(path)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .mode(0o644)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                link_refused(path)
            } else {
                Error::io(path, &e)
            }
        })?;
    let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(path, meta.file_type()));
    }
    Ok(file)
}

/// Creates `dir` (under `root`, a directory the toolkit owns) and any missing level
/// between them one level at a time, refusing a level that exists as anything but a real
/// directory: a symbolic link there (planted to send what is written below it elsewhere,
/// even somewhere inside `root`) is refused, never followed. Every level is checked, the
/// existing ones too, so a directory reused later is held to the same rule.
pub fn create_dir_owned(root: &Path, dir: &Path) -> Result<()> {
    let relative = dir.strip_prefix(root).map_err(|_| {
        Error::internal(format!("{} is not under {}", dir.display(), root.display()))
    })?;
    let mut current = root.to_path_buf();
    for part in relative.components() {
        let std::path::Component::Normal(part) = part else {
            return Err(Error::input(format!(
                "{}: not a plain path under {}",
                dir.display(),
                root.display()
            )));
        };
        current.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(link_refused(&current)),
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) => return Err(not_regular_dir(&current, meta.file_type())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match fs::create_dir(&current) {
                    Ok(()) => {}
                    // Made meanwhile: judged as if it had been there.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        let meta =
                            fs::symlink_metadata(&current).map_err(|e| Error::io(&current, &e))?;
                        if !meta.is_dir() {
                            return Err(not_regular_dir(&current, meta.file_type()));
                        }
                    }
                    Err(e) => return Err(Error::io(&current, &e)),
                }
            }
            Err(e) => return Err(Error::io(&current, &e)),
        }
    }
    Ok(())
}

fn not_regular_dir(path: &Path, kind: fs::FileType) -> Error {
    if kind.is_symlink() {
        return link_refused(path);
    }
    Error::input(format!(
        "{}: {}, not a directory; refused",
        path.display(),
        kind_of(kind)
    ))
}

/// Refuses a file named on the command line (outside any brief) that is a symbolic link:
/// replacing the link with a file would surprise, writing through it would write
/// somewhere the command line does not name.
pub fn check_not_link(path: &Path) -> Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::input(format!(
            "{}: a symbolic link; refused (brief neither writes through a link nor replaces it)",
            path.display()
        ))
        .with_hint("name the file the link points to; nothing was written"));
    }
    Ok(())
}

/// A temporary file's name for `target`: hidden, unpredictable (so nobody can plant a
/// link under it in advance), recognisable by [`is_temporary`].
pub fn temporary_name(target: &str) -> String {
    use sha2::{Digest, Sha256};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let local = 0u8;
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    // A randomly keyed hash: unpredictable even to someone who knows the time and pid.
    let random =
        std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), count);
    let seed = format!(
        "{target}/{nanos}/{}/{count}/{:p}/{random}",
        std::process::id(),
        &local,
    );
    let digest = Sha256::digest(seed.as_bytes());
    let hex: String = digest[..10].iter().map(|b| format!("{b:02x}")).collect();
    format!(".{target}.tmp-{hex}")
}

/// A name [`temporary_name`] (or an older brief, `.<name>.tmp-<pid>`) made.
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.')
        && name.rsplit_once(".tmp-").is_some_and(|(_, tail)| {
            !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// Removes temporary files a killed writer left behind in `dirs` (never following a
/// link to a directory). The caller holds the writer lock, so no live writer owns them.
/// Returns the paths removed.
pub fn remove_orphans(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for dir in dirs {
        let is_real_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
        let Ok(entries) = fs::read_dir(dir)
            .map_err(|_| ())
            .and_then(|e| if is_real_dir { Ok(e) } else { Err(()) })
        else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if is_temporary(name)
                && entry.file_type().is_ok_and(|t| !t.is_dir())
                && fs::remove_file(entry.path()).is_ok()
            {
                removed.push(entry.path());
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_directories_are_made_level_by_level_and_never_through_a_link() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let deep = root.path().join("a/b/c");
        create_dir_owned(root.path(), &deep).unwrap();
        assert!(deep.is_dir());
        create_dir_owned(root.path(), &deep).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        let err = create_dir_owned(root.path(), &root.path().join("link/x")).unwrap_err();
        assert!(err.message.contains("symbolic link"), "{}", err.message);
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        fs::write(root.path().join("file"), "").unwrap();
        assert!(create_dir_owned(root.path(), &root.path().join("file/x")).is_err());
    }

    #[test]
    fn temporary_names_are_unpredictable_and_recognised() {
        let a = temporary_name("0001.md");
        let b = temporary_name("0001.md");
        assert_ne!(a, b);
        assert!(is_temporary(&a), "{a}");
        assert_eq!(a.len(), ".0001.md.tmp-".len() + 20);
        assert!(is_temporary(".x.md.tmp-4242"));
        assert!(!is_temporary("0001.md"));
        assert!(!is_temporary(".hidden"));
        assert!(!is_temporary(".x.tmp-notes"));
    }

    fn mkfifo(path: &Path) {
        crate::sys::make_fifo(path).unwrap();
    }

    #[test]
    fn owned_files_refuse_fifos_links_and_size_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let limit = Limit {
            bytes: 4,
            what: "a test file",
        };
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let err = read_owned(&fifo, limit).unwrap_err();
        assert!(err.message.contains("a FIFO"), "{}", err.message);
        let err = open_no_follow(&fifo).unwrap_err();
        assert!(err.message.contains("a FIFO"), "{}", err.message);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("big"), &link).unwrap();
        fs::write(dir.path().join("big"), "12345").unwrap();
        assert!(
            read_owned(&link, limit)
                .unwrap_err()
                .message
                .contains("symbolic link")
        );
        let err = read_owned(&dir.path().join("big"), limit).unwrap_err();
        assert!(
            err.message.contains("over the 4 bytes limit"),
            "{}",
            err.message
        );
        assert_eq!(read_owned(&dir.path().join("none"), limit).unwrap(), None);
        fs::write(dir.path().join("ok"), "1234").unwrap();
        assert_eq!(
            read_owned(&dir.path().join("ok"), limit).unwrap().unwrap(),
            b"1234"
        );
    }
}
