//! The wake digest: per-wake memory routed field by field by its declared type, with the
//! bulky parts backed by the CCR store, and the per-section measurements of each render.
//!
//! Routing is by the field a text is declared in, never by what the text looks like:
//! - `current_task`, `hard_constraints`, `definitions_of_done`: verbatim, byte for byte;
//! - `irreversible_decisions`: the summary verbatim, the detail in the store;
//! - `open_threads`: a compact summary, the detail in the store;
//! - `learnings`: a compact summary;
//! - `tool_outputs`: head, tail and diagnostic lines when larger than `min_bytes`, the whole
//!   output in the store;
//! - `prose_notes`: a compact summary; paragraph leads with the note in the store when bulky;
//! - `bulk_json`: the crusher's schema, statistics and edge items when larger than
//!   `min_bytes`, the array in the store.
//!
//! Every section is measured against itself written out whole ("before") and goes in
//! routed only when that is smaller ("after"): a marker and a summary can outweigh a short
//! detail, and then the detail stays, with the reason in the section's record.
//!
//! Rendering is pure ([`render`]): the markers carry the hash of the original, which needs
//! no store. [`Digest::back`] then writes the originals, so nothing is stored for a digest
//! that was never rendered.

pub mod crush;
pub mod head_tail;
pub mod input;
pub mod prose;
mod render;

pub use input::DigestFile;
pub use render::render;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ccr::{Store, Strategy, thousands};
use crate::error::Result;
use crate::wire::Prompt;

/// The digest schema version, in the rendered text and in every report.
pub const VERSION: &str = "digest/1";

/// Outputs, notes and arrays up to this many bytes go in whole.
pub const DEFAULT_MIN_BYTES: usize = 2048;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Compress `tool_outputs`, `prose_notes` and `bulk_json` entries larger than this.
    pub min_bytes: usize,
    /// Where the digest came from, for the store's source labels (e.g. its file name).
    pub source: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_bytes: DEFAULT_MIN_BYTES,
            source: "digest".to_string(),
        }
    }
}

/// The nine declared field types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    CurrentTask,
    HardConstraints,
    DefinitionsOfDone,
    IrreversibleDecisions,
    OpenThreads,
    Learnings,
    ToolOutputs,
    ProseNotes,
    BulkJson,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::CurrentTask => "current_task",
            Field::HardConstraints => "hard_constraints",
            Field::DefinitionsOfDone => "definitions_of_done",
            Field::IrreversibleDecisions => "irreversible_decisions",
            Field::OpenThreads => "open_threads",
            Field::Learnings => "learnings",
            Field::ToolOutputs => "tool_outputs",
            Field::ProseNotes => "prose_notes",
            Field::BulkJson => "bulk_json",
        }
    }

    /// Fields whose wording steers the next action: never changed, byte for byte.
    pub fn instruction_bearing(self) -> bool {
        matches!(
            self,
            Field::CurrentTask
                | Field::HardConstraints
                | Field::DefinitionsOfDone
                | Field::IrreversibleDecisions
        )
    }
}

/// How a section went into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Handling {
    /// Exactly as written.
    Verbatim,
    /// The summary exactly as written; the detail in the store.
    VerbatimSummaryCcr,
    /// Whitespace compacted (and duplicates dropped, for learnings).
    CompactSummary,
    /// A compact summary in the text; the full text in the store.
    CompactSummaryCcr,
    /// Head, tail and diagnostic lines; the whole output in the store.
    HeadTailCcr,
    /// Schema, statistics and edge items; the array in the store.
    JsonCrushCcr,
}

impl Handling {
    pub fn name(self) -> &'static str {
        match self {
            Handling::Verbatim => "verbatim",
            Handling::VerbatimSummaryCcr => "verbatim_summary_ccr",
            Handling::CompactSummary => "compact_summary",
            Handling::CompactSummaryCcr => "compact_summary_ccr",
            Handling::HeadTailCcr => "head_tail_ccr",
            Handling::JsonCrushCcr => "json_crush_ccr",
        }
    }
}

/// One section's measurements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    /// The field name for whole-field sections (`current_task`, `hard_constraints`,
    /// `definitions_of_done`, `learnings`); `field[i]` for entries that can be backed.
    pub id: String,
    pub field: Field,
    pub instruction_bearing: bool,
    pub handling: Handling,
    pub bytes_before: usize,
    pub bytes_after: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// The digest sits after the stable prefix, in the live zone: never cacheable.
    pub cache_hit_expected: bool,
    pub ccr_hash: Option<String>,
    /// Why the section went in verbatim although its field routes it otherwise: the
    /// routed form would not have been smaller (`null` when it went in as routed).
    pub reason: Option<String>,
}

/// An original to keep in the store for a backed section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backing {
    pub hash: String,
    pub original: String,
    pub compressed: String,
    pub strategy: Strategy,
    pub source: String,
}

/// A rendered digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// The digest text, without a final newline.
    pub text: String,
    pub sections: Vec<Section>,
    pub backings: Vec<Backing>,
}

