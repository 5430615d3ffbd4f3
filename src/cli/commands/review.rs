//! `brief review`: show a pending proposal's review screen again, and decide on a terminal.
//! Arguments, one call to [`review::review`], its report, then the review question.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::{print_commands, show_proposal};
use crate::cli::ui::Ui;
use crate::error::{ErrorKind, Result};
use crate::guard::Fact;
use crate::store::review::{self, Reviewed};

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
    let reviewed = review::review(&brief, &args.id).map_err(|err| match err.kind {
        // The hint names this edge's command.
        ErrorKind::Conflict => err.with_hint(format!(
            "discard it: brief discard {} {}",
            crate::cli::ui::shell_quote(&args.brief.display().to_string()),
            args.id
        )),
        _ => err,
    })?;
    let form = Form::json_if(args.json);
    let report = ReviewReport::new(
        &reviewed,
        &args.brief,
        form == Form::Human && ui.interactive(),
    );
    let outcome = output::print(ui, form, &report)?;
    if report.asks {
        let Reviewed { proposal, item, .. } = reviewed;
        return crate::cli::interactive::ask(ui, &args.brief, &brief, item, proposal);
    }
    Ok(outcome)
}

/// `brief review`'s report: the proposal with today's guard findings.
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
    introduced: &'a [Fact],
    body: &'a str,
    #[serde(skip)]
    status: &'static str,
    #[serde(skip)]
    summary: String,
    #[serde(skip)]
    reviewed: &'a Reviewed<'a>,
    #[serde(skip)]
    brief: &'a Path,
    /// The review question follows (on a terminal, for a proposal that is not stale).
    #[serde(skip)]
    asks: bool,
}

impl<'a> ReviewReport<'a> {
    fn new(reviewed: &'a Reviewed<'a>, brief: &'a Path, terminal: bool) -> Self {
        let (proposal, item, stale) = (&reviewed.proposal, reviewed.item, reviewed.stale);
        let (status, mut summary) = super::compress::status(item, proposal);
        let status = if stale { "stale" } else { status };
        if stale {
            summary = format!(
                "`{}` changed since this proposal was made: `brief accept` refuses it; {summary}",
                item.id
            );
        }
        ReviewReport {
            proposal_id: &proposal.id,
            item: &proposal.item,
            stale,
            created: &proposal.created,
            provider: &proposal.provider,
            model: &proposal.model,
            tokens_before: proposal.tokens_before,
            tokens_after: proposal.tokens_after,
            dropped: &proposal.guard.dropped,
            introduced: &proposal.guard.introduced,
            body: &proposal.body,
            status,
            summary,
            reviewed,
            brief,
            asks: terminal && !stale,
        }
    }
}

impl Report for ReviewReport<'_> {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let proposal = &self.reviewed.proposal;
        show_proposal(ui, self.reviewed.item, proposal, &self.summary)?;
        if !self.asks {
            print_commands(ui, self.brief, &proposal.id, !proposal.guard.is_clean())?;
        }
        Ok(())
    }
}
