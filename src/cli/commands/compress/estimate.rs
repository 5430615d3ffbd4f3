//! `brief compress --estimate`: the tokens each call would send and receive and what it
//! would cost, from the exact prompt that would be sent. No call, no ledger line.

use serde::Serialize;

use super::Args;
use crate::brief::{Brief, Item};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::compress::{self, Compressor, Estimate};
use crate::error::{Error, Result};

pub(super) fn run(
    args: &Args,
    ui: &Ui,
    brief: &Brief,
    targets: &[&Item],
    compressor: &Compressor,
) -> Result<Outcome> {
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
    // No key is needed to count: the provider and model come from the flags and the brief.
    let (kind, model) =
        crate::provider::choice(&args.provider.overrides(), brief.manifest.model.as_ref());
    let prices = compress::prices(
        brief,
        model.as_deref().unwrap_or_default(),
        args.price_input,
        args.price_output,
    );
    let estimates: Vec<Estimate> = targets
        .iter()
        .map(|item| compress::estimate(brief, item, compressor, prices))
        .collect();
    let input: usize = estimates.iter().map(|e| e.input_tokens).sum();
    let output: usize = estimates.iter().map(|e| e.output_tokens).sum();
    let cost = prices.map(|_| {
        let sum = estimates.iter().filter_map(|e| e.cost).sum::<f64>();
        (sum * 1e6).round() / 1e6
    });
    let calls: usize = estimates.iter().map(|e| e.calls).sum();
    let mut summary = format!(
        "{calls} call{} would send {input} input tokens and receive at most {output}",
        if calls == 1 { "" } else { "s" }
    );
    match cost {
        Some(cost) => summary.push_str(&format!(", about {} in all", money(cost))),
        None => summary.push_str(
            "; no price known (set `pricing` in brief.yaml or pass --price-input and --price-output)",
        ),
    }
    summary.push_str("; nothing was sent");
    // With --all, the items that would not be sent are named too.
    let refused: Vec<&str> = if args.all {
        compress::eligible(brief)
            .1
            .iter()
            .map(|(item, _)| item.id.as_str())
            .collect()
    } else {
        Vec::new()
    };
    let report = EstimateReport {
        provider: kind.as_str(),
        model: model.as_deref(),
        compressor: &compressor.source,
        estimates: &estimates,
        calls,
        input_tokens: input,
        output_tokens: output,
        cost,
        refused,
        summary,
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `brief compress --estimate`'s report.
#[derive(Serialize)]
struct EstimateReport<'a> {
    provider: &'static str,
    model: Option<&'a str>,
    compressor: &'a str,
    estimates: &'a [Estimate],
    calls: usize,
    input_tokens: usize,
    output_tokens: usize,
    cost: Option<f64>,
    /// With --all, the items that would not be sent.
    refused: Vec<&'a str>,
    #[serde(skip)]
    summary: String,
}

impl Report for EstimateReport<'_> {
    fn status(&self) -> &str {
        "estimate"
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let mut table = Table::new(&[Align::Left, Align::Right, Align::Right, Align::Right])
            .header(["ITEM", "INPUT", "OUTPUT (AT MOST)", "COST"]);
        for e in self.estimates {
            table.row([
                e.item.clone(),
                e.input_tokens.to_string(),
                e.output_tokens.to_string(),
                e.cost.map_or("-".to_string(), money),
            ]);
        }
        table.row([
            "total".to_string(),
            self.input_tokens.to_string(),
            self.output_tokens.to_string(),
            self.cost.map_or("-".to_string(), money),
        ]);
        ui.out(&table.render())?;
        if !self.refused.is_empty() {
            ui.info(&format!(
                "not sent (refused by policy): {}",
                self.refused.join(", ")
            ));
        }
        ui.info(&self.summary);
        Ok(())
    }
}

fn money(value: f64) -> String {
    format!("{value:.4}")
}
