//! `brief session gate` and `brief session purge`.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::cli::output::Outcome;
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::session::OpKind;
use crate::session::budget::thousands;
use crate::session::ops::GateRequest;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    Model,
    Tool,
    Subagent,
}

/// Check whether an operation fits the context budget before it starts
///
/// Prints `{"status": "ok", "operation_id", "available_operation_tokens", "level"}` and
/// exits 0, or prints the `context_budget_exceeded` object, records the operation as
/// pending and exits 1. From 90% tool and sub-agent estimates are taken 1.5 times with a
/// doubled safety margin; from 95% --high-volume operations are blocked until a purge or
/// compaction. `--resume op_N` checks a pending operation again with its estimate.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["estimate", "resume"]))]
pub struct GateArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The operation's estimated result size in tokens
    #[arg(long, value_name = "N")]
    pub estimate: Option<u64>,
    /// What the operation is
    #[arg(long, value_enum, default_value_t = Kind::Model, conflicts_with = "resume")]
    pub kind: Kind,
    /// The operation may produce a lot of output (blocked from 95%)
    #[arg(long, conflicts_with = "resume")]
    pub high_volume: bool,
    /// Check a pending operation again, with its stored estimate
    #[arg(long, value_name = "OP_ID")]
    pub resume: Option<String>,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// The object is always printed as JSON; this only silences the explanation on stderr
    #[arg(long)]
    pub json: bool,
}

pub fn gate(args: GateArgs, ui: &Ui) -> Result<Outcome> {
    let session = super::open(&args.dir, ui)?;
    let request = match (args.resume, args.estimate) {
        (Some(op), _) => GateRequest::Resume(op),
        (None, Some(estimate)) => GateRequest::new(
            estimate,
            match args.kind {
                Kind::Model => OpKind::Model,
                Kind::Tool => OpKind::Tool,
                Kind::Subagent => OpKind::Subagent,
            },
            args.high_volume,
        ),
        (None, None) => return Err(Error::input("pass --estimate N or --resume op_N")),
    };
    let report = session.gate(request, &super::vars(args.vars));
    super::notices(&session, ui);
    let report = report?;
    ui.outln(&super::one_line_json(&report.answer())?)?;
    if !args.json {
        if report.allowed {
            ui.info(&format!(
                "{}: fits ({} tokens available, level {})",
                report.operation_id,
                thousands(report.available_operation_tokens),
                report.level.as_str()
            ));
        } else {
            let why = if report.reason == Some("critical_high_volume") {
                "high-volume operations are blocked from 95%".to_string()
            } else {
                format!(
                    "~{} tokens do not fit in {}",
                    thousands(report.estimated_result_tokens),
                    thousands(report.available_operation_tokens)
                )
            };
            ui.info(&format!(
                "{} blocked: {why}; purge or compact, then `brief session gate {} --resume {}`",
                report.operation_id,
                args.dir.display(),
                report.operation_id
            ));
        }
    }
    Ok(if report.allowed {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}

/// Remove entries from Tier 2, optionally leaving one summary in their place
///
/// Reports the tokens removed, the summary's tokens and the cache cost: the entry where
/// the cached prefix now breaks and how many tokens after it are written to the cache
/// again. The originals stay in the log (`brief session show DIR ID`). A tool call and
/// its result must be purged together.
#[derive(Debug, clap::Args)]
pub struct PurgeArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The visible ids to remove, comma-separated
    #[arg(
        long,
        value_name = "ID[,ID...]",
        value_delimiter = ',',
        required = true
    )]
    pub ids: Vec<String>,
    /// A dense summary that takes the first removed entry's place (or - for stdin)
    #[arg(long, value_name = "TEXT")]
    pub summary: Option<String>,
    /// Print {"status", "summary", "removed_ids", "removed_tokens", "summary_id",
    /// "summary_tokens", "cache_break_at", "tokens_rewritten"}
    #[arg(long)]
    pub json: bool,
}

pub fn purge(args: PurgeArgs, ui: &Ui) -> Result<Outcome> {
    let session = super::open(&args.dir, ui)?;
    let summary = args.summary.map(super::text_arg).transpose()?;
    let ids: Vec<String> = args
        .ids
        .iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let report = session.purge(&ids, summary.as_deref());
    super::notices(&session, ui);
    let r = report?;
    let line = r.summary_line();
    if args.json {
        ui.json(&r.reply())?;
    } else {
        ui.outln(&super::shown(&line))?;
        ui.outln(&format!(
            "tier 2: {} -> {} tokens; the cached prefix still covers {} tokens",
            thousands(r.tier2_tokens_before),
            thousands(r.tier2_tokens_after),
            thousands(r.cache_break_after_tokens)
        ))?;
        if let Some(hash) = &r.ccr {
            ui.outln(&format!(
                "originals also kept in the CCR store: brief ccr get {hash}"
            ))?;
        }
    }
    Ok(Outcome::Ok)
}
