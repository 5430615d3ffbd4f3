//! Loading a brief directory: read every file, validate everything, report every problem.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

pub(crate) use super::files::read_text;
use super::files::{Listing, read_plain};
use super::item::{Item, parse_markdown_with, parse_tool};
use super::manifest::Manifest;
use super::problem::{LineIndex, Problem, into_error};
use super::types::valid_id;
use crate::error::{Error, Result, Topic};

/// Item files larger than this are refused: a brief is re-sent every turn, and one item
/// this big is almost certainly a mistake.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// An item over [`MAX_FILE_BYTES`] that `history`, `show`, `diff`, `restore` and `record`
/// still read: room below the version-file limit (`store::history::MAX_VERSION_BYTES`) for
/// a version's front matter, so that whatever `record` versions stays readable.
pub const MAX_VERSIONED_ITEM_BYTES: u64 = 63 * 1024 * 1024;

/// The manifest may hold 100,000 item ids of up to 64 characters each in its list.
pub const MAX_MANIFEST_BYTES: u64 = 8 * 1024 * 1024;

/// The lock holds every rule's text; `brief lock` refuses to write a lock over this limit
/// (saying so), so `check` never refuses a lock that `lock` wrote.
pub const MAX_LOCK_BYTES: u64 = 64 * 1024 * 1024;

pub const MANIFEST: &str = "brief.yaml";

#[derive(Debug, Clone)]
pub struct Brief {
    /// The directory as the user named it (paths in messages are under it).
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// Items in manifest order.
    pub items: Vec<Item>,
    /// Problems that do not stop loading (e.g. an item file not in the manifest).
    pub warnings: Vec<Problem>,
    /// Placeholders in the static tier, when loaded with [`Brief::load_for_check`].
    pub static_placeholders: Vec<Problem>,
}

impl Brief {
    /// Loads and validates a brief. `path` is the brief directory or its `brief.yaml`.
    pub fn load(path: &Path) -> Result<Brief> {
        Self::load_inner(path, true, None)
    }

    /// Loads a brief for `brief check`, which reports a placeholder in the static tier as
    /// a failed check rather than as unreadable input.
    pub fn load_for_check(path: &Path) -> Result<Brief> {
        Self::load_inner(path, false, None)
    }

    /// Loads a brief for the commands that read or repair one item's versions (`history`,
    /// `show`, `diff`, `restore`, `record`): that item's file may be over
    /// [`MAX_FILE_BYTES`] (up to a version file's limit) and is then a warning, so that an
    /// oversized body can be recorded or replaced by an earlier version. Every other
    /// command keeps refusing the brief until the item is small again.
    pub fn load_for_versions(path: &Path, item_id: &str) -> Result<Brief> {
        Self::load_inner(path, true, Some(item_id))
    }

