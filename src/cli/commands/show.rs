//! `brief show`: an item's body, current or of one version. Arguments, one call to
//! [`crate::store::inspect::body`], and the body on stdout.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::store::inspect::{self, Body};

/// Print an item's body: the current file's, or that of version N
#[derive(Debug, clap::Args)]
#[command(disable_version_flag = true)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// The version to print (see `brief history`)
    #[arg(long, value_name = "N")]
    pub version: Option<u32>,
    /// Print one JSON object (item, version, body) instead of the body
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let shown = inspect::body(
        &args.brief,
        &args.item,
        args.version,
        &mut super::warn_on(ui),
    )?;
    output::print(ui, Form::json_if(args.json), &Shown(shown))
}

/// The body as `brief show` prints it: the text alone, or under `--json` the document
/// `{status, summary, item, version, body}` (`version` null for the current file).
#[derive(Serialize)]
#[serde(transparent)]
struct Shown(Body);

impl Report for Shown {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        let lines = self.0.body.lines().count() as u64;
        let of = match self.0.version {
            Some(n) => format!("version {n}"),
            None => "the current file".to_string(),
        };
        format!(
            "`{}`, {of}: {}",
            self.0.item,
            crate::numbers::count(lines, "line", "lines")
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.out(&self.0.body)
    }
}
