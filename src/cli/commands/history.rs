//! `brief history`: the versions of an item. Arguments, one call to
//! [`crate::store::inspect::overview`], and its human form.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::store::inspect::{self, ItemHistory};
use crate::store::transaction::BodyState;

/// List the versions of an item: number, time, action, tokens, note
///
/// `*` marks the version that is the item's current body. Versions are written by
/// `brief accept`, `brief restore` and `brief record`, never rewritten.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let history = inspect::overview(&args.brief, &args.item, &mut super::warn_on(ui))?;
    let shown = Shown {
        history,
        brief: args.brief,
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

/// The history and the brief as the user named it, for advice in this edge's words.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown {
    history: ItemHistory,
    #[serde(skip)]
    brief: PathBuf,
}

impl Shown {
    /// What to do about the body's state, naming the commands that do it.
    fn advice(&self) -> Option<String> {
        let (dir, item) = (self.brief.display(), &self.history.item);
        match self.history.state {
            BodyState::Unversioned => Some(format!(
                "the first accept versions it; or run `brief record {dir} {item}`"
            )),
            BodyState::Current => None,
            BodyState::Edited => Some(format!(
                "version the edit with `brief record {dir} {item} -m NOTE`"
            )),
            BodyState::Interrupted => Some(
                "run the interrupted `brief accept` or `brief restore` again to finish it"
                    .to_string(),
            ),
        }
    }
}

impl Report for Shown {
    fn status(&self) -> &str {
        self.history.status
    }

    fn summary(&self) -> String {
        self.history.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        use Align::{Left, Right};
        let mut table = Table::new(&[Left, Left, Left, Left, Right, Right, Left, Left]).header([
            "", "VERSION", "CREATED", "ACTION", "FROM", "TOKENS", "SHA256", "NOTE",
        ]);
        for v in &self.history.versions {
            let mark = if self.history.current == Some(v.version) {
                "*"
            } else {
                ""
            };
            let mut note = v.note.clone().unwrap_or_default();
            if let Some(proposal) = &v.proposal {
                note = format!("{proposal} {}", v.model.as_deref().unwrap_or_default())
                    .trim()
                    .to_string();
            }
            if !v.accepted_flags.is_empty() {
                // The flags themselves follow the table, whole: a cell would cut them.
                note.push_str(&format!(
                    " ({} accepted)",
                    crate::numbers::count(v.accepted_flags.len() as u64, "flag", "flags")
                ));
            }
            table.row([
                mark.to_string(),
                v.version.to_string(),
                v.created.clone(),
                v.action.to_string(),
                v.from.map(|f| f.to_string()).unwrap_or_default(),
                v.tokens.to_string(),
                v.sha256[..12.min(v.sha256.len())].to_string(),
                crate::cli::table::clip_cell(&note, crate::cli::table::MAX_TEXT_CELL),
            ]);
        }
        if !table.is_empty() {
            ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
        }
        for v in self
            .history
            .versions
            .iter()
            .filter(|v| !v.accepted_flags.is_empty())
        {
            ui.outln(&format!(
                "version {} was accepted with {}:",
                v.version,
                crate::numbers::count(v.accepted_flags.len() as u64, "guard flag", "guard flags")
            ))?;
            for flag in &v.accepted_flags {
                ui.outln(&format!("  {flag}"))?;
            }
        }
        if self.history.warns() {
            ui.warn(&self.history.summary);
        } else {
            ui.info(&self.history.summary);
        }
        if let Some(advice) = self.advice() {
            ui.info(&advice);
        }
        Ok(())
    }
}
