//! `brief show`: an item's body, current or of one version.

use std::path::PathBuf;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::store::history::History;
use crate::store::transaction::find_item;

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
    let brief = super::load_brief_for_versions(&args.brief, &args.item, ui)?;
    let item = find_item(&brief, &args.item)?;
    let Some(number) = args.version else {
        ui.out(item.body())?;
        return Ok(Outcome::Ok);
    };
    let history = History::load(&brief.dir, &item.id)?;
    let version = history
        .get(number)
        .ok_or_else(|| no_version(&args, &history))?;
    ui.out(&version.body)?;
    Ok(Outcome::Ok)
}

/// The error for a version number an item does not have.
pub fn no_version_error(brief: &std::path::Path, history: &History, number: u32) -> Error {
    let have = match history.versions.len() {
        0 => "none yet".to_string(),
        1 => "version 1 only".to_string(),
        n => format!("versions 1 to {n}"),
    };
    Error::input(format!(
        "`{}` has no version {number}: it has {have}",
        history.item
    ))
    .with_hint(format!(
        "see `brief history {} {}`",
        brief.display(),
        history.item
    ))
}

fn no_version(args: &Args, history: &History) -> Error {
    no_version_error(&args.brief, history, args.version.unwrap_or_default())
}
