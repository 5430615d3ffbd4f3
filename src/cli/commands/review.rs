//! `brief review`: show a pending proposal's review screen again, and decide on a terminal.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::Item;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::{print_commands, show_proposal};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::guard::{ChangeJson, CoverageJson, DroppedInstruction, Fact};
use crate::store::proposals::{self, Proposal};

/// Show a pending proposal again: tokens, guard findings and the word diff
///
/// The guard runs again against the item's current body, so the findings are today's. On a
/// terminal it then asks accept / discard / edit / later, as `brief compress` does;
/// elsewhere it prints the commands that act on the proposal. A proposal whose item changed
/// since it was made is shown as stale: `brief accept` refuses it (exit 4).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  brief proposals briefs/support\n  brief review briefs/support refunds-20261130t090002"
)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: String,
    /// Print one JSON object instead of the review screen (never asks)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let mut proposal = proposals::load(&brief.dir, &args.id)?;
    let Some(item) = brief.item(&proposal.item) else {
        return Err(Error::conflict(format!(
            "proposal {} is for `{}`, which is no longer in {}",
            proposal.id,
            proposal.item,
            brief.dir.display()
        ))
        .with_hint(format!(
            "discard it: brief discard {} {}",
            crate::cli::ui::shell_quote(&args.brief.display().to_string()),
            proposal.id
        )));
    };
    let stale = proposal.is_stale(Some(item.body()));
    crate::compress::rejudge(item, &mut proposal)?;
    let (status, mut summary) = super::compress::status(item, &proposal);
    let status = if stale { "stale" } else { status };
    if stale {
        summary = format!(
            "`{}` changed since this proposal was made: `brief accept` refuses it; {summary}",
            item.id
        );
    }
    let form = Form::json_if(args.json);
    let report = ReviewReport {
        proposal_id: &proposal.id,
        item: &proposal.item,
        stale,
        created: &proposal.created,
        provider: &proposal.provider,
        model: &proposal.model,
        tokens_before: proposal.tokens_before,
        tokens_after: proposal.tokens_after,
        dropped: &proposal.guard.dropped,
        changed: proposal
            .guard
            .changed
            .iter()
            .map(ChangeJson::from)
            .collect(),
        dropped_instructions: &proposal.guard.dropped_instructions,
        introduced: &proposal.guard.introduced,
        coverage: CoverageJson::from(&proposal.guard.coverage),
        body: &proposal.body,
        status,
        summary,
        proposal: &proposal,
        shown: item,
        brief: &args.brief,
        asks: form == Form::Human && ui.interactive() && !stale,
    };
    let outcome = output::print(ui, form, &report)?;
    if report.asks {
        return crate::cli::interactive::ask(ui, &args.brief, &brief, item, proposal);
    }
    Ok(outcome)
}

/// `brief review`'s report: the proposal with the guard's findings of today.
#[derive(Serialize)]
struct ReviewReport<'a> {
    proposal_id: &'a str,
    item: &'a str,
    stale: bool,
    created: &'a str,
    provider: &'a str,
    model: &'a str,
    tokens_before: usize,
    tokens_after: usize,
    dropped: &'a [Fact],
    changed: Vec<ChangeJson<'a>>,
    dropped_instructions: &'a [DroppedInstruction],
    introduced: &'a [Fact],
    coverage: CoverageJson,
    body: &'a str,
    #[serde(skip)]
    status: &'static str,
    #[serde(skip)]
    summary: String,
    #[serde(skip)]
    proposal: &'a Proposal,
    #[serde(skip)]
    shown: &'a Item,
    #[serde(skip)]
    brief: &'a Path,
    /// The review question follows (on a terminal, for a proposal that is not stale).
    #[serde(skip)]
    asks: bool,
}

impl Report for ReviewReport<'_> {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        show_proposal(ui, self.shown, self.proposal, &self.summary)?;
        if !self.asks {
            print_commands(
                ui,
                self.brief,
                &self.proposal.id,
                !self.proposal.guard.is_clean(),
            )?;
        }
        Ok(())
    }
}
