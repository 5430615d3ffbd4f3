//! Shared helpers for the integration tests: the real binary, fixtures copied into a
//! temporary directory, and output made stable for snapshots.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The real `brief` binary, without colour and without the caller's colour settings.
pub fn brief() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_brief"));
    // Nothing of the developer's own setup reaches a test: every `BRIEF_*` setting, every
    // provider address (`*_BASE_URL`) and every key.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("BRIEF_")
            || name.ends_with("_BASE_URL")
            || name.ends_with("_API_KEY")
            || name.starts_with("HEADROOM_")
        {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        // The user's state directory (ledger, CCR store) is never the developer's own.
        .env(
            "XDG_STATE_HOME",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-state"),
        )
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["--color", "never"]);
    cmd
}

/// Runs `brief ARGS` in `dir` and waits for it.
pub fn run_in(dir: impl AsRef<Path>, args: &[&str]) -> std::process::Output {
    brief()
        .current_dir(dir.as_ref())
        .args(args)
        .output()
        .unwrap()
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary directory holding a copy of `fixtures/briefs/<name>` as `./<name>`.
pub fn workspace(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &fixtures().join("briefs").join(name),
        &dir.path().join(name),
    );
    dir
}

/// Every file below `dir` with its bytes, to prove a command wrote nothing.
pub fn snapshot_tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).unwrap_or_default();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

pub fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}
pub mod bounded;
pub mod browser;
pub mod clickhouse;
pub mod pairs;
pub mod proxy;
pub mod server;
pub mod store;
pub mod traffic;
