//! `brief envelope validate`: check a sub-agent's result against the envelope schema.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::session::envelope;
use crate::session::schema::Violation;

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
    let report = Validated {
        violations: envelope::validate(&value),
        file: &args.file,
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `brief envelope validate`'s report.
#[derive(Serialize)]
struct Validated<'a> {
    violations: Vec<Violation>,
    #[serde(skip)]
    file: &'a Path,
}

impl Report for Validated<'_> {
    fn status(&self) -> &str {
        if self.violations.is_empty() {
            "ok"
        } else {
            "invalid"
        }
    }

    fn summary(&self) -> String {
        match self.violations.len() {
            0 => "a valid sub-agent result envelope".to_string(),
            n => format!(
                "{n} violation{} of the envelope schema",
                if n == 1 { "" } else { "s" }
            ),
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        for v in &self.violations {
            ui.outln(&format!("{}: {v}", self.file.display()))?;
        }
        ui.confirm(&self.summary())
    }

    fn outcome(&self) -> Outcome {
        if self.violations.is_empty() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}
