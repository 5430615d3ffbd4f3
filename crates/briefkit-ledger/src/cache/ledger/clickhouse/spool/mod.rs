//! The local spool: rows ClickHouse has not acknowledged yet, on this machine's disk.
//!
//! One directory per table (`<state dir>/clickhouse/<id>/`, with a `target` file naming it
//! without its password). Each process that writes rows owns one spool file there,
//! `<ms>-<pid>-<random>.jsonl`, in the ledger's own JSON-lines format, which it holds
//! `flock`ed for as long as it lives and appends to in whole lines (one `write`, then
//! `fdatasync` for a batch). Beside it, `<name>.ack` says how far ClickHouse has taken the
//! file — the acknowledged byte offset, and the batch in flight (its end and id), written
//! before the batch is sent so that a retry after a crash resends exactly that batch under
//! the same id.
//!
//! A file whose owner died (kill -9, a crash, a command that ended while ClickHouse was
//! down) has no lock: any later process writing to the same table adopts it, sends the rest
//! in order and removes it. A drained file is removed (the `.jsonl`, then the `.ack`); the
//! owner of a live file starts a new one once the old is drained and big.
//!
//! Rows past the spool's size limit go to `overflow.jsonl` (a plain ledger file) instead,
//! with a loud warning: they are kept, and `brief ledger push` sends them once ClickHouse
//! is back.
//!
//! A full disk neither tears nor strands rows. An append that fails is cut back to the
//! file's last whole line (so no row is both on disk and elsewhere), and the caller keeps
//! the rows in memory ([`super::shipper`]). Each `.ack` is made with the spool file, padded
//! to [`ACK_BYTES`], so that when a replacement cannot be written (no space for the
//! temporary file) it is rewritten in place, within the blocks it already has: sending,
//! and so freeing drained files, goes on on a full disk.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::target::Target;
use crate::cache::ledger::Entry;
use crate::error::{Error, Result};

/// The file rows past the size limit go to.
pub const OVERFLOW: &str = "overflow.jsonl";

/// A drained spool file of its owner is replaced by a new one once it is this big.
pub const ROTATE_BYTES: u64 = 4 << 20;

/// The size every `.ack` is made with: its text, padded with a line of spaces, is always
/// rewritten within it.
pub const ACK_BYTES: usize = 256;

/// The most bytes of rows one insert carries: under the 10 MiB chunks a current server
/// parses in parallel, so one insert stays one block (all of it lands, or none).
pub const MAX_BATCH_BYTES: u64 = 8 << 20;

/// The spool directory of one table.
#[derive(Debug, Clone)]
pub struct Spool {
    dir: PathBuf,
}

fn io(path: &Path, err: &std::io::Error) -> Error {
    Error::io(path, err).with_hint(
        "the ClickHouse spool lives in the state directory ($XDG_STATE_HOME/briefkit or \
         ~/.local/state/briefkit): make it writable",
    )
}

/// An exclusive lock on `file` (std's, which is `flock` on Unix, as the store's writer lock
/// is): taken and held by the owner of a spool file; tried, not awaited, by a drainer.
fn lock(file: &File, wait: bool) -> bool {
    if wait {
        file.lock().is_ok()
    } else {
        file.try_lock().is_ok()
    }
}