impl Digest {
    /// Writes every backed original to `store` (the same original again only refreshes it).
    pub fn back(&self, store: &Store) -> Result<()> {
        for b in &self.backings {
            store.put(
                b.original.as_bytes(),
                &b.compressed,
                b.strategy,
                &b.source,
                None,
            )?;
        }
        Ok(())
    }

    /// `digest/1: 9 sections, 1,048,890 → 6,120 bytes (262,001 → 1,530 tokens); 5 backed in the store`
    pub fn summary(&self) -> String {
        let sum = |f: fn(&Section) -> usize| self.sections.iter().map(f).sum::<usize>() as u64;
        format!(
            "{VERSION}: {} section{}, {} → {} bytes ({} → {} tokens); {} backed in the store",
            self.sections.len(),
            if self.sections.len() == 1 { "" } else { "s" },
            thousands(sum(|s| s.bytes_before)),
            thousands(sum(|s| s.bytes_after)),
            thousands(sum(|s| s.tokens_before)),
            thousands(sum(|s| s.tokens_after)),
            self.backings.len()
        )
    }
}

/// The document `brief digest --json` prints and the MCP `digest` tool returns: the
/// text and the per-section measurements.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub digest_version: &'static str,
    pub text: &'a str,
    pub sections: &'a [Section],
    #[serde(skip)]
    pub digest: &'a Digest,
}

impl<'a> Report<'a> {
    pub fn of(digest: &'a Digest) -> Self {
        Report {
            digest_version: VERSION,
            text: &digest.text,
            sections: &digest.sections,
            digest,
        }
    }
}

impl crate::document::Document for Report<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        self.digest.summary()
    }
}

/// Places a rendered digest in a prompt's live zone: after the stable prefix (tools and
/// static system text, untouched, so the prefix hash does not move when only the digest
/// does) and before the run-specific context (the brief's volatile items).
pub fn place(prompt: &mut Prompt, digest: &str) {
    prompt.volatile_system = Some(match prompt.volatile_system.take() {
        Some(context) if !context.is_empty() => format!("{digest}\n\n{context}"),
        _ => digest.to_string(),
    });
}

/// The one marker a backed section carries:
/// `[ccr:HASH STRATEGY: WHAT WAS LEFT OUT — brief ccr get HASH]`.
pub fn marker(hash: &str, strategy: Strategy, left_out: &str) -> String {
    format!("[ccr:{hash} {strategy}: {left_out} — brief ccr get {hash}]")
}

/// A fence longer than any backtick run in `content`, so the content cannot close it.
pub(crate) fn fence(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

pub(crate) fn fenced(info: &str, content: &str) -> String {
    let fence = fence(content);
    let newline = if content.ends_with('\n') || content.is_empty() {
        ""
    } else {
        "\n"
    };
    format!("{fence}{info}\n{content}{newline}{fence}")
}

/// A heading line from a user-given name: one line, no Markdown surprises at the start.
pub(crate) fn title(name: &str) -> String {
    let one_line: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        "(unnamed)".to_string()
    } else {
        one_line
    }
}

pub(crate) fn lines_of(text: &str) -> u64 {
    text.lines().count() as u64
}

/// A rendered digest whose bulky sections are backed in the CCR store.
#[derive(Debug)]
pub struct Backed {
    pub digest: Digest,
    /// The store written to; `None` when nothing needed backing (no store was opened).
    pub store: Option<PathBuf>,
    /// Where the TTL of the backed originals came from, when that deserves a word (see
    /// [`crate::ccr::ttl::Source::note`]).
    pub ttl_note: Option<String>,
}

/// Reads a digest file, renders it and backs its bulky sections in the CCR store (`store`,
/// else the configured one). `brief digest`, `brief compose --digest` and the MCP `digest`
/// tool call this. The TTL setting is checked first and bad input is refused before the
/// store is opened.
pub fn render_and_back(path: &Path, store: Option<&Path>, min_bytes: usize) -> Result<Backed> {
    let (ttl_seconds, ttl_source) = crate::ccr::ttl::resolve(None)?;
    let file = DigestFile::read(path)?;
    let options = Options {
        min_bytes,
        source: path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    };
    let digest = render(&file, &options);
    let ttl_note = ttl_source.note(ttl_seconds);
    if digest.backings.is_empty() {
        return Ok(Backed {
            digest,
            store: None,
            ttl_note,
        });
    }
    let store_path = crate::ccr::path::resolve(store)?;
    let store = Store::open(&store_path)?.with_ttl(ttl_seconds);
    digest.back(&store)?;
    Ok(Backed {
        digest,
        store: Some(store_path),
        ttl_note,
    })
}

/// `prompt::composition`'s wake digest step (`prompt::composition::PlaceDigest`): renders the
/// digest file, backs its originals up and places the digest in the prompt.
pub fn place_backed(prompt: &mut Prompt, path: &Path, store: Option<&Path>) -> Result<()> {
    let backed = render_and_back(path, store, DEFAULT_MIN_BYTES)?;
    place(prompt, &backed.digest.text);
    Ok(())
}
