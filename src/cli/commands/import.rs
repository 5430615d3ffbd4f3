//! `brief import`: an existing prompt file becomes a brief in one step.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::import::{self, ImportPlan, Split};
use crate::brief::{Brief, MANIFEST, valid_id};
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::inside;
use crate::files::limits::IMPORT_SOURCE;
use crate::prompt::compose::{ComposeOptions, compose};
use crate::tokens::{self, Encoding};

/// Turn an existing prompt (Markdown) into a brief: one item per section
///
/// Each heading of the --split level or shallower (outside lists, quotes and code) starts an
/// item; text before the first heading is the `intro` item, and YAML front matter is kept as
/// a `front-matter` constant item. Every item is typed `instruction`: mark rules, samples and
/// context afterwards by editing the `type:` line. Nothing is lost: before anything is
/// written, the brief is composed in memory and compared with the source. A `{{name}}` in
/// the source is written as `\{{name}}` (literal text, composed back to `{{name}}`).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  brief import prompts/support.md briefs/support --split h2")]
pub struct Args {
    /// The prompt file to import (Markdown or plain text)
    pub file: PathBuf,
    /// The directory to create (it may exist, but must not hold a brief yet)
    pub dir: PathBuf,
    /// The brief's name (default: the file's name without its extension)
    #[arg(long)]
    pub name: Option<String>,
    /// The deepest heading level that starts a new item
    #[arg(long, value_enum, default_value_t = SplitArg::H2)]
    pub split: SplitArg,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SplitArg {
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
    items: Vec<ItemRow<'a>>,
    notes: &'a [String],
    next: String,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let source = read_source(&args.file)?;
    let split = match args.split {
        SplitArg::H1 => Split::H1,
        SplitArg::H2 => Split::H2,
        SplitArg::H3 => Split::H3,
    };
    let plan = import::plan(&source, split);
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
        })
        .collect();
    let total: usize = rows.iter().map(|r| r.tokens).sum();
    let dir = args.dir.display().to_string();
    let quoted = crate::cli::ui::shell_quote(&dir);
    let next = format!(
        "mark rules, samples and context by editing each item's `type:`, then `brief lock {quoted} && brief check {quoted}`"
    );
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
            items: rows,
            notes: &plan.notes,
            next,
        }))?;
        return Ok(Outcome::Ok);
    }
    let width = rows
        .iter()
        .map(|r| r.id.chars().count())
        .max()
        .unwrap_or(2)
        .max(2);
    ui.outln(&format!("{:<width$}  {:>7}  line  title", "id", "tokens"))?;
    for row in &rows {
        ui.outln(&format!(
            "{:<width$}  {:>7}  {:>4}  {}",
            row.id,
            row.tokens,
            row.line,
            row.title.unwrap_or("")
        ))?;
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
