//! `brief compact`: lossless whitespace compaction of a brief's items or of any Markdown
//! file: arguments, one call to [`compact::file`] or [`compact::brief`], and the report.

use std::path::PathBuf;

use serde::Serialize;

use crate::brief::MANIFEST;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::compact::{self, BriefCompaction, FileCompaction};
use crate::document::Document;
use crate::error::Result;

/// Compact whitespace losslessly: a brief's items, or one Markdown file
///
/// Every change is proven by parsing: the Markdown event streams before and after are
/// equal. On a FILE, prints the compacted text (YAML front matter passes through
/// unchanged). On a BRIEF, reports bytes and tokens saved per item; --write rewrites
/// the non-rule items in place. Rule items are compacted at compose time only.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A brief directory, or any Markdown file
    pub path: PathBuf,
    /// Rewrite files in place (atomically); on a brief, every item except rules and tools
    #[arg(long)]
    pub write: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let form = Form::json_if(args.json);
    let is_brief = args.path.is_dir() || args.path.file_name().is_some_and(|n| n == MANIFEST);
    if is_brief {
        let brief = super::load_brief(&args.path, ui)?;
        output::print(ui, form, &Shown(compact::brief(&brief, args.write)?))
    } else {
        output::print(ui, form, &Shown(compact::file(&args.path, args.write)?))
    }
}

/// A compaction report with its human form.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<T>(T);

impl Report for Shown<FileCompaction> {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn notes(&self, ui: &Ui) {
        if let Some(reason) = &self.0.reason {
            ui.warn(&format!(
                "{}: left unchanged: {reason}",
                self.0.file.display()
            ));
        }
    }

    /// The compacted text; with --write, what it saved.
    fn human(&self, ui: &Ui) -> Result<()> {
        let c = &self.0;
        if c.write {
            ui.info(&format!(
                "{}: {} → {} bytes",
                c.file.display(),
                c.bytes_before,
                c.bytes_after
            ));
            Ok(())
        } else {
            ui.out(&c.text)
        }
    }
}

impl Report for Shown<BriefCompaction> {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        use Align::{Left, Right};
        let mut table =
            Table::new(&[Left, Right, Right, Left]).header(["ITEM", "BYTES", "TOKENS", "NOTE"]);
        // Each side of `before → after` right-aligned to its own width, so the arrows line up.
        let width = |f: fn(&_) -> usize| {
            self.0
                .items
                .iter()
                .map(|r| f(r).to_string().len())
                .max()
                .unwrap_or(0)
        };
        let widths = [
            width(|r| r.bytes_before),
            width(|r| r.bytes_after),
            width(|r| r.tokens_before),
            width(|r| r.tokens_after),
        ];
        for r in &self.0.items {
            let note = if !r.proven {
                ui.paint(
                    &format!(
                        "left unchanged: {}",
                        r.reason.as_deref().unwrap_or("unproven")
                    ),
                    Tone::Warning,
                )
            } else if let Some(kept) = r.kept {
                kept.to_string()
            } else if r.written {
                ui.paint("written", Tone::Good)
            } else if r.bytes_before == r.bytes_after {
                "already compact".to_string()
            } else {
                String::new()
            };
            table.row([
                r.id.clone(),
                before_after(r.bytes_before, r.bytes_after, widths[0], widths[1]),
                before_after(r.tokens_before, r.tokens_after, widths[2], widths[3]),
                note,
            ]);
        }
        ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
        ui.info(&self.summary());
        let pending = self.0.pending();
        if !self.0.write && pending > 0 {
            ui.info(&format!(
                "run with --write to rewrite {pending} item file{}",
                if pending == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    }
}

/// `before → after`, each right-aligned to its column's width.
fn before_after(
    before: impl std::fmt::Display,
    after: impl std::fmt::Display,
    w0: usize,
    w1: usize,
) -> String {
    format!("{before:>w0$} → {after:>w1$}")
}
