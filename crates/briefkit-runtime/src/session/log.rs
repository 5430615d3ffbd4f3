//! The session's event log, `log.jsonl`: the one source of truth of a session.
//!
//! One JSON object per line, only ever appended, each append written in one `write` and
//! fsynced before it is acknowledged, under an exclusive lock on `.lock` so that many
//! processes can append at once without interleaving and without two entries sharing an
//! id. Purges, compactions and gate decisions are events too: nothing is rewritten.
//!
//! A crash can leave an unacknowledged, unfinished last line. Readers skip it with a
//! warning; the next writer cuts it off before appending (it was never acknowledged, so
//! nothing that anyone was told about is lost). Any other unreadable line is damage,
//! reported with its line number (exit 2).
//!
//! Every file of a session obeys the one file policy ([`crate::files::policy`]), as a
//! brief's files do: a link, a FIFO or a device planted as `log.jsonl`, `.lock`,
//! `session.yaml`, `.cache.json` or a turn journal is refused (exit 2) before it is opened,
//! so nothing hangs or reads elsewhere; the log is held to its limit
//! ([`crate::files::limits::SESSION_LOG`]); and whoever takes the lock sweeps the temporary
//! files a killed writer left.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Location, Result, Topic, json_problem};
use crate::files::limits::SESSION_LOG;
use crate::files::policy;

pub const LOG_FILE: &str = "log.jsonl";
pub const LOCK_FILE: &str = ".lock";

/// What an entry of Tier 2 is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    User,
    Assistant,
    ToolCall,
    ToolResult,
    /// A purge's summary, standing where the first purged entry stood.
    Summary,
    /// A compaction's `CompactedState` JSON.
    State,
    /// A compaction's resume instruction.
    Resume,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::ToolCall => "tool_call",
            Kind::ToolResult => "tool_result",
            Kind::Summary => "summary",
            Kind::State => "state",
            Kind::Resume => "resume",
        }
    }

    /// The visible id's prefix: `msg`, `tool_call` or `tool_res`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Kind::ToolCall => "tool_call",
            Kind::ToolResult => "tool_res",
            _ => "msg",
        }
    }
}

/// One Tier 2 entry as stored; its token count is taken once, when it is appended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub kind: Kind,
    /// The text (a tool call: the canonical JSON of its arguments).
    pub text: String,
    /// Tokens of the entry as the model sees it (with its visible id), brief's tokenizer.
    pub tokens: u64,
    /// A tool call's tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A tool result: the `tool_call_N` it answers. A tool call: the provider's own call
    /// id, when the call came from a model answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Entries appended together from one model answer share a group (the first id), so
    /// a render can put them in one assistant message, as the provider sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Where a tool result's text came from: `text`, `file` or `subagent` (a validated
    /// envelope).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The orchestrator turn (`op_N`) that appended the entry, so that a turn interrupted
    /// after its answer arrived can tell what of it is already in the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// A tool result appended when it did not fit the operation budget: kept whole (the
    /// seed forbids truncating it), and the next model call waits for a purge or a
    /// compaction.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_budget: bool,
}

impl Entry {
    /// The tool call's arguments as JSON (an object).
    pub fn arguments(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Object(Default::default()))
    }
}

/// A budget-gate decision about one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub op: String,
    pub kind: String,
    pub estimate: u64,
    pub high_volume: bool,
    /// `ok` or `blocked`.
    pub outcome: String,
    /// The estimate as the gate took it (conservative from 90% for tools and sub-agents).
    pub effective_estimate: u64,
    pub current_context_tokens: u64,
    pub available_operation_tokens: u64,
    /// The tool call this operation runs (a turn's call handed back, or a sub-agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Why it was blocked: `insufficient_budget`, `critical_high_volume` or `over_budget`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One line of `log.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// New Tier 2 entries, in order.
    Append { at: String, entries: Vec<Entry> },
    /// Entries leave Tier 2; an optional summary takes the first one's place.
    Purge {
        at: String,
        ids: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<Entry>,
        /// Where the originals are also kept, when a CCR store was available.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ccr: Option<String>,
        /// The live entry the summary stands before (`None`: at the end). Logs written
        /// before this field place it by [`super::flow::summary_position`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<String>,
    },
    /// All of Tier 2 leaves; the state and the resume instruction become the new Tier 2.
    Compact {
        at: String,
        ids: Vec<String>,
        state: Entry,
        resume: Entry,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ccr: Option<String>,
    },
    /// A gate decision (a new operation, or a pending one checked again).
    Gate {
        at: String,
        #[serde(flatten)]
        record: GateRecord,
    },
}

/// The log's lines, read and checked.
#[derive(Debug, Default)]
pub struct LogContents {
    pub events: Vec<Event>,
    /// A torn last line was skipped.
    pub torn: bool,
    /// Bytes up to the end of the last complete line.
    pub complete_len: u64,
}

/// Reads and parses the whole log. A torn last line is skipped (`torn`); any other line
/// that is not a valid event is an input error naming its line.
pub fn read(path: &Path) -> Result<LogContents> {
    let bytes = policy::read_owned(path, SESSION_LOG)?.ok_or_else(|| missing(path))?;
    parse(path, &bytes)
}

