//! `brief diff`: what changed between two versions of an item, word by word. Arguments,
//! one call to [`crate::store::inspect::compare`], and the word diff.

use std::path::PathBuf;

use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::cli::worddiff::{changed, words};
use crate::error::Result;
use crate::store::inspect;

/// Show a word diff of an item: by default from its latest version to the current file
///
/// Removed words are shown as [-removed-], added ones as {+added+} (and in colour on a
/// terminal).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// The older side: a version number (default: the latest version)
    #[arg(long, value_name = "N")]
    pub from: Option<u32>,
    /// The newer side: a version number (default: the current file)
    #[arg(long, value_name = "N")]
    pub to: Option<u32>,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let sides = inspect::compare(
        &args.brief,
        &args.item,
        args.from,
        args.to,
        &mut super::warn_on(ui),
    )?;
    let header = format!(
        "{}: {} → {}",
        sides.item,
        sides.from_label(),
        sides.to_label()
    );
    if !changed(&words(&sides.old, &sides.new)) {
        ui.info(&format!("{header}: no differences"));
        return Ok(Outcome::Ok);
    }
    ui.outln(&ui.paint(&header, Tone::Strong))?;
    ui.out(&crate::cli::review::word_diff(ui, &sides.old, &sides.new))?;
    Ok(Outcome::Ok)
}
