//! `brief review`: show a pending proposal's review screen again, and decide on a terminal.
//! Arguments, one call to [`crate::compress::review::review`], and its rendering (then, on
//! a terminal, the review question).

use std::path::Path;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::{print_commands, show_proposal};
use crate::cli::shared_args::ProposalArgs;
use crate::cli::ui::Ui;
use crate::compress::review::{self, Reviewed};
use crate::error::Result;

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
    #[command(flatten)]
    pub proposal: ProposalArgs,
    /// Print one JSON object instead of the review screen (never asks)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let id = args.proposal.pick()?;
    let reviewed = review::review(&args.proposal.brief, &id, &mut super::warn_on(ui))?;
    let form = Form::json_if(args.json);
    let shown = Shown {
        asks: form == Form::Human && ui.interactive() && !reviewed.stale,
        reviewed,
        brief: &args.proposal.brief,
    };
    let outcome = output::print(ui, form, &shown)?;
    if shown.asks {
        return crate::cli::interactive::ask_about(ui, &args.proposal.brief, shown.reviewed);
    }
    Ok(outcome)
}

/// `brief review`'s report: the proposal with the guard's findings of today.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a> {
    reviewed: Reviewed,
    #[serde(skip)]
    brief: &'a Path,
    /// The review question follows (on a terminal, for a proposal that is not stale).
    #[serde(skip)]
    asks: bool,
}

impl Report for Shown<'_> {
    fn status(&self) -> &str {
        self.reviewed.status
    }

    fn summary(&self) -> String {
        self.reviewed.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let r = &self.reviewed;
        show_proposal(ui, &r.item, &r.proposal, &r.summary)?;
        if !self.asks {
            print_commands(
                ui,
                self.brief,
                &r.proposal.id,
                r.proposal.guard.is_flagged(),
            )?;
        }
        Ok(())
    }
}
