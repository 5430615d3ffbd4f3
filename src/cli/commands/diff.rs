//! `brief diff`: what changed between two versions of an item, word by word.

use std::path::PathBuf;

use super::show::no_version_error;
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::cli::worddiff::{changed, words};
use crate::error::{Error, Result};
use crate::store::history::History;
use crate::store::transaction::find_item;

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
    let brief = super::load_brief_for_versions(&args.brief, &args.item, ui)?;
    let item = find_item(&brief, &args.item)?;
    let history = History::load(&brief.dir, &item.id)?;
    let side = |number: u32| -> Result<(String, String)> {
        let version = history
            .get(number)
            .ok_or_else(|| no_version_error(&args.brief, &history, number))?;
        Ok((format!("version {number}"), version.body.clone()))
    };
    let (from_label, old) = match args.from {
        Some(n) => side(n)?,
        None => match history.latest() {
            Some(latest) => (
                format!("version {}", latest.meta.version),
                latest.body.clone(),
            ),
            None => {
                return Err(Error::input(format!(
                    "`{}` has no versions yet: nothing to compare with",
                    item.id
                ))
                .with_hint(format!(
                    "version the current body with `brief record {} {}`",
                    args.brief.display(),
                    item.id
                )));
            }
        },
    };
    let (to_label, new) = match args.to {
        Some(n) => side(n)?,
        None => ("the current file".to_string(), item.body().to_string()),
    };
    let header = format!("{}: {from_label} → {to_label}", item.id);
    if !changed(&words(&old, &new)) {
        ui.info(&format!("{header}: no differences"));
        return Ok(Outcome::Ok);
    }
    ui.outln(&ui.paint(&header, Tone::Strong))?;
    ui.out(&crate::cli::review::word_diff(ui, &old, &new))?;
    Ok(Outcome::Ok)
}
