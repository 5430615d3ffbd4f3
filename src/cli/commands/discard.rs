//! `brief discard`: drop pending proposals. Arguments, one call (to
//! [`transaction::discard`] or [`review::discard_many`]), and its report.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::review::{self, Discarded, Which};
use crate::store::transaction;

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
    let form = Form::json_if(args.json);
    if let Some(id) = &args.id {
        let proposal = transaction::discard(&brief.dir, id)?;
        let one = Discarded {
            proposal_id: proposal.id,
            item: proposal.item,
        };
        return output::print(ui, form, &One(one));
    }
    let which = if args.all { Which::All } else { Which::Stale };
    let discarded = review::discard_many(&brief, which)?;
    output::print(ui, form, &Many { which, discarded })
}

/// `brief discard BRIEF ID`.
#[derive(Serialize)]
#[serde(transparent)]
struct One(Discarded);

impl Report for One {
    fn status(&self) -> &str {
        "discarded"
    }

    fn summary(&self) -> String {
        line(&self.0)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.info(&self.summary());
        Ok(())
    }
}

fn line(gone: &Discarded) -> String {
    format!(
        "discarded proposal {} for `{}`",
        gone.proposal_id, gone.item
    )
}

/// `brief discard BRIEF --all|--stale`.
#[derive(Serialize)]
struct Many {
    #[serde(skip)]
    which: Which,
    discarded: Vec<Discarded>,
}

impl Report for Many {
    fn status(&self) -> &str {
        if self.discarded.is_empty() {
            "nothing"
        } else {
            "discarded"
        }
    }

    fn summary(&self) -> String {
        let which = match self.which {
            Which::All => "pending",
            Which::Stale => "stale",
        };
        match self.discarded.len() {
            0 => format!("no {which} proposals to discard"),
            1 => format!("discarded 1 {which} proposal"),
            n => format!("discarded {n} {which} proposals"),
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        for gone in &self.discarded {
            ui.info(&line(gone));
        }
        ui.info(&self.summary());
        Ok(())
    }
}
