//! Regressions from the adversarial run of the runtime (issue 21), through the real binary:
//! inputs without a limit, FIFOs that hang a reader, quadratic YAML outside briefs, files
//! planted in a session, a CCR store that wrote to files it refused. Each test is named
//! after what broke.
//!
//! Commands that once hung or grew without bound run with a timeout (a hang fails the test
//! instead of blocking CI) and under an address-space limit (growing past it fails the
//! command instead of the machine).

use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{stderr, stdout};
use crate::session::new_session;

/// Far above what any fixed command needs, far below what reading a device or a 1000 MiB
/// file whole would take.
const ADDRESS_SPACE: u64 = 1024 * 1024 * 1024;

/// Long enough for a loaded CI machine, short enough that a hang fails the run.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The real binary with the test defaults of `common::brief`, a timeout and an
/// address-space limit; stdin is `stdin` (closed when `None`).
fn bounded(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    run(dir, args, stdin, &[])
}

fn bounded_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    run(dir, args, None, env)
}

fn run(dir: &Path, args: &[&str], stdin: Option<&Path>, env: &[(&str, &str)]) -> Output {
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

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0, "{path:?}");
}

/// Exit 2 with every `words` in stderr; a killed (timed-out or out-of-memory) run has no
/// exit code and fails here.
fn refused(out: &Output, what: &str, words: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    for word in words {
        assert!(err.contains(word), "{what}: `{word}` not in {err}");
    }
}

fn session_root() -> (tempfile::TempDir, PathBuf) {
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

#[test]
fn reads_without_a_size_limit_refuse_devices_and_fifos_at_once() {
    let (ws, _) = session_root();
    let root = ws.path();
    mkfifo(&root.join("pipe"));
    for source in ["/dev/zero", "pipe"] {
        let cases: [(&str, Vec<&str>); 8] = [
            (
                "session append --file",
                vec![
                    "session",
                    "append",
                    "s",
                    "--tool-result",
                    "msg_1",
                    "--file",
                    source,
                ],
            ),
            (
                "session append --subagent",
                vec!["session", "append", "s", "--subagent", "msg_1", source],
            ),
            ("ccr put", vec!["ccr", "put", source]),
            ("digest", vec!["digest", source]),
            ("guard", vec!["guard", source, source]),
            ("import", vec!["import", source, "out"]),
            ("compact FILE", vec!["compact", source]),
            ("align", vec!["align", source]),
        ];
        for (what, args) in cases {
            let out = bounded(root, &args, None);
            let kind = if source == "pipe" {
                "a FIFO"
            } else {
                "a device"
            };
            refused(
                &out,
                &format!("{what} {source}"),
                &[kind, "not a regular file"],
            );
        }
    }
    assert!(!root.join("out").exists());
    assert!(!root.join("state/briefkit/ccr.sqlite").exists());
}

#[test]
fn stdin_is_read_up_to_its_documented_limit_then_refused() {
    let (ws, _) = session_root();
    let root = ws.path();
    let zero = Path::new("/dev/zero");
    let cases: [(&str, Vec<&str>, &str); 4] = [
        (
            "ccr put -",
            vec!["ccr", "put", "-"],
            "the 64 MiB limit for a CCR original",
        ),
        (
            "session append --user -",
            vec!["session", "append", "s", "--user", "-"],
            "the 16 MiB limit for a session entry",
        ),
        (
            "guard - FILE",
            vec!["guard", "-", "s/session.yaml"],
            "the 16 MiB limit for a text file",
        ),
        (
            "align -",
            vec!["align", "-"],
            "the 32 MiB limit for a request body",
        ),
    ];
    for (what, args, limit) in cases {
        let out = bounded(root, &args, Some(zero));
        refused(&out, what, &["<stdin>", limit]);
    }
    // A redirected file is refused by its size, before it is read.
    let big = root.join("big.txt");
    fs::File::create(&big)
        .unwrap()
        .set_len(17 * 1024 * 1024)
        .unwrap();
    let out = bounded(root, &["session", "append", "s", "--user", "-"], Some(&big));
    refused(&out, "a redirected file", &["refused before reading it"]);
}

#[test]
fn a_ccr_put_of_1000_mib_is_refused_before_reading_by_the_documented_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("huge.log");
    // Sparse: 1000 MiB long, nothing on disk.
    fs::File::create(&big)
        .unwrap()
        .set_len(1000 * 1024 * 1024)
        .unwrap();
    let store = dir.path().join("ccr.sqlite");
    let out = bounded(
        dir.path(),
        &["ccr", "put", "huge.log", "--store", "ccr.sqlite"],
        None,
    );
    refused(
        &out,
        "ccr put",
        &[
            "1048576000 bytes is over the 64 MiB limit for a CCR original",
            "refused before reading it",
        ],
    );
    assert!(!store.exists(), "the store was created for a refused put");
    let compressed_too = bounded(
        dir.path(),
        &[
            "ccr",
            "put",
            "--store",
            "ccr.sqlite",
            "--compressed",
            "huge.log",
        ],
        None,
    );
    refused(&compressed_too, "--compressed", &["over the 64 MiB limit"]);
}

