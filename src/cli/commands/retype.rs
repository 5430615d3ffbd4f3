//! `brief retype`: the import's type suggestions for a brief that exists. Arguments, one
//! call to [`crate::store::retype::retype`], and its report.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::retype::{self, RetypeReport};

/// Set each item's type to the one its content suggests, as `brief import` suggests it
///
/// Reads every Markdown item (or the ITEMs named) as the import reads a section: a worked
/// exchange is a `sample`, a section of mostly constraints (never, only, must …) a `rule`,
/// the rest an `instruction`; constants, tools and samples in messages form keep their
/// type. Writes the `type:` line of each item whose type differs (--dry-run: only shows).
/// A new rule, or a rule that is one no longer, changes what brief.lock holds: run `brief
/// lock` next.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief retype briefs/support --dry-run\n  brief retype briefs/support\n  brief retype briefs/support limits"
)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// Only these items (default: every item)
    pub items: Vec<String>,
    /// Show the suggestions without writing them
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let report = retype::retype(
        &args.brief,
        &args.items,
        args.dry_run,
        &mut super::warn_on(ui),
    )?;
    let shown = Shown {
        report,
        dir: crate::cli::ui::shell_quote(&args.brief.display().to_string()),
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown {
    report: RetypeReport,
    #[serde(skip)]
    dir: String,
}

impl Report for Shown {
    fn status(&self) -> &str {
        self.report.status
    }

    fn summary(&self) -> String {
        self.report.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        use Align::Left;
        let mut table =
            Table::new(&[Left, Left, Left, Left]).header(["ID", "TYPE", "SUGGESTED", "WHY"]);
        for item in &self.report.items {
            let suggested = if item.changed {
                format!("{} *", item.suggested_type)
            } else {
                item.suggested_type.to_string()
            };
            table.row([
                item.id.clone(),
                item.kind.to_string(),
                suggested,
                item.suggested_reason.clone(),
            ]);
        }
        if !table.is_empty() {
            ui.out(&table.render())?;
        }
        ui.info(&self.report.summary);
        if self.report.written {
            ui.info(&format!("next: brief lock {}", self.dir));
        }
        Ok(())
    }
}
