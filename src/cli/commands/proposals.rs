//! `brief proposals`: the model proposals waiting for review. Arguments, one call to
//! [`crate::compress::review::pending`], and its table.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::token_change;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::compress::review::{self, PendingProposals};
use crate::error::Result;

/// List pending proposals: id, item, tokens before → after, guard findings
///
/// The guard runs again against each item's current body, so the findings agree with
/// `brief review` and `brief accept`. A proposal is "stale" when its item's body changed
/// since it was made; `brief accept` refuses it, so discard it and compress again.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let pending = review::pending(&args.brief, &mut super::warn_on(ui))?;
    let shown = Shown {
        pending,
        brief: &args.brief,
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

/// `brief proposals`' report, with the brief as the user named it for the commands shown.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a> {
    pending: PendingProposals,
    #[serde(skip)]
    brief: &'a Path,
}

impl Report for Shown<'_> {
    fn status(&self) -> &str {
        self.pending.status
    }

    fn summary(&self) -> String {
        self.pending.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let proposals = &self.pending.proposals;
        if proposals.is_empty() {
            ui.info(&self.pending.summary);
            return Ok(());
        }
        let mut table = Table::new(&[Align::Left; 7]).header([
            "PROPOSAL", "ITEM", "TOKENS", "GUARD", "STATE", "MODEL", "CREATED",
        ]);
        for judged in proposals {
            let p = &judged.proposal;
            let guard = match p.guard.status() {
                "clean" => ui.paint("clean", Tone::Good),
                "review" => ui.paint(&format!("review: {}", flag_counts(&p.guard)), Tone::Warning),
                _ => ui.paint(&flag_counts(&p.guard), Tone::Error),
            };
            let state = if judged.stale {
                ui.paint("stale", Tone::Warning)
            } else {
                "pending".to_string()
            };
            table.row([
                ui.paint(&p.id, Tone::Strong),
                p.item.to_string(),
                token_change(p.tokens_before, p.tokens_after),
                guard,
                state,
                p.model.to_string(),
                ui.paint(&p.created, Tone::Dim),
            ]);
        }
        ui.out(&table.render())?;
        ui.info(&self.pending.summary);
        let dir = crate::cli::ui::shell_quote(&self.brief.display().to_string());
        let allow = if proposals.iter().any(|j| j.proposal.guard.is_flagged()) {
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

/// `2 dropped, 1 changed, 1 instruction`: what a flagged report found, in a table cell.
fn flag_counts(report: &crate::guard::Report) -> String {
    let mut parts = Vec::new();
    if !report.dropped.is_empty() {
        parts.push(format!("{} dropped", report.dropped.len()));
    }
    if !report.changed.is_empty() {
        parts.push(format!("{} changed", report.changed.len()));
    }
    for (kind, n) in report.dropped_units() {
        parts.push(kind.count(n));
    }
    if report.coverage.under_half() {
        parts.push(format!(
            "{}/{} kept",
            report.coverage.kept, report.coverage.instructions
        ));
    }
    if parts.is_empty() {
        "flagged".to_string()
    } else {
        parts.join(", ")
    }
}
