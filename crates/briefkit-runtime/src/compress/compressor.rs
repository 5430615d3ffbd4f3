//! The compressor: the brief whose composed prefix is the system prompt of every compress
//! call. The bundled one is embedded in the binary; `--compressor DIR` names another, which
//! must pass the same checks before any of the operator's items is sent with it.

use std::path::{Path, PathBuf};

use crate::brief::{Brief, Item, Tier};
use crate::error::{Error, Result};
use crate::prompt::compose::{self, ComposeOptions};
use crate::wire::{Message, Prompt, Role};

const MANIFEST: &str = include_str!("../../../../briefs/compressor/brief.yaml");
const ITEMS: [(&str, &str); 4] = [
    (
        "role",
        include_str!("../../../../briefs/compressor/items/role.md"),
    ),
    (
        "keep",
        include_str!("../../../../briefs/compressor/items/keep.md"),
    ),
    (
        "remove",
        include_str!("../../../../briefs/compressor/items/remove.md"),
    ),
    (
        "answer",
        include_str!("../../../../briefs/compressor/items/answer.md"),
    ),
];

/// A composed compressor brief.
#[derive(Debug, Clone)]
pub struct Compressor {
    /// The manifest name (`compressor` for the bundled one), recorded as the ledger's `brief`.
    pub name: String,
    /// `bundled`, or the directory given with `--compressor`.
    pub source: String,
    /// The directory, absolute, for a compressor on disk (the ledger's `brief_dir`).
    pub dir: Option<PathBuf>,
    /// The system prompt.
    pub system: String,
    /// Its worked examples (`format: messages` samples), sent after the system prompt.
    pub examples: Vec<Message>,
    /// Prefix hash of the composed compressor brief (full hex), recorded in proposals and
    /// as the ledger's `prefix_hash` of every compress call.
    pub hash: String,
}

/// The compressor brief embedded in the binary (`briefs/compressor/`), loaded and
/// composed like any brief.
pub fn bundled() -> Result<Compressor> {
    let brief = Brief::embedded("briefs/compressor", MANIFEST, &ITEMS)?;
    Ok(composed(&brief, "bundled".to_string(), None))
}

/// The bundled compressor (kept under its old name for callers that want just that one).
pub fn compressor() -> Result<Compressor> {
    bundled()
}

/// A compressor brief on disk (`--compressor DIR`), checked as strictly as the bundled one
/// is in CI: it loads, `brief check` passes (rules locked, no placeholder in the prefix,
/// within its budget), and it is a system prompt only: no volatile item, which would need
/// values per call, and no tool, since a compress call asks for text.
pub fn from_dir(dir: &Path) -> Result<Compressor> {
    let context = |mut err: Error| {
        err.message = format!("compressor brief {}: {}", dir.display(), err.message);
        err
    };
    let brief = Brief::load(dir).map_err(context)?;
    let report = crate::prompt::check::check(&brief).map_err(context)?;
    let errors: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.level == crate::prompt::check::Level::Error)
        .map(|f| format!("{}: {}", f.file.display(), f.message))
        .collect();
    if !errors.is_empty() {
        return Err(Error::input(format!(
            "compressor brief {} does not pass `brief check`: nothing sent",
            dir.display()
        ))
        .with_details(errors)
        .with_hint("fix the compressor brief, or use the bundled one")
        .with_topic(crate::error::Topic::BadCompressor {
            dir: dir.to_path_buf(),
        }));
    }
    let misfits: Vec<String> = brief
        .items
        .iter()
        .filter(|item| item.tier == Tier::Volatile || item.is_tool())
        .map(misfit)
        .collect();
    if !misfits.is_empty() {
        return Err(Error::input(format!(
            "compressor brief {}: a compressor is a system prompt only: nothing sent",
            dir.display()
        ))
        .with_details(misfits)
        .with_hint("remove its context and tool items"));
    }
    let absolute = std::fs::canonicalize(&brief.dir).ok();
    let compressor = composed(&brief, dir.display().to_string(), absolute);
    if compressor.system.trim().is_empty() {
        return Err(Error::input(format!(
            "compressor brief {}: its composed system prompt is empty: nothing sent",
            dir.display()
        )));
    }
    Ok(compressor)
}

fn misfit(item: &Item) -> String {
    let what = if item.is_tool() {
        "a tool"
    } else {
        "a volatile item"
    };
    format!("{}: `{}` is {what}", item.path.display(), item.id)
}

fn composed(brief: &Brief, source: String, dir: Option<PathBuf>) -> Compressor {
    let prefix = compose::prefix(brief, ComposeOptions::default());
    Compressor {
        name: brief.manifest.name.clone(),
        source,
        dir,
        system: prefix.static_system,
        examples: prefix.examples,
        hash: prefix.hashes.prefix,
    }
}

/// The request for a shorter body of `item`: the compressor brief as system prompt, the
/// item's body (and nothing else of the brief) as the one user message.
pub fn prompt(compressor: &Compressor, item: &Item) -> Prompt {
    let content = format!(
        "Shorten this section (an item of type `{}` in an agent's system prompt). Answer with the shortened section only.\n\n{}",
        item.kind,
        item.body()
    );
    Prompt {
        static_system: compressor.system.clone(),
        examples: compressor.examples.clone(),
        volatile_system: None,
        tools: Vec::new(),
        messages: vec![Message {
            role: Role::User,
            content,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_compressor_is_the_compressor_brief_on_disk() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../briefs/compressor"
        ));
        let embedded = bundled().unwrap();
        let on_disk = from_dir(dir).unwrap();
        assert_eq!(embedded.system, on_disk.system);
        assert_eq!(embedded.hash, on_disk.hash);
        assert_eq!(embedded.name, "compressor");
        assert!(embedded.system.contains("every URL"));
    }
}
