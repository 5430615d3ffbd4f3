//! The usage ledger: one JSON line per model call the toolkit made, so that "is the
//! provider actually serving my prefix from cache?" is answered with numbers.
//!
//! The file is append-only JSON lines, every line the same keys in the same order with the
//! same types, so DuckDB (`read_json_auto`) and ClickHouse (`JSONEachRow`) load it as-is.
//! Each line is written with one `write` on a file opened with `O_APPEND`: concurrent
//! processes never interleave within a line. A crash can still leave a torn last line; the
//! reader skips it (and any other unreadable line) with a warning, never fails on it.

mod append;
pub mod clickhouse;
mod destination;
pub mod prices;
mod read;
pub mod sink;
pub mod summary;

pub use append::{Appender, append};
pub use destination::{Destination, FORMAT_VAR, Format, default_file, new_default_file};
pub use read::{
    LEDGER_LINE, MAX_WARNINGS, Warning, implausible, parse, read, read_each, read_numbered,
};
pub use sink::{ClickHouseSink, FileSink, Sink, Sinks};

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::clock;
use crate::error::{CallStatus, Error, Result, Setting, Topic};

/// The ledger's file name in the user's state directory (`crate::paths::state_dir`), where
/// it lives when neither `--ledger` nor `BRIEF_LEDGER` says.
pub const FILE_NAME: &str = "usage.jsonl";

/// One model call. Field order is the column order of the file; every field is always
/// written (`null` when unknown) so each line has the same shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// When the call finished: RFC 3339, UTC, milliseconds (`2026-11-30T09:05:01.250Z`).
    pub time: String,
    /// The `brief` subcommand that made the call (`probe`, `compress`, …).
    pub command: String,
    /// The wire protocol: `openai` (Chat Completions, any OpenAI-compatible server),
    /// `responses` (OpenAI Responses), `anthropic` or `gemini`.
    pub provider: String,
    /// The model asked for, as the brief or `--model` names it.
    pub model: String,
    /// The manifest name of the brief whose prefix was sent: the brief itself (`probe`), or
    /// the compressor brief for `compress` (whose target is in `target_brief`).
    #[serde(default)]
    pub brief: Option<String>,
    /// That brief's directory, absolute, so `brief usage` can find its `pricing` later
    /// (`null` for the compressor built into the binary).
    #[serde(default)]
    pub brief_dir: Option<String>,
    /// The item a per-item call was about (`compress`: the item of `target_brief`).
    #[serde(default)]
    pub item: Option<String>,
    /// The sha256 of the stable prefix sent (tools + static system), as `brief compose
    /// --stats` prints it: for `compress`, the compressor's, so `usage --by prefix` never
    /// counts compress calls as the target brief's own traffic.
    #[serde(default)]
    pub prefix_hash: Option<String>,
    /// All input tokens, cached and cache-written ones included.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// The part of `input_tokens` served from the provider's cache; `null` when the answer
    /// had no cached-token field at all (not the same as 0).
    #[serde(default)]
    pub cached_input_tokens: Option<u64>,
    /// The part of `input_tokens` written to the cache (Anthropic; OpenAI on newer models);
    /// `null` when the answer had no such field.
    #[serde(default)]
    pub cache_write_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Wall time of the call, retries included.
    #[serde(default)]
    pub latency_ms: u64,
    /// HTTP attempts made (1 when the first one answered).
    #[serde(default = "one")]
    pub attempts: u32,
    /// `ok`, or how the call failed: `http_429`, `http_500`, `timeout`, `truncated_stream`, …
    /// ([`CallStatus`], the one vocabulary of the provider layer, the proxy and the ledger).
    pub status: CallStatus,
    /// The failure message, with anything that looks like an API key removed.
    #[serde(default)]
    pub error: Option<String>,
    /// The agent session a proxied call belonged to (`X-Brief-Session`, else a hash of the
    /// credential and the model); `null` for the toolkit's own calls.
    #[serde(default)]
    pub session: Option<String>,
    /// For a proxied call, the parts (`tools`, `system`, `messages`) that drifted from the
    /// session's previous call; `[]` when none did, `null` when there was nothing to
    /// compare with (the session's first call, or a body that is not a chat request).
    #[serde(default)]
    pub drifted_parts: Option<Vec<String>>,
    /// For `compress`: the manifest name of the brief whose item was compressed.
    #[serde(default)]
    pub target_brief: Option<String>,
    /// For `compress`: that brief's directory, absolute.
    #[serde(default)]
    pub target_brief_dir: Option<String>,
    /// Of `cache_write_tokens`, those written for five minutes and for an hour (Anthropic's
    /// `cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`), priced
    /// apart; `null` when the answer did not split them.
    #[serde(default)]
    pub cache_write_5m_tokens: Option<u64>,
    #[serde(default)]
    pub cache_write_1h_tokens: Option<u64>,
    /// Of `output_tokens`, the model's reasoning (OpenAI `reasoning_tokens`, Gemini
    /// `thoughtsTokenCount`); `null` when not reported.
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
    /// For a proxied call that drifted: the byte at which the first part in
    /// `drifted_parts` first differs from the session's previous call, in that part's text
    /// as `brief align` counts it; `null` when nothing drifted or the previous text was not
    /// kept (the proxy keeps a bounded amount).
    #[serde(default)]
    pub drift_offset: Option<u64>,
    /// The machine that made the call ([`host`]): `brief usage --by machine` tells a
    /// fleet's proxies apart. `null` in rows written before it was recorded.
    #[serde(default)]
    pub host: Option<String>,
    /// Prices per million tokens the recording process was told for this call (`brief
    /// proxy --price-input`, `--price-cached`, `--price-output`), so `brief usage` prices
    /// the row as the proxy's dashboard did; `null` when none was given (then the brief's
    /// `pricing` or the list price apply, as everywhere).
    #[serde(default)]
    pub price_input_per_mtok: Option<f64>,
    #[serde(default)]
    pub price_cached_per_mtok: Option<f64>,
    #[serde(default)]
    pub price_output_per_mtok: Option<f64>,
}