impl Spool {
    /// The spool of `target` under `state` (made, private to the user, when missing).
    pub fn open(state: &Path, target: &Target) -> Result<Spool> {
        let digest = Sha256::digest(target.identity().as_bytes());
        let id: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        let dir = state.join("clickhouse").join(id);
        if let Ok(meta) = fs::symlink_metadata(&dir)
            && !meta.is_dir()
        {
            return Err(Error::input(format!(
                "{}: not a directory; the ClickHouse spool must be one",
                dir.display()
            )));
        }
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| io(&dir, &e))?;
        let label = dir.join("target");
        if !label.exists() {
            let _ =
                crate::files::write_atomic(&label, format!("{}\n", target.display()).as_bytes());
        }
        Ok(Spool { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn overflow_path(&self) -> PathBuf {
        self.dir.join(OVERFLOW)
    }

    /// A new spool file owned (locked) by this process.
    pub fn create(&self) -> Result<Owned> {
        let ms = crate::clock::now_ms().max(0);
        let random = std::hash::BuildHasher::hash_one(
            &std::collections::hash_map::RandomState::new(),
            (ms, std::process::id()),
        );
        let name = format!("{ms:013}-{}-{:08x}", std::process::id(), random as u32);
        let path = self.dir.join(format!("{name}.jsonl"));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| io(&path, &e))?;
        if !lock(&file, true) {
            return Err(Error::input(format!("{}: cannot lock", path.display())));
        }
        // The ack, made now at its full size, so it can always be rewritten in place.
        let ack_path = self.dir.join(format!("{name}.ack"));
        let made = crate::files::write_atomic(&ack_path, &padded(b"acked 0\n".to_vec()));
        if let Err(err) = made {
            let _ = fs::remove_file(&path);
            return Err(err);
        }
        Ok(Owned {
            name,
            path,
            file,
            len: 0,
            broken: false,
        })
    }

    /// The spool files no live process holds, oldest first, each locked for this process
    /// to drain. `skip` names files this process already drains.
    pub fn adopt(&self, skip: &HashSet<String>) -> Vec<Cursor> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = Vec::new();
        let mut acks: Vec<String> = Vec::new();
        for entry in entries.flatten() {
            let Some(file_name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if let Some(stem) = file_name.strip_suffix(".jsonl") {
                if file_name != OVERFLOW && !file_name.starts_with('.') {
                    names.push(stem.to_string());
                }
            } else if let Some(stem) = file_name.strip_suffix(".ack") {
                acks.push(stem.to_string());
            } else if crate::files::policy::is_temporary(&file_name) {
                // An ack being replaced when its writer died; live ones are seconds old.
                let stale = entry
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .is_some_and(|t| {
                        SystemTime::now().duration_since(t).unwrap_or_default()
                            > Duration::from_secs(600)
                    });
                if stale {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        // An ack whose spool file is gone was left by a removal cut short.
        for stem in &acks {
            if !names.contains(stem) && !self.dir.join(format!("{stem}.jsonl")).exists() {
                let _ = fs::remove_file(self.dir.join(format!("{stem}.ack")));
            }
        }
        names.sort();
        let mut adopted = Vec::new();
        for name in names {
            if skip.contains(&name) {
                continue;
            }
            let path = self.dir.join(format!("{name}.jsonl"));
            let Ok(file) = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&path)
            else {
                continue;
            };
            if !lock(&file, false) {
                continue;
            }
            // Removed by its owner between the listing and the lock: nothing to send.
            let Ok(meta) = file.metadata() else { continue };
            if std::os::unix::fs::MetadataExt::nlink(&meta) == 0 || !meta.is_file() {
                continue;
            }
            match Cursor::open(&self.dir, name, file, meta.len()) {
                Ok(cursor) => adopted.push(cursor),
                Err(_) => continue,
            }
        }
        adopted
    }

    /// Bytes in spool files not yet acknowledged, every process's (an estimate: acks are
    /// read as they stand).
    pub fn pending_bytes(&self) -> u64 {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut total = 0u64;
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if name == OVERFLOW || name.starts_with('.') {
                continue;
            }
            let len = entry.metadata().map_or(0, |m| m.len());
            let acked = read_ack(&self.dir.join(format!("{stem}.ack"))).map_or(0, |a| a.acked);
            total = total.saturating_add(len.saturating_sub(acked));
        }
        total
    }
}

/// The spool file this process appends to.
pub struct Owned {
    pub name: String,
    path: PathBuf,
    file: File,
    /// Bytes written (whole lines only).
    pub len: u64,
    /// A write failed part-way: the file may end in a torn line, so no more is appended
    /// to it (the next rows start a new file).
    pub broken: bool,
}

impl Owned {
    /// Appends whole lines with one write; with `sync`, makes them durable first. A write
    /// that fails (a full disk) is cut back to the last whole line, so none of `lines` is
    /// in the file; only when even that fails is the file `broken` (its tail may be torn).
    pub fn append(&mut self, lines: &[u8], sync: bool) -> Result<()> {
        let written = self
            .file
            .write_all(lines)
            .and_then(|()| if sync { self.file.sync_data() } else { Ok(()) });
        match written {
            Ok(()) => {
                self.len += lines.len() as u64;
                Ok(())
            }
            Err(err) => {
                // Cutting a file needs no space.
                if self.file.set_len(self.len).is_err() {
                    self.broken = true;
                }
                Err(io(&self.path, &err))
            }
        }
    }

    /// A second handle for the writer thread to read from (same lock).
    pub fn cursor(&self, dir: &Path) -> Result<Cursor> {
        let file = self.file.try_clone().map_err(|e| io(&self.path, &e))?;
        Cursor::open(dir, self.name.clone(), file, self.len)
    }

    /// Removes a drained file: the rows, then the acknowledgement.
    pub fn remove(self, dir: &Path) {
        remove_files(dir, &self.name);
    }
}

fn remove_files(dir: &Path, name: &str) {
    let _ = fs::remove_file(dir.join(format!("{name}.jsonl")));
    let _ = fs::remove_file(dir.join(format!("{name}.ack")));
}

/// A batch sent but not known to have landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inflight {
    pub end: u64,
    pub batch_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Ack {
    acked: u64,
    inflight: Option<Inflight>,
}

/// `text` padded to [`ACK_BYTES`] with a last line of spaces (which a reader ignores).
fn padded(mut text: Vec<u8>) -> Vec<u8> {
    if text.len() < ACK_BYTES {
        text.resize(ACK_BYTES - 1, b' ');
        text.push(b'\n');
    }
    text
}

/// Rewrites an existing ack in place, within its size: no new block is needed, so it
/// works on a full disk. One `pwrite` of a few hundred bytes.
fn rewrite_in_place(path: &Path, text: &[u8], durable: bool) -> std::io::Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let old = file.metadata()?.len() as usize;
    let mut bytes = padded(text.to_vec());
    if bytes.len() < old {
        bytes.truncate(bytes.len() - 1);
        bytes.resize(old - 1, b' ');
        bytes.push(b'\n');
    }
    file.write_all_at(&bytes, 0)?;
    if durable {
        file.sync_data()?;
    }
    Ok(())
}

fn read_ack(path: &Path) -> Option<Ack> {
    let text = fs::read_to_string(path).ok()?;
    let mut ack = Ack::default();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("acked"), Some(n), None) => ack.acked = n.parse().ok()?,
            (Some("inflight"), Some(end), Some(id)) => {
                ack.inflight = Some(Inflight {
                    end: end.parse().ok()?,
                    batch_id: id.to_string(),
                });
            }
            _ => {}
        }
    }
    Some(ack)
}

