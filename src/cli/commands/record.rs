//! `brief record`: version a body edited by hand. Arguments, one call to
//! [`crate::prompt::relock::record`], and its report.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::prompt::relock;

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
    let report = relock::record(
        &args.brief,
        &args.item,
        args.message,
        &mut super::warn_on(ui),
    )?;
    output::print(ui, Form::json_if(args.json), &report)
}