    fn load_inner(
        path: &Path,
        placeholders_are_errors: bool,
        roomy_item: Option<&str>,
    ) -> Result<Brief> {
        let dir = if path.file_name().is_some_and(|n| n == MANIFEST) && path.is_file() {
            // `brief.yaml` alone names the current directory, whose path is empty.
            path.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        } else {
            path.to_path_buf()
        };
        let manifest_path = dir.join(MANIFEST);
        if dir.is_file() {
            return Err(
                Error::input(format!("{}: a file, not a brief directory", dir.display()))
                    .with_hint("name the directory that holds brief.yaml"),
            );
        }
        if !dir.is_dir() {
            return Err(
                Error::input(format!("{}: no such brief directory", dir.display()))
                    .with_topic(Topic::NoBrief { exists: false }),
            );
        }
        if !manifest_path.is_file() {
            return Err(Error::input(format!(
                "{}: not a brief: it has no {MANIFEST}",
                dir.display()
            ))
            .with_topic(Topic::NoBrief { exists: true }));
        }
        // The manifest obeys the items' rule: a link is followed only inside the brief (a
        // brief arrives in pull requests; its brief.yaml may be a link planted to read
        // another file).
        crate::files::inside::check_inside(&dir, &manifest_path)?;
        let mut problems = Vec::new();
        let manifest_text = read_text(&manifest_path, MAX_MANIFEST_BYTES, &mut problems);
        let manifest =
            manifest_text.as_deref().and_then(|text| {
                match crate::text::yaml::from_str::<Manifest>(text) {
                    Ok(manifest) => Some(manifest),
                    Err(err) => {
                        let (line, column) = err.location().unwrap_or((0, 0));
                        problems.push(Problem::error(
                            &manifest_path,
                            line,
                            column,
                            super::item::yaml_message(&err.message()),
                        ));
                        None
                    }
                }
            });
        let Some(manifest_text) = manifest_text else {
            return Err(into_error(&dir, &problems));
        };
        // A manifest with a bad field still names its items: check them too, so one run
        // shows every problem.
        let ids = match &manifest {
            Some(manifest) => manifest.items.clone(),
            None => match crate::text::yaml::from_str::<ItemsOnly>(&manifest_text) {
                Ok(only) => only.items,
                Err(_) => return Err(into_error(&dir, &problems)),
            },
        };
        let canonical_dir = fs::canonicalize(&dir).map_err(|e| Error::io(&dir, &e))?;
        let no_vars = std::collections::BTreeMap::new();
        let static_vars = manifest.as_ref().map_or(&no_vars, |m| &m.vars);

        let listing = Listing::read(&dir, &canonical_dir);
        let mut seen = HashSet::with_capacity(ids.len());
        let mut mentions = Mentions::new(&manifest_text);
        let mut items = Vec::with_capacity(ids.len());
        for id in &ids {
            let mention = mentions.next(id);
            if !valid_id(id) {
                let (line, column) = mentions.line_col(mention);
                problems.push(Problem::error(&manifest_path, line, column, format!(
                    "invalid item id `{id}`: ids are 1 to 64 of a-z, 0-9, `_` and `-`, starting with a letter or digit (an id names a file and can never leave the brief directory)"
                )));
                continue;
            }
            if !seen.insert(id.as_str()) {
                let (line, column) = mentions.line_col(mention);
                problems.push(Problem::error(
                    &manifest_path,
                    line,
                    column,
                    format!("duplicate item id `{id}`"),
                ));
                continue;
            }
            let max = if roomy_item == Some(id.as_str()) {
                MAX_VERSIONED_ITEM_BYTES
            } else {
                MAX_FILE_BYTES
            };
            if let Some(item) = load_item(
                (&dir, &canonical_dir, &listing),
                (id, max, static_vars),
                (&manifest_path, &mentions, mention),
                &mut problems,
            ) {
                items.push(item);
            }
        }
        let mut warnings = unlisted_items(&dir, &listing, &seen);
        let mut static_placeholders = Vec::new();
        if !placeholders_are_errors {
            let (placeholders, rest) = problems
                .into_iter()
                .partition(|p| p.code == Some(super::item::STATIC_PLACEHOLDER));
            static_placeholders = placeholders;
            problems = rest;
        }
        let Some(manifest) = manifest else {
            return Err(into_error(&dir, &problems));
        };
        if problems
            .iter()
            .any(|p| p.severity == super::problem::Severity::Error)
        {
            return Err(into_error(&dir, &problems));
        }
        warnings.extend(problems);
        Ok(Brief {
            dir,
            manifest,
            items,
            warnings,
            static_placeholders,
        })
    }

    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|item| item.id == id)
    }

    /// Every item by its id, for looking many up (one [`Brief::item`] call scans the list).
    pub fn items_by_id(&self) -> std::collections::HashMap<&str, &Item> {
        self.items
            .iter()
            .map(|item| (item.id.as_str(), item))
            .collect()
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.dir.join("brief.lock")
    }
}

/// Just the item list of a manifest whose other fields did not parse.
#[derive(serde::Deserialize)]
struct ItemsOnly {
    items: Vec<String>,
}

/// Where each id of the item list stands in the manifest text, found in one forward pass:
/// the list names its ids in order, so each is searched for after the previous one. A
/// location is turned into a line and column only when a problem is reported.
struct Mentions<'a> {
    text: &'a str,
    cursor: usize,
    lines: LineIndex<'a>,
}

/// How far past the previous id the next one is looked for: ids sit a few characters
/// apart, and an id not written literally (a quoted escape) must not cost a scan of the
/// rest of the manifest, which made many such ids quadratic.
const MENTION_WINDOW: usize = 4096;

impl<'a> Mentions<'a> {
    fn new(text: &'a str) -> Self {
        let key = regex::Regex::new(r"(?m)^items[ \t]*:").expect("items key pattern");
        let cursor = key
            .find(text)
            .map(|m| m.end())
            .or_else(|| text.find("items"))
            .unwrap_or(0);
        Mentions {
            text,
            cursor,
            lines: LineIndex::new(text),
        }
    }

