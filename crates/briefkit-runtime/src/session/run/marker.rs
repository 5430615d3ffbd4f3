//! `run.json`: the run under way in a session directory — its user message, the highest
//! visible id when it started, and a model call the gate blocked — so a run killed
//! anywhere is continued by running it again, without sending its user message twice.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::limits::SESSION_JOURNAL;
use crate::session::journal::Journal;
use crate::session::log::{Kind, Locked};
use crate::session::state::{State, id_number};

const FILE: &str = "run.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Marker {
    pub user: Option<String>,
    /// The highest N of a visible id when the run started.
    pub counter: u64,
    /// A model call of the run the gate blocked (its user message in its journal).
    #[serde(default)]
    pub blocked: Option<String>,
}

impl Marker {
    /// The run to go on with (`true`) or the one this call starts. A `user` other than the
    /// marked run's starts a new run (the old one is left as it stands).
    pub fn take(dir: &Path, user: Option<&str>, state: &State) -> Result<(Option<Marker>, bool)> {
        let marked = Marker::read(dir)?;
        if let Some(marked) = marked
            && (user.is_none() || user == marked.user.as_deref())
        {
            return Ok((Some(marked), true));
        }
        if user.is_none() {
            let last = state.tier2().last();
            if last.is_none_or(|e| e.kind == Kind::Assistant) && state.unanswered_calls().is_empty()
            {
                return Err(Error::input(
                    "nothing to continue: the model has answered (or Tier 2 is empty); pass --user with a new request",
                ));
            }
        }
        let marker = Marker {
            user: user.map(str::to_string),
            counter: state.counter,
            blocked: None,
        };
        marker.write(dir)?;
        Ok((Some(marker), false))
    }

    fn read(dir: &Path) -> Result<Option<Marker>> {
        let path = dir.join(FILE);
        let Some(bytes) = crate::files::policy::read_owned(&path, SESSION_JOURNAL)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Error::input(format!("{}: not a run marker: {e}", path.display())).with_source(e)
        })
    }

    fn write(&self, dir: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::internal(format!("cannot encode the run marker: {e}")))?;
        let _locked = Locked::acquire(dir)?;
        crate::files::write_atomic(&dir.join(FILE), &bytes)
    }

    /// The run is over: its marker goes.
    pub fn finish(dir: &Path) -> Result<()> {
        let path = dir.join(FILE);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path, &e)),
            _ => Ok(()),
        }
    }

    /// Whether `id` was appended after the run started.
    pub fn after_start(&self, id: &str) -> bool {
        id_number(id).is_some_and(|n| n > self.counter)
    }

    /// The user message when it is not in the log yet nor waiting in a turn's journal.
    pub fn unsent(&self, state: &State, dir: &Path) -> Option<String> {
        let user = self.user.as_ref()?;
        let in_log = state
            .entries
            .iter()
            .any(|e| e.kind == Kind::User && self.after_start(&e.id) && &e.text == user);
        let journaled = Journal::interrupted(dir)
            .ok()
            .flatten()
            .is_some_and(|j| j.user.as_ref() == Some(user))
            || self.blocked_turn(dir).is_some();
        (!in_log && !journaled).then(|| user.clone())
    }

    /// The blocked model call of this run, while its journal waits.
    pub fn blocked_turn(&self, dir: &Path) -> Option<String> {
        let op = self.blocked.as_ref()?;
        Journal::read(dir, op)
            .ok()
            .flatten()
            .filter(|j| j.answer.is_none())
            .map(|_| op.clone())
    }

    /// Marks `op`, a blocked model call of this run, to be resumed by the next run.
    pub fn note_blocked(&self, dir: &Path, op: &str) -> Result<()> {
        let mut marker = self.clone();
        marker.blocked = Some(op.to_string());
        marker.write(dir)
    }
}
