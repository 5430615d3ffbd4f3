//! `brief envelope validate`: check a sub-agent's result against the envelope schema.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::session::envelope;

/// Sub-agent result envelopes (schemas/subagent-envelope.schema.json)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: EnvelopeCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum EnvelopeCommand {
    Validate(ValidateArgs),
}

/// Report every violation of the envelope schema with its JSON pointer (exit 1)
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The envelope: a JSON file, or - for stdin
    pub file: PathBuf,
    /// Print {"status", "summary", "violations": [{"pointer", "message"}]}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let EnvelopeCommand::Validate(args) = args.command;
    let text = super::session::file_text(&args.file)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Error::input(format!(
            "{}:{}: not JSON: {e}",
            args.file.display(),
            e.line()
        ))
        .with_source(e)
    })?;
    let violations = envelope::validate(&value);
    let summary = if violations.is_empty() {
        "a valid sub-agent result envelope".to_string()
    } else {
        format!(
            "{} violation{} of the envelope schema",
            violations.len(),
            if violations.len() == 1 { "" } else { "s" }
        )
    };
    if args.json {
        ui.json(&json!({
            "status": if violations.is_empty() { "ok" } else { "invalid" },
            "summary": summary,
            "violations": violations,
        }))?;
    } else {
        for v in &violations {
            ui.outln(&format!("{}: {v}", args.file.display()))?;
        }
        ui.confirm(&summary)?;
    }
    Ok(if violations.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}
