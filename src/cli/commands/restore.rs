//! `brief restore`: make an earlier version current again. Arguments, one call to
//! [`crate::prompt::relock::restore`], and its report.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::prompt::relock;

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
    let report = relock::restore(
        &args.brief,
        &args.item,
        args.number,
        &mut super::warn_on(ui),
    )?;
    output::print(ui, Form::json_if(args.json), &report)
}
