//! `brief proposals`: the model proposals waiting for review. Arguments, one call to
//! [`review::pending`], and its report.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::token_change;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::store::review::{self, Pending};

/// List pending proposals: id, item, tokens before → after, guard findings
///
/// A proposal is "stale" when its item's body changed since it was made; `brief accept`
/// refuses it, so discard it and compress again.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let proposals = review::pending(&brief)?;
    output::print(
        ui,
        Form::json_if(args.json),
        &Listed {
            proposals,
            brief: &args.brief,
        },
    )
}

/// `brief proposals`' report.
#[derive(Serialize)]
struct Listed<'a> {
    proposals: Vec<Pending>,
    #[serde(skip)]
    brief: &'a Path,
}

impl Report for Listed<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        match self.proposals.len() {
            0 => "no pending proposals".to_string(),
            1 => "1 pending proposal".to_string(),
            n => format!("{n} pending proposals"),
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        if self.proposals.is_empty() {
            ui.info(&self.summary());
            return Ok(());
        }
        ui.out(&table(ui, &self.proposals))?;
        ui.info(&self.summary());
        let dir = crate::cli::ui::shell_quote(&self.brief.display().to_string());
        let allow = if self.proposals.iter().any(|p| !p.dropped.is_empty()) {
            " (a flagged one: add --allow-flags)"
        } else {
            ""
        };
        ui.info(&format!(
            "see one again with `brief review {dir} ID`; accept it with `brief accept {dir} ID`{allow}, or drop it with `brief discard {dir} ID` (`--stale` or `--all` for many)"
        ));
        Ok(())
    }
}

fn table(ui: &Ui, pending: &[Pending]) -> String {
    let mut table = Table::new(&[
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
        Align::Left,
    ])
    .header([
        "PROPOSAL", "ITEM", "TOKENS", "GUARD", "STATE", "MODEL", "CREATED",
    ]);
    for p in pending {
        let dropped = p.dropped.len();
        let guard = if dropped == 0 {
            ui.paint("clean", Tone::Good)
        } else {
            ui.paint(&format!("{dropped} dropped"), Tone::Error)
        };
        let state = if p.stale {
            ui.paint("stale", Tone::Warning)
        } else {
            "pending".to_string()
        };
        table.row([
            ui.paint(&p.id, Tone::Strong),
            p.item.clone(),
            token_change(p.tokens_before, p.tokens_after),
            guard,
            state,
            p.model.clone(),
            ui.paint(&p.created, Tone::Dim),
        ]);
    }
    table.render()
}
