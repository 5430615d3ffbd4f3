//! The `--state` file: the hashes of the last wake a run saw, so the next run (a separate
//! process, maybe hours later) can tell whether its first wake drifted.
//!
//! Only hashes are kept, never text: the file may sit next to logs and must not hold a
//! copy of a prompt or a secret. The price is that a drift across runs is located by
//! element (which tool, which message), not by byte offset.

use std::path::Path;

use crate::error::{Error, Result, Setting, Topic};

/// The version this build writes and accepts.
pub const VERSION: u32 = 2;

/// What a wake looked like, by hash.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub version: u32,
    pub stable_prefix_hash: String,
    pub tools_sha256: String,
    pub system_sha256: String,
    /// One hash per tool definition, as sent.
    pub tools: Vec<String>,
    /// One hash per system element (one for a plain string).
    pub system: Vec<String>,
    /// One hash per worked example, as sent (absent without examples).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// One hash per conversation message, `cache_control` markers left out.
    pub messages: Vec<String>,
    /// The wire the wake was written in (absent in files of earlier builds: then the next
    /// run's first wake is compared with it whatever its wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<crate::wire::Wire>,
}

impl State {
    /// Reads a state file; `Ok(None)` when it does not exist yet (a first run).
    pub fn load(path: &Path) -> Result<Option<State>> {
        if let Err(err) = std::fs::metadata(path)
            && err.kind() == std::io::ErrorKind::NotFound
        {
            return Ok(None);
        }
        let text = crate::files::input::read_text(path, crate::files::limits::ALIGN_STATE)?;
        let corrupt = |why: String| {
            Error::input(format!(
                "{}: not a `brief align` state file ({why})",
                path.display()
            ))
            .with_hint("use a state file `brief align` wrote, or delete it to start afresh")
            .with_topic(Topic::Setting(Setting::AlignState))
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => return Err(corrupt(format!("version {v}, this build reads {VERSION}"))),
            None => return Err(corrupt("no version".to_string())),
        }
        let state: State = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        let all = [
            &state.stable_prefix_hash,
            &state.tools_sha256,
            &state.system_sha256,
        ]
        .into_iter()
        .chain(&state.tools)
        .chain(&state.system)
        .chain(&state.examples)
        .chain(&state.messages);
        if let Some(bad) = all.into_iter().find(|h| !is_sha256_hex(h)) {
            return Err(corrupt(format!("`{bad}` is not a sha256 hex digest")));
        }
        Ok(Some(state))
    }

    /// Writes the state atomically: a temporary file in the same directory, flushed to
    /// disk, then renamed over the old one, so a crash leaves the old or the new file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::input(format!("cannot render the state: {e}")).with_source(e))?;
        text.push('\n');
        crate::store::write_atomic(path, text.as_bytes())
    }
}

fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
