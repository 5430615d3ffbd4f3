//! `brief accept`: make a reviewed proposal the item's body, as a new version.

use std::path::PathBuf;

use serde_json::Value;

use super::review::{change_json, findings, object, versions_written};
use crate::cli::Outcome;
use crate::error::{Error, Result};
use crate::store::proposals;
use crate::store::transaction::{self, Status};
use crate::ui::{Tone, Ui};

/// Accept a pending proposal: version the current body, then replace it
///
/// On the first accept of an item its current body becomes version 1. The accepted body
/// becomes the next version, then the item file's body (its front matter is kept). Refused
/// with exit 4 when the item changed since the proposal was made, and with exit 1 when the
/// guard found dropped facts, unless --allow-flags (on a terminal: a second confirmation).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: String,
    /// Accept even though the guard found facts the proposal dropped
    #[arg(long)]
    pub allow_flags: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let mut allow_flags = args.allow_flags;
    if !allow_flags
        && ui.interactive()
        && let Ok(proposal) = proposals::load(&brief.dir, &args.id)
        && !proposal.dropped().is_empty()
    {
        allow_flags = confirm_flags(ui, &proposal)?;
    }
    let change = transaction::accept(&brief.dir, &args.id, allow_flags)?;
    let version = change.current.unwrap_or_default();
    let (status, summary) = match change.status {
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
    if args.json {
        let mut fields = vec![("proposal_id", Value::from(args.id.clone()))];
        fields.extend(change_json(&change));
        ui.json(&object(status, &summary, fields))?;
    } else {
        ui.info(&summary);
    }
    Ok(Outcome::Ok)
}

/// Shows what the guard found and asks for an explicit second confirmation.
fn confirm_flags(ui: &Ui, proposal: &proposals::Proposal) -> Result<bool> {
    ui.err_line(&format!(
        "{} the guard found facts that proposal {} drops from `{}`:",
        ui.paint_err("warning:", Tone::Warning),
        proposal.id,
        proposal.item
    ));
    for line in findings(&Ui::plain(), proposal) {
        ui.err_line(&line);
    }
    ui.err_line("Type `accept` to accept it anyway, anything else to stop: ");
    let answer = console::Term::stderr().read_line().map_err(Error::from)?;
    if answer.trim() == "accept" {
        Ok(true)
    } else {
        Err(Error::failed(format!(
            "proposal {} not accepted: nothing written",
            proposal.id
        ))
        .with_hint("discard it with `brief discard`, or compress again"))
    }
}