#[test]
fn deep_flow_nesting_in_a_digest_or_session_yaml_is_refused_at_once() {
    let (ws, dir) = session_root();
    let root = ws.path();
    // 256k levels: seconds per 64k before the limit, and quadratic.
    let deep = "[".repeat(256 * 1024);
    fs::write(root.join("wake.yaml"), format!("current_task: {deep}\n")).unwrap();
    let out = bounded(root, &["digest", "wake.yaml"], None);
    refused(
        &out,
        "digest",
        &["wake.yaml:1:", "nested deeper than 64 levels"],
    );
    let compose = [
        "compose",
        "clinic",
        "--digest",
        "wake.yaml",
        "--var",
        "patient=Ada",
        "--var",
        "last_visit=2026-10-01",
    ];
    let out = bounded(root, &compose, None);
    refused(&out, "compose --digest", &["nested deeper than 64 levels"]);
    let config = fs::read_to_string(dir.join("session.yaml")).unwrap();
    fs::write(dir.join("session.yaml"), format!("{config}vars: {deep}\n")).unwrap();
    for args in [
        vec!["session", "status", "s"],
        vec!["session", "append", "s", "--user", "hi"],
    ] {
        let out = bounded(root, &args, None);
        refused(
            &out,
            &args.join(" "),
            &["session.yaml:", "nested deeper than 64 levels"],
        );
    }
}

