//! The turn journal: `turn-op_N.json` in the session directory holds a turn that is not
//! finished — one the gate blocked (its user message waits for `--resume op_N`) or one
//! whose answer arrived but is not yet wholly in the log. The answer is written here
//! (atomically) before anything of it is appended, and the journal is removed only once
//! the turn is complete, so a turn interrupted at any point after the answer arrived is
//! finished by running it again: nothing received is lost, and the entries the log
//! already holds (they carry the turn's `op`) are not appended twice.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::state::id_number;
use crate::error::{Error, Result};
use crate::files::limits::SESSION_JOURNAL;
use crate::provider::{Answer, Usage};

const PREFIX: &str = "turn-";

/// One unfinished turn.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    pub op: String,
    /// The user message, which enters Tier 2 together with the answer.
    pub user: Option<String>,
    pub max_tokens: u32,
    /// The model's answer, once it arrived.
    pub answer: Option<Received>,
}

/// A model answer as the journal keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Received {
    pub text: String,
    pub tool_calls: Vec<ReceivedCall>,
    pub model: String,
    pub finish_reason: String,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReceivedCall {
    pub call_id: String,
    pub name: String,
    pub arguments: Value,
}

impl From<&Answer> for Received {
    fn from(answer: &Answer) -> Received {
        Received {
            text: answer.text.clone(),
            tool_calls: answer
                .tool_calls
                .iter()
                .map(|c| ReceivedCall {
                    call_id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
            model: answer.model.clone(),
            finish_reason: answer.finish_reason.clone(),
            usage: answer.usage.clone(),
        }
    }
}

pub fn path(dir: &Path, op: &str) -> PathBuf {
    dir.join(format!("{PREFIX}{op}.json"))
}

impl Journal {
    /// Writes the journal atomically, under the session lock (whose holder sweeps
    /// orphaned temporary files: only writers holding it make any).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| {
            Error::input(format!("cannot encode the turn journal: {e}")).with_source(e)
        })?;
        let path = path(dir, &self.op);
        if bytes.len() as u64 > SESSION_JOURNAL.bytes {
            return Err(Error::input(format!(
                "{}: {} bytes is over the {SESSION_JOURNAL} limit for {}",
                path.display(),
                bytes.len(),
                SESSION_JOURNAL.what
            )));
        }
        let _locked = super::log::Locked::acquire(dir)?;
        crate::files::write_atomic(&path, &bytes)
    }

    pub fn remove(dir: &Path, op: &str) -> Result<()> {
        let path = path(dir, op);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path, &e)),
            _ => Ok(()),
        }
    }

    /// The journal of `op`, if there is one.
    pub fn read(dir: &Path, op: &str) -> Result<Option<Journal>> {
        let path = path(dir, op);
        let Some(bytes) = crate::files::policy::read_owned(&path, SESSION_JOURNAL)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Error::input(format!("{}: not a turn journal: {e}", path.display())).with_source(e)
        })
    }

    /// The oldest turn whose answer arrived but which is not finished.
    pub fn interrupted(dir: &Path) -> Result<Option<Journal>> {
        let mut ops: Vec<(u64, String)> = Vec::new();
        let listing = std::fs::read_dir(dir).map_err(|e| Error::io(dir, &e))?;
        for item in listing.flatten() {
            let name = item.file_name().to_string_lossy().into_owned();
            if let Some(op) = name
                .strip_prefix(PREFIX)
                .and_then(|rest| rest.strip_suffix(".json"))
                && let Some(n) = id_number(op).filter(|_| op.starts_with("op_"))
            {
                ops.push((n, op.to_string()));
            }
        }
        ops.sort();
        for (_, op) in ops {
            if let Some(journal) = Journal::read(dir, &op)?
                && journal.answer.is_some()
            {
                return Ok(Some(journal));
            }
        }
        Ok(None)
    }
}
