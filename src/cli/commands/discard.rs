//! `brief discard`: drop a pending proposal.

use std::path::PathBuf;

use serde_json::json;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::transaction;

/// Remove a pending proposal, and nothing else
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: String,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let proposal = transaction::discard(&brief.dir, &args.id)?;
    let summary = format!("discarded proposal {} for `{}`", proposal.id, proposal.item);
    if args.json {
        ui.json(&json!({"status": "discarded", "summary": summary, "proposal_id": proposal.id, "item": proposal.item}))?;
    } else {
        ui.info(&summary);
    }
    Ok(Outcome::Ok)
}
