//! `brief record`: version a body edited by hand.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome};
use crate::cli::review::ChangeReport;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::transaction::{self, Status};

/// Record the item's current body as a new version (after editing it by hand)
///
/// Nothing is written when the body already is the latest version. On an item with no
/// history in a git work tree, the body git has committed for the file (when it differs)
/// is recorded first, as version 1 (`import`), so the text before the hand edit is kept.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// A note saying why the body changed
    #[arg(short, long, value_name = "NOTE")]
    pub message: Option<String>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief_for_versions(&args.brief, &args.item, ui)?;
    let change = transaction::record(&brief.dir, &args.item, args.message)?;
    let current = change.current.unwrap_or_default();
    let (status, summary) = match change.status {
        Status::Unchanged => (
            "unchanged",
            format!(
                "`{}` is unchanged since version {current}: nothing written",
                change.item
            ),
        ),
        _ if change.versions.len() > 1 => (
            "recorded",
            format!(
                "recorded `{}` as version {current} (wrote {}: the body git has committed came first)",
                change.item,
                crate::cli::review::versions_written(&change)
            ),
        ),
        _ => (
            "recorded",
            format!("recorded `{}` as version {current}", change.item),
        ),
    };
    output::print(
        ui,
        Form::json_if(args.json),
        &ChangeReport::new(&change, status, summary),
    )
}