/// The error for a session file that is not there.
pub fn missing(path: &Path) -> Error {
    Error::io(path, &std::io::Error::from(std::io::ErrorKind::NotFound))
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<LogContents> {
    let mut out = LogContents::default();
    let mut damage = Vec::new();
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let end = match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(n) => start + n,
            None => {
                out.torn = true;
                break;
            }
        };
        let line = &bytes[start..end];
        start = end + 1;
        out.complete_len = start as u64;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            damage.push(Location::new(path, line_no, 1, "an empty line"));
            continue;
        }
        match serde_json::from_slice::<Event>(line) {
            Ok(event) => out.events.push(event),
            Err(err) => damage.push(Location::new(
                path,
                line_no,
                err.column().max(1),
                json_problem(&err),
            )),
        }
    }
    if !damage.is_empty() {
        let n = damage.len();
        return Err(Error::input(format!(
            "{}: {n} damaged line{} in the session log",
            path.display(),
            if n == 1 { "" } else { "s" }
        ))
        .with_locations(damage)
        .with_hint("the log is append-only and written by brief alone; restore it from a backup"));
    }
    Ok(out)
}

/// Nothing in a session is read or written through a symbolic link, and nothing but a
/// regular file is opened: a missing file passes, anything else at `path` is refused.
pub fn refuse_odd(path: &Path) -> Result<()> {
    policy::check_owned(path)
}

/// Opens the log for writing: never through a link, never blocking, a regular file only.
fn open_log(path: &Path, append: bool) -> Result<File> {
    policy::check_owned(path)?;
    let file = OpenOptions::new()
        .write(true)
        .append(append)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, &e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, &e))?;
    if !meta.is_file() {
        return Err(policy::check_owned(path)
            .err()
            .unwrap_or_else(|| Error::input(format!("{}: not a regular file", path.display()))));
    }
    Ok(file)
}

/// The session's exclusive writer lock, held while an event is decided and appended.
/// Writers wait for each other (appends from many processes all land); the OS releases
/// the lock when a process dies.
#[derive(Debug)]
pub struct Locked {
    _lock: File,
    pub log_path: PathBuf,
}

impl Locked {
    /// Takes the lock, waiting for other writers, then removes the temporary files a
    /// killed writer left in the session directory (every writer of a temporary file in
    /// it holds this lock, so none of them is live).
    pub fn acquire(dir: &Path) -> Result<Locked> {
        let lock_path = dir.join(LOCK_FILE);
        let lock = policy::open_no_follow(&lock_path)?;
        lock.lock().map_err(|e| Error::io(&lock_path, &e))?;
        policy::remove_orphans(&[dir.to_path_buf()]);
        Ok(Locked {
            _lock: lock,
            log_path: dir.join(LOG_FILE),
        })
    }

    /// Cuts off an unfinished last line (never acknowledged) so the next event starts on
    /// a line of its own. Returns whether there was one.
    pub fn cut_torn_tail(&self, complete_len: u64) -> Result<bool> {
        let path = &self.log_path;
        let file = open_log(path, false)?;
        let len = file.metadata().map_err(|e| Error::io(path, &e))?.len();
        if len == complete_len {
            return Ok(false);
        }
        file.set_len(complete_len)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(path, &e))?;
        Ok(true)
    }

    /// Appends events, each one line, in one write, then fsyncs: when this returns, they
    /// survive a crash. Returns the log's new length.
    pub fn append(&self, events: &[Event]) -> Result<u64> {
        let path = &self.log_path;
        let mut bytes = Vec::new();
        for event in events {
            serde_json::to_writer(&mut bytes, event).map_err(|e| {
                Error::input(format!("cannot encode a session event: {e}")).with_source(e)
            })?;
            bytes.push(b'\n');
        }
        crate::store::transaction::fault_point("session-before-append");
        let mut file = open_log(path, true)?;
        let len = file.metadata().map_err(|e| Error::io(path, &e))?.len();
        if len.saturating_add(bytes.len() as u64) > SESSION_LOG.bytes {
            return Err(Error::input(format!(
                "{}: appending {} bytes would take the session log past its {SESSION_LOG} limit",
                path.display(),
                bytes.len()
            ))
            .with_hint("nothing was appended")
            .with_topic(Topic::SessionFull));
        }
        if crate::store::transaction::fault_active("session-torn-append") {
            let half = bytes.len() / 2;
            let _ = file.write_all(&bytes[..half]);
            let _ = file.sync_all();
            std::process::abort();
        }
        file.write_all(&bytes)
            .and_then(|()| file.sync_data())
            .map_err(|e| Error::io(path, &e))?;
        crate::store::transaction::fault_point("session-after-append");
        file.seek(SeekFrom::End(0)).map_err(|e| Error::io(path, &e))
    }
}

/// The last bytes of the log, to tell whether a cache written at some length still
/// describes it.
pub fn tail_mark(path: &Path, len: u64) -> Option<String> {
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()
        .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))?;
    let from = len.saturating_sub(256);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut buf = vec![0u8; (len - from) as usize];
    file.read_exact(&mut buf).ok()?;
    Some(crate::wire::canonical::sha256_hex(&buf)[..16].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_skipped_but_damage_elsewhere_names_its_line() {
        let good = r#"{"event":"append","at":"t","entries":[]}"#;
        let bytes = format!("{good}\n{{\"event\":\"app");
        let read = parse(Path::new("log.jsonl"), bytes.as_bytes()).unwrap();
        assert!(read.torn);
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.complete_len as usize, good.len() + 1);
        let bytes = format!("{good}\nnot json\n{good}\n");
        let err = parse(Path::new("log.jsonl"), bytes.as_bytes()).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let location = &err.locations[0];
        assert_eq!(location.line, 2, "{location:?}");
        assert!(location.column >= 1, "{location:?}");
        assert_eq!(location.file, Path::new("log.jsonl"));
        assert!(!location.message.contains(" at line "), "{location:?}");
        assert!(err.details.is_empty());
    }
}
