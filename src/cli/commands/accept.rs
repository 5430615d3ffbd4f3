//! `brief accept`: make a reviewed proposal the item's body, as a new version.

use std::path::PathBuf;

use crate::brief::Item;
use crate::cli::output::{self, Form, Outcome};
use crate::cli::review::{ChangeReport, versions_written};
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};
use crate::store::proposals;
use crate::store::transaction::{self, Status};

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
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: String,
    /// Accept even though the guard found facts or instructions the proposal dropped or changed
    #[arg(long)]
    pub allow_flags: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let mut allow_flags = args.allow_flags;
    // On a terminal the operator sees what they accept before anything is written.
    if !args.json
        && ui.interactive()
        && let Ok(mut proposal) = proposals::load(&brief.dir, &args.id)
        && let Some(item) = brief.item(&proposal.item)
    {
        crate::compress::rejudge(item, &mut proposal)?;
        let (_, summary) = super::compress::status(item, &proposal);
        crate::cli::review::show_proposal(ui, item, &proposal, &summary)?;
        if proposal.guard.is_clean() || allow_flags {
            ui.err_line("Accept this proposal? [y/N] ");
            let answer = console::Term::stderr().read_line().map_err(Error::from)?;
            if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
                return Err(Error::failed(format!(
                    "proposal {} not accepted: nothing written",
                    proposal.id
                ))
                .with_hint(
                    "accept it later with `brief accept`, or discard it with `brief discard`",
                ));
            }
        } else if confirm_flags(ui, item, &proposal)? {
            allow_flags = true;
        } else {
            return Err(Error::failed(format!(
                "proposal {} not accepted: nothing written",
                proposal.id
            ))
            .with_hint("discard it with `brief discard`, or compress again"));
        }
    }
    let change = transaction::accept(&brief.dir, &args.id, allow_flags)?;
    let version = change.current.unwrap_or_default();
    let (status, summary) = match change.status {
        Status::Unchanged => (
            "unchanged",
            format!(
                "proposal {} is identical to the body of `{}`: nothing written (the proposal is removed)",
                args.id, change.item
            ),
        ),
        Status::Completed => (
            "completed",
            format!(
                "finished an interrupted accept of {}: `{}` is version {version}",
                args.id, change.item
            ),
        ),
        _ => (
            "accepted",
            format!(
                "accepted {}: `{}` is now version {version} (wrote {})",
                args.id,
                change.item,
                versions_written(&change)
            ),
        ),
    };
    let report = ChangeReport {
        proposal_id: Some(&args.id),
        ..ChangeReport::new(&change, status, summary)
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// Shows what the guard finds (run again on the current body) and asks for an explicit
/// second confirmation: true when the operator typed `accept`.
pub(crate) fn confirm_flags(ui: &Ui, item: &Item, proposal: &proposals::Proposal) -> Result<bool> {
    let report = crate::guard::check_item(item, &proposal.body)?;
    ui.err_line(&format!(
        "{} proposal {} drops or changes facts or instructions of `{}`:",
        ui.paint_err("warning:", Tone::Warning),
        proposal.id,
        proposal.item
    ));
    ui.err_line(crate::cli::review::render_guard(&Ui::plain(), item, &report).trim_end());
    ui.err_line("Type `accept` to accept it anyway, anything else to stop: ");
    let answer = console::Term::stderr().read_line().map_err(Error::from)?;
    Ok(answer.trim() == "accept")
}
