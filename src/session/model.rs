//! The model calls a session makes itself — an orchestrator turn and the compaction's
//! background call — and their ledger rows. Which model answers is decided as for every
//! other command (flags, then the environment, then the brief's `model:`), so the CLI and
//! the MCP server reach the same model for the same session.

use std::path::PathBuf;
use std::time::Instant;

use super::Session;
use crate::cache::ledger;
use crate::error::{Error, Result};
use crate::provider::{Answer, BriefModel, Overrides, ProviderKind, Settings};

/// Which model to call; `None` fields fall back to the environment and the brief.
#[derive(Debug, Clone, Default)]
pub struct ModelChoice {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The ledger file [default: `$BRIEF_LEDGER`, else the user's state directory].
    pub ledger: Option<PathBuf>,
}

impl Session {
    /// The provider settings for `choice`, the session's brief filling the gaps.
    pub fn settings(&self, choice: &ModelChoice) -> Result<Settings> {
        let brief = &self.brief;
        let from_brief = match &brief.manifest.model {
            Some(model) => Some(BriefModel {
                kind: model.provider.parse().map_err(|e: String| {
                    Error::input(format!(
                        "{}: model.provider: {e}",
                        brief.manifest_path().display()
                    ))
                })?,
                model: model.name.clone(),
                base_url: model.base_url.clone(),
            }),
            None => None,
        };
        // The session's own settings (from `session new`) stand in for absent flags.
        let stored_kind = match &self.config.provider {
            Some(name) => Some(name.parse().map_err(|e: String| {
                Error::input(format!(
                    "{}: provider: {e}",
                    self.dir.join(super::config::CONFIG_FILE).display()
                ))
            })?),
            None => None,
        };
        // A flag naming another provider leaves the session's model and server aside.
        let same = choice.provider.is_none() || choice.provider == stored_kind;
        let flags = Overrides {
            kind: choice.provider.or(stored_kind),
            model: choice
                .model
                .clone()
                .or_else(|| self.config.model.clone().filter(|_| same)),
            base_url: choice
                .base_url
                .clone()
                .or_else(|| self.config.base_url.clone().filter(|_| same)),
            timeout: None,
        };
        Settings::resolve(flags, from_brief)
    }

    /// The key the ledger groups this session's calls by (`brief usage --by session`):
    /// its directory, absolute.
    pub fn ledger_key(&self) -> String {
        std::fs::canonicalize(&self.dir)
            .unwrap_or_else(|_| self.dir.clone())
            .display()
            .to_string()
    }

    /// Writes one ledger row for a call (`command`: `session` or `compact`). A ledger
    /// that cannot be written never fails the call; the operator is told.
    pub(super) fn record_call(
        &self,
        choice: &ModelChoice,
        command: &str,
        settings: &Settings,
        prefix_hash: &str,
        started: Instant,
        result: &Result<Answer>,
    ) {
        let mut entry = ledger::Entry::new(command, settings.kind.as_str(), &settings.model);
        entry.brief = Some(self.brief.manifest.name.clone());
        entry.brief_dir = Some(self.config.brief.display().to_string());
        entry.prefix_hash = Some(prefix_hash.to_string());
        entry.session = Some(self.ledger_key());
        let entry = entry.record(started.elapsed(), result);
        if let Err(err) = ledger::append(&ledger::resolve_path(choice.ledger.clone()), &entry) {
            self.notice(format!(
                "the call was not recorded in the ledger: {}",
                err.message
            ));
        }
    }
}
