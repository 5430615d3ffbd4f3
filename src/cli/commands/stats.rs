//! `brief stats`: where the tokens of a brief go, and what re-sending it costs. Arguments,
//! one call to [`crate::cache::stats_report::stats`], and its human form.

use std::path::PathBuf;

use crate::cache::cost::context_level;
use crate::cache::stats_report::{self, StatsReport};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;

/// Show tokens per item, the stable prefix, the context budget and the cost per 1,000 turns
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory (or its brief.yaml)
    pub brief: PathBuf,
    /// Print one JSON object instead of the table
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let report = stats_report::stats(&args.brief, &mut super::warn_on(ui))?;
    output::print(ui, Form::json_if(args.json), &report)
}

fn budget_line(tokens: u64, max: u64) -> String {
    if tokens > max {
        format!(
            "Budget: {tokens} / {max} max_brief_tokens, over by {} tokens (`brief check` fails)",
            tokens - max
        )
    } else {
        format!(
            "Budget: {tokens} / {max} max_brief_tokens ({} under)",
            max - tokens
        )
    }
}

impl Report for StatsReport {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let encoding = &self.tokenizer;
        let total = &self.total;
        let (prefix_tok, brief_tok) = (self.prefix.tokens, total.brief_tokens);
        ui.outln(&ui.paint(&format!("{}  ({encoding})", self.brief), Tone::Strong))?;
        use Align::{Left, Right};
        let mut table = Table::new(&[Left, Left, Left, Left, Right, Right, Right, Right]).header([
            "ITEM", "TYPE", "TIER", "POLICY", "BYTES", "TOKENS", "COMPACT", "SHARE",
        ]);
        for f in &self.items {
            table.row([
                f.id.clone(),
                f.kind.as_str().to_string(),
                f.tier.as_str().to_string(),
                f.policy.as_str().to_string(),
                f.bytes.to_string(),
                f.tokens.to_string(),
                f.tokens_compacted.to_string(),
                format!("{:.1}%", f.share_exact),
            ]);
        }
        table.row([
            "total".to_string(),
            String::new(),
            String::new(),
            String::new(),
            total.bytes.to_string(),
            total.tokens.to_string(),
            total.tokens_compacted.to_string(),
            "100.0%".to_string(),
        ]);
        ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
        ui.outln("")?;
        ui.outln(&format!(
            "Stable prefix: {prefix_tok} tokens, {} bytes, hash {}",
            self.prefix.bytes,
            &self.prefix.hash[..12]
        ))?;
        if let Some(cache) = &self.cache {
            let counted = if cache.min_cacheable_tokens.is_some() {
                format!(" (counted with {encoding})")
            } else {
                String::new()
            };
            let line = format!(
                "Prompt cache: {}{counted}",
                cache
                    .facts
                    .minimum_sentence(&cache.model, prefix_tok as u64)
            );
            ui.outln(&if cache.reaches_minimum == Some(false) {
                ui.paint(&line, Tone::Warning)
            } else {
                line
            })?;
        }
        match (self.context.limit, self.context.percent_exact) {
            (Some(limit), Some(p)) => {
                let line = format!("Context: {brief_tok} / {limit} ({p:.1}%)");
                let line = match context_level(p) {
                    Some(level) => ui.paint(
                        &format!("{line}  {level}"),
                        if p >= 90.0 {
                            Tone::Error
                        } else {
                            Tone::Warning
                        },
                    ),
                    None => line,
                };
                ui.outln(&line)?;
            }
            _ => ui.outln(&format!(
                "Context: {brief_tok} tokens (no budget.context_limit set)"
            ))?,
        }
        if let Some(budget) = &self.budget {
            let line = budget_line(brief_tok as u64, budget.max_brief_tokens);
            ui.outln(&if budget.over {
                ui.paint(&line, Tone::Error)
            } else {
                line
            })?;
        }
        if let Some(cost) = &self.cost_per_1000_turns {
            let with = cost.exact.with_caching.map_or_else(
                || "unknown (no cached_input_per_mtok)".to_string(),
                |w| format!("{w:.4} {}", cost.currency),
            );
            ui.outln(&format!(
                "Cost per 1,000 turns (input only): {:.4} {} without caching, {with} with caching",
                cost.exact.without_caching, cost.currency
            ))?;
        }
        let hits = self.volatile_in_static;
        if hits > 0 {
            ui.warn(&format!(
                "{hits} volatile-looking value{} in the static tier break the prompt cache; `brief check` shows where",
                if hits == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    }
}
