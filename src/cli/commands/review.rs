//! `brief review`: show a pending proposal's review screen again, and decide on a terminal.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cli::output::Outcome;
use crate::cli::review::{object, print_commands, show_proposal};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::guard;
use crate::store::proposals;

/// Show a pending proposal again: tokens, guard findings and the word diff
///
/// The guard runs again against the item's current body, so the findings are today's. On a
/// terminal it then asks accept / discard / edit / later, as `brief compress` does;
/// elsewhere it prints the commands that act on the proposal. A proposal whose item changed
/// since it was made is shown as stale: `brief accept` refuses it (exit 4).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  brief proposals briefs/support\n  brief review briefs/support refunds-20261130t090002"
)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The proposal id (see `brief proposals`)
    pub id: String,
    /// Print one JSON object instead of the review screen (never asks)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let mut proposal = proposals::load(&brief.dir, &args.id)?;
    let Some(item) = brief.item(&proposal.item) else {
        return Err(Error::conflict(format!(
            "proposal {} is for `{}`, which is no longer in {}",
            proposal.id,
            proposal.item,
            brief.dir.display()
        ))
        .with_hint(format!(
            "discard it: brief discard {} {}",
            crate::cli::ui::shell_quote(&args.brief.display().to_string()),
            proposal.id
        )));
    };
    let stale = proposal.is_stale(Some(item.body()));
    crate::compress::rejudge(item, &mut proposal)?;
    let (status, mut summary) = super::compress::status(item, &proposal);
    let status = if stale { "stale" } else { status };
    if stale {
        summary = format!(
            "`{}` changed since this proposal was made: `brief accept` refuses it; {summary}",
            item.id
        );
    }
    if args.json {
        let fields = vec![
            ("proposal_id", Value::from(proposal.id.clone())),
            ("item", Value::from(proposal.item.clone())),
            ("stale", Value::from(stale)),
            ("created", Value::from(proposal.created.clone())),
            ("provider", Value::from(proposal.provider.clone())),
            ("model", Value::from(proposal.model.clone())),
            ("tokens_before", Value::from(proposal.tokens_before)),
            ("tokens_after", Value::from(proposal.tokens_after)),
            ("dropped", json!(proposal.guard.dropped)),
            ("changed", guard::changes_json(&proposal.guard.changed)),
            (
                "dropped_instructions",
                json!(proposal.guard.dropped_instructions),
            ),
            ("introduced", json!(proposal.guard.introduced)),
            ("coverage", guard::coverage_json(&proposal.guard.coverage)),
            ("body", Value::from(proposal.body.clone())),
        ];
        ui.json(&object(status, &summary, fields))?;
        return Ok(Outcome::Ok);
    }
    show_proposal(ui, item, &proposal, &summary)?;
    if ui.interactive() && !stale {
        crate::cli::interactive::ask(ui, &args.brief, &brief, item, proposal)
    } else {
        print_commands(ui, &args.brief, &proposal.id, !proposal.guard.is_clean())?;
        Ok(Outcome::Ok)
    }
}