    /// Byte offset of `id`'s mention: the next whole-word match after the previous id,
    /// or where the search stands when the id is not written literally.
    fn next(&mut self, id: &str) -> usize {
        let is_id_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        let bytes = self.text.as_bytes();
        let end = floor_boundary(
            self.text,
            (self.cursor + MENTION_WINDOW + id.len()).min(bytes.len()),
        );
        let mut from = self.cursor;
        while !id.is_empty() && from < end {
            let Some(pos) = self.text[from..end].find(id).map(|p| p + from) else {
                break;
            };
            let after = pos + id.len();
            let before_ok = pos == 0 || !is_id_byte(bytes[pos - 1]);
            let after_ok = after >= bytes.len() || !is_id_byte(bytes[after]);
            if before_ok && after_ok {
                self.cursor = after;
                return pos;
            }
            from = pos + id.len();
        }
        self.cursor
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col(offset)
    }
}

fn floor_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn load_item(
    (dir, canonical_dir, listing): (&Path, &Path, &Listing),
    (id, max, static_vars): (&str, u64, &std::collections::BTreeMap<String, String>),
    mentioned_at: (&Path, &Mentions, usize),
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    let items = dir.join("items");
    let (md_name, tool_name) = (format!("{id}.md"), format!("{id}.tool.yaml"));
    let (manifest_path, mentions, offset) = mentioned_at;
    let at = |message: String| {
        let (line, column) = mentions.line_col(offset);
        Problem::error(manifest_path, line, column, message)
    };
    let name = match listing.exist(&items, &md_name, &tool_name) {
        (true, true) => {
            problems.push(at(format!(
                "item `{id}` is ambiguous: both items/{id}.md and items/{id}.tool.yaml exist"
            )));
            return None;
        }
        (true, false) => md_name,
        (false, true) => tool_name,
        (false, false) => {
            let near = listing
                .closest_item(id)
                .map(|near| format!("; did you mean `{near}`?"))
                .unwrap_or_default();
            problems.push(at(format!(
                "missing item file for `{id}`: expected items/{id}.md or items/{id}.tool.yaml{near}"
            )));
            return None;
        }
    };
    let path = items.join(&name);
    // A regular file listed in an `items/` inside the brief is inside it; a symlink (or a
    // brief whose `items/` is one) is resolved first.
    let plain = listing.plain(&name);
    if !plain {
        match fs::canonicalize(&path) {
            Ok(real) if !real.starts_with(canonical_dir) => {
                problems.push(Problem::error(
                    &path,
                    0,
                    0,
                    format!(
                        "points outside the brief directory (to {}); items must live inside the brief",
                        real.display()
                    ),
                ));
                return None;
            }
            Ok(_) => {}
            Err(err) => {
                problems.push(Problem::error(&path, 0, 0, format!("cannot read: {err}")));
                return None;
            }
        }
    }
    let raw = if plain {
        read_plain(&path, max, problems)?
    } else {
        read_text(&path, max, problems)?
    };
    if raw.len() as u64 > MAX_FILE_BYTES {
        problems.push(Problem::warning(
            &path,
            0,
            0,
            format!(
                "file is {} bytes, over the {} MiB limit: every command but history, show, diff, restore and record refuses the brief until it is smaller",
                raw.len(),
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
    }
    if path.extension().is_some_and(|e| e == "md") {
        parse_markdown_with(id, &path, raw, static_vars, problems)
    } else {
        parse_tool(id, &path, raw, problems)
    }
}

/// Item files in `items/` that the manifest does not name.
fn unlisted_items(dir: &Path, listing: &Listing, listed: &HashSet<&str>) -> Vec<Problem> {
    listing
        .sorted_names(dir)
        .into_iter()
        .filter_map(|name| {
            let id = name
                .strip_suffix(".tool.yaml")
                .or_else(|| name.strip_suffix(".md"))?;
            (!listed.contains(id)).then(|| {
                Problem::warning(
                    &dir.join("items").join(&name),
                    0,
                    0,
                    format!(
                        "not in {MANIFEST}: add `{id}` to `items` to compose it, or delete the file"
                    ),
                )
            })
        })
        .collect()
}
