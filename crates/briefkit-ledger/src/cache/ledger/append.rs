//! Writing rows to the ledger: one row at a time (the toolkit's own calls), or a batch at a
//! time with one write and one sync (the proxy's writer).
//!
//! Lines go out in a single `write` on a file opened with `O_APPEND`, so lines from
//! concurrent writers never interleave. If the file ends in a torn line (a crash
//! mid-write), a newline is written first so the next row starts on its own line. The path
//! is refused, as [`check_path`] says, when it is a link, not a regular file, or a file that
//! is not a ledger.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{Entry, check_path};
use crate::error::{Error, Result, Setting, Topic};

/// Appends one entry as one line, creating the file and its directory when needed. No sync:
/// the toolkit's own calls are a few a minute, and the kernel writes them out.
pub fn append(path: &Path, entry: &Entry) -> Result<()> {
    let mut lines = Vec::new();
    encode(entry, &mut lines)?;
    let (mut file, _) = open(path, None)?;
    write_lines(path, &mut file, &mut lines)
}

/// Appends batches to one ledger, remembering which file it checked so that a batch costs
/// an open, a write and a sync — not a re-read of the file's first line — until the file is
/// replaced.
pub struct Appender {
    path: PathBuf,
    /// The (device, inode) of the file last checked to be a ledger.
    checked: Option<(u64, u64)>,
    lines: Vec<u8>,
}

impl Appender {
    pub fn new(path: PathBuf) -> Appender {
        Appender {
            path,
            checked: None,
            lines: Vec::new(),
        }
    }

    /// Appends `entries` with one `write`; with `sync`, makes them durable with one
    /// `fdatasync` before returning.
    pub fn append(&mut self, entries: &[Entry], sync: bool) -> Result<()> {
        self.lines.clear();
        for entry in entries {
            encode(entry, &mut self.lines)?;
        }
        let (mut file, identity) = open(&self.path, self.checked)?;
        self.checked = Some(identity);
        let result = write_lines(&self.path, &mut file, &mut self.lines);
        // A batch buffer of a burst is not kept for the quiet hours after it.
        if self.lines.capacity() > 4 << 20 {
            self.lines = Vec::new();
        }
        result?;
        if sync {
            file.sync_data().map_err(|e| io_error(&self.path, &e))?;
        }
        Ok(())
    }
}

fn encode(entry: &Entry, out: &mut Vec<u8>) -> Result<()> {
    serde_json::to_writer(&mut *out, entry)
        .map_err(|e| Error::input(format!("cannot encode a ledger entry: {e}")).with_source(e))?;
    out.push(b'\n');
    Ok(())
}

fn io_error(path: &Path, err: &std::io::Error) -> Error {
    Error::io(path, err)
        .with_hint("use a writable path for the ledger")
        .with_topic(Topic::Setting(Setting::Ledger))
}

/// Opens the ledger for appending (creating it and its directory), after refusing a link
/// or a file that is not regular; a file other than `checked` is also checked to be a
/// ledger. Returns the file and its (device, inode).
fn open(path: &Path, checked: Option<(u64, u64)>) -> Result<(File, (u64, u64))> {
    let io = |e: std::io::Error| io_error(path, &e);
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() && checked == Some((meta.dev(), meta.ino())) => {}
        Ok(_) => check_path(path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                fs::create_dir_all(dir).map_err(io)?;
            }
        }
        Err(e) => return Err(io(e)),
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        // Swapped for something else between the check and the open.
        check_path(path)?;
        return Err(Error::input(format!(
            "{}: not a regular file; refusing to write the ledger there",
            path.display()
        )));
    }
    Ok((file, (meta.dev(), meta.ino())))
}

/// Writes `lines` (whole lines) in one `write`, after a newline when the file ends in a
/// torn line.
fn write_lines(path: &Path, file: &mut File, lines: &mut Vec<u8>) -> Result<()> {
    let io = |e: std::io::Error| io_error(path, &e);
    let len = file.metadata().map_err(io)?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1).map_err(io)?;
        if last[0] != b'\n' {
            // Two writers may both do this; an empty line is harmless, a glued one is not.
            lines.insert(0, b'\n');
        }
    }
    file.write_all(lines).map_err(io)
}
