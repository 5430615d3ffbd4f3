//! `brief import`: an existing prompt file becomes a brief in one step. Arguments, one
//! call to [`crate::brief::import::write`], and its report.

use std::path::PathBuf;

use serde::Serialize;

use crate::brief::import::{self, Imported, Request, Split};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui, shell_quote};
use crate::error::Result;

/// Turn an existing prompt (Markdown or plain text) into a brief: one item per section
///
/// With --split auto (the default) a section starts at a Markdown heading (h1–h2, or h3
/// when there is none), an XML-style section tag (`<ROLE>` … `</ROLE>`, where no heading
/// is), a `====`/`----` rule or an upper-case title line (`TOOL USE`), never inside code,
/// lists, quotes or HTML comments; the command says which it used. --split h1|h2|h3 uses
/// headings alone. Text before the first section is the `intro` item, and YAML front
/// matter is kept as a `front-matter` constant item. Each item gets a suggested type from
/// its content (a section of constraints: `rule`; a worked exchange: `sample`; else
/// `instruction`), shown with the reason; items are written as `instruction` unless
/// --apply-types writes the suggestions. Nothing is lost: before anything is written, the
/// brief is composed in memory and compared with the source. A `{{name}}` in the source
/// is written as `\{{name}}` (literal text, composed back to `{{name}}`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief import prompts/support.md briefs/support\n  brief import prompts/support.md briefs/support --apply-types\n  brief import prompts/support.md briefs/support --split h1"
)]
pub struct Args {
    /// The prompt file to import (Markdown or plain text)
    pub file: PathBuf,
    /// The directory to create (it may exist, but must not hold a brief yet)
    pub dir: PathBuf,
    /// The brief's name (default: the file's name without its extension)
    #[arg(long)]
    pub name: Option<String>,
    /// Where items start: auto (every section marker the prompt uses), or Markdown headings
    /// of this level or shallower
    #[arg(long, value_enum, default_value_t = SplitArg::Auto)]
    pub split: SplitArg,
    /// Write each item with its suggested type (rule, sample or instruction) instead of
    /// instruction
    #[arg(long)]
    pub apply_types: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SplitArg {
    Auto,
    H1,
    H2,
    H3,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let split = match args.split {
        SplitArg::Auto => Split::Auto,
        SplitArg::H1 => Split::H1,
        SplitArg::H2 => Split::H2,
        SplitArg::H3 => Split::H3,
    };
    let imported = import::write(&Request {
        file: &args.file,
        dir: &args.dir,
        name: args.name.as_deref(),
        split,
        apply_types: args.apply_types,
    })?;
    let next = next_steps(&imported);
    output::print(
        ui,
        Form::json_if(args.json),
        &ImportReport { imported, next },
    )
}

/// `brief import`'s report: what was written, and what to do next (in this edge's words).
#[derive(Serialize)]
struct ImportReport {
    #[serde(flatten)]
    imported: Imported,
    next: String,
}

fn next_steps(imported: &Imported) -> String {
    let quoted = shell_quote(&imported.brief);
    match imported.types_differing() {
        0 => format!(
            "check each item's `type:` (rule, sample, context …), then `brief lock {quoted} && brief check {quoted}`"
        ),
        differs => format!(
            "review the suggested types ({differs} differ{} from what was written; `--apply-types` writes them on a fresh import) and edit each item's `type:` as needed, then `brief lock {quoted} && brief check {quoted}`",
            if differs == 1 { "s" } else { "" }
        ),
    }
}

fn split_name(split: Split) -> &'static str {
    match split {
        Split::Auto => "auto",
        Split::H1 => "h1",
        Split::H2 => "h2",
        Split::H3 => "h3",
    }
}

impl Report for ImportReport {
    fn status(&self) -> &str {
        self.imported.status()
    }

    fn summary(&self) -> String {
        self.imported.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let i = &self.imported;
        ui.out(&table(i))?;
        let split = split_name(i.split);
        if i.markers.is_empty() {
            ui.info(&format!("split {split}: found {}", i.structure));
            if i.items.iter().filter(|r| r.kind != "constant").count() == 1 {
                ui.info("note: one item: mark the sections with Markdown headings (or `====` rules) and import again to get one item per section");
            }
        } else {
            ui.info(&format!(
                "split {split}: {} section{} at {}",
                i.items.len(),
                if i.items.len() == 1 { "" } else { "s" },
                i.structure,
            ));
        }
        for note in &i.notes {
            ui.info(&format!("note: {note}"));
        }
        if i.escaped_placeholders > 0 {
            ui.info(&format!(
                "note: {} `{{{{…}}}}` placeholder{} written as literal text (`\\{{{{…}}}}`); to fill one, drop its backslash and either give it a build-time value under `vars:` in brief.yaml or move it into a `context` item (filled per turn)",
                i.escaped_placeholders,
                if i.escaped_placeholders == 1 { " was" } else { "s were" }
            ));
        }
        ui.info(&format!(
            "{}{}",
            ui.paint_err("imported", Tone::Good),
            self.summary().trim_start_matches("imported")
        ));
        ui.info(&format!("next: {}", self.next));
        Ok(())
    }
}

/// The items as a table: what each is written as, what its content suggests and why.
fn table(imported: &Imported) -> String {
    use Align::{Left, Right};
    let mut table = Table::new(&[Left, Right, Right, Left, Left, Left, Left]).header([
        "ID",
        "TOKENS",
        "LINE",
        "TYPE",
        "SUGGESTED",
        "TITLE",
        "WHY",
    ]);
    for row in &imported.items {
        let suggested = if row.suggested_type == row.kind {
            row.suggested_type.to_string()
        } else {
            format!("{} *", row.suggested_type)
        };
        table.row([
            row.id.clone(),
            row.tokens.to_string(),
            row.line.to_string(),
            row.kind.to_string(),
            suggested,
            row.title.clone().unwrap_or_default(),
            row.suggested_reason.clone(),
        ]);
    }
    table.render()
}
