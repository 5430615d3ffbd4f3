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
    let pending = proposals::list(&brief.dir)?;
    let items = brief.items_by_id();
    let stale =
        |p: &proposals::Proposal| p.is_stale(items.get(p.item.as_str()).map(|item| item.body()));
    let summary = match pending.len() {
        0 => "no pending proposals".to_string(),
        1 => "1 pending proposal".to_string(),
        n => format!("{n} pending proposals"),
    };
    if args.json {
        let list: Vec<_> = pending
            .iter()
            .map(|p| {
                json!({
                    "id": p.id, "item": p.item, "created": p.created,
                    "provider": p.provider, "model": p.model,
                    "tokens_before": p.tokens_before, "tokens_after": p.tokens_after,
                    "stale": stale(p),
                    "dropped": p.guard.dropped,
                    "introduced": p.guard.introduced,
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
        let dropped = p.dropped().len();
        let guard = if dropped == 0 {
            ui.paint("clean", Tone::Good)
        } else {
            ui.paint(&format!("{dropped} dropped"), Tone::Error)
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
    let allow = if pending.iter().any(|p| !p.dropped().is_empty()) {
        " (a flagged one: add --allow-flags)"
    } else {
        ""
    };
    ui.info(&format!(
        "see one again with `brief review {dir} ID`; accept it with `brief accept {dir} ID`{allow}, or drop it with `brief discard {dir} ID` (`--stale` or `--all` for many)"
    ));
    Ok(Outcome::Ok)
}
