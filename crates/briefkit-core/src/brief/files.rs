//! Reading a brief's files as text, within limits. The `items/` directory is listed once
//! per load: which item files exist and which are plain regular files inside the brief,
//! so that loading 100,000 items costs about the system calls of reading them (`open`,
//! `fstat`, `read`, `close`) rather than a dozen per item (two `lstat`s to find the file,
//! a `realpath` of its whole path, two `stat`s).

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::Path;

use super::problem::{Problem, line_col};

pub(crate) struct Listing {
    /// Every UTF-8 name in `items/` and whether it is a regular file (not a symlink);
    /// `None` when the directory could not be listed (each file is then looked up alone).
    names: Option<HashMap<String, bool>>,
    /// `items/` itself resolves inside the brief directory.
    inside: bool,
    /// How many more missing ids get a "did you mean".
    suggestions_left: std::cell::Cell<usize>,
}

impl Listing {
    pub(crate) fn read(dir: &Path, canonical_dir: &Path) -> Listing {
        let items = dir.join("items");
        let inside = fs::canonicalize(&items).is_ok_and(|real| real.starts_with(canonical_dir));
        let names = fs::read_dir(&items).ok().map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    // The directory entry's own type: no `stat` on most file systems.
                    let plain = e.file_type().is_ok_and(|t| t.is_file());
                    Some((e.file_name().into_string().ok()?, plain))
                })
                .collect()
        });
        Listing {
            names,
            inside,
            suggestions_left: std::cell::Cell::new(20),
        }
    }

    /// Whether each of `items/<a>` and `items/<b>` exists (as any kind of file, a dangling
    /// symlink included). When the listing has neither, both are looked up alone: a
    /// case-insensitive file system finds `Id.md` for `id.md`.
    pub(crate) fn exist(&self, items: &Path, a: &str, b: &str) -> (bool, bool) {
        if let Some(names) = &self.names {
            let found = (names.contains_key(a), names.contains_key(b));
            if found != (false, false) {
                return found;
            }
        }
        let exists = |name: &str| fs::symlink_metadata(items.join(name)).is_ok();
        (exists(a), exists(b))
    }

    /// Whether `items/<name>` is a regular file, not a symlink, in an `items/` inside the
    /// brief: then it is inside the brief without resolving its path.
    pub(crate) fn plain(&self, name: &str) -> bool {
        self.inside
            && self
                .names
                .as_ref()
                .is_some_and(|names| names.get(name) == Some(&true))
    }

    /// The item file nearest to a missing `id`, when it looks like a typo of one that
    /// exists (`items/identity.md` for `identiy`). Asked for the first 20 missing ids only
    /// and of listings up to 10,000 names, so a brief with many missing items stays linear.
    pub(crate) fn closest_item(&self, id: &str) -> Option<String> {
        let left = self.suggestions_left.get();
        if left == 0 {
            return None;
        }
        self.suggestions_left.set(left - 1);
        let names = self.names.as_ref().filter(|names| names.len() <= 10_000)?;
        let stems: Vec<&str> = names
            .keys()
            .filter_map(|n| {
                n.strip_suffix(".md")
                    .or_else(|| n.strip_suffix(".tool.yaml"))
            })
            .collect();
        super::lookup::closest(id, &stems).map(str::to_string)
    }

    /// The names listed, sorted (for the files the manifest does not name).
    pub(crate) fn sorted_names(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = match &self.names {
            Some(names) => names.keys().cloned().collect(),
            None => match fs::read_dir(dir.join("items")) {
                Ok(entries) => entries
                    .filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect(),
                Err(_) => Vec::new(),
            },
        };
        names.sort();
        names
    }
}

/// Reads a file that the listing saw as a plain regular file: opened without blocking (in
/// case it was replaced by a FIFO since), then checked on the open file. Anything but a
/// regular file goes through [`read_text`], which refuses it with its usual
/// message.
pub(crate) fn read_plain(path: &Path, max: u64, problems: &mut Vec<Problem>) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(err) => {
            problems.push(Problem::error(path, 0, 0, format!("cannot read: {err}")));
            return None;
        }
    };
    let meta = match file.metadata() {
        Ok(meta) if meta.is_file() && meta.len() <= max => meta,
        _ => {
            drop(file);
            return read_text(path, max, problems);
        }
    };
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    if let Err(err) = file.read_to_end(&mut bytes) {
        problems.push(Problem::error(path, 0, 0, format!("cannot read: {err}")));
        return None;
    }
    decode_text(path, bytes, problems)
}

/// Reads a file as UTF-8 text, refusing files over `max` bytes and anything but a regular
/// file (a FIFO would hang the read).
pub(crate) fn read_text(path: &Path, max: u64, problems: &mut Vec<Problem>) -> Option<String> {
    let bytes = match fs::metadata(path) {
        Ok(_) if let Err(err) = crate::files::policy::check_regular(path) => {
            problems.push(Problem::error(
                path,
                0,
                0,
                super::item::after_path(&err.message),
            ));
            return None;
        }
        Ok(meta) if meta.len() > max => {
            problems.push(Problem::error(
                path,
                0,
                0,
                format!(
                    "file is {} bytes; the limit is {max} ({} MiB)",
                    meta.len(),
                    max / (1024 * 1024)
                ),
            ));
            return None;
        }
        Ok(_) => fs::read(path),
        Err(err) => Err(err),
    };
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(err) => {
            problems.push(Problem::error(path, 0, 0, format!("cannot read: {err}")));
            return None;
        }
    };
    decode_text(path, bytes, problems)
}

/// A file's bytes as UTF-8 text (a byte-order mark dropped, with a warning), or the
/// problem at the line and column of the first invalid byte.
pub(crate) fn decode_text(
    path: &Path,
    bytes: Vec<u8>,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    match String::from_utf8(bytes) {
        Ok(text) => Some(super::item::strip_bom(path, text, problems)),
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let bytes = err.as_bytes();
            let prefix = String::from_utf8_lossy(&bytes[..valid]);
            let (line, column) = line_col(&prefix, prefix.len());
            problems.push(Problem::error(path, line, column, "not valid UTF-8"));
            None
        }
    }
}
