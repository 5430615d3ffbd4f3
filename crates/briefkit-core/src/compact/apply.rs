//! `brief compact` as one operation each for its two targets: a Markdown file
//! ([`file`]) and a brief's items ([`brief`]), measuring every compaction and, when asked,
//! writing the proven ones in place. A command renders the report; nothing here prints.
//!
//! Rule items are never rewritten (they are locked byte for byte and compacted at compose
//! time), tools have no Markdown body, and a compaction that could not be proven leaves its
//! file exactly as it was.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Compaction, compact_document, compact_markdown, compact_messages};
use crate::brief::{Brief, ItemType};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::files::inside;
use crate::store::WriterLock;
use crate::tokens;

/// Compacts the Markdown file at `path` (front matter passes through) and, with `write`,
/// rewrites it in place when that changes it. A rule item's file is refused for `write`
/// before anything is written.
pub fn file(path: &Path, write: bool) -> Result<FileCompaction> {
    let text = crate::files::input::read_text(path, crate::files::limits::TEXT_FILE)?;
    let compaction = compact_document(&text);
    if write {
        inside::check_not_link(path)?;
        if is_rule_item(&text) {
            return Err(Error::input(format!(
                "{}: a rule item; rule files are never rewritten (they are compacted at compose time)",
                path.display()
            ))
            .with_hint("nothing was written")
            .with_topic(crate::error::Topic::RuleFile));
        }
    }
    let written = write && compaction.text != text;
    if written {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        inside::write_file(dir, path, compaction.text.as_bytes())?;
    }
    Ok(FileCompaction {
        file: path.to_path_buf(),
        proven: compaction.proven,
        bytes_before: text.len(),
        bytes_after: compaction.text.len(),
        written,
        text: compaction.text,
        reason: compaction.reason,
        write,
    })
}

/// What [`file`] did: the compacted text and its sizes.
#[derive(Debug, Serialize)]
pub struct FileCompaction {
    pub file: PathBuf,
    pub proven: bool,
    pub bytes_before: usize,
    pub bytes_after: usize,
    pub written: bool,
    /// The compacted text (the input unchanged when unproven).
    pub text: String,
    /// Why the compaction could not be proven, when it could not.
    #[serde(skip)]
    pub reason: Option<String>,
    /// Whether writing was asked for.
    #[serde(skip)]
    pub write: bool,
}

impl Document for FileCompaction {
    fn status(&self) -> &str {
        if self.proven { "ok" } else { "unproven" }
    }

    fn summary(&self) -> String {
        format!("{} bytes → {} bytes", self.bytes_before, self.bytes_after)
    }
}

/// Whether a Markdown file's front matter says `type: rule`.
fn is_rule_item(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return false;
    };
    rest.lines()
        .take_while(|line| *line != "---" && *line != "...")
        .any(|line| {
            line.split_once(':').is_some_and(|(key, value)| {
                key.trim() == "type" && value.trim().trim_matches(['"', '\'']) == "rule"
            })
        })
}

/// Compacts every item of `brief` except tools and measures it in the brief's tokenizer;
/// with `write` (under the brief's writer lock, every target checked before the first
/// write) rewrites each proven, changed item that is not a rule.
pub fn brief(brief: &Brief, write: bool) -> Result<BriefCompaction> {
    let _lock = if write {
        Some(WriterLock::acquire(&brief.dir)?)
    } else {
        None
    };
    if write {
        // Every target checked before the first write: a refusal leaves nothing written.
        for item in brief.items.iter().filter(|i| !i.is_tool()) {
            inside::check_target(&brief.dir, &item.path)?;
        }
    }
    let encoding = brief.manifest.tokenizer;
    let mut items = Vec::new();
    for item in brief.items.iter().filter(|i| !i.is_tool()) {
        let body = item.body();
        let compaction: Compaction = if item.messages().is_some() {
            compact_messages(body)
        } else {
            compact_markdown(body)
        };
        let kept = (item.kind == ItemType::Rule).then_some("rule: compacted at compose time only");
        let written = write && kept.is_none() && compaction.proven && compaction.text != body;
        if written {
            let mut text = String::with_capacity(item.front_matter().len() + body.len());
            // The body is written with LF line ends: so is the front matter, or the file
            // would mix them (YAML reads either as a line break).
            text.push_str(
                &item
                    .front_matter()
                    .replace("\r\n", "\n")
                    .replace('\r', "\n"),
            );
            text.push_str(&compaction.text);
            inside::write_file(&brief.dir, &item.path, text.as_bytes())?;
        }
        items.push(ItemCompaction {
            id: item.id.clone(),
            bytes_before: body.len(),
            bytes_after: compaction.text.len(),
            tokens_before: tokens::count(encoding, body),
            tokens_after: tokens::count(encoding, &compaction.text),
            proven: compaction.proven,
            reason: compaction.reason,
            kept,
            written,
        });
    }
    Ok(BriefCompaction {
        brief: brief.manifest.name.clone(),
        items,
        write,
    })
}

/// What [`brief`] did, item by item.
#[derive(Debug, Serialize)]
pub struct BriefCompaction {
    pub brief: String,
    pub items: Vec<ItemCompaction>,
    /// Whether writing was asked for.
    #[serde(skip)]
    pub write: bool,
}

/// One item's compaction.
#[derive(Debug, Serialize)]
pub struct ItemCompaction {
    pub id: String,
    pub bytes_before: usize,
    pub bytes_after: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub proven: bool,
    pub reason: Option<String>,
    /// Why the file is not rewritten, for rules.
    pub kept: Option<&'static str>,
    pub written: bool,
}

impl BriefCompaction {
    /// Items whose proven compaction would change them but was not written.
    pub fn pending(&self) -> usize {
        self.items
            .iter()
            .filter(|r| {
                r.proven && r.kept.is_none() && !r.written && r.bytes_before != r.bytes_after
            })
            .count()
    }

    fn unproven(&self) -> usize {
        self.items.iter().filter(|r| !r.proven).count()
    }
}

impl Document for BriefCompaction {
    fn status(&self) -> &str {
        if self.unproven() > 0 {
            "unproven"
        } else {
            "ok"
        }
    }

    fn summary(&self) -> String {
        let saved = |before: usize, after: usize| before - before.min(after);
        let bytes: usize = self
            .items
            .iter()
            .map(|r| saved(r.bytes_before, r.bytes_after))
            .sum();
        let tokens: usize = self
            .items
            .iter()
            .map(|r| saved(r.tokens_before, r.tokens_after))
            .sum();
        let written = self.items.iter().filter(|r| r.written).count();
        format!(
            "saved {} and {} over {}; {written} written, {} left unchanged (unproven)",
            crate::numbers::count(bytes as u64, "byte", "bytes"),
            crate::numbers::count(tokens as u64, "token", "tokens"),
            crate::numbers::count(self.items.len() as u64, "item", "items"),
            self.unproven()
        )
    }
}
