//! `brief stats`: where the tokens of a brief go, and what re-sending it costs. The figures
//! come from [`crate::cache::cost`]; this file renders them.

use std::path::PathBuf;

use crate::cache::cost::{self, context_level};
use crate::cache::stats_report::StatsReport;
use crate::cli::output::Outcome;
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

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let encoding = brief.manifest.tokenizer;
    let measured = cost::measure(&brief);
    if args.json {
        ui.json(&StatsReport::new(&brief, &measured))?;
        return Ok(Outcome::Ok);
    }
    let items = &measured.items;
    let prefix = &measured.prefix;
    let prefix_tok = measured.prefix_tokens;
    let brief_tok = measured.brief_tokens();
    let (total_bytes, total_tokens, total_compacted) = (
        measured.total_bytes(),
        measured.total_tokens(),
        measured.total_compacted(),
    );
    let share = |t: usize| cost::Measured::share(t, total_compacted);
    let limit = brief.manifest.budget.context_limit;
    let percent = measured.context_percent(&brief);
    let volatile_hits = measured.volatile_hits;
    let max_tokens = brief.manifest.budget.max_brief_tokens;
    let over_max = max_tokens.is_some_and(|max| brief_tok as u64 > max);
    let cache = brief.manifest.model.as_ref().zip(measured.cache);
    let cost = measured.cost.map(|c| (c.without_caching, c.with_caching));

    ui.outln(&ui.paint(
        &format!("{}  ({encoding})", brief.manifest.name),
        Tone::Strong,
    ))?;
    use Align::{Left, Right};
    let mut table = Table::new(&[Left, Left, Left, Left, Right, Right, Right, Right]).header([
        "ITEM", "TYPE", "TIER", "POLICY", "BYTES", "TOKENS", "COMPACT", "SHARE",
    ]);
    for f in items {
        table.row([
            f.item.id.clone(),
            f.item.kind.as_str().to_string(),
            f.item.tier.as_str().to_string(),
            f.item.policy.as_str().to_string(),
            f.bytes.to_string(),
            f.tokens.to_string(),
            f.tokens_compacted.to_string(),
            format!("{:.1}%", share(f.tokens_compacted)),
        ]);
    }
    table.row([
        "total".to_string(),
        String::new(),
        String::new(),
        String::new(),
        total_bytes.to_string(),
        total_tokens.to_string(),
        total_compacted.to_string(),
        "100.0%".to_string(),
    ]);
    ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
    ui.outln("")?;
    ui.outln(&format!(
        "Stable prefix: {prefix_tok} tokens, {} bytes, hash {}",
        prefix.hashes.prefix_bytes(),
        &prefix.hashes.prefix[..12]
    ))?;
    if let Some((model, facts)) = &cache {
        let counted = if facts.min_cacheable_tokens.is_some() {
            format!(" (counted with {encoding})")
        } else {
            String::new()
        };
        let line = format!(
            "Prompt cache: {}{counted}",
            facts.minimum_sentence(&model.name, prefix_tok as u64)
        );
        ui.outln(
            &if facts.reaches_minimum(prefix_tok as u64) == Some(false) {
                ui.paint(&line, Tone::Warning)
            } else {
                line
            },
        )?;
    }
    match (limit, percent) {
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
    if let Some(max) = max_tokens {
        let line = budget_line(brief_tok as u64, max);
        ui.outln(&if over_max {
            ui.paint(&line, Tone::Error)
        } else {
            line
        })?;
    }
    if let Some((without, with)) = cost {
        let with = with.map_or_else(
            || "unknown (no cached_input_per_mtok)".to_string(),
            |w| format!("{w:.4}"),
        );
        ui.outln(&format!(
            "Cost per 1,000 turns (input only): {without:.4} without caching, {with} with caching"
        ))?;
    }
    if volatile_hits > 0 {
        ui.warn(&format!(
            "{volatile_hits} volatile-looking value{} in the static tier break the prompt cache; `brief check` shows where",
            if volatile_hits == 1 { "" } else { "s" }
        ));
    }
    Ok(Outcome::Ok)
}
