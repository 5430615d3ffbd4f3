//! `brief discard`: drop pending proposals.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cli::output::Outcome;
use crate::cli::review::object;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::store::{proposals, transaction};

/// Remove pending proposals, and nothing else
///
/// One proposal by its id, every stale one (`--stale`: its item changed since it was made,
/// so `brief accept` would refuse it), or every pending one (`--all`).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["id", "all", "stale"])))]
// clap names a required group before the positionals, which reads as if the id came first.
#[command(override_usage = "brief discard [OPTIONS] <BRIEF> <ID|--all|--stale>")]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: Option<String>,
    /// Discard every pending proposal
    #[arg(long)]
    pub all: bool,
    /// Discard every proposal whose item changed since it was made
    #[arg(long)]
    pub stale: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    if let Some(id) = &args.id {
        let proposal = transaction::discard(&brief.dir, id)?;
        let summary = format!("discarded proposal {} for `{}`", proposal.id, proposal.item);
        if args.json {
            ui.json(&json!({"status": "discarded", "summary": summary, "proposal_id": proposal.id, "item": proposal.item}))?;
        } else {
            ui.info(&summary);
        }
        return Ok(Outcome::Ok);
    }
    let pending = proposals::list(&brief.dir)?;
    let items = brief.items_by_id();
    let chosen: Vec<_> = pending
        .into_iter()
        .filter(|p| args.all || p.is_stale(items.get(p.item.as_str()).map(|item| item.body())))
        .collect();
    let mut discarded = Vec::new();
    for proposal in &chosen {
        let gone = transaction::discard(&brief.dir, &proposal.id).map_err(|e| {
            Error::new(
                e.kind,
                format!(
                    "{} (after discarding {} of {})",
                    e.message,
                    discarded.len(),
                    chosen.len()
                ),
            )
        })?;
        discarded.push(json!({"proposal_id": gone.id, "item": gone.item}));
        if !args.json {
            ui.info(&format!(
                "discarded proposal {} for `{}`",
                gone.id, gone.item
            ));
        }
    }
    let which = if args.all { "pending" } else { "stale" };
    let summary = match discarded.len() {
        0 => format!("no {which} proposals to discard"),
        1 => format!("discarded 1 {which} proposal"),
        n => format!("discarded {n} {which} proposals"),
    };
    if args.json {
        let status = if discarded.is_empty() {
            "nothing"
        } else {
            "discarded"
        };
        ui.json(&object(
            status,
            &summary,
            vec![("discarded", Value::from(discarded))],
        ))?;
    } else {
        ui.info(&summary);
    }
    Ok(Outcome::Ok)
}
