//! `brief show`: an item's body, current or of one version. Arguments, one call to
//! [`crate::store::inspect::body`], and the body on stdout.

use std::path::PathBuf;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::inspect;

/// Print an item's body: the current file's, or that of version N
#[derive(Debug, clap::Args)]
#[command(disable_version_flag = true)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// The version to print (see `brief history`)
    #[arg(long, value_name = "N")]
    pub version: Option<u32>,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let shown = inspect::body(
        &args.brief,
        &args.item,
        args.version,
        &mut super::warn_on(ui),
    )?;
    ui.out(&shown.body)?;
    Ok(Outcome::Ok)
}
