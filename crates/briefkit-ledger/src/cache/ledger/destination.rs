//! Where a process's ledger rows go: the JSON-lines file of one machine, or a fleet's
//! ClickHouse table (through the local spool, see [`super::clickhouse`]).
//!
//! `--ledger` / `BRIEF_LEDGER` name either. A `clickhouse://` URL is ClickHouse; an
//! `http(s)://` URL is ClickHouse when `--ledger-format clickhouse` (or
//! `BRIEF_LEDGER_FORMAT=clickhouse`) says so, and refused otherwise rather than taken for a
//! file name; anything else is a file.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::clickhouse::{self, Target};
use super::sink::Sinks;
use super::{Entry, FILE_NAME};
use crate::error::{Error, Result};

/// The environment variable `--ledger-format` falls back to.
pub const FORMAT_VAR: &str = "BRIEF_LEDGER_FORMAT";

/// How to read the `--ledger` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON-lines file.
    Jsonl,
    /// A ClickHouse table over HTTP.
    ClickHouse,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "jsonl" | "file" => Ok(Format::Jsonl),
            "clickhouse" => Ok(Format::ClickHouse),
            _ => Err(format!(
                "unknown ledger format `{}` (jsonl or clickhouse)",
                crate::text::sanitize::one_line(text, 40)
            )),
        }
    }
}

/// Where rows go.
#[derive(Debug, Clone, PartialEq)]
pub enum Destination {
    File(PathBuf),
    ClickHouse(Box<Target>),
}

impl Destination {
    /// The flag, else a non-empty `BRIEF_LEDGER`, else `usage.jsonl` in the user's state
    /// directory; read as `format` says, else as `BRIEF_LEDGER_FORMAT` says, else by its
    /// shape.
    pub fn resolve(flag: Option<&OsStr>, format: Option<Format>) -> Result<Destination> {
        let format = match format {
            Some(format) => Some(format),
            None => std::env::var(FORMAT_VAR)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(|v| v.parse::<Format>())
                .transpose()
                .map_err(|e| Error::input(format!("{FORMAT_VAR}: {e}")))?,
        };
        let value = flag
            .map(OsStr::to_os_string)
            .or_else(|| std::env::var_os("BRIEF_LEDGER").filter(|v| !v.is_empty()));
        match value {
            Some(value) => Destination::parse(&value, format),
            None if format == Some(Format::ClickHouse) => Err(Error::input(
                "--ledger-format clickhouse: no ClickHouse URL in --ledger or BRIEF_LEDGER",
            )),
            None => Ok(Destination::File(default_file())),
        }
    }

    /// Reads one `--ledger` value.
    pub fn parse(value: &OsStr, format: Option<Format>) -> Result<Destination> {
        let text = value.to_str();
        let scheme = text
            .and_then(|t| t.split_once("://"))
            .map(|(scheme, _)| scheme.to_ascii_lowercase());
        match (scheme.as_deref(), format) {
            (Some("clickhouse"), Some(Format::Jsonl)) => Err(Error::input(
                "--ledger-format jsonl: a clickhouse:// URL is not a file",
            )),
            (Some("clickhouse"), _) | (Some("http" | "https"), Some(Format::ClickHouse)) => {
                let target =
                    Target::parse(text.unwrap_or_default(), |name| std::env::var(name).ok())?;
                Ok(Destination::ClickHouse(Box::new(target)))
            }
            (Some("http" | "https"), _) => Err(Error::input(format!(
                "--ledger {}: an http(s) URL is not a ledger file",
                crate::text::sanitize::one_line(
                    &clickhouse::target::strip_userinfo(text.unwrap_or_default()),
                    200
                )
            ))
            .with_hint(
                "for a ClickHouse server add --ledger-format clickhouse (or \
                 BRIEF_LEDGER_FORMAT=clickhouse), or write clickhouse://…",
            )),
            (_, Some(Format::ClickHouse)) => Err(Error::input(
                "--ledger-format clickhouse needs a ClickHouse URL in --ledger (http(s)://host:8123/database.table)",
            )),
            _ => Ok(Destination::File(PathBuf::from(value))),
        }
    }

    /// What to show of the destination: the file's path, or the table's URL without its
    /// password.
    pub fn display(&self) -> String {
        match self {
            Destination::File(path) => path.display().to_string(),
            Destination::ClickHouse(target) => target.display(),
        }
    }

    pub fn file(&self) -> Option<&Path> {
        match self {
            Destination::File(path) => Some(path),
            Destination::ClickHouse(_) => None,
        }
    }

    /// Before a command's first call: refuses a destination rows could not be written to
    /// (a file that is a link or not a ledger; a spool directory that cannot be made), so
    /// that a call is never made and then lost.
    /// A ClickHouse table's sink is opened in `sinks` then, and used by the calls after.
    pub fn check(&self, sinks: &Sinks) -> Result<()> {
        match self {
            Destination::File(path) => super::check_path(path),
            Destination::ClickHouse(_) => self.open(sinks).map(|_| ()),
        }
    }

    /// Records one row through its [`Sink`](super::sink::Sink) in `sinks`: appended to the
    /// file, or made durable in the spool and handed to the table's background writer for
    /// ClickHouse (never waiting for ClickHouse; `sinks.settle()` gives it its time).
    pub fn record(&self, sinks: &Sinks, entry: &Entry) -> Result<()> {
        self.open(sinks)?.record(entry)
    }
}

/// `usage.jsonl` in the user's state directory (else the temporary directory).
/// The default ledger file when `flag` and `BRIEF_LEDGER` name none and it does not exist
/// yet: the next row is its first, written to a place the user never named, so the caller
/// says where (once: afterwards the file exists).
pub fn new_default_file(flag: Option<&OsStr>) -> Option<PathBuf> {
    let named = flag.is_some() || std::env::var_os("BRIEF_LEDGER").is_some_and(|v| !v.is_empty());
    let path = default_file();
    (!named && std::fs::symlink_metadata(&path).is_err()).then_some(path)
}

pub fn default_file() -> PathBuf {
    crate::paths::state_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("briefkit"))
        .join(FILE_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_by_their_shape_and_the_format() {
        let file = Destination::parse(OsStr::new("usage.jsonl"), None).unwrap();
        assert_eq!(file, Destination::File("usage.jsonl".into()));
        let ch = Destination::parse(OsStr::new("clickhouse://h/db.t"), None).unwrap();
        assert!(matches!(ch, Destination::ClickHouse(_)));
        let http = Destination::parse(OsStr::new("http://h:8123/db.t"), Some(Format::ClickHouse));
        assert!(matches!(http, Ok(Destination::ClickHouse(_))));
        let err =
            Destination::parse(OsStr::new("http://u:pw12345678@h:8123/db.t"), None).unwrap_err();
        assert!(err.message.contains("not a ledger file"), "{}", err.message);
        assert!(!err.message.contains("pw12345678"), "{}", err.message);
        assert!(Destination::parse(OsStr::new("x.jsonl"), Some(Format::ClickHouse)).is_err());
        assert!(Destination::parse(OsStr::new("clickhouse://h/t"), Some(Format::Jsonl)).is_err());
    }
}