/// The name rows record as their `host`: `BRIEF_HOST` when set (a container's hostname is
/// often random), else the system's host name; `None` when neither is known. Read once.
pub fn host() -> Option<String> {
    static HOST: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let name = std::env::var("BRIEF_HOST")
            .ok()
            .filter(|v| !v.trim().is_empty())
            .or_else(crate::sys::host_name)?;
        // The name comes from the environment: one printable line, of a sane length.
        Some(crate::text::sanitize::one_line(name.trim(), 255))
    })
    .clone()
}

/// Where a long-running process's rows stand in their store, as `/stats` shows it under
/// `sink` (field names are a contract: dashboards read them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SinkState {
    /// `jsonl` (a ledger file) or `clickhouse`.
    pub kind: &'static str,
    /// The file's path, or the table's URL without its password.
    pub target: String,
    /// Rows handed over and not yet in the store (for ClickHouse: spooled, not yet
    /// acknowledged, this process's and the ones it adopted).
    pub rows_pending: u64,
    /// Rows in the store since the process started (for ClickHouse: acknowledged).
    pub rows_stored: u64,
    /// Unreadable spool lines skipped (a torn last line left by a crash).
    pub rows_skipped: u64,
    pub spool_dir: Option<String>,
    /// Bytes of rows in the spool not yet acknowledged, every process's.
    pub spool_bytes: Option<u64>,
    pub spool_limit_bytes: Option<u64>,
    /// Rows written to the overflow file because the spool was full.
    pub overflow_rows: u64,
    /// Rows held in memory now because the spool's disk refused them (full): sent from
    /// memory, lost if the process is killed (at most 32 MiB of rows).
    pub rows_held: u64,
    pub overflow_file: Option<String>,
    /// Failed attempts to write to the store.
    pub errors: u64,
    /// When rows last reached the store (RFC 3339).
    pub last_success: Option<String>,
    /// The last failure, credentials removed.
    pub last_error: Option<String>,
    pub last_error_time: Option<String>,
    /// The ClickHouse server's version, once connected.
    pub server_version: Option<String>,
}

fn absolute(dir: &Path) -> Option<String> {
    fs::canonicalize(dir).ok().map(|d| d.display().to_string())
}

fn one() -> u32 {
    1
}

impl Entry {
    /// A successful call made now, with no usage yet.
    pub fn new(command: &str, provider: &str, model: &str) -> Entry {
        Entry {
            time: clock::format_rfc3339(clock::now_ms()),
            command: command.to_string(),
            provider: provider.to_string(),
            model: model.to_string(),
            brief: None,
            brief_dir: None,
            item: None,
            prefix_hash: None,
            input_tokens: None,
            cached_input_tokens: None,
            cache_write_tokens: None,
            output_tokens: None,
            latency_ms: 0,
            attempts: 1,
            status: CallStatus::Ok,
            error: None,
            session: None,
            drifted_parts: None,
            target_brief: None,
            target_brief_dir: None,
            cache_write_5m_tokens: None,
            cache_write_1h_tokens: None,
            reasoning_tokens: None,
            drift_offset: None,
            host: host(),
            price_input_per_mtok: None,
            price_cached_per_mtok: None,
            price_output_per_mtok: None,
        }
    }

    /// This call was made for the brief named `name` in `dir` (its directory as the user
    /// gave it; stored absolute when it exists).
    pub fn for_brief(mut self, name: &str, dir: Option<&Path>, prefix_hash: &str) -> Entry {
        self.brief = Some(name.to_string());
        self.brief_dir = dir.and_then(absolute);
        self.prefix_hash = Some(prefix_hash.to_string());
        self
    }

