//! Regressions from the adversarial run of the runtime (issue 21): FIFOs and links planted
//! in a session directory hung 13 of 15 session commands (a FIFO `log.jsonl` was reported
//! as missing), temporary files a killed writer left were never swept, and the log had no
//! limit. Every command runs bounded (`common::bounded`).

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::bounded::{bounded, bounded_env, mkfifo, refused, session_root};
use crate::common::stderr;
use crate::harness::{argv, assert_exit};

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
            argv(
                "session turn s --user hi --provider openai --model m --base-url http://127.0.0.1:9/v1",
            ),
            &[".lock", ".cache.json", "turn-op_7.json"],
        ),
        (
            argv(
                "session compact s --resume 'go on' --provider openai --model m --base-url http://127.0.0.1:9/v1",
            ),
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
    assert_exit(&out, 0);
    for name in orphans {
        assert!(!dir.join(name).exists(), "{name} was left");
    }
    assert!(dir.join(".notes").exists());
    // Reading commands take no lock and remove nothing.
    fs::write(dir.join(orphans[0]), "x").unwrap();
    let out = bounded(ws.path(), &["session", "status", "s"], None);
    assert_exit(&out, 0);
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
