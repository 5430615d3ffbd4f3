//! `brief diff`: what changed between two versions of an item, word by word. Arguments,
//! one call to [`crate::store::inspect::compare`], and the word diff.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui};
use crate::cli::worddiff::{changed, words};
use crate::error::Result;
use crate::store::inspect::{self, Comparison};

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
    /// Print one JSON object (from, to, a unified line diff and its counts) instead of the
    /// word diff
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let sides = inspect::compare(
        &args.brief,
        &args.item,
        args.from,
        args.to,
        &mut super::warn_on(ui),
    )?;
    if args.json {
        return output::print(ui, Form::Json, &Diffed::of(&sides));
    }
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

/// `brief diff --json`: the two sides and what changed between them, line by line.
#[derive(Serialize)]
struct Diffed {
    item: String,
    /// The older side's version.
    from: u32,
    /// The newer side's version; null for the current file.
    to: Option<u32>,
    /// Whether the bodies differ at all (by words, as the human form shows it).
    changed: bool,
    /// Lines only in the newer side, and only in the older one.
    lines_added: usize,
    lines_removed: usize,
    /// A unified diff (`--- version N`, `+++ …`, `@@` hunks); empty when nothing changed.
    unified_diff: String,
    #[serde(skip)]
    labels: (String, String),
}

impl Diffed {
    fn of(sides: &Comparison) -> Self {
        let lines = similar::TextDiff::from_lines(&sides.old, &sides.new);
        let (mut added, mut removed) = (0, 0);
        for change in lines.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        let labels = (sides.from_label(), sides.to_label());
        let unified_diff = if added + removed == 0 {
            String::new()
        } else {
            lines
                .unified_diff()
                .header(&labels.0, &labels.1)
                .to_string()
        };
        Diffed {
            item: sides.item.clone(),
            from: sides.from,
            to: sides.to,
            changed: changed(&words(&sides.old, &sides.new)),
            lines_added: added,
            lines_removed: removed,
            unified_diff,
            labels,
        }
    }
}

impl Report for Diffed {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        let head = format!("{}: {} → {}", self.item, self.labels.0, self.labels.1);
        if !self.changed {
            return format!("{head}: no differences");
        }
        format!(
            "{head}: {} added, {} removed",
            crate::numbers::count(self.lines_added as u64, "line", "lines"),
            crate::numbers::count(self.lines_removed as u64, "line", "lines")
        )
    }

    /// Not used: the human form is the word diff printed by [`run`].
    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&self.unified_diff)
    }
}
