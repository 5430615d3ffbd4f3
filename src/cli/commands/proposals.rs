//! `brief proposals`: the model proposals waiting for review.

use std::path::PathBuf;

use serde_json::json;

use crate::cli::output::Outcome;
use crate::cli::review::token_change;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
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
    if args.json {
        let list: Vec<_> = pending
            .iter()
            .zip(&status)
            .map(|(p, status)| {
                json!({
                    "id": p.id, "item": p.item, "created": p.created,
                    "provider": p.provider, "model": p.model,
                    "tokens_before": p.tokens_before, "tokens_after": p.tokens_after,
                    "stale": stale(p),
                    "status": status,
                    "guard": p.guard.status(),
                    "guard_summary": p.guard.summary(),
                    "dropped": p.guard.dropped,
                    "changed": crate::guard::changes_json(&p.guard.changed),
                    "dropped_instructions": p.guard.dropped_instructions,
                    "introduced": p.guard.introduced,
                    "coverage": crate::guard::coverage_json(&p.guard.coverage),
                })
            })
            .collect();
        ui.json(&json!({"status": "ok", "summary": summary, "proposals": list}))?;
        return Ok(Outcome::Ok);
    }
    if pending.is_empty() {
        ui.info(&summary);
        return Ok(Outcome::Ok);
    }
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
    for p in &pending {
        let guard = if p.guard.is_clean() {
            ui.paint("clean", Tone::Good)
        } else {
            ui.paint(&flag_counts(&p.guard), Tone::Error)
        };
        let state = if stale(p) {
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
    ui.out(&table.render())?;
    ui.info(&summary);
    let dir = crate::cli::ui::shell_quote(&args.brief.display().to_string());
    let allow = if pending.iter().any(|p| !p.guard.is_clean()) {
        " (a flagged one: add --allow-flags)"
    } else {
        ""
    };
    ui.info(&format!(
        "see one again with `brief review {dir} ID`; accept it with `brief accept {dir} ID`{allow}, or drop it with `brief discard {dir} ID` (`--stale` or `--all` for many)"
    ));
    Ok(Outcome::Ok)
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
