//! Running the real binary where a defect once hung or grew without bound: with a
//! timeout (a hang fails the test instead of blocking CI) and under an address-space limit
//! (growing past it fails the command instead of the machine).

use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use super::stderr;
use crate::harness::new_session;

/// Far above what any fixed command needs, far below what reading a device or a 1000 MiB
/// file whole would take.
const ADDRESS_SPACE: u64 = 1024 * 1024 * 1024;

/// Long enough for a loaded CI machine, short enough that a hang fails the run.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The real binary with the test defaults of `common::brief`, a timeout and an
/// address-space limit; stdin is `stdin` (closed when `None`).
pub fn bounded(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    run(dir, args, stdin, &[])
}

pub fn bounded_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    run(dir, args, None, env)
}

pub fn run(dir: &Path, args: &[&str], stdin: Option<&Path>, env: &[(&str, &str)]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_brief"));
    cmd.current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("BRIEF_LEDGER")
        .env_remove("BRIEF_CCR_PATH")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env("XDG_STATE_HOME", dir.join("state"))
        .envs(env.iter().copied())
        .args(["--color", "never"])
        .args(args);
    cmd.stdin(match stdin {
        Some(path) => Stdio::from(fs::File::open(path).unwrap()),
        None => Stdio::null(),
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("brief {args:?} did not finish within {TIMEOUT:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

pub fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0, "{path:?}");
}

/// Exit 2 with every `words` in stderr; a killed (timed-out or out-of-memory) run has no
/// exit code and fails here.
pub fn refused(out: &Output, what: &str, words: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    for word in words {
        assert!(err.contains(word), "{what}: `{word}` not in {err}");
    }
}

pub fn session_root() -> (tempfile::TempDir, PathBuf) {
    let ws = crate::common::workspace("clinic");
    let dir = new_session(ws.path(), &["--context-limit", "100000"]);
    let out = bounded(
        ws.path(),
        &["session", "append", "s", "--user", "hello"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (ws, dir)
}
