//! `brief restore`: make an earlier version current again.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome};
use crate::cli::review::{ChangeReport, versions_written};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::transaction::{self, Status};

/// Make the body of version N the item's body again, as a new version
///
/// History is never rewritten: the restored body is recorded as a new version
/// (`action: restore`, `from: N`). Works on rule items too; `brief check` then asks for
/// `brief lock`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// The version to restore (see `brief history`)
    #[arg(value_name = "N")]
    pub number: u32,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief_for_versions(&args.brief, &args.item, ui)?;
    let change = transaction::restore(&brief.dir, &args.item, args.number)?;
    let current = change.current.unwrap_or_default();
    let (status, summary) = match change.status {
        Status::Unchanged => (
            "unchanged",
            format!(
                "`{}` already has the body of version {}: nothing written",
                change.item, args.number
            ),
        ),
        Status::Completed => (
            "completed",
            format!(
                "finished an interrupted restore: `{}` is version {current}",
                change.item
            ),
        ),
        Status::Applied => (
            "restored",
            format!(
                "restored version {} of `{}` as version {current} (wrote {})",
                args.number,
                change.item,
                versions_written(&change)
            ),
        ),
    };
    output::print(
        ui,
        Form::json_if(args.json),
        &ChangeReport::new(&change, status, summary),
    )
}
