//! Paths under a brief, opened so that nothing outside it is read or written.
//!
//! The rules every owned file obeys (no FIFOs, devices or links, unpredictable temporary
//! names, orphans swept under the lock) are the one policy of [`crate::files::policy`],
//! shared with sessions; this module adds what is particular to a brief: a path is used
//! only when it resolves inside the brief directory.
//!
//! A brief arrives in pull requests, so any file or directory in it may be a symbolic link
//! planted to send a write (or a read, or a delete) elsewhere, or a FIFO planted to hang a
//! reader. The rule is the loader's rule for items: a path is used only when it resolves
//! inside the brief directory; directories are created one level at a time, never through
//! a link that leaves the brief; anything that is not a regular file is refused before it
//! is opened; files are opened without following a final link.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
pub use crate::files::policy::{
    check_not_link, check_regular, is_temporary, open_no_follow, remove_orphans, temporary_name,
};

/// Refuses `path` unless, with every link resolved, it is inside `brief_dir`. A path
/// that does not exist yet is judged by its parent.
pub fn check_inside(brief_dir: &Path, path: &Path) -> Result<()> {
    // `brief check brief.yaml` names the brief directory as the empty path.
    let brief_dir = if brief_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        brief_dir
    };
    let root = fs::canonicalize(brief_dir).map_err(|e| Error::io(brief_dir, &e))?;
    let real = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Err(Error::io(path, &e));
            };
            match fs::symlink_metadata(path) {
                // A dangling link: where it points is outside anything we can check.
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(outside(path, "a link to nothing"));
                }
                _ => {}
            }
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            fs::canonicalize(parent)
                .map_err(|e| Error::io(parent, &e))?
                .join(name)
        }
        Err(e) => return Err(Error::io(path, &e)),
    };
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(outside(path, &real.display().to_string()))
    }
}

fn outside(path: &Path, target: &str) -> Error {
    Error::input(format!(
        "{}: points outside the brief directory (to {target}); brief reads and writes only inside the brief",
        path.display()
    ))
    .with_hint("replace the link with a real file or directory inside the brief")
}

/// Creates `dir` (under `brief_dir`) and any missing parents one level at a time, so no
/// level is created through a link that leaves the brief.
pub fn create_dir(brief_dir: &Path, dir: &Path) -> Result<()> {
    let relative = dir.strip_prefix(brief_dir).map_err(|_| {
        Error::input(format!(
            "{}: not under the brief directory {}",
            dir.display(),
            brief_dir.display()
        ))
    })?;
    let mut current = brief_dir.to_path_buf();
    for part in relative.components() {
        let Component::Normal(part) = part else {
            return Err(Error::input(format!(
                "{}: not a plain path under the brief",
                dir.display()
            )));
        };
        current.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                check_inside(brief_dir, &current)?;
                if !current.is_dir() {
                    return Err(not_a_dir(&current));
                }
            }
            Ok(_) => return Err(not_a_dir(&current)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::create_dir(&current) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    check_inside(brief_dir, &current)?;
                }
                Err(e) => return Err(Error::io(&current, &e)),
            },
            Err(e) => return Err(Error::io(&current, &e)),
        }
    }
    Ok(())
}

fn not_a_dir(path: &Path) -> Error {
    Error::input(format!("{}: not a directory", path.display()))
}