/// Every session command that opens the session, with arguments that succeed on the
/// session `session_root` makes, and the files each one opens besides `session.yaml` and
/// `log.jsonl`.
fn session_commands() -> Vec<(Vec<&'static str>, &'static [&'static str])> {
    const WRITERS: &[&str] = &[".lock", ".cache.json"];
    vec![
        (vec!["session", "status", "s"], &[".cache.json"]),
        (vec!["session", "log", "s"], &[]),
        (vec!["session", "show", "s", "msg_1"], &[]),
        (vec!["session", "render", "s"], &[".cache.json"]),
        (vec!["session", "append", "s", "--user", "hello"], WRITERS),
        (vec!["session", "gate", "s", "--estimate", "10"], WRITERS),
        (vec!["session", "purge", "s", "--ids", "msg_1"], WRITERS),
        // Turns and compactions fail at the model call (nothing listens there) when nothing
        // is refused first.
        (
            vec![
                "session",
                "turn",
                "s",
                "--user",
                "hi",
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            &[".lock", ".cache.json", "turn-op_7.json"],
        ),
        (
            vec![
                "session",
                "compact",
                "s",
                "--resume",
                "go on",
                "--provider",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            WRITERS,
        ),
    ]
}

#[test]
fn fifos_and_links_planted_in_a_session_are_refused_and_name_the_file() {
    // One session, copied for every case (its session.yaml names the brief's absolute path).
    let (ws, _) = session_root();
    let template = ws.path();
    for planted in [
        ".lock",
        ".cache.json",
        "session.yaml",
        "log.jsonl",
        "turn-op_7.json",
    ] {
        for as_link in [false, true] {
            let kind = if as_link { "symbolic link" } else { "a FIFO" };
            for (args, opens) in session_commands() {
                let case = tempfile::tempdir().unwrap();
                let root = case.path();
                let dir = root.join("s");
                crate::common::copy_dir(&template.join("s"), &dir);
                let target = dir.join(planted);
                let _ = fs::remove_file(&target);
                if as_link {
                    fs::write(root.join("elsewhere"), "").unwrap();
                    std::os::unix::fs::symlink(root.join("elsewhere"), &target).unwrap();
                } else {
                    mkfifo(&target);
                }
                let out = bounded_with_key(root, &args);
                let what = format!("{planted} ({kind}): {}", args[..2].join(" "));
                let uses = opens.contains(&planted) || !planted.starts_with(['.', 't']);
                if uses {
                    refused(&out, &what, &[planted, kind]);
                    assert!(
                        !stderr(&out).contains("missing"),
                        "{what}: {}",
                        stderr(&out)
                    );
                } else {
                    // A model call that finds nothing listening: exit 3.
                    let expected = if ["turn", "compact"].contains(&args[1]) {
                        3
                    } else {
                        0
                    };
                    assert_eq!(
                        out.status.code(),
                        Some(expected),
                        "{what}: {}",
                        stderr(&out)
                    );
                }
                assert_eq!(fs::read(root.join("elsewhere")).unwrap_or_default(), b"");
            }
        }
    }
}

/// [`bounded`] with a key in the environment, so that a turn gets as far as its call.
fn bounded_with_key(dir: &Path, args: &[&str]) -> Output {
    bounded_env(
        dir,
        args,
        &[
            ("OPENAI_API_KEY", "sk-test-harden-inputs-0000"),
            ("BRIEF_RETRY_BASE_MS", "1"),
        ],
    )
}

#[test]
fn orphaned_temporary_files_in_a_session_are_swept_under_its_lock() {
    let (ws, dir) = session_root();
    let orphans = [
        "..cache.json.tmp-0a1b2c3d4e5f60718293",
        ".log.jsonl.tmp-4242",
        ".turn-op_3.json.tmp-ffffffffffffffffffff",
    ];
    for name in orphans {
        fs::write(dir.join(name), "left by a killed writer").unwrap();
    }
    fs::write(dir.join(".notes"), "not ours").unwrap();
    let out = bounded(ws.path(), &["session", "append", "s", "--user", "hi"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for name in orphans {
        assert!(!dir.join(name).exists(), "{name} was left");
    }
    assert!(dir.join(".notes").exists());
    // Reading commands take no lock and remove nothing.
    fs::write(dir.join(orphans[0]), "x").unwrap();
    let out = bounded(ws.path(), &["session", "status", "s"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.join(orphans[0]).exists());
}

#[test]
fn a_session_log_over_its_limit_is_refused_before_it_is_read() {
    let (ws, dir) = session_root();
    let log = dir.join("log.jsonl");
    fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .set_len(257 * 1024 * 1024)
        .unwrap();
    let out = bounded(ws.path(), &["session", "log", "s"], None);
    refused(
        &out,
        "session log",
        &["log.jsonl", "over the 256 MiB limit for a session log"],
    );
}

fn sqlite_header_and_size(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap()
}

#[test]
fn a_refused_store_leaves_a_foreign_or_empty_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let foreign = root.join("notes.sqlite");
    let conn = rusqlite::Connection::open(&foreign).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
        .unwrap();
    drop(conn);
    let text = root.join("notes.txt");
    fs::write(&text, "plain text, not a database\n").unwrap();
    for (file, why) in [
        ("notes.sqlite", "another program"),
        ("notes.txt", "not an SQLite database"),
    ] {
        let before = sqlite_header_and_size(&root.join(file));
        for args in [
            vec!["ccr", "get", "ffffffffffffffffffffffff"],
            vec!["ccr", "put", "notes.txt"],
            vec!["ccr", "stats"],
            vec!["ccr", "gc"],
        ] {
            let mut args = args.clone();
            args.extend(["--store", file]);
            let out = bounded(root, &args, None);
            refused(&out, &args.join(" "), &[file, why, "left unchanged"]);
            assert_eq!(sqlite_header_and_size(&root.join(file)), before, "{args:?}");
            for suffix in ["-wal", "-shm", "-journal"] {
                assert!(
                    !root.join(format!("{file}{suffix}")).exists(),
                    "{args:?} made {file}{suffix}"
                );
            }
        }
    }
    // An empty file is no store yet: looking in it changes nothing; a put makes it one.
    let empty = root.join("empty.sqlite");
    fs::write(&empty, "").unwrap();
    let out = bounded(
        root,
        &[
            "ccr",
            "get",
            "ffffffffffffffffffffffff",
            "--store",
            "empty.sqlite",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown"), "{}", stderr(&out));
    for args in [vec!["ccr", "stats"], vec!["ccr", "gc"]] {
        let mut args = args.clone();
        args.extend(["--store", "empty.sqlite"]);
        let out = bounded(root, &args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(
        fs::metadata(&empty).unwrap().len(),
        0,
        "a look-up wrote a store"
    );
    assert!(!root.join("empty.sqlite-wal").exists());
    let out = bounded(
        root,
        &["ccr", "put", "notes.txt", "--store", "empty.sqlite"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hash = stdout(&out).trim().to_string();
    let out = bounded(
        root,
        &["ccr", "get", &hash, "--store", "empty.sqlite"],
        None,
    );
    assert_eq!(stdout(&out), "plain text, not a database\n");
}
