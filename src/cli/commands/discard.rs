//! `brief discard`: drop pending proposals. Arguments, one call to
//! [`crate::store::review::discard`], and its report.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::review::{self, DiscardReport, Which};

/// Remove pending proposals, and nothing else
///
/// One proposal by its id (or its item's name, or the newest with --latest), every stale one (`--stale`: its item changed since it was made,
/// so `brief accept` would refuse it), or every pending one (`--all`).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("which").required(true).multiple(true).args(["id", "all", "stale", "latest"])))]
// clap names a required group before the positionals, which reads as if the id came first.
#[command(override_usage = "brief discard [OPTIONS] <BRIEF> <ID|ITEM|--latest|--all|--stale>")]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal: its id, or its item's name when that item has one pending proposal
    /// (see `brief proposals`)
    #[arg(value_name = "ID|ITEM")]
    pub id: Option<String>,
    /// The newest pending proposal (of ITEM, when one is named)
    #[arg(long, conflicts_with_all = ["all", "stale"])]
    pub latest: bool,
    /// Discard every pending proposal
    #[arg(long, conflicts_with_all = ["id", "stale"])]
    pub all: bool,
    /// Discard every proposal whose item changed since it was made
    #[arg(long, conflicts_with = "id")]
    pub stale: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let which = if args.latest || args.id.is_some() {
        Which::One(crate::store::pick::proposal_id(
            &args.brief,
            args.id.as_deref(),
            args.latest,
        )?)
    } else if args.all {
        Which::All
    } else {
        Which::Stale
    };
    let report = review::discard(&args.brief, which, &mut super::warn_on(ui))?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for DiscardReport {
    fn status(&self) -> &str {
        DiscardReport::status(self)
    }

    fn summary(&self) -> String {
        DiscardReport::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        match self {
            DiscardReport::One(_) => {}
            DiscardReport::Many { discarded, .. } => {
                for gone in discarded {
                    ui.info(&gone.line());
                }
            }
        }
        ui.info(&self.summary());
        Ok(())
    }
}
