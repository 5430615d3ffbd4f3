//! `brief accept`: make a reviewed proposal the item's body, as a new version. Arguments,
//! one call to [`crate::prompt::relock::accept`] (on a terminal, after the review screen of
//! [`crate::compress::review::review`] and the operator's yes), and its report.

use crate::brief::Problem;
use crate::cli::interactive::confirm_flags;
use crate::cli::output::{self, Form, Outcome};
use crate::cli::review::show_proposal;
use crate::cli::shared_args::ProposalArgs;
use crate::cli::ui::Ui;
use crate::compress::review::{self, Reviewed};
use crate::error::{Error, Result};
use crate::prompt::relock;

/// Accept a pending proposal: version the current body, then replace it
///
/// On the first accept of an item its current body becomes version 1 (when the brief is in
/// a git work tree and git's committed body differs, that one is version 1 and the current
/// body version 2). A proposal identical to the body writes nothing. The accepted body
/// becomes the next version, then the item file's body (its front matter is kept). Refused
/// with exit 4 when the item changed since the proposal was made, and with exit 1 when the
/// guard (run again on the current body) found dropped or changed facts or an instruction
/// without a counterpart, unless --allow-flags (on a terminal: a second confirmation); the
/// flags accepted are recorded in the version.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub proposal: ProposalArgs,
    /// Accept even though the guard found facts or instructions the proposal dropped or changed
    #[arg(long)]
    pub allow_flags: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let id = args.proposal.pick()?;
    let mut allow_flags = args.allow_flags;
    let mut shown = super::warn_on(ui);
    let mut quiet = |_: &Problem| {};
    // On a terminal the operator sees what they accept before anything is written; the
    // brief's warnings were shown then, so the accept does not repeat them.
    let warn: &mut dyn FnMut(&Problem) = if !args.json && ui.interactive() {
        if let Ok(reviewed) = review::review(&args.proposal.brief, &id, &mut shown) {
            allow_flags = confirm(ui, &reviewed, allow_flags)?;
        }
        &mut quiet
    } else {
        &mut shown
    };
    let report = relock::accept(&args.proposal.brief, &id, allow_flags, warn)?;
    output::print(ui, Form::json_if(args.json), &report)
}

/// Shows the review screen and asks; whether flags are allowed after the answer, or the
/// refusal (nothing written) when the operator says no.
fn confirm(ui: &Ui, reviewed: &Reviewed, allow_flags: bool) -> Result<bool> {
    let proposal = &reviewed.proposal;
    show_proposal(ui, &reviewed.item, proposal, &reviewed.summary)?;
    let not_accepted = || {
        Error::failed(format!(
            "proposal {} not accepted: nothing written",
            proposal.id
        ))
    };
    if !proposal.guard.is_flagged() || allow_flags {
        ui.err_line("Accept this proposal? [y/N] ");
        let answer = console::Term::stderr().read_line().map_err(Error::from)?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            return Err(not_accepted().with_hint(
                "accept it later with `brief accept`, or discard it with `brief discard`",
            ));
        }
        Ok(allow_flags)
    } else if confirm_flags(ui, reviewed)? {
        Ok(true)
    } else {
        Err(not_accepted().with_hint("discard it with `brief discard`, or compress again"))
    }
}