/// How far one spool file has been taken, kept by the writer thread that drains it.
pub struct Cursor {
    pub name: String,
    dir: PathBuf,
    file: File,
    /// Bytes acknowledged by ClickHouse.
    pub acked: u64,
    pub inflight: Option<Inflight>,
    /// For an adopted file: its size when adopted (its owner is gone). For this
    /// process's own file, the length comes from the appender instead.
    pub len: u64,
}

/// Rows read from a spool file for one insert.
pub struct Batch {
    /// Each row with its byte offset in the file (its identity).
    pub rows: Vec<(u64, Entry)>,
    /// Where the batch ends: the next batch starts here.
    pub end: u64,
    /// Lines that were not ledger rows (a torn tail left by a crash): skipped.
    pub skipped: u64,
}

impl Cursor {
    fn open(dir: &Path, name: String, file: File, len: u64) -> Result<Cursor> {
        let ack = read_ack(&dir.join(format!("{name}.ack"))).unwrap_or_default();
        Ok(Cursor {
            name,
            dir: dir.to_path_buf(),
            file,
            acked: ack.acked.min(len),
            inflight: ack.inflight.filter(|i| i.end > ack.acked && i.end <= len),
            len,
        })
    }

    /// The file's size now.
    pub fn file_len(&self) -> u64 {
        self.file.metadata().map_or(self.len, |m| m.len())
    }

