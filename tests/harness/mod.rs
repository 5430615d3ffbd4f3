//! The test harness: a workspace in a temporary directory, the real `brief` binary run
//! in it, and the session steps the tests repeat, each written once.
//!
//! ```ignore
//! let ws = Workspace::new().brief("clinic").with_session(&["--framework-tools"]);
//! let s = ws.session("s");
//! s.user("Book Ada for Tuesday.");
//! let status = s.status();
//! ```
//!
//! Everything runs the real binary (`crate::common::brief`); nothing here knows what a
//! test expects.
#![allow(dead_code)]

pub mod command;
pub mod mcp;
pub mod session;
pub mod snapshot;

use std::path::{Path, PathBuf};

pub use command::{
    BriefCommand, Ran, argv, argv_then, assert_exit, assert_stderr_has, assert_stdout_has,
    object_keys, ok, ran,
};
pub use session::{Session, envelope, new_session, session};

use crate::common::{copy_dir, fixtures};

/// A temporary directory the test works in, removed when it is dropped.
pub struct Workspace {
    dir: tempfile::TempDir,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

impl Workspace {
    /// An empty workspace.
    pub fn new() -> Workspace {
        Workspace {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// With a copy of `fixtures/briefs/<name>` as `./<name>`.
    pub fn brief(self, name: &str) -> Workspace {
        copy_dir(
            &fixtures().join("briefs").join(name),
            &self.dir.path().join(name),
        );
        self
    }

    /// With a file written at `path` (folders made as needed).
    pub fn file(self, path: &str, text: &str) -> Workspace {
        let target = self.dir.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text).unwrap();
        self
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, path: &str) -> PathBuf {
        self.dir.path().join(path)
    }

    /// `brief ARGS` in the workspace, waited for.
    pub fn run(&self, args: &[&str]) -> Ran {
        ran(self.root(), args)
    }

    /// `brief ARGS` that must exit 0: its stdout without the final newline.
    pub fn ok(&self, args: &[&str]) -> String {
        ok(self.root(), args)
    }

    /// With the session `s` started on the clinic brief (see `Session::start`); needs
    /// `.brief("clinic")` first.
    pub fn with_session(self, extra: &[&str]) -> Workspace {
        session(self.root()).start(extra);
        self
    }

    /// `Workspace::new().brief("clinic").with_session(extra)`: the start of most session
    /// tests.
    pub fn clinic_session(extra: &[&str]) -> Workspace {
        Workspace::new().brief("clinic").with_session(extra)
    }

    /// The session named `name` in this workspace (started or not).
    pub fn session<'a>(&'a self, name: &'a str) -> Session<'a> {
        Session::named(self.root(), name)
    }
}
