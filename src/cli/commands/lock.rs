//! `brief lock`: record what CI will hold the brief to. Arguments, one call to
//! [`crate::prompt::lock::write`], and its report.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::prompt::lock::{self, Locked};

/// Write brief.lock: the exact bytes of every rule item and the stable prefix's hashes
///
/// `brief check` then fails when a rule changes and reports when the prefix (and with it
/// the provider's prompt cache) changes. Needs no --var: volatile items are not locked.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory (or its brief.yaml)
    pub brief: PathBuf,
    /// Print one JSON object: {"status", "summary", "lock", "rules", "prefix_hash",
    /// "prefix_tokens", "changed"}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let locked = lock::write(&args.brief, &mut super::warn_on(ui))?;
    output::print(ui, Form::json_if(args.json), &locked)
}

impl Report for Locked {
    fn status(&self) -> &str {
        Locked::status(self)
    }

    fn summary(&self) -> String {
        Locked::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.info(&format!(
            "{} {}",
            ui.paint_err(self.verb(), Tone::Good),
            self.figures()
        ));
        Ok(())
    }
}
