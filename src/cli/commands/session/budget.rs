//! `brief session gate` and `brief session purge`: arguments, [`api::gate`] or
//! [`api::purge`], and the human form.

use std::path::{Path, PathBuf};

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::session::budget::thousands;
use crate::session::ops::{GateReport, GateRequest};
use crate::session::{OpKind, PurgeReport, api};
use clap::ValueEnum;

use super::GateShown;

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
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["estimate", "resume"]))]
pub struct GateArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The operation's estimated result size in tokens (with --resume: a new estimate,
    /// replacing the pending operation's)
    #[arg(long, value_name = "N")]
    pub estimate: Option<u64>,
    /// What the operation is
    #[arg(long, value_enum, default_value_t = Kind::Model, conflicts_with = "resume")]
    pub kind: Kind,
    /// The operation may produce a lot of output (blocked from 95%; a sub-agent always is)
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
    let request = match (args.resume, args.estimate) {
        (Some(op), estimate) => GateRequest::resume(op, estimate),
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
    let vars = super::vars(args.vars);
    let report = api::gate(&args.dir, request, &vars, &mut super::listen(ui, true))?;
    let shown = GateShown {
        explanation: explanation(&report, &args.dir),
        report: &report,
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

/// What the gate's answer means, and for a blocked operation the command that resumes it.
fn explanation(r: &GateReport, dir: &Path) -> String {
    if r.allowed {
        return format!(
            "{}: fits ({} tokens available, level {})",
            r.operation_id,
            thousands(r.available_operation_tokens),
            r.level.as_str()
        );
    }
    let why = if r.reason == Some("critical_high_volume") {
        "high-volume operations are blocked from 95%".to_string()
    } else {
        format!(
            "~{} tokens do not fit in {}",
            thousands(r.estimated_result_tokens),
            thousands(r.available_operation_tokens)
        )
    };
    format!(
        "{} blocked: {why}; purge or compact, then `brief session gate {} --resume {}`",
        r.operation_id,
        dir.display(),
        r.operation_id
    )
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
    if args.ids.iter().all(|id| id.trim().is_empty()) {
        return Err(Error::input("--ids names no entry"));
    }
    let summary = args.summary.map(super::text_arg).transpose()?;
    let report = api::purge(
        &args.dir,
        &args.ids,
        summary.as_deref(),
        &mut super::listen(ui, true),
    )?;
    output::print(ui, Form::json_if(args.json), &report)
}

/// The document is the one the MCP `purge` tool returns too.
impl Report for PurgeReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&super::shown(&self.summary_line()))?;
        ui.outln(&format!(
            "tier 2: {} -> {} tokens; the cached prefix still covers {} tokens",
            thousands(self.tier2_tokens_before),
            thousands(self.tier2_tokens_after),
            thousands(self.cache_break_after_tokens)
        ))?;
        if let Some(hash) = &self.ccr {
            ui.outln(&format!(
                "originals also kept in the CCR store: brief ccr get {hash}"
            ))?;
        }
        Ok(())
    }
}
