//! `brief compress --all`: one proposal per eligible item, the refused ones listed, a
//! closing table with the total saving. A failed call does not stop the others, except
//! when the server cannot be reached at all (then the rest are not asked).

use serde_json::{Value, json};

use super::{Args, Call, proposal_fields, quoted};
use crate::brief::Item;
use crate::cli::output::Outcome;
use crate::cli::review::{object, token_change};
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::compress;
use crate::error::{CallStatus, Error, Result};
use crate::store::proposals::{self, Proposal};

/// What happened to one item.
enum Row<'a> {
    Proposed(&'a Item, Box<Proposal>),
    Failed(&'a Item, Error),
    NotAsked(&'a Item),
}

pub(super) fn run(args: &Args, ui: &Ui, call: &Call) -> Result<Outcome> {
    let (eligible, refused) = compress::eligible(call.brief);
    if !args.json {
        warn_pending(ui, args, call, &eligible);
    }
    let mut rows = Vec::with_capacity(eligible.len());
    let mut unreachable = false;
    for item in eligible {
        if unreachable {
            rows.push(Row::NotAsked(item));
            continue;
        }
        match call
            .ask(ui, item)
            .and_then(|p| proposals::save(&call.brief.dir, &p).map(|_| p))
        {
            Ok(proposal) => {
                if !args.json {
                    ui.info(&compress::status(item, &proposal).1);
                }
                rows.push(Row::Proposed(item, Box::new(proposal)));
            }
            // Ctrl-C stops the batch: no further item is asked.
            Err(err) if err.kind == crate::error::ErrorKind::Interrupted => return Err(err),
            Err(err) => {
                unreachable = matches!(
                    err.call_status(),
                    Some(CallStatus::Connect | CallStatus::Timeout)
                );
                if !args.json {
                    ui.warn(&format!("`{}`: {}", item.id, err.message));
                }
                rows.push(Row::Failed(item, err));
            }
        }
    }
    let (before, after) = rows.iter().fold((0, 0), |(b, a), row| match row {
        Row::Proposed(_, p) => (b + p.tokens_before, a + p.tokens_after),
        _ => (b, a),
    });
    let made = rows
        .iter()
        .filter(|r| matches!(r, Row::Proposed(..)))
        .count();
    let failed: Vec<&Error> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Failed(_, e) => Some(e),
            _ => None,
        })
        .collect();
    let not_asked = rows
        .iter()
        .filter(|r| matches!(r, Row::NotAsked(_)))
        .count();
    let saving = before as i64 - after as i64;
    let mut summary = format!(
        "{made} proposal{}: {}, {saving} token{} saved per call if all are accepted",
        plural(made),
        token_change(before, after),
        plural(saving.unsigned_abs() as usize)
    );
    if !refused.is_empty() {
        summary.push_str(&format!(
            "; {} item{} refused",
            refused.len(),
            plural(refused.len())
        ));
    }
    if !failed.is_empty() {
        summary.push_str(&format!(
            "; {} call{} failed",
            failed.len(),
            plural(failed.len())
        ));
    }
    if not_asked > 0 {
        summary.push_str(&format!(
            "; {not_asked} not asked (the server was unreachable)"
        ));
    }
    let status = if failed.is_empty() { "ok" } else { "failed" };
    if args.json {
        let items: Vec<Value> = rows.iter().map(row_json).collect();
        let refused: Vec<Value> = refused
            .iter()
            .map(|(item, why)| {
                json!({"item": item.id, "type": item.kind, "policy": item.policy, "reason": why.message})
            })
            .collect();
        let fields = vec![
            ("items", Value::Array(items)),
            ("refused", Value::Array(refused)),
            ("proposals", json!(made)),
            ("tokens_before", json!(before)),
            ("tokens_after", json!(after)),
            ("saved_tokens", json!(saving)),
        ];
        ui.json(&object(status, &summary, fields))?;
    } else {
        render(ui, &rows, &refused, (before, after))?;
        ui.info(&summary);
        if made > 0 {
            let dir = quoted(&args.brief);
            ui.info(&format!(
                "review each: `brief proposals {dir}`, then `brief review {dir} ID`"
            ));
        }
    }
    match failed.first() {
        None => Ok(Outcome::Ok),
        Some(first) => {
            let mut err = Error::new(
                first.kind,
                match made {
                    0 => format!(
                        "{} of the calls failed; no proposal was saved",
                        failed.len()
                    ),
                    n => format!(
                        "{} of the calls failed; the {n} other proposal{} {} saved",
                        failed.len(),
                        plural(n),
                        if n == 1 { "is" } else { "are" }
                    ),
                },
            );
            err.reported = args.json;
            if let Some(status) = first.call_status() {
                err = err.with_call_status(status.clone());
            }
            Err(err)
        }
    }
}

/// A second `--all` run pays again for items that already wait for review: say so first.
/// A proposals directory that cannot be listed is not this run's problem: no warning then.
fn warn_pending(ui: &Ui, args: &Args, call: &Call, eligible: &[&Item]) {
    let Ok(pending) = proposals::list(&call.brief.dir) else {
        return;
    };
    let pending: std::collections::HashSet<&str> =
        pending.iter().map(|p| p.item.as_str()).collect();
    let waiting: Vec<&str> = eligible
        .iter()
        .filter(|item| pending.contains(item.id.as_str()))
        .map(|item| item.id.as_str())
        .collect();
    if !waiting.is_empty() {
        let dir = quoted(&args.brief);
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
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn row_json(row: &Row) -> Value {
    match row {
        Row::Proposed(item, proposal) => {
            let (status, summary) = compress::status(item, proposal);
            object(status, &summary, proposal_fields(proposal))
        }
        Row::Failed(item, err) => json!({
            "status": "failed", "summary": err.message, "item": item.id,
            "error_kind": err.kind.as_str(),
        }),
        Row::NotAsked(item) => json!({
            "status": "not_asked",
            "summary": "not asked: the server was unreachable for an earlier item",
            "item": item.id,
        }),
    }
}

fn render(
    ui: &Ui,
    rows: &[Row],
    refused: &[(&Item, Error)],
    (before, after): (usize, usize),
) -> Result<()> {
    let mut table = Table::new(&[
        Align::Left,
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Left,
        Align::Left,
    ])
    .header(["ITEM", "STATUS", "BEFORE", "AFTER", "GUARD", "PROPOSAL"]);
    for row in rows {
        match row {
            Row::Proposed(item, p) => table.row([
                item.id.clone(),
                compress::status(item, p).0.to_string(),
                p.tokens_before.to_string(),
                p.tokens_after.to_string(),
                p.guard.summary(),
                p.id.clone(),
            ]),
            Row::Failed(item, _) => table.row([
                item.id.clone(),
                "failed".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]),
            Row::NotAsked(item) => table.row([
                item.id.clone(),
                "not asked".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]),
        }
    }
    for (item, _) in refused {
        table.row([
            item.id.clone(),
            format!("refused ({})", item.policy),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    table.row([
        "total".to_string(),
        String::new(),
        before.to_string(),
        after.to_string(),
        format!("saving {}", before as i64 - after as i64),
        String::new(),
    ]);
    ui.out(&table.render())
}
