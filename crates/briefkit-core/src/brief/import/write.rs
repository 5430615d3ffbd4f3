//! `brief import` as one library operation: plan the items of a prompt file, write them in
//! the brief's on-disk format (item files with front matter, a manifest last, a
//! `.gitignore`), and read the brief back with the real loader before reporting.
//!
//! Nothing is written when the directory already holds a brief or one of the item files,
//! or when a file would be over the loader's limits: an import never leaves a brief that
//! no other command would read.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{ImportPlan, Marker, Split, plan};
use crate::brief::{Brief, MANIFEST, MAX_FILE_BYTES, MAX_MANIFEST_BYTES, valid_id};
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::inside;
use crate::files::limits::IMPORT_SOURCE;
use crate::tokens::{self, Encoding};

/// What to import, and how.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The prompt file (Markdown or plain text).
    pub file: &'a Path,
    /// The directory to write the brief into (it may exist, but must not hold a brief).
    pub dir: &'a Path,
    /// The brief's name; the file's name without its extension when `None`.
    pub name: Option<&'a str>,
    pub split: Split,
    /// Write each item with its suggested type instead of `instruction`.
    pub apply_types: bool,
}

/// What [`write`] wrote, in the order `brief import --json` prints it.
#[derive(Debug, Serialize)]
pub struct Imported {
    /// The brief directory, as given.
    pub brief: String,
    pub name: String,
    /// Composing the brief gives the source byte for byte (see [`ImportPlan::exact`]).
    pub exact: bool,
    pub escaped_placeholders: usize,
    /// The items' tokens (o200k_base), each distinct text counted once.
    pub tokens: usize,
    /// The split asked for, and the markers the sections were found by.
    pub split: Split,
    pub structure: String,
    pub markers: Vec<Marker>,
    pub types_applied: bool,
    pub items: Vec<ImportedItem>,
    pub notes: Vec<String>,
    /// The prompt file, as given (for the summary).
    #[serde(skip)]
    pub source: PathBuf,
    /// What was normalised (see [`super::ImportPlan::normalised`]), for the summary.
    #[serde(skip)]
    pub normalised: Vec<&'static str>,
}

/// One item written.
#[derive(Debug, Serialize)]
pub struct ImportedItem {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: Option<String>,
    /// The 1-based line of the source it starts at.
    pub line: usize,
    pub file: String,
    pub tokens: usize,
    pub suggested_type: &'static str,
    pub suggested_reason: String,
}

impl Imported {
    /// Items written with a type other than the one their content suggests.
    pub fn types_differing(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.kind != i.suggested_type)
            .count()
    }

    /// Always `ok`: an import that would lose text is an error, and writes nothing.
    pub fn status(&self) -> &'static str {
        "ok"
    }

    /// One sentence: what was imported into how many items, and whether composing the
    /// brief gives the source back byte for byte (never claimed when line ends or a
    /// byte-order mark were normalised: then it says "but for" them).
    pub fn summary(&self) -> String {
        let but_for = match self.normalised.as_slice() {
            [] => String::new(),
            [one] => format!(" but for {one}"),
            [rest @ .., last] => format!(" but for {} and {last}", rest.join(", ")),
        };
        let faithful = if self.exact {
            format!(", composing it reproduces the source byte for byte{but_for}")
        } else if but_for.is_empty() {
            ", composing it reproduces the source up to blank lines between sections".to_string()
        } else {
            format!(
                ", composing it reproduces the source up to blank lines between sections and{}",
                but_for.trim_start_matches(" but for")
            )
        };
        format!(
            "imported {} into {} item{} ({}){faithful}",
            self.source.display(),
            self.items.len(),
            if self.items.len() == 1 { "" } else { "s" },
            crate::numbers::count(self.tokens as u64, "token", "tokens"),
        )
    }
}

/// Imports `request.file` into a new brief in `request.dir` (see the module documentation).
pub fn write(request: &Request) -> Result<Imported> {
    let source = input::read_text(request.file, IMPORT_SOURCE)?;
    let mut plan = plan(&source, request.split);
    if request.apply_types {
        plan.apply_types();
    }
    let name = brief_name(request)?;
    refuse_existing(request.dir, &plan)?;
    write_files(request.dir, &name, &plan)?;
    read_back(request.dir, &plan)?;

    // Each distinct piece of text counted once: sections share most of their words.
    let mut counter = tokens::Counter::new(Encoding::O200kBase);
    let items: Vec<ImportedItem> = plan
        .items
        .iter()
        .map(|item| ImportedItem {
            id: item.id.clone(),
            kind: item.kind.as_str(),
            title: item.title.clone(),
            line: item.line,
            file: format!("items/{}.md", item.id),
            tokens: counter.count(&item.body),
            suggested_type: item.suggested.kind.as_str(),
            suggested_reason: item.suggested.reason.clone(),
        })
        .collect();
    Ok(Imported {
        brief: request.dir.display().to_string(),
        name,
        exact: plan.exact,
        escaped_placeholders: plan.escaped_placeholders,
        tokens: items.iter().map(|i| i.tokens).sum(),
        split: request.split,
        structure: plan.structure(),
        markers: plan.markers.clone(),
        types_applied: request.apply_types,
        items,
        notes: plan.notes,
        source: request.file.to_path_buf(),
        normalised: plan.normalised,
    })
}

fn brief_name(request: &Request) -> Result<String> {
    let name = match request.name {
        Some(name) => name.to_string(),
        None => request
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

/// The `.gitignore` a new brief gets: pending proposals stay personal until accepted.
pub const GITIGNORE: &[u8] =
    b"# Pending model proposals are personal until accepted.\nproposals/\n.writer.lock\n";

fn write_files(dir: &Path, name: &str, plan: &ImportPlan) -> Result<()> {
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
        files.push((gitignore, GITIGNORE.to_vec()));
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
            MAX_MANIFEST_BYTES
        } else {
            MAX_FILE_BYTES
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

/// Loads what was written with the real loader, as a user would, and holds it to the plan:
/// the same items in the same order, each body read back as planned, so the brief composes
/// to the text the plan was compared with.
fn read_back(dir: &Path, plan: &ImportPlan) -> Result<()> {
    let brief = Brief::load(dir)?;
    let same = brief.items.len() == plan.items.len()
        && brief
            .items
            .iter()
            .zip(&plan.items)
            .all(|(read, planned)| read.id == planned.id && read.body() == planned.body);
    if !same {
        return Err(Error::failed(format!(
            "{}: the imported brief does not read back as planned",
            dir.display()
        )));
    }
    Ok(())
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}
