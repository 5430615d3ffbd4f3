//! `brief compress --estimate`: the tokens each call would send and receive and what it
//! would cost, from the exact prompt that would be sent ([`compress::estimate_run`]). No
//! call, no ledger line.

use serde::Serialize;

use super::Args;
use crate::brief::Brief;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::compress::{self, EstimateRequest, Estimates};
use crate::error::{Error, Result};

pub(super) fn run(args: &Args, ui: &Ui, brief: &Brief) -> Result<Outcome> {
    for (flag, price) in [
        ("--price-input", args.price_input),
        ("--price-output", args.price_output),
    ] {
        if price.is_some_and(|p| !(p.is_finite() && p >= 0.0)) {
            return Err(Error::input(format!(
                "{flag} must be a price of zero or more"
            )));
        }
    }
    let estimates = compress::estimate_run(&EstimateRequest {
        brief,
        item: args.item.as_deref(),
        compressor: args.compressor.as_deref(),
        provider: &args.provider.overrides(),
        price_input: args.price_input,
        price_output: args.price_output,
    })?;
    output::print(ui, Form::json_if(args.json), &EstimateReport(estimates))
}

/// `brief compress --estimate`'s report.
#[derive(Serialize)]
#[serde(transparent)]
struct EstimateReport(Estimates);

impl Report for EstimateReport {
    fn status(&self) -> &str {
        "estimate"
    }

    fn summary(&self) -> String {
        let e = &self.0;
        let mut summary = format!(
            "{} call{} would send {} input tokens and receive at most {}",
            e.calls,
            if e.calls == 1 { "" } else { "s" },
            e.input_tokens,
            e.output_tokens
        );
        match e.cost {
            Some(cost) => summary.push_str(&format!(
                ", about {} {} in all",
                money(cost),
                e.currency.as_deref().unwrap_or("USD")
            )),
            None => summary.push_str(
                "; no price known (set `pricing` in brief.yaml or pass --price-input and --price-output)",
            ),
        }
        summary.push_str("; nothing was sent");
        summary
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let report = &self.0;
        let mut table = Table::new(&[Align::Left, Align::Right, Align::Right, Align::Right])
            .header(["ITEM", "INPUT", "OUTPUT (AT MOST)", "COST"]);
        for e in &report.estimates {
            table.row([
                e.item.clone(),
                e.input_tokens.to_string(),
                e.output_tokens.to_string(),
                e.cost.map_or("-".to_string(), money),
            ]);
        }
        table.row([
            "total".to_string(),
            report.input_tokens.to_string(),
            report.output_tokens.to_string(),
            report.cost.map_or("-".to_string(), money),
        ]);
        ui.out(&table.render())?;
        if !report.refused.is_empty() {
            ui.info(&format!(
                "not sent (refused by policy): {}",
                report.refused.join(", ")
            ));
        }
        ui.info(&self.summary());
        Ok(())
    }
}

fn money(value: f64) -> String {
    format!("{value:.4}")
}
