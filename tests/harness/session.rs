//! A session in a workspace and the steps tests take on it: start it on the clinic
//! brief, append each kind of entry, read its status, log and renders.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::command::{Ran, ok, ran};

/// The session `s` in `root`: the one most tests use.
pub fn session(root: &Path) -> Session<'_> {
    Session::named(root, "s")
}

/// Starts the session `s` on the clinic brief (its two variables set) with `extra` flags.
pub fn new_session(root: &Path, extra: &[&str]) -> PathBuf {
    session(root).start(extra);
    root.join("s")
}

/// A session by name; its commands run in `root`.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    root: &'a Path,
    name: &'a str,
}

impl<'a> Session<'a> {
    pub fn named(root: &'a Path, name: &'a str) -> Session<'a> {
        Session { root, name }
    }

    pub fn name(&self) -> &str {
        self.name
    }

    /// `session new NAME --brief clinic` with the clinic brief's variables and `extra`.
    pub fn start(self, extra: &[&str]) -> Session<'a> {
        let mut args = vec!["session", "new", self.name, "--brief", "clinic"];
        args.extend(["--var", "patient=Ada", "--var", "last_visit=2026-10-01"]);
        args.extend_from_slice(extra);
        ran(self.root, &args).success("session new");
        self
    }

    /// `session SUBCOMMAND NAME ARGS`, whatever it exits with.
    pub fn run(&self, subcommand: &str, args: &[&str]) -> Ran {
        let mut all = vec!["session", subcommand, self.name];
        all.extend_from_slice(args);
        ran(self.root, &all)
    }

    /// `session SUBCOMMAND NAME ARGS` that must exit 0: its stdout, trimmed at the end.
    pub fn ok(&self, subcommand: &str, args: &[&str]) -> String {
        let mut all = vec!["session", subcommand, self.name];
        all.extend_from_slice(args);
        ok(self.root, &all)
    }

    /// `session SUBCOMMAND NAME ARGS --json` read as JSON, whatever it exits with.
    pub fn json(&self, subcommand: &str, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        self.run(subcommand, &all).json()
    }

    /// `session append NAME ARGS`, whatever it exits with.
    pub fn append(&self, args: &[&str]) -> Ran {
        self.run("append", args)
    }

    /// Appends a user message; gives its id.
    pub fn user(&self, text: &str) -> String {
        self.ok("append", &["--user", text])
    }

    /// Appends an assistant message; gives its id.
    pub fn assistant(&self, text: &str) -> String {
        self.ok("append", &["--assistant", text])
    }

    /// Appends a call of `tool` with the JSON `args`; gives its id.
    pub fn tool_call(&self, tool: &str, args: &str) -> String {
        self.ok("append", &["--tool-call", tool, "--args", args])
    }

    /// Appends the result of the call `call`; gives its id.
    pub fn tool_result(&self, call: &str, text: &str) -> String {
        self.ok("append", &["--tool-result", call, "--text", text])
    }

    /// `session status NAME --json`.
    pub fn status(&self) -> Value {
        self.json("status", &[])
    }

    /// `session log NAME --json`.
    pub fn log(&self) -> Value {
        self.json("log", &[])
    }

    /// `session render NAME --format FORMAT`, which must exit 0, as JSON.
    pub fn render(&self, format: &str) -> Value {
        serde_json::from_str(&self.ok("render", &["--format", format])).unwrap()
    }
}

/// A completed sub-agent envelope with one high-confidence finding, citing `url`.
pub fn envelope(summary: &str, finding: &str, evidence: &str, url: &str) -> String {
    serde_json::json!({
        "status": "completed",
        "summary": summary,
        "findings": [{"finding": finding, "evidence": evidence, "confidence": "high"}],
        "sources": [url],
    })
    .to_string()
}
