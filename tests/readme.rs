//! The README's "Your first brief in ten minutes" runs as written: its shell block is taken
//! from README.md and run by bash in an empty directory, with the `brief` under test first on
//! PATH and a loopback OpenAI-compatible server where the README names a local one. The
//! only lines not run are `cargo install` (the binary under test stands in for the
//! installed one); the only text changed is the server's address.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::server::{Reply, Server};

const SECTION: &str = "## Your first brief in ten minutes";
/// The local server's address as the README writes it.
const README_BASE_URL: &str = "http://localhost:11434/v1";

/// The first ```sh block under `heading` in the README.
fn shell_block(readme: &str, heading: &str) -> String {
    let section = &readme[readme.find(heading).expect("the README has the walk")..];
    let start = section.find("```sh\n").expect("the walk has a shell block") + "```sh\n".len();
    let end = section[start..].find("\n```").expect("the block ends") + start;
    section[start..end].to_string()
}

/// Runs `script` with bash in `dir`, with the binary under test on PATH and none of the
/// developer's own brief settings, provider addresses or keys.
fn run_walk(dir: &Path, script: &str) -> std::process::Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_brief"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.args(["-e", "-o", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("XDG_STATE_HOME", dir.join("state"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("BRIEF_") || name.ends_with("_BASE_URL") || name.ends_with("_API_KEY") {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.output().unwrap()
}

#[test]
fn the_readme_ten_minute_walk_runs_as_written_against_a_local_server() {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = shell_block(&readme, SECTION);
    assert!(
        block.contains(README_BASE_URL),
        "the walk names the local server {README_BASE_URL}:\n{block}"
    );
    for step in [
        "brief import",
        "brief lock",
        "brief compress",
        "brief review",
        "brief accept",
        "brief check",
    ] {
        assert!(block.contains(step), "the walk has `{step}`:\n{block}");
    }
    // The model's shorter body: the filler words gone, every fact and instruction kept.
    let server = Server::start(Reply::Text(
        "## Tracking\n\nWhen a customer asks where a parcel is, look it up with the tracking \
         number first. A parcel that has not moved for 5 days is likely delayed.\n"
            .into(),
    ));
    let script: String = block
        .lines()
        .filter(|line| !line.trim_start().starts_with("cargo install"))
        .map(|line| line.replace(README_BASE_URL, &server.base_url))
        .collect::<Vec<_>>()
        .join("\n");
    let ws = tempfile::tempdir().unwrap();
    let out = run_walk(ws.path(), &script);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the walk failed:\n{script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    // One model call, and no key anywhere in it.
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(requests[0].path.ends_with("/chat/completions"));
    // The accept said what comes next, and the walk's last command passed after it.
    assert!(
        stderr.contains("next: brief lock desk ("),
        "accept names the lock as the next step:\n{stderr}"
    );
    let item = fs::read_to_string(ws.path().join("desk/items/tracking.md")).unwrap();
    assert!(
        !item.contains("please look"),
        "the proposal landed:\n{item}"
    );
    let limits = fs::read_to_string(ws.path().join("desk/items/limits.md")).unwrap();
    assert!(limits.contains("type: rule"), "{limits}");
}
