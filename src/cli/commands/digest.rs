//! `brief digest`: render a wake digest, back its bulky sections in the CCR store, and
//! report what each section cost before and after: arguments, one call to
//! [`digest::render_and_back`], and its report.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ccr::digest::{self, Backed, Digest};
use crate::ccr::thousands;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::document::Document;
use crate::error::Result;

/// Render a wake digest, routing each field by its declared type
///
/// current_task, hard_constraints and definitions_of_done go in verbatim;
/// irreversible_decisions keep their summary verbatim and their detail in the CCR store;
/// open_threads and learnings become compact summaries (threads' detail in the store);
/// tool_outputs, prose_notes and bulk_json larger than --min-bytes are compressed without a
/// model, their originals in the store, each with one `[ccr:HASH …]` marker. The digest
/// goes to stdout, the per-section measurements to stderr (in the document under --json).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief digest wake.yaml\n  brief digest wake.yaml --min-bytes 4096 --json\n  brief compose briefs/support --digest wake.yaml"
)]
pub struct Args {
    /// The digest file (YAML)
    #[arg(value_name = "DIGEST.yaml")]
    pub digest: PathBuf,
    /// The CCR store file [default: $BRIEF_CCR_PATH, else the user's state directory]
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Compress tool outputs, notes and JSON arrays larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = digest::DEFAULT_MIN_BYTES)]
    pub min_bytes: usize,
    /// Print one JSON object (the text and the measurements) instead of the text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let backed = digest::render_and_back(&args.digest, args.store.as_deref(), args.min_bytes)?;
    let rendered = Rendered {
        report: digest::Report::of(&backed.digest),
        backed: &backed,
        file: &args.digest,
    };
    output::print(ui, Form::json_if(args.json), &rendered)
}

/// `brief digest`'s report: the digest's document, and the store it was backed in (for
/// the measurements on stderr).
#[derive(Serialize)]
#[serde(transparent)]
struct Rendered<'a> {
    report: digest::Report<'a>,
    #[serde(skip)]
    backed: &'a Backed,
    #[serde(skip)]
    file: &'a Path,
}

impl Report for Rendered<'_> {
    fn status(&self) -> &str {
        self.report.status()
    }

    fn summary(&self) -> String {
        self.report.summary()
    }

    fn notes(&self, ui: &Ui) {
        if let Some(note) = &self.backed.ttl_note {
            ui.info(note);
        }
        if self.report.sections.is_empty() {
            ui.warn(&format!(
                "{}: the digest has no fields",
                self.file.display()
            ));
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(self.report.text)
    }

    /// The measurements go to stderr (not under --json, whose document has them).
    fn after(&self, ui: &Ui) {
        if !ui.quiet() {
            report(self.report.digest, self.backed.store.as_deref(), ui);
        }
    }
}

/// The per-section measurements as a table on stderr.
pub fn report(digest: &Digest, store: Option<&Path>, ui: &Ui) {
    let mut summary = digest.summary();
    if let Some(path) = store {
        summary.push_str(&format!(" ({})", path.display()));
    }
    ui.err_line(&ui.paint_err(&summary, Tone::Strong));
    use Align::{Left, Right};
    let mut table =
        Table::new(&[Left, Left, Left, Right, Right, Right, Right, Left, Left]).header([
            "SECTION",
            "TYPE",
            "HANDLING",
            "BYTES",
            "→ AFTER",
            "TOKENS",
            "→ AFTER",
            "CACHE",
            "CCR",
        ]);
    for s in &digest.sections {
        table.row([
            s.id.clone(),
            if s.instruction_bearing {
                "instruction"
            } else {
                "compressible"
            }
            .to_string(),
            s.handling.name().to_string(),
            thousands(s.bytes_before as u64),
            thousands(s.bytes_after as u64),
            thousands(s.tokens_before as u64),
            thousands(s.tokens_after as u64),
            if s.cache_hit_expected { "hit" } else { "miss" }.to_string(),
            s.ccr_hash.as_deref().unwrap_or("-").to_string(),
        ]);
    }
    for line in table
        .render_header_with(|line| ui.paint_err(line, Tone::Dim))
        .lines()
    {
        ui.err_line(line);
    }
    for s in &digest.sections {
        if let Some(reason) = &s.reason {
            ui.err_line(&format!("note: {}: {reason}", s.id));
        }
    }
}
