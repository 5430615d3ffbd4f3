//! `brief import`: an existing prompt file becomes a brief in one step.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::import::{self, ImportPlan, Marker, Split};
use crate::brief::{Brief, MANIFEST, valid_id};
use crate::cli::output::Outcome;
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::inside;
use crate::files::limits::IMPORT_SOURCE;
use crate::prompt::compose::{ComposeOptions, compose};
use crate::tokens::{self, Encoding};

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

#[derive(Serialize)]
struct ItemRow<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    title: Option<&'a str>,
    line: usize,
    file: String,
    tokens: usize,
    suggested_type: &'a str,
    suggested_reason: &'a str,
}

#[derive(Serialize)]
struct Report<'a> {
    status: &'static str,
    summary: String,
    brief: String,
    name: &'a str,
    exact: bool,
    escaped_placeholders: usize,
    tokens: usize,
    /// The --split asked for, and what the sections were found by.
    split: &'static str,
    structure: String,
    markers: &'a [Marker],
    types_applied: bool,
    items: Vec<ItemRow<'a>>,
    notes: &'a [String],
    next: String,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let source = read_source(&args.file)?;
    let (split, split_name) = match args.split {
        SplitArg::Auto => (Split::Auto, "auto"),
        SplitArg::H1 => (Split::H1, "h1"),
        SplitArg::H2 => (Split::H2, "h2"),
        SplitArg::H3 => (Split::H3, "h3"),
    };
    let mut plan = import::plan(&source, split);
    if args.apply_types {
        plan.apply_types();
    }
    let name = brief_name(&args)?;
    refuse_existing(&args.dir, &plan)?;
    write_brief(&args.dir, &name, &plan)?;
    verify(&args.dir, &plan)?;

    // Each distinct piece of text counted once: sections share most of their words.
    let mut counter = tokens::Counter::new(Encoding::O200kBase);
    let rows: Vec<ItemRow> = plan
        .items
        .iter()
        .map(|item| ItemRow {
            id: &item.id,
            kind: item.kind.as_str(),
            title: item.title.as_deref(),
            line: item.line,
            file: format!("items/{}.md", item.id),
            tokens: counter.count(&item.body),
            suggested_type: item.suggested.kind.as_str(),
            suggested_reason: &item.suggested.reason,
        })
        .collect();
    let total: usize = rows.iter().map(|r| r.tokens).sum();
    let dir = args.dir.display().to_string();
    let quoted = crate::cli::ui::shell_quote(&dir);
    let differs = rows.iter().filter(|r| r.kind != r.suggested_type).count();
    let next = if differs > 0 {
        format!(
            "review the suggested types ({differs} differ{} from what was written; `--apply-types` writes them on a fresh import) and edit each item's `type:` as needed, then `brief lock {quoted} && brief check {quoted}`",
            if differs == 1 { "s" } else { "" }
        )
    } else {
        format!(
            "check each item's `type:` (rule, sample, context …), then `brief lock {quoted} && brief check {quoted}`"
        )
    };
    let summary = format!(
        "imported {} into {} item{} ({} tokens){}",
        args.file.display(),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        total,
        if plan.exact {
            ", composing it reproduces the source byte for byte"
        } else {
            ", composing it reproduces the source up to blank lines between sections"
        }
    );
    if args.json {
        ui.json(&json_value(Report {
            status: "ok",
            summary,
            brief: dir,
            name: &name,
            exact: plan.exact,
            escaped_placeholders: plan.escaped_placeholders,
            tokens: total,
            split: split_name,
            structure: plan.structure(),
            markers: &plan.markers,
            types_applied: args.apply_types,
            items: rows,
            notes: &plan.notes,
            next,
        }))?;
        return Ok(Outcome::Ok);
    }
    print_table(&rows, ui)?;
    if plan.markers.is_empty() {
        ui.info(&format!("split {split_name}: found {}", plan.structure()));
        if rows.iter().filter(|r| r.kind != "constant").count() == 1 {
            ui.info("note: one item: mark the sections with Markdown headings (or `====` rules) and import again to get one item per section");
        }
    } else {
        ui.info(&format!(
            "split {split_name}: {} section{} at {}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            plan.structure(),
        ));
    }
    for note in &plan.notes {
        ui.info(&format!("note: {note}"));
    }
    if plan.escaped_placeholders > 0 {
        ui.info(&format!(
            "note: {} `{{{{…}}}}` placeholder{} written as literal text (`\\{{{{…}}}}`); to fill one, drop its backslash and either give it a build-time value under `vars:` in brief.yaml or move it into a `context` item (filled per turn)",
            plan.escaped_placeholders,
            if plan.escaped_placeholders == 1 { " was" } else { "s were" }
        ));
    }
    ui.info(&format!(
        "{}{}",
        ui.paint_err("imported", Tone::Good),
        summary.trim_start_matches("imported")
    ));
    ui.info(&format!("next: {next}"));
    Ok(Outcome::Ok)
}

