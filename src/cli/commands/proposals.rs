//! `brief proposals`: the model proposals waiting for review.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::review::token_change;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::guard::{ChangeJson, CoverageJson, DroppedInstruction, Fact};
use crate::store::proposals;

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
    let brief = super::load_brief(&args.brief, ui)?;
    let mut pending = proposals::list(&brief.dir)?;
    let items = brief.items_by_id();
    let stale =
        |p: &proposals::Proposal| p.is_stale(items.get(p.item.as_str()).map(|item| item.body()));
    // The guard runs again against each item's current body, as `review` and `accept` do:
    // one report per proposal, one status everywhere.
    let mut status: Vec<&'static str> = Vec::with_capacity(pending.len());
    for p in &mut pending {
        let item = items.get(p.item.as_str()).copied();
        if let Some(item) = item {
            // A body the guard refuses keeps its stored report; review says why.
            let _ = crate::compress::rejudge(item, p);
        }
        status.push(match item {
            Some(item) if !p.is_stale(Some(item.body())) => crate::compress::status(item, p).0,
            _ => "stale",
        });
    }
    let summary = match pending.len() {
        0 => "no pending proposals".to_string(),
        1 => "1 pending proposal".to_string(),
        n => format!("{n} pending proposals"),
    };
    let report = ProposalsReport {
        summary,
        brief: &args.brief,
        proposals: pending
            .iter()
            .zip(status)
            .map(|(p, status)| ProposalRow {
                id: &p.id,
                item: &p.item,
                created: &p.created,
                provider: &p.provider,
                model: &p.model,
                tokens_before: p.tokens_before,
                tokens_after: p.tokens_after,
                stale: stale(p),
                status,
                guard: p.guard.status(),
                guard_summary: p.guard.summary(),
                dropped: &p.guard.dropped,
                changed: p.guard.changed.iter().map(ChangeJson::from).collect(),
                dropped_instructions: &p.guard.dropped_instructions,
                introduced: &p.guard.introduced,
                coverage: CoverageJson::from(&p.guard.coverage),
                report: &p.guard,
            })
            .collect(),
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `brief proposals`' report: the pending proposals, each with the guard's verdict
/// against its item's current body.
#[derive(Serialize)]
struct ProposalsReport<'a> {
    #[serde(skip)]
    summary: String,
    #[serde(skip)]
    brief: &'a Path,
    proposals: Vec<ProposalRow<'a>>,
}

/// One pending proposal; the keys and their order are the JSON contract.
#[derive(Serialize)]
struct ProposalRow<'a> {
    id: &'a str,
    item: &'a str,
    created: &'a str,
    provider: &'a str,
    model: &'a str,
    tokens_before: usize,
    tokens_after: usize,
    stale: bool,
    /// The proposal's review status (`stale` when its item's body changed since).
    status: &'static str,
    /// The guard's `clean` or `flagged`.
    guard: &'static str,
    guard_summary: String,
    dropped: &'a [Fact],
    changed: Vec<ChangeJson<'a>>,
    dropped_instructions: &'a [DroppedInstruction],
    introduced: &'a [Fact],
    coverage: CoverageJson,
    #[serde(skip)]
    report: &'a crate::guard::Report,
}

impl Report for ProposalsReport<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        if self.proposals.is_empty() {
            ui.info(&self.summary);
            return Ok(());
        }
        let mut table = Table::new(&[Align::Left; 7]).header([
            "PROPOSAL", "ITEM", "TOKENS", "GUARD", "STATE", "MODEL", "CREATED",
        ]);
        for p in &self.proposals {
            let guard = if p.report.is_clean() {
                ui.paint("clean", Tone::Good)
            } else {
                ui.paint(&flag_counts(p.report), Tone::Error)
            };
            let state = if p.stale {
                ui.paint("stale", Tone::Warning)
            } else {
                "pending".to_string()
            };
            table.row([
                ui.paint(p.id, Tone::Strong),
                p.item.to_string(),
                token_change(p.tokens_before, p.tokens_after),
                guard,
                state,
                p.model.to_string(),
                ui.paint(p.created, Tone::Dim),
            ]);
        }
        ui.out(&table.render())?;
        ui.info(&self.summary);
        let dir = crate::cli::ui::shell_quote(&self.brief.display().to_string());
        let allow = if self.proposals.iter().any(|p| !p.report.is_clean()) {
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
    match report.dropped_instructions.len() {
        0 => {}
        1 => parts.push("1 instruction".to_string()),
        n => parts.push(format!("{n} instructions")),
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