/// Reads a file under `brief_dir` as text: inside the brief, a regular file, at most
/// `max` bytes.
pub fn read_text(brief_dir: &Path, path: &Path, max: u64) -> Result<String> {
    check_inside(brief_dir, path)?;
    let real = fs::canonicalize(path).map_err(|e| Error::io(path, &e))?;
    check_regular(&real)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&real)
        .map_err(|e| Error::io(path, &e))?;
    // Checked again on the open file: the path could have been swapped meanwhile.
    if !file.metadata().map_err(|e| Error::io(path, &e))?.is_file() {
        return Err(check_regular(path)
            .err()
            .unwrap_or_else(|| Error::input(format!("{}: not a regular file", path.display()))));
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, &e))?;
    if bytes.len() as u64 > max {
        return Err(Error::input(format!(
            "{}: larger than {max} bytes; refused",
            path.display()
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{}: not valid UTF-8 (at byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Refuses to write `path` (a file under `brief_dir`, existing or not) unless the write
/// stays inside the brief: the nearest existing level of the path resolves inside it, a
/// link at `path` itself resolves inside it (a dangling one never does), and whatever is
/// at `path` is a regular file. Writers call this for every target before writing the
/// first, so that a refusal leaves nothing written.
pub fn check_target(brief_dir: &Path, path: &Path) -> Result<()> {
    let mut level = path;
    while fs::symlink_metadata(level).is_err() {
        match level.parent() {
            Some(parent) if !parent.as_os_str().is_empty() && parent.starts_with(brief_dir) => {
                level = parent;
            }
            _ => break,
        }
    }
    check_inside(brief_dir, level)?;
    if level == path {
        check_regular(path)?;
    }
    Ok(())
}

/// Writes `path` under `brief_dir` atomically after [`check_target`], creating its
/// directory one level at a time inside the brief ([`create_dir`]).
pub fn write_file(brief_dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    check_target(brief_dir, path)?;
    if let Some(parent) = path.parent() {
        create_dir(brief_dir, parent)?;
    }
    crate::files::write_atomic(path, bytes)
}

/// Writes new files into `dir` (a brief being created; it may not exist yet), in order:
/// every target is checked with [`check_target`] before the first is written, so a planted
/// link refuses the whole write and leaves nothing behind. The last file (the manifest,
/// which makes the directory a brief) is written atomically once every other file is on
/// disk. The others are created new (`O_EXCL | O_NOFOLLOW`: never through a link) and
/// synced after all are written, their directory once ([`sync_created`]): an import of
/// 100,000 sections spent most of its time in two fsyncs per file. A file that already
/// exists is replaced atomically, as before.
pub fn write_files(dir: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    if fs::symlink_metadata(dir).is_ok() {
        for (path, _) in files {
            check_target(dir, path)?;
        }
    }
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
    let Some(((last, last_bytes), rest)) = files.split_last() else {
        return Ok(());
    };
    let mut dirs: Vec<&Path> = vec![dir];
    let mut created: Vec<&Path> = Vec::with_capacity(rest.len());
    for (path, bytes) in rest {
        check_target(dir, path)?;
        if let Some(parent) = path.parent()
            && !dirs.contains(&parent)
        {
            create_dir(dir, parent)?;
            dirs.push(parent);
        }
        let opened = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o666)
            .open(path);
        match opened {
            Ok(mut file) => {
                file.write_all(bytes).map_err(|e| Error::io(path, &e))?;
                created.push(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                crate::files::write_atomic(path, bytes)?;
            }
            Err(e) => return Err(Error::io(path, &e)),
        }
    }
    sync_created(dir, &created)?;
    for d in &dirs {
        if let Ok(d) = File::open(d) {
            let _ = d.sync_all();
        }
    }
    write_file(dir, last, last_bytes)
}

/// Makes the files just created durable once all are written. A few files get an fsync
/// each: that never waits for other programs' unwritten data. Many (an import of thousands
/// of sections) get one `syncfs` of their file system on Linux, which measured 2.5 times
/// faster than 100,000 fsyncs.
fn sync_created(dir: &Path, created: &[&Path]) -> Result<()> {
    #[cfg(target_os = "linux")]
    if created.len() > 256 {
        let handle = File::open(dir).map_err(|e| Error::io(dir, &e))?;
        if crate::sys::sync_file_system(&handle).is_ok() {
            return Ok(());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
    for path in created {
        File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(path, &e))?;
    }
    Ok(())
}
