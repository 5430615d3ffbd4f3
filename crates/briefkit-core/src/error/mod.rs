//! The one error type of the toolkit, and the one place where errors become exit codes.
//!
//! Scripts and CI depend on the exit codes, so they are decided here and nowhere else:
//! 0 ok, 1 check failed or guard flagged, 2 bad usage or input, 3 provider failure,
//! 4 conflict, 70 internal error (a bug in briefkit, never the user's input), 130
//! interrupted (Ctrl-C, as shells report a process stopped by SIGINT).
//!
//! An error carries what a renderer needs to show it in every output format: a one-line
//! message, the located problems behind it (file, line, column: GitHub annotations and JSON
//! `locations` are made from them), free-text details, a hint, the cause it wraps (the
//! `source` chain) and, for a failed model call, the class of the failure that the usage
//! ledger records as the call's status.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

mod topic;

pub use crate::call_status::CallStatus;
pub use topic::{CountTopic, Origin, Setting, StoreTopic, Topic};

/// What went wrong, in the terms of the exit-code contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A check failed or the guard flagged something (exit 1).
    Failed,
    /// Bad usage or bad input; nothing was written (exit 2).
    Input,
    /// A provider or the network failed; nothing was written (exit 3).
    Provider,
    /// A conflict: a stale proposal, a lock held by another process (exit 4).
    Conflict,
    /// A bug in briefkit itself, e.g. a report that cannot be serialised (exit 70, the
    /// `EX_SOFTWARE` of sysexits.h), so that scripts never mistake it for bad input.
    Internal,
    /// Writing to stdout hit a closed pipe: exit quietly.
    BrokenPipe,
    /// The operator interrupted the command (Ctrl-C) (exit 130).
    Interrupted,
}

impl ErrorKind {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::BrokenPipe => 0,
            ErrorKind::Failed => 1,
            ErrorKind::Input => 2,
            ErrorKind::Provider => 3,
            ErrorKind::Conflict => 4,
            ErrorKind::Internal => 70,
            ErrorKind::Interrupted => 130,
        }
    }

    /// The word used for this kind in JSON (`error.kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Failed => "failed",
            ErrorKind::Input => "input",
            ErrorKind::Provider => "provider",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Internal => "internal",
            ErrorKind::BrokenPipe => "broken_pipe",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// One located problem behind an error: a file, a 1-based line and column (0 when
/// unknown) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Location {
    pub fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Location {
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// `file:line:column`, leaving out what is unknown.
    pub fn position(&self) -> String {
        let file = self.file.display();
        match (self.line, self.column) {
            (0, _) => format!("{file}"),
            (line, 0) => format!("{file}:{line}"),
            (line, column) => format!("{file}:{line}:{column}"),
        }
    }
}

/// What a JSON parser found wrong, without the " at line L column C" it appends: the
/// position goes in a [`Location`], said once as `file:line:column`.
pub fn json_problem(err: &serde_json::Error) -> String {
    let message = err.to_string();
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position(), self.message)
    }
}

type Source = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// An error with a one-line message, the located problems behind it, optional free-text
/// detail lines, a hint telling the user what to do next, and the cause it wraps.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    /// Set when the command already wrote this error into its own `--json` report, so the
    /// CLI does not print a second JSON document.
    pub reported: bool,
    pub message: String,
    /// Problems pinned to a file position, one per line of the text output.
    pub locations: Vec<Location>,
    /// Lines without a position (e.g. the attempts of a retried call).
    pub details: Vec<String>,
    /// (A boxed `str`: every `Result` carries the error's size.)
    pub hint: Option<Box<str>>,
    source: Option<Source>,
    /// What few errors carry, boxed for the same reason.
    about: Option<Box<About>>,
}

