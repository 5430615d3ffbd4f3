//! The system calls std does not offer, behind safe functions: the one place of the
//! workspace where `unsafe` is allowed (`unsafe_code` is denied everywhere else by the
//! workspace lints). rustix does the calls it has safe wrappers for; only the SIGINT handler,
//! which rustix does not install, is `unsafe` here.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};

/// This machine's host name (`gethostname`), when it has one.
pub fn host_name() -> Option<String> {
    let uname = rustix::system::uname();
    let name = String::from_utf8_lossy(uname.nodename().to_bytes()).into_owned();
    (!name.is_empty()).then_some(name)
}

/// Flushes the whole file system `handle` is on (`syncfs`, Linux only): one call instead of
/// an fsync per file when many were just written. `Err` where the call is not available.
pub fn sync_file_system(handle: &File) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    return rustix::fs::syncfs(handle).map_err(io::Error::from);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = handle;
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Raises the soft limit on open files to the hard limit; returns the soft limit in force
/// (1024 when it cannot be read).
pub fn raise_open_files_limit() -> u64 {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // `None` is RLIM_INFINITY.
    let current = limit.current.unwrap_or(u64::MAX);
    let maximum = limit.maximum;
    if maximum.is_none_or(|max| current < max) {
        let raised = Rlimit {
            current: maximum,
            maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return maximum.unwrap_or(u64::MAX);
        }
    }
    current
}

/// Asks the scheduler to run the calling thread after others when the CPU is contended
/// (niceness 10 for this thread only: on Linux a thread id names one thread).
pub fn lower_this_thread_priority() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let _ = rustix::process::setpriority_process(Some(tid), 10);
    }
}

/// Kills (SIGKILL) the process group `child` leads (it was spawned with
/// `process_group(0)`), so that what it started dies with it.
pub fn kill_process_group(child: &Child) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Makes a FIFO at `path` (`mkfifo`, mode 0644): what the tests of the odd-file policy feed
/// the readers.
pub fn make_fifo(path: &std::path::Path) -> io::Result<()> {
    use rustix::fs::{CWD, FileType, Mode, mknodat};
    mknodat(CWD, path, FileType::Fifo, Mode::from_raw_mode(0o644), 0).map_err(io::Error::from)
}

static SIGINT_SEEN: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    SIGINT_SEEN.store(true, Ordering::SeqCst);
}

/// While it lives, SIGINT (Ctrl-C) does not end the process but is noted, for
/// [`SigintWatch::seen`]; dropping it restores the disposition in force before. One at a
/// time: the note is process-wide.
pub struct SigintWatch {
    previous: libc::sighandler_t,
}

impl SigintWatch {
    /// Starts noting SIGINT (a note from before is forgotten).
    pub fn start() -> SigintWatch {
        SIGINT_SEEN.store(false, Ordering::SeqCst);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        let previous = unsafe {
            libc::signal(
                libc::SIGINT,
                on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
            )
        };
        SigintWatch { previous }
    }

    /// Whether SIGINT arrived since [`SigintWatch::start`].
    pub fn seen(&self) -> bool {
        SIGINT_SEEN.load(Ordering::SeqCst)
    }
}

impl Drop for SigintWatch {
    fn drop(&mut self) {
        // SAFETY: restores the disposition `signal` returned in `start`.
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_name_is_the_kernels() {
        let name = host_name().expect("a host name");
        let kernel = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        assert_eq!(name, kernel.trim_end());
    }

    #[test]
    fn the_open_files_limit_after_raising_is_the_soft_limit_in_force() {
        let raised = raise_open_files_limit();
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        assert_eq!(limit.current.unwrap_or(u64::MAX), raised);
        assert!(raised >= 1);
    }

    #[test]
    fn a_fifo_is_made_and_sync_file_system_runs() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        make_fifo(&fifo).unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        sync_file_system(&File::open(dir.path()).unwrap()).unwrap();
    }
}
