//! `brief retype`: the type suggestions of `brief import`, for a brief that already exists.
//! Each Markdown item's body is read as the import reads a section, and its `type:` line is
//! rewritten to the suggested type; constants, tools and conversation samples in messages
//! form keep theirs. A rule that changes is a change for `brief lock`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::import::suggest;
use crate::brief::{Brief, ItemType, Problem};
use crate::error::Result;
use crate::files::inside;
use crate::store::WriterLock;

/// What `retype` found and wrote; the keys are the JSON contract of `brief retype`.
#[derive(Debug, Serialize)]
pub struct RetypeReport {
    #[serde(skip)]
    pub status: &'static str,
    #[serde(skip)]
    pub summary: String,
    pub brief: PathBuf,
    pub items: Vec<Retyped>,
    /// Whether the item files were written (not under `--dry-run`).
    pub written: bool,
}

/// One item: its type, the type its content suggests and why, and whether they differ.
#[derive(Debug, Serialize)]
pub struct Retyped {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ItemType,
    pub suggested_type: ItemType,
    pub suggested_reason: String,
    pub changed: bool,
}

/// Suggests a type for every Markdown item of the brief at `dir` (or for `only`), and unless
/// `dry_run` writes each suggestion that differs into the item's front matter.
pub fn retype(
    dir: &Path,
    only: &[String],
    dry_run: bool,
    warn: &mut dyn FnMut(&Problem),
) -> Result<RetypeReport> {
    let brief = Brief::load(dir)?;
    brief.warnings.iter().for_each(&mut *warn);
    for id in only {
        brief.require_item(id)?;
    }
    let _writer = (!dry_run)
        .then(|| WriterLock::acquire(&brief.dir))
        .transpose()?;
    let mut items = Vec::new();
    let mut files = Vec::new();
    for item in &brief.items {
        let fixed =
            matches!(item.kind, ItemType::Constant | ItemType::Tool) || item.messages().is_some();
        if fixed || (!only.is_empty() && !only.contains(&item.id)) {
            continue;
        }
        let suggestion = suggest(item.title.as_deref(), item.body());
        let changed = suggestion.kind != item.kind;
        if changed {
            let raw = with_type(&item.raw, item.body_offset, suggestion.kind);
            files.push((item.path.clone(), raw.into_bytes()));
        }
        items.push(Retyped {
            id: item.id.clone(),
            kind: item.kind,
            suggested_type: suggestion.kind,
            suggested_reason: suggestion.reason,
            changed,
        });
    }
    let changed = items.iter().filter(|i| i.changed).count();
    let written = !dry_run && changed > 0;
    if written {
        for (path, _) in &files {
            inside::check_target(&brief.dir, path)?;
        }
        for (path, bytes) in &files {
            inside::write_file(&brief.dir, path, bytes)?;
        }
    }
    let (status, summary) = match (changed, dry_run) {
        (0, _) => (
            "unchanged",
            format!(
                "every item already has the type its content suggests ({} checked)",
                items.len()
            ),
        ),
        (n, true) => (
            "ok",
            format!(
                "{} would change type (--dry-run: nothing written)",
                crate::numbers::count(n as u64, "item", "items")
            ),
        ),
        (n, false) => (
            "retyped",
            format!(
                "wrote the suggested type of {}",
                crate::numbers::count(n as u64, "item", "items")
            ),
        ),
    };
    Ok(RetypeReport {
        status,
        summary,
        brief: brief.dir.clone(),
        items,
        written,
    })
}

/// `raw` with the `type:` line of its front matter (before `body_offset`) set to `kind`,
/// its line end kept; a front matter without one gets one after its opening line, and a
/// file without front matter gets a front matter.
fn with_type(raw: &str, body_offset: usize, kind: ItemType) -> String {
    let line = format!("type: {}", kind.as_str());
    if body_offset == 0 {
        return format!("---\n{line}\n---\n{raw}");
    }
    if let Some(set) = replace_type(raw, body_offset, &line) {
        return set;
    }
    let opening = raw.find('\n').map_or(raw.len(), |i| i + 1);
    let ending = if raw[..opening].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    format!("{}{line}{ending}{}", &raw[..opening], &raw[opening..])
}

fn replace_type(raw: &str, body_offset: usize, set: &str) -> Option<String> {
    let front = &raw[..body_offset];
    let mut offset = 0;
    for line in front.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("type:") {
            let ending = if rest.ends_with("\r\n") {
                "\r\n"
            } else if rest.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            let mut out = String::with_capacity(raw.len() + 16);
            out.push_str(&raw[..offset]);
            out.push_str(set);
            out.push_str(ending);
            out.push_str(&raw[offset + line.len()..]);
            return Some(out);
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_line_is_rewritten_and_nothing_else() {
        let raw =
            "---\r\ntitle: Limits\r\ntype: instruction # was imported\r\n---\r\nNever promise.\r\n";
        let body_offset = raw.find("Never").unwrap();
        assert_eq!(
            with_type(raw, body_offset, ItemType::Rule),
            "---\r\ntitle: Limits\r\ntype: rule\r\n---\r\nNever promise.\r\n"
        );
        // A `type:` in the body is not the front matter's.
        assert_eq!(
            with_type("---\ntitle: x\n---\ntype: y\n", 16, ItemType::Rule),
            "---\ntype: rule\ntitle: x\n---\ntype: y\n"
        );
        assert_eq!(
            with_type("Never.\n", 0, ItemType::Rule),
            "---\ntype: rule\n---\nNever.\n"
        );
    }
}
