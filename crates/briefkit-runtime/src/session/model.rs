//! The model calls a session makes itself — an orchestrator turn and the compaction's
//! background call — and their ledger rows. Which model answers is decided as for every
//! other command (flags, then the environment, then the brief's `model:`), so the CLI and
//! the MCP server reach the same model for the same session.

use std::time::Instant;

use super::Session;
use crate::cache::ledger;
use crate::error::{Error, Result};
use crate::provider::{Answer, Overrides, Settings};

/// Which model to call and where its calls are recorded.
#[derive(Debug, Clone, Default)]
pub struct ModelChoice {
    /// What the entry point asks for; unset parts fall back to the environment and the
    /// brief, as for every other command.
    pub provider: Overrides,
    /// Where the calls' rows go [default: `--ledger`'s default: `$BRIEF_LEDGER`, else the
    /// user's state directory].
    pub ledger: Option<ledger::Destination>,
    /// The sinks the rows go through, shared by the session's sub-agents; whoever made
    /// the choice settles them when done (a default set is settled by no one: rows bound
    /// for ClickHouse then wait in the spool for the next process writing there).
    pub sinks: ledger::Sinks,
}

impl Session {
    /// The provider settings for `choice`, the session's brief filling the gaps.
    pub fn settings(&self, choice: &ModelChoice) -> Result<Settings> {
        // The session's own settings (from `session new`) stand in for absent flags; a flag
        // naming another provider leaves the session's model and server aside.
        let mut flags = choice.provider.clone();
        let stored = match &self.config.provider {
            Some(name) => Some(name.parse().map_err(|e: String| {
                Error::input(format!(
                    "{}: provider: {e}",
                    self.dir.join(super::config::CONFIG_FILE).display()
                ))
            })?),
            None => None,
        };
        let same = flags.wire.is_none() || flags.wire == stored;
        flags.wire = flags.wire.or(stored);
        if same {
            flags.model = flags.model.or_else(|| self.config.model.clone());
            flags.base_url = flags.base_url.or_else(|| self.config.base_url.clone());
        }
        Settings::resolve(flags, self.brief.manifest.model.as_ref())
    }

    /// The key the ledger groups this session's calls by (`brief usage --by session`):
    /// its directory, absolute.
    pub fn ledger_key(&self) -> String {
        std::fs::canonicalize(&self.dir)
            .unwrap_or_else(|_| self.dir.clone())
            .display()
            .to_string()
    }

    /// Writes one ledger row for a call (`command`: `session` or `compact`). `bundled`
    /// names the built-in brief whose prefix was sent (`compaction`), as `compress` names
    /// the compressor: the row is then that brief's, with the session's brief as its
    /// `target_brief`, so `usage --by brief` never bills it to the session's brief. A
    /// ledger that cannot be written never fails the call; the operator is told.
    pub(super) fn record_call(
        &self,
        choice: &ModelChoice,
        command: &str,
        settings: &Settings,
        (bundled, prefix_hash): (Option<&str>, &str),
        started: Instant,
        result: &Result<Answer>,
    ) {
        let mut entry = ledger::Entry::new(command, settings.wire.as_str(), &settings.model);
        let own = (
            Some(self.brief.manifest.name.clone()),
            Some(self.config.brief.display().to_string()),
        );
        match bundled {
            None => (entry.brief, entry.brief_dir) = own,
            Some(name) => {
                entry.brief = Some(name.to_string());
                (entry.target_brief, entry.target_brief_dir) = own;
            }
        }
        entry.prefix_hash = Some(prefix_hash.to_string());
        entry.session = Some(self.ledger_key());
        let entry = entry.record(started.elapsed(), result);
        let recorded = match &choice.ledger {
            Some(destination) => destination.record(&choice.sinks, &entry),
            None => ledger::Destination::resolve(None, None)
                .and_then(|d| d.record(&choice.sinks, &entry)),
        };
        if let Err(err) = recorded {
            self.notice(format!(
                "the call was not recorded in the ledger: {}",
                err.message
            ));
        }
    }
}