/// The items as a table: what each is written as, what its content suggests and why.
fn print_table(rows: &[ItemRow], ui: &Ui) -> Result<()> {
    use Align::{Left, Right};
    let mut table = Table::new(&[Left, Right, Right, Left, Left, Left, Left]).header([
        "id",
        "tokens",
        "line",
        "type",
        "suggested",
        "title",
        "why",
    ]);
    for row in rows {
        let suggested = if row.suggested_type == row.kind {
            row.suggested_type.to_string()
        } else {
            format!("{} *", row.suggested_type)
        };
        table.row([
            row.id.to_string(),
            row.tokens.to_string(),
            row.line.to_string(),
            row.kind.to_string(),
            suggested,
            row.title.unwrap_or("").to_string(),
            row.suggested_reason.to_string(),
        ]);
    }
    ui.out(&table.render())
}

/// The prompt file, within [`IMPORT_SOURCE`] (checked before it is read).
fn read_source(path: &Path) -> Result<String> {
    input::read_text(path, IMPORT_SOURCE)
}

fn brief_name(args: &Args) -> Result<String> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => args
            .file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "brief".to_string()),
    };
    if name.trim().is_empty() || name.contains('\n') {
        return Err(Error::input("the brief's name must be one non-empty line")
            .with_hint("pass --name NAME; nothing was written"));
    }
    Ok(name)
}

fn refuse_existing(dir: &Path, plan: &ImportPlan) -> Result<()> {
    if dir.join(MANIFEST).exists() {
        return Err(Error::input(format!(
            "{}: already a brief (it has a {MANIFEST})",
            dir.display()
        ))
        .with_hint("choose another directory; nothing was written"));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(Error::input(format!("{}: not a directory", dir.display()))
            .with_hint("choose another path; nothing was written"));
    }
    for item in &plan.items {
        let path = dir.join("items").join(format!("{}.md", item.id));
        if path.exists() || path.is_symlink() {
            return Err(Error::input(format!("{}: already exists", path.display()))
                .with_hint("choose an empty directory; nothing was written"));
        }
    }
    Ok(())
}

fn write_brief(dir: &Path, name: &str, plan: &ImportPlan) -> Result<()> {
    let items_dir = dir.join("items");
    let mut files = Vec::with_capacity(plan.items.len() + 2);
    for item in &plan.items {
        debug_assert!(valid_id(&item.id));
        let mut text = String::from("---\n");
        text.push_str(&format!("type: {}\n", item.kind.as_str()));
        if let Some(title) = &item.title {
            // A JSON string is a valid YAML scalar, whatever the heading holds.
            text.push_str(&format!("title: {}\n", json_string(title)));
        }
        text.push_str("---\n");
        text.push_str(&item.body);
        files.push((items_dir.join(format!("{}.md", item.id)), text.into_bytes()));
    }
    let gitignore = dir.join(".gitignore");
    if fs::symlink_metadata(&gitignore).is_ok() {
        // Kept as it is, but not if it is a link that leaves the directory.
        inside::check_target(dir, &gitignore)?;
    } else {
        files.push((
            gitignore,
            b"# Pending model proposals are personal until accepted.\nproposals/\n.writer.lock\n"
                .to_vec(),
        ));
    }
    let ids: Vec<&str> = plan.items.iter().map(|i| i.id.as_str()).collect();
    let manifest = format!(
        "name: {}\ntokenizer: o200k_base\nitems: [{}]\n# budget: {{ context_limit: 128000, max_brief_tokens: 16000 }}\n# model: {{ provider: openai, name: gpt-4.1-mini }}\n",
        json_string(name),
        ids.join(", ")
    );
    // The manifest last: until it exists the directory is not a brief.
    files.push((dir.join(MANIFEST), manifest.into_bytes()));
    refuse_over_limits(&files)?;
    inside::write_files(dir, &files)
}

/// The loader refuses an item file over `MAX_FILE_BYTES` and a manifest over
/// `MAX_MANIFEST_BYTES`; import must not write a brief that no other command would read.
fn refuse_over_limits(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    for (path, bytes) in files {
        let is_manifest = path.file_name().is_some_and(|n| n == MANIFEST);
        let limit = if is_manifest {
            crate::brief::MAX_MANIFEST_BYTES
        } else {
            crate::brief::MAX_FILE_BYTES
        };
        if bytes.len() as u64 > limit {
            let hint = if is_manifest {
                "split the prompt into fewer sections (a coarser --split); nothing was written"
            } else {
                "split the section with headings (or a finer --split h2/h3) so each item stays under the limit; nothing was written"
            };
            return Err(Error::input(format!(
                "{}: would be {} bytes; the loader's limit is {limit}",
                path.display(),
                bytes.len()
            ))
            .with_hint(hint));
        }
    }
    Ok(())
}

/// Loads what was written with the real loader and composes it, as a user would.
fn verify(dir: &Path, plan: &ImportPlan) -> Result<()> {
    let brief = Brief::load(dir)?;
    let composed = compose(&brief, &BTreeMap::new(), ComposeOptions { compact: false })?;
    let text = composed.prompt.system_text();
    let expected: String = plan
        .items
        .iter()
        .map(|i| crate::brief::unescape_braces(i.body.trim_end_matches('\n')))
        .collect::<Vec<_>>()
        .join("\n\n");
    if text != expected {
        return Err(Error::failed(format!(
            "{}: the imported brief does not compose to the planned text",
            dir.display()
        )));
    }
    Ok(())
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn json_value(report: Report) -> serde_json::Value {
    // A report of plain strings and numbers always serialises.
    serde_json::to_value(report).unwrap_or(serde_json::Value::Null)
}