#[derive(Debug, Clone, Default)]
struct About {
    topic: Option<Topic>,
    /// For a failed model call: how it ended, as the ledger records it.
    call_status: Option<CallStatus>,
    /// For a failed model call: the HTTP requests it made, retries included.
    attempts: u16,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            reported: false,
            message: message.into(),
            locations: Vec::new(),
            details: Vec::new(),
            hint: None,
            source: None,
            about: None,
        }
    }

    pub fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Input, message)
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    /// A failed model call (exit 3), with the class the ledger records.
    pub fn provider(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Provider, message).with_call_status(CallStatus::Error)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }

    /// The operator interrupted the command (exit 130).
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Interrupted, message)
    }

    /// A bug in briefkit (exit 70): never the user's fault.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
            .with_hint("this is a bug in briefkit; please report it with the command you ran")
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into().into_boxed_str());
        self
    }

    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    pub fn with_locations(mut self, locations: impl IntoIterator<Item = Location>) -> Self {
        self.locations.extend(locations);
        self
    }

    fn about(&mut self) -> &mut About {
        self.about.get_or_insert_with(Box::default)
    }

    /// For a failed model call: how it ended, as the ledger records it.
    pub fn with_call_status(mut self, status: CallStatus) -> Self {
        self.about().call_status = Some(status);
        self
    }

    /// For a failed model call: the HTTP requests it made, retries included.
    pub fn with_attempts(mut self, attempts: u16) -> Self {
        self.about().attempts = attempts;
        self
    }

    pub fn with_topic(mut self, topic: Topic) -> Self {
        self.about().topic = Some(topic);
        self
    }

    /// What the error is about, for the edge's advice.
    pub fn topic(&self) -> Option<&Topic> {
        self.about.as_ref()?.topic.as_ref()
    }

    /// For a failed model call: how it ended (`None` for other errors).
    pub fn call_status(&self) -> Option<&CallStatus> {
        self.about.as_ref()?.call_status.as_ref()
    }

    /// For a failed model call: the HTTP requests it made (0: none known).
    pub fn attempts(&self) -> u16 {
        self.about.as_ref().map_or(0, |about| about.attempts)
    }

    /// Wraps the cause of this error, kept for [`std::error::Error::source`].
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// Marks the error as already written into the command's `--json` report.
    pub fn reported(mut self) -> Self {
        self.reported = true;
        self
    }

    /// The messages of the causes this error wraps, outermost first, leaving out any that
    /// the message (or an earlier cause) already says, in any letter case and without the
    /// operating system's `(os error N)`.
    pub fn causes(&self) -> Vec<String> {
        let said = |text: &str, within: &str| {
            let bare = text
                .rsplit_once(" (os error ")
                .map_or(text, |(words, _)| words)
                .to_lowercase();
            within.to_lowercase().contains(&bare)
        };
        let mut out: Vec<String> = Vec::new();
        let mut current = std::error::Error::source(self);
        while let Some(cause) = current {
            let text = cause.to_string();
            if !text.is_empty()
                && !said(&text, &self.message)
                && !out.iter().any(|earlier| said(&text, earlier))
            {
                out.push(text);
            }
            current = cause.source();
        }
        out
    }

    /// An I/O error on a named path. Reading or writing a user's file failing is reported
    /// as bad input (exit 2): the operator has to fix the path or its permissions.
    pub fn io(path: &Path, err: &std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return Self::new(ErrorKind::BrokenPipe, "broken pipe");
        }
        let what = match err.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            std::io::ErrorKind::IsADirectory => "a directory, not a file".to_string(),
            std::io::ErrorKind::AlreadyExists => "already exists".to_string(),
            std::io::ErrorKind::NotADirectory => {
                "a part of this path is a file, not a directory".to_string()
            }
            _ => err.to_string(),
        };
        // The message says it in plain words; the error itself is kept as the cause (the
        // OS's own wording is shown only where it says more, see `causes`).
        Self::input(format!("{}: {what}", path.display())).with_source(io_copy(err))
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

/// An owned copy of an I/O error, for a cause: the OS error itself when there is one.
fn io_copy(err: &std::io::Error) -> std::io::Error {
    match err.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(err.kind(), err.to_string()),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            Self::new(ErrorKind::BrokenPipe, "broken pipe")
        } else {
            Self::input(err.to_string()).with_source(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_have_their_own_exit_code() {
        let codes: Vec<u8> = [
            ErrorKind::Failed,
            ErrorKind::Input,
            ErrorKind::Provider,
            ErrorKind::Conflict,
            ErrorKind::Internal,
        ]
        .iter()
        .map(|k| k.exit_code())
        .collect();
        assert_eq!(codes, [1, 2, 3, 4, 70]);
    }

    #[test]
    fn an_io_error_keeps_its_cause_and_shows_it_only_where_it_says_more() {
        let path = Path::new("x.md");
        let missing = Error::io(path, &std::io::Error::from_raw_os_error(libc::ENOENT));
        assert_eq!(missing.message, "x.md: no such file or directory");
        let source = std::error::Error::source(&missing).map(ToString::to_string);
        assert!(source.unwrap().contains("os error 2"));
        assert!(missing.causes().is_empty(), "the message says it already");
        let dir = Error::io(path, &std::io::Error::from_raw_os_error(libc::EISDIR));
        assert_eq!(dir.causes(), ["Is a directory (os error 21)"]);
        let exists = Error::io(path, &std::io::Error::from_raw_os_error(libc::EEXIST));
        assert_eq!(exists.message, "x.md: already exists");
        let other = Error::io(path, &std::io::Error::other("disk on fire"));
        assert_eq!(other.message, "x.md: disk on fire");
        assert!(other.causes().is_empty());
    }

    #[test]
    fn interrupted_is_exit_130() {
        let err = Error::interrupted("stopped");
        assert_eq!(err.exit_code(), 130);
        assert_eq!(err.kind.as_str(), "interrupted");
    }

    #[test]
    fn the_source_chain_is_kept_and_not_repeated() {
        let io = std::io::Error::other("disk on fire");
        let err = Error::input("cannot write x").with_source(io);
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("disk on fire"));
        assert_eq!(err.causes(), ["disk on fire"]);
        let said = Error::input("cannot write x: disk on fire")
            .with_source(std::io::Error::other("disk on fire"));
        assert!(said.causes().is_empty());
    }

    #[test]
    fn a_provider_error_says_how_the_call_ended() {
        assert_eq!(Error::provider("x").call_status(), Some(&CallStatus::Error));
        let err = Error::provider("x")
            .with_call_status(CallStatus::Http(429))
            .with_attempts(3);
        assert_eq!(err.call_status(), Some(&CallStatus::Http(429)));
        assert_eq!(err.attempts(), 3);
        assert_eq!(Error::input("x").call_status(), None);
    }

    /// Every `Result` carries the error: it stays small enough for clippy's
    /// `result_large_err` (128 bytes).
    #[test]
    fn the_error_stays_small() {
        assert!(
            std::mem::size_of::<Error>() < 128,
            "{}",
            std::mem::size_of::<Error>()
        );
    }
}
