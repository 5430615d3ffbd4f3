//! `brief session compact`: the seed's four-step compaction, run by the operator:
//! arguments, [`api::compact`] and the human form.

use std::path::PathBuf;

use super::shown;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::{LedgerArgs, ProviderArgs};
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::api;
use crate::session::budget::thousands;
use crate::session::compact::Compacted;
use crate::session::model::ModelChoice;

/// Condense all of Tier 2 into a CompactedState with a separate model call, then replace
/// Tier 2 with the state and the resume instruction
///
/// The answer must be valid against schemas/compacted-state.schema.json; an invalid one
/// is sent back once with its violations, a second invalid one fails (exit 3) with
/// nothing changed. Reports tokens before and after and, from the deterministic guard,
/// the facts of the old Tier 2 the state no longer holds. The old entries stay in the
/// log (`brief session show`). Every call is recorded in the ledger (`command: compact`).
#[derive(Debug, clap::Args)]
pub struct CompactArgs {
    /// The session directory
    pub dir: PathBuf,
    /// What to do first after the reset (or - for stdin)
    #[arg(long, value_name = "TEXT")]
    pub resume: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print {"status", "summary", "tokens_before", "tokens_after", "state_id",
    /// "resume_id", "forgotten", "removed_ids", "tokens_rewritten", "ccr", "warnings"}
    #[arg(long)]
    pub json: bool,
}

/// Which model to call (the provider flags every model-calling command takes) and where
/// the calls are recorded.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[command(flatten)]
    pub ledger: LedgerArgs,
}

impl ModelArgs {
    /// The model to call and where its rows go (checked before any call), through the
    /// command's `sinks`.
    pub fn choice(&self, sinks: &crate::cache::ledger::Sinks) -> Result<ModelChoice> {
        let ledger = self.ledger.destination()?;
        ledger.check(sinks)?;
        Ok(ModelChoice {
            provider: self.provider.overrides(),
            ledger: Some(ledger),
            sinks: sinks.clone(),
        })
    }
}

pub fn run(args: CompactArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let resume = super::text_arg(args.resume)?;
    let choice = args.model.choice(sinks)?;
    let compacted = api::compact(&args.dir, &resume, &choice, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &compacted)
}

/// The document is the one the MCP `compact_context` tool returns too.
impl Report for Compacted {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn notes(&self, ui: &Ui) {
        for warning in &self.report.warnings {
            ui.warn(warning);
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let r = &self.report;
        ui.outln(&shown(&r.summary()))?;
        ui.outln(&format!(
            "cache: all of Tier 2 changed; {} tokens written to the cache again",
            thousands(r.tokens_rewritten)
        ))?;
        if let Some(hash) = &r.ccr {
            ui.outln(&format!(
                "old Tier 2 also kept in the CCR store: brief ccr get {hash}"
            ))?;
        }
        for fact in &r.forgotten {
            ui.outln(&shown(&format!(
                "  forgotten {}: {}",
                fact.kind.name(),
                fact.value
            )))?;
        }
        Ok(())
    }
}
