//! The one error type of the toolkit, and the one place where errors become exit codes.
//!
//! Scripts and CI depend on the exit codes, so they are decided here and nowhere else:
//! 0 ok, 1 check failed or guard flagged, 2 bad usage or input, 3 provider failure,
//! 4 conflict.

use std::fmt;
use std::path::Path;

/// What went wrong, in the terms of the exit-code contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A check failed or the guard flagged something (exit 1).
    Failed,
    /// Bad usage or bad input; nothing was written (exit 2).
    Input,
    /// A provider or the network failed; nothing was written (exit 3).
    Provider,
    /// A conflict: a stale proposal, a lock held by another process (exit 4).
    Conflict,
    /// Writing to stdout hit a closed pipe: exit quietly.
    BrokenPipe,
}

impl ErrorKind {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::BrokenPipe => 0,
            ErrorKind::Failed => 1,
            ErrorKind::Input => 2,
            ErrorKind::Provider => 3,
            ErrorKind::Conflict => 4,
        }
    }
}

/// An error with a one-line message, optional detail lines (one per problem) and a hint
/// telling the user what to do next.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub details: Vec<String>,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            details: Vec::new(),
            hint: None,
        }
    }

    pub fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Input, message)
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    pub fn provider(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Provider, message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
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
            std::io::ErrorKind::NotADirectory => {
                "a part of this path is a file, not a directory".to_string()
            }
            _ => err.to_string(),
        };
        Self::input(format!("{}: {what}", path.display()))
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            Self::new(ErrorKind::BrokenPipe, "broken pipe")
        } else {
            Self::input(err.to_string())
        }
    }
}
