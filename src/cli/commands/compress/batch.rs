//! `brief compress --all`: the report of [`crate::compress::propose_all`] (one proposal
//! per eligible item, the refused ones listed) with a closing table of the total saving.

use std::path::Path;

use serde::Serialize;

use super::{Args, quoted};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::token_change;
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::compress::Batch;
use crate::error::{Error, Result};

pub(super) fn run(args: &Args, ui: &Ui, form: Form, batch: Batch) -> Result<Outcome> {
    let report = BatchReport {
        batch: &batch,
        brief: &args.brief,
    };
    output::print(ui, form, &report)?;
    match batch.failures().next() {
        None => Ok(Outcome::Ok),
        Some(first) => {
            let failed = batch.failures().count();
            let mut err = Error::new(
                first.kind,
                match batch.proposals {
                    0 => format!("{failed} of the calls failed; no proposal was saved"),
                    n => format!(
                        "{failed} of the calls failed; the {n} other proposal{} {} saved",
                        plural(n),
                        if n == 1 { "is" } else { "are" }
                    ),
                },
            );
            // The JSON document said it all; the human form still gets the error line.
            err.reported = form == Form::Json;
            if let Some(status) = first.call_status() {
                err = err.with_call_status(status.clone());
            }
            Err(err)
        }
    }
}

/// A second `--all` run pays again for items that already wait for review: say so first.
pub(super) fn warn_pending(ui: &Ui, brief: &Path, waiting: &[&str]) {
    let dir = quoted(brief);
    let mut names = waiting
        .iter()
        .take(8)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if waiting.len() > 8 {
        names.push_str(&format!(" and {} more", waiting.len() - 8));
    }
    ui.warn(&format!(
        "{} item{} already {} a pending proposal ({}); this run adds another for each (`brief proposals {dir}` lists them, `brief discard {dir} --all` drops them)",
        waiting.len(),
        plural(waiting.len()),
        if waiting.len() == 1 { "has" } else { "have" },
        names
    ));
}

/// The plural ending for a count of `n`.
fn plural(n: usize) -> &'static str {
    crate::numbers::noun(n as u64, "", "s")
}

/// `brief compress --all`'s report: the batch's own fields after `status` and `summary`.
#[derive(Serialize)]
struct BatchReport<'a> {
    #[serde(flatten)]
    batch: &'a Batch,
    #[serde(skip)]
    brief: &'a Path,
}

impl Report for BatchReport<'_> {
    fn status(&self) -> &str {
        match self.batch.failures().next() {
            None => "ok",
            Some(_) => "failed",
        }
    }

    fn summary(&self) -> String {
        let b = self.batch;
        let made = b.proposals;
        let mut summary = format!(
            "{made} proposal{}: {}, {} token{} saved per call if all are accepted",
            plural(made),
            token_change(b.tokens_before, b.tokens_after),
            b.saved_tokens,
            plural(b.saved_tokens.unsigned_abs() as usize)
        );
        if !b.refused.is_empty() {
            summary.push_str(&format!(
                "; {} item{} refused",
                b.refused.len(),
                plural(b.refused.len())
            ));
        }
        let failed = b.failures().count();
        if failed > 0 {
            summary.push_str(&format!("; {failed} call{} failed", plural(failed)));
        }
        let not_asked = b.not_asked();
        if not_asked > 0 {
            summary.push_str(&format!(
                "; {not_asked} not asked (the server was unreachable)"
            ));
        }
        summary
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        render(ui, self.batch)?;
        ui.info(&self.summary());
        if self.batch.proposals > 0 {
            let dir = quoted(self.brief);
            ui.info(&format!(
                "review each: `brief proposals {dir}`, then `brief review {dir} ID`"
            ));
        }
        Ok(())
    }
}

fn render(ui: &Ui, batch: &Batch) -> Result<()> {
    let mut table = Table::new(&[
        Align::Left,
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Left,
        Align::Left,
    ])
    .header(["ITEM", "STATUS", "BEFORE", "AFTER", "GUARD", "PROPOSAL"]);
    let blank = String::new;
    for row in &batch.items {
        table.row(match &row.proposal {
            Some(p) => [
                p.item.clone(),
                row.status.to_string(),
                p.tokens_before.to_string(),
                p.tokens_after.to_string(),
                row.guard.clone(),
                p.proposal_id.clone(),
            ],
            None => [
                row.id().to_string(),
                row.status.replace('_', " "),
                blank(),
                blank(),
                blank(),
                blank(),
            ],
        });
    }
    for refused in &batch.refused {
        table.row([
            refused.item.clone(),
            format!("refused ({})", refused.policy),
            blank(),
            blank(),
            blank(),
            blank(),
        ]);
    }
    table.row([
        "total".to_string(),
        blank(),
        batch.tokens_before.to_string(),
        batch.tokens_after.to_string(),
        format!("saving {}", batch.saved_tokens),
        blank(),
    ]);
    ui.out(&table.render())
}
