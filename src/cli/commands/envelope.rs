//! `brief envelope validate`: check a sub-agent's result against the envelope schema.
//! Arguments, one call ([`envelope::validate_file`]) and the human form.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::envelope::{self, Validated};

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
    let report = envelope::validate_file(&args.file)?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for Validated {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        for v in &self.violations {
            ui.outln(&format!("{}: {v}", self.file.display()))?;
        }
        ui.confirm(&Document::summary(self))
    }

    fn outcome(&self) -> Outcome {
        if self.violations.is_empty() {
            Outcome::Ok
        } else {
            Outcome::Failed
        }
    }
}