    /// Counts the complete rows between the acknowledged offset and `len`.
    pub fn count_rows(&self, len: u64) -> u64 {
        let mut count = 0u64;
        let mut at = self.acked;
        let mut buf = vec![0u8; 1 << 16];
        while at < len {
            let want = ((len - at) as usize).min(buf.len());
            let Ok(n) = self.file.read_at(&mut buf[..want], at) else {
                break;
            };
            if n == 0 {
                break;
            }
            count += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            at += n as u64;
        }
        count
    }

    /// Reads the next batch up to `len` (at most `max_rows` rows and
    /// [`MAX_BATCH_BYTES`]); a batch in flight is read again exactly as it was. With
    /// `finished` (the owner is gone), an unterminated tail is a torn line and skipped.
    pub fn read(&self, len: u64, max_rows: usize, finished: bool) -> Result<Batch> {
        let limit = match &self.inflight {
            Some(inflight) => inflight.end,
            None => len.min(self.acked.saturating_add(MAX_BATCH_BYTES)),
        };
        let want = limit.saturating_sub(self.acked) as usize;
        let mut buf = vec![0u8; want];
        let mut got = 0;
        while got < want {
            let n = self
                .file
                .read_at(&mut buf[got..], self.acked + got as u64)
                .map_err(|e| io(&self.dir.join(format!("{}.jsonl", self.name)), &e))?;
            if n == 0 {
                break;
            }
            got += n;
        }
        buf.truncate(got);
        let mut rows = Vec::new();
        let mut skipped = 0;
        let mut at = 0usize;
        let keep_all = self.inflight.is_some();
        while at < buf.len() && (keep_all || rows.len() < max_rows) {
            let Some(nl) = memchr::memchr(b'\n', &buf[at..]) else {
                // A line still being written, or (owner gone) a torn one.
                if finished && self.acked + buf.len() as u64 >= len {
                    skipped += 1;
                    at = buf.len();
                }
                break;
            };
            let line = &buf[at..at + nl];
            match serde_json::from_slice::<Entry>(line) {
                Ok(entry) => rows.push((self.acked + at as u64, entry)),
                Err(_) if line.iter().all(u8::is_ascii_whitespace) => {}
                Err(_) => skipped += 1,
            }
            at += nl + 1;
        }
        Ok(Batch {
            rows,
            end: self.acked + at as u64,
            skipped,
        })
    }

    /// Records the batch about to be sent, durably, before it is sent.
    pub fn begin(&mut self, end: u64, batch_id: &str) -> Result<()> {
        self.inflight = Some(Inflight {
            end,
            batch_id: batch_id.to_string(),
        });
        self.save(true)
    }

    /// Records that everything before `end` landed. Not synced: if it is lost, the batch
    /// in flight is asked about again and found there.
    pub fn acknowledge(&mut self, end: u64) -> Result<()> {
        self.acked = end;
        self.inflight = None;
        self.save(false)
    }

    fn save(&self, durable: bool) -> Result<()> {
        let path = self.dir.join(format!("{}.ack", self.name));
        let mut text = format!("acked {}\n", self.acked);
        if let Some(inflight) = &self.inflight {
            text.push_str(&format!(
                "inflight {} {}\n",
                inflight.end, inflight.batch_id
            ));
        }
        let atomic = if durable {
            crate::files::write_atomic(&path, &padded(text.clone().into_bytes()))
        } else {
            self.replace(&path, &text)
        };
        match atomic {
            Ok(()) => Ok(()),
            // No room for a new file (a full disk): the old one, rewritten where it is.
            Err(err) => rewrite_in_place(&path, text.as_bytes(), durable).map_err(|_| err),
        }
    }

    /// Replaces the ack through a temporary file, without a sync.
    fn replace(&self, path: &Path, text: &str) -> Result<()> {
        let tmp = self.dir.join(crate::files::policy::temporary_name(&format!(
            "{}.ack",
            self.name
        )));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .and_then(|mut f| f.write_all(&padded(text.as_bytes().to_vec())))
            .and_then(|()| fs::rename(&tmp, path));
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io(path, &e)
        })
    }

    /// Removes a drained file (adopted, or this process's own at its end).
    pub fn remove(self) {
        remove_files(&self.dir, &self.name);
    }
}

#[cfg(test)]
mod tests;
