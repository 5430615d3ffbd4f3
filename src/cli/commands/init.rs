//! `brief init`: scaffold a new brief with one item of each common type. Arguments, one
//! call to [`crate::brief::init::scaffold`], and its report.

use std::path::PathBuf;

use crate::brief::init::{Scaffolded, scaffold};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui, shell_quote};
use crate::error::Result;

/// Create a new brief: a manifest, one item of each common type, and a .gitignore
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  brief init briefs/helpdesk && brief compose briefs/helpdesk --var user_name=Ada"
)]
pub struct Args {
    /// The directory to create (it may exist, but must not hold a brief yet)
    pub dir: PathBuf,
    /// The brief's name (default: the directory's name)
    #[arg(long)]
    pub name: Option<String>,
    /// Print one JSON object: {"status", "summary", "brief", "name", "items"}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let scaffolded = scaffold(&args.dir, args.name.as_deref())?;
    output::print(ui, Form::json_if(args.json), &scaffolded)
}

impl Report for Scaffolded {
    fn status(&self) -> &str {
        Scaffolded::status(self)
    }

    fn summary(&self) -> String {
        Scaffolded::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.info(&format!(
            "{}{}",
            ui.paint_err("created", Tone::Good),
            self.summary().trim_start_matches("created")
        ));
        ui.info(&format!(
            "next: edit the items, then `brief compose {0} --var user_name=Ada` and `brief lock {0}`",
            shell_quote(&self.brief.display().to_string())
        ));
        Ok(())
    }
}
