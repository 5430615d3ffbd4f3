//! Running the real binary: the settings a test workspace gives every command, a model
//! served on loopback, and what came back (exit code, stdout, stderr, JSON).

use std::ops::Deref;
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::brief;
use crate::loopback::Server;

/// The model name every loopback test asks for.
pub const TEST_MODEL: &str = "test-model";

/// What `brief` wrote and how it exited. Derefs to the `Output` for older tests.
pub struct Ran(pub Output);

impl Ran {
    pub fn code(&self) -> Option<i32> {
        self.0.status.code()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8(self.0.stdout.clone()).unwrap()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8(self.0.stderr.clone()).unwrap()
    }

    /// Stdout as one JSON document.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.0.stdout).expect("stdout is one JSON document")
    }

    /// Exit code and stderr, the pair a refusal is checked by.
    pub fn refused(&self) -> (Option<i32>, String) {
        (self.code(), self.stderr())
    }

    /// Asserts exit 0 (naming `what` and stderr otherwise) and gives stdout.
    pub fn success(&self, what: &str) -> String {
        assert_eq!(self.code(), Some(0), "{what}: {}", self.stderr());
        self.stdout()
    }
}

impl Deref for Ran {
    type Target = Output;
    fn deref(&self) -> &Output {
        &self.0
    }
}

impl From<Output> for Ran {
    fn from(output: Output) -> Ran {
        Ran(output)
    }
}

/// `brief ARGS` in `root`, waited for.
pub fn ran(root: &Path, args: &[&str]) -> Ran {
    Ran(brief().current_dir(root).args(args).output().unwrap())
}

/// `brief ARGS` in `root` that must exit 0: its stdout without the final newline.
pub fn ok(root: &Path, args: &[&str]) -> String {
    ran(root, args)
        .success(&format!("{args:?}"))
        .trim_end()
        .to_string()
}

/// `{server}/v1`: the base URL the OpenAI-shaped wires are served at.
pub fn v1(server: &Server) -> String {
    format!("{}/v1", server.url())
}

/// The settings a workspace test gives a command, as methods on the real binary's command.
pub trait BriefCommand {
    /// Runs in `root` with its state (`XDG_STATE_HOME`) and ledger kept inside it.
    fn in_workspace(&mut self, root: &Path) -> &mut Self;
    /// `--provider PROVIDER --model test-model --base-url BASE_URL`.
    fn model_at(&mut self, provider: &str, base_url: &str) -> &mut Self;
    /// Waits for it.
    fn ran(&mut self) -> Ran;
}

impl BriefCommand for Command {
    fn in_workspace(&mut self, root: &Path) -> &mut Self {
        self.current_dir(root)
            .env("XDG_STATE_HOME", root.join("state"))
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
    }

    fn model_at(&mut self, provider: &str, base_url: &str) -> &mut Self {
        self.args(["--provider", provider, "--model", TEST_MODEL])
            .args(["--base-url", base_url])
    }

    fn ran(&mut self) -> Ran {
        Ran(self.output().unwrap())
    }
}

/// `brief` in `root` (state and ledger inside it) with `args` and an OpenAI model on `server`.
pub fn with_openai(root: &Path, server: &Server, args: &[&str]) -> Command {
    let mut cmd = brief();
    cmd.in_workspace(root)
        .args(args)
        .model_at("openai", &v1(server));
    cmd
}

/// A command line written as it is typed: words split at white space, a word in single
/// quotes kept whole (`session turn s --user 'Any slot?' --json`). There is no escaping:
/// an argument holding a single quote goes in `argv_then`'s `rest`.
pub fn argv(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut left = line.trim_start();
    while !left.is_empty() {
        let (word, after) = match left.strip_prefix('\'') {
            Some(quoted) => {
                let end = quoted.find('\'').expect("a closing quote");
                (&quoted[..end], &quoted[end + 1..])
            }
            None => left.split_at(left.find(char::is_whitespace).unwrap_or(left.len())),
        };
        words.push(word);
        left = after.trim_start();
    }
    words
}

/// `argv(line)` followed by `rest`: the arguments computed at run time.
pub fn argv_then<'a>(line: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut words = argv(line);
    words.extend_from_slice(rest);
    words
}

/// Asserts that a command exited with `code`, showing its stderr when it did not.
#[track_caller]
pub fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The keys of a JSON object in their order: what a report's shape is checked by.
pub fn object_keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .expect("a JSON object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// The rows of the ledger `in_workspace` gives a command (`ROOT/ledger.jsonl`); none when
/// nothing was recorded.
pub fn ledger_rows(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Asserts that a command's stderr contains `needle`, showing the stderr when it does not.
#[track_caller]
pub fn assert_stderr_has(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(needle), "{stderr}");
}

/// Asserts that a command's stdout contains `needle`, showing the stdout when it does not.
#[track_caller]
pub fn assert_stdout_has(output: &Output, needle: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains(needle), "{stdout}");
}

/// The text field `key` of every object in the JSON array `items`.
pub fn field_strs<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .expect("a JSON array")
        .iter()
        .map(|item| item[key].as_str().expect("a text field"))
        .collect()
}

/// The clinic brief naming `server` as its model's base URL.
pub fn brief_naming(root: &Path, server: &Server) {
    let manifest = root.join("clinic/brief.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!(
            "{text}model: {{ provider: openai, name: brief-model, base_url: \"{}/v1\" }}\n",
            server.url()
        ),
    )
    .unwrap();
}

/// `brief ARGS` in `root`, with `root/state` as the XDG state folder and retries 1 ms apart.
pub fn run_with_state(root: &Path, args: &[&str]) -> Output {
    brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(args)
        .output()
        .unwrap()
}

/// The state a scripted compaction model answers with.
pub fn compacted_state() -> String {
    serde_json::json!({
        "project_summary": "Booking Ada.", "established_context": [], "key_decisions": [],
        "completed_tasks": [], "current_tasks": ["book 2026-12-01"], "blockers": [],
        "affected_files": []
    })
    .to_string()
}
