//! Reading what a user names on the command line: a file, or `-` for stdin, within a
//! documented limit ([`super::limits`]).
//!
//! `std::fs::read` of `/dev/zero` grows until memory runs out and of a FIFO waits forever
//! for a writer; both were reachable from `--file`, `ccr put`, `digest` and `guard`. So a
//! named file must be a regular file (a FIFO, a device, a socket or a directory is refused
//! before it is opened, and the open file is checked again), its size is checked against
//! the limit before a byte is read, and stdin, whose size is known only when it is a
//! redirected file, is read up to the limit and then refused.

use std::fs::{File, OpenOptions};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::limits::Limit;
use super::policy::{check_open, read_within, too_large};
use crate::error::{Error, Result};

/// Whether `path` names stdin (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How an input is named in messages: `<stdin>` for `-`, else its path.
pub fn label(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The bytes of `path` (`-`: stdin), at most `limit`.
pub fn read_bytes(path: &Path, limit: Limit) -> Result<Vec<u8>> {
    if is_stdin(path) {
        return read_stdin(limit);
    }
    let (file, len) = open(path, limit)?;
    read_within(&file, &label(path), len, limit).map_err(|e| Error::io(path, &e))?
}

/// The text of `path` (`-`: stdin), at most `limit` bytes of UTF-8. An invalid byte is
/// refused with its line and offset.
pub fn read_text(path: &Path, limit: Limit) -> Result<String> {
    let bytes = read_bytes(path, limit)?;
    utf8(&label(path), bytes)
}

/// Checks a file named on the command line before anything reads it: it exists, is a
/// regular file (links followed: the user named it) and is within `limit`. For commands
/// that hand the path to a reader of their own.
pub fn check_file(path: &Path, limit: Limit) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, &e))?;
    if !meta.file_type().is_file() {
        return Err(refused(path, meta.file_type()));
    }
    if meta.len() > limit.bytes {
        return Err(too_large(&label(path), meta.len(), limit));
    }
    Ok(())
}

/// `bytes` as UTF-8 text, or an input error naming the line and offset of the first byte
/// that is not.
pub fn utf8(label: &str, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|err| {
        let at = err.utf8_error().valid_up_to();
        let line = err.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::input(format!(
            "{label}:{line}: not UTF-8 text (the byte at offset {at} is not valid UTF-8)"
        ))
        .with_hint("convert it to UTF-8 first (e.g. with iconv); nothing was written")
    })
}

/// Opens a named file for reading without blocking, after refusing anything but a
/// regular file and a size over `limit`; checked again once open. Returns its length.
pub fn open(path: &Path, limit: Limit) -> Result<(File, u64)> {
    check_file(path, limit)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, &e))?;
    let len = check_open(&file, path, limit)?;
    Ok((file, len))
}

fn refused(path: &Path, kind: std::fs::FileType) -> Error {
    if kind.is_dir() {
        return Error::input(format!("{}: a directory, not a file", path.display()));
    }
    let mut err = Error::input(format!(
        "{}: {}, not a regular file; refused without reading it",
        path.display(),
        super::policy::kind_of(kind)
    ));
    if std::os::unix::fs::FileTypeExt::is_fifo(&kind) {
        err = err.with_hint("to pipe text in, name `-` and write to brief's stdin");
    }
    err
}

/// Reads stdin up to `limit` bytes. A redirected regular file over the limit is refused
/// before it is read; a pipe or a device is read until the limit is passed, then refused.
pub fn read_stdin(limit: Limit) -> Result<Vec<u8>> {
    let stdin = std::io::stdin();
    let handle = stdin.lock();
    let expected = match handle.as_fd().try_clone_to_owned().map(File::from) {
        Ok(mut file) => match file.metadata() {
            Ok(meta) if meta.file_type().is_file() => {
                // The duplicate shares stdin's offset: what is left to read.
                let offset = std::io::Seek::stream_position(&mut file).unwrap_or(0);
                let left = meta.len().saturating_sub(offset);
                if left > limit.bytes {
                    return Err(too_large("<stdin>", left, limit));
                }
                left
            }
            _ => 0,
        },
        Err(_) => 0,
    };
    read_within(handle, "<stdin>", expected, limit)
        .map_err(|e| Error::input(format!("<stdin>: cannot read: {e}")).with_source(e))?
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Limit = Limit {
        bytes: 8,
        what: "a test input",
    };

    #[test]
    fn a_device_and_a_fifo_are_refused_without_reading() {
        let err = read_bytes(Path::new("/dev/zero"), TINY).unwrap_err();
        assert!(err.message.contains("a device"), "{}", err.message);
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        crate::sys::make_fifo(&fifo).unwrap();
        let err = read_text(&fifo, TINY).unwrap_err();
        assert!(err.message.contains("a FIFO"), "{}", err.message);
        assert!(err.hint.unwrap().contains("`-`"));
        let err = read_text(dir.path(), TINY).unwrap_err();
        assert!(err.message.contains("a directory"), "{}", err.message);
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_within_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, "123456789").unwrap();
        let err = read_bytes(&big, TINY).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.message
                .contains("9 bytes is over the 8 bytes limit for a test input"),
            "{}",
            err.message
        );
        std::fs::write(&big, "12345678").unwrap();
        assert_eq!(read_text(&big, TINY).unwrap(), "12345678");
    }

    #[test]
    fn invalid_utf8_names_its_line_and_offset() {
        let err = utf8("f.txt", b"ok\nbad \xff".to_vec()).unwrap_err();
        assert!(
            err.message.starts_with("f.txt:2: not UTF-8"),
            "{}",
            err.message
        );
        assert!(err.message.contains("offset 7"), "{}", err.message);
    }
}