    /// This call was about `item` of the brief named `name` in `dir` (`compress`).
    pub fn targeting(mut self, name: &str, dir: &Path, item: &str) -> Entry {
        self.target_brief = Some(name.to_string());
        self.target_brief_dir = absolute(dir);
        self.item = Some(item.to_string());
        self
    }

    /// Marks the call failed with how it ended and a message; key-like text is redacted.
    pub fn failed(mut self, status: CallStatus, message: &str) -> Entry {
        self.status = status;
        self.error = Some(crate::redact::redact(message));
        self
    }

    /// A call stopped by the operator (Ctrl-C) before it answered.
    pub fn cancelled(mut self, latency: std::time::Duration) -> Entry {
        self.latency_ms = latency.as_millis() as u64;
        self.status = CallStatus::Cancelled;
        self.error = Some("interrupted (Ctrl-C) before the answer was complete".to_string());
        self
    }

    /// Records the token counts a provider's answer reported.
    pub fn set_usage(&mut self, usage: &crate::wire::Usage) {
        self.input_tokens = Some(usage.input_tokens);
        self.cached_input_tokens = usage.cached_input_tokens;
        self.cache_write_tokens = usage.cache_write_tokens;
        self.output_tokens = Some(usage.output_tokens);
        self.cache_write_5m_tokens = usage.cache_write_5m_tokens;
        self.cache_write_1h_tokens = usage.cache_write_1h_tokens;
        self.reasoning_tokens = usage.reasoning_tokens;
    }

    /// Fills in what a provider call's outcome says: usage and attempts, or the failure.
    pub fn record(mut self, latency: std::time::Duration, result: &Result<impl Answered>) -> Entry {
        self.latency_ms = latency.as_millis() as u64;
        match result {
            Ok(answer) => {
                self.attempts = answer.attempts();
                if let Some(usage) = answer.usage() {
                    self.set_usage(usage);
                }
                self
            }
            Err(err) => {
                let class = err.call_status().cloned().unwrap_or(CallStatus::Error);
                self.attempts = u32::from(err.attempts().max(1));
                self.failed(class, &err.message)
            }
        }
    }

    pub fn is_ok(&self) -> bool {
        self.status.is_ok()
    }

    /// The entry's time in milliseconds since the epoch (`None` if it is not RFC 3339).
    pub fn time_ms(&self) -> Option<i64> {
        clock::parse(&self.time)
    }
}

/// What a model call's answer tells its ledger row. The runtime's `provider::Answer` is one:
/// the ledger makes no calls itself.
pub trait Answered {
    /// HTTP requests made, the successful one included.
    fn attempts(&self) -> u32;
    /// Normalised usage; `None` when the server reported none.
    fn usage(&self) -> Option<&crate::wire::Usage>;
}

/// The ledger path: the flag, else a non-empty `BRIEF_LEDGER`, else `usage.jsonl` in the
/// user's state directory (`$XDG_STATE_HOME/briefkit`, else `~/.local/state/briefkit`), never
/// the current directory. With neither variable set (a bare service account), the system's
/// temporary directory stands in for the state directory.
pub fn resolve_path(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| {
        std::env::var_os("BRIEF_LEDGER")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
    .unwrap_or_else(default_file)
}

/// Refuses a ledger path that is a link, not a regular file, or a file that is not a
/// ledger (its first line is not a ledger entry): appending would corrupt someone else's
/// file, or write wherever the link points. A missing or empty file is fine.
pub fn check_path(path: &Path) -> Result<()> {
    let hint = "use a ledger file (or a new path)";
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, &e)),
    };
    if meta.file_type().is_symlink() {
        return Err(Error::input(format!(
            "{}: a symbolic link; the ledger is never read or written through a link",
            path.display()
        ))
        .with_hint(hint)
        .with_topic(Topic::Setting(Setting::Ledger)));
    }
    crate::files::policy::check_regular(path).map_err(|e| {
        e.with_hint(hint)
            .with_topic(Topic::Setting(Setting::Ledger))
    })?;
    if meta.len() == 0 {
        return Ok(());
    }
    let mut head = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .map_err(|e| Error::io(path, &e))?;
    let first = head
        .split(|&b| b == b'\n')
        .find(|line| !line.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    let complete = head.len() as u64 == meta.len() || first.len() < head.len();
    if complete && serde_json::from_slice::<Entry>(first).is_err() {
        return Err(Error::input(format!(
            "{}: not a ledger (its first line is not a ledger entry); refusing to use it",
            path.display()
        ))
        .with_hint(hint)
        .with_topic(Topic::Setting(Setting::Ledger)));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
