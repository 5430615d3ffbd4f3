//! Turning an existing prompt file into a brief: one item per top-level section, found by
//! whatever marks the sections ([`structure`]), each with a suggested type ([`suggest`]).
//!
//! Operators arrive with a prompt that already works, so an import must lose nothing: item
//! bodies are byte-exact slices of the source, and before anything is written the plan is
//! composed in memory and compared with the source. A `{{name}}` in the source is literal
//! text there, so it is written escaped (`\{{name}}`), which composes back to the original.

mod structure;
mod suggest;
mod write;

use std::collections::HashSet;
use std::ops::Range;

use serde::Serialize;

pub use self::structure::{Marker, Split};
pub use self::suggest::{Suggestion, suggest};
pub use self::write::{GITIGNORE, Imported, ImportedItem, Request, write};
use crate::brief::types::{ItemType, valid_id};

/// One item the import will write.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedItem {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ItemType,
    pub title: Option<String>,
    /// The 1-based source line the item starts at.
    pub line: usize,
    /// The body as written to the item file (placeholders escaped).
    #[serde(skip)]
    pub body: String,
    /// The type its content suggests, and why (written with `--apply-types`).
    #[serde(flatten)]
    pub suggested: Suggestion,
}

/// What an import will write, and how faithfully it reproduces the source.
#[derive(Debug, Clone, Serialize)]
pub struct ImportPlan {
    pub items: Vec<PlannedItem>,
    /// `{{…}}` placeholders found outside code and written escaped as literal text.
    pub escaped_placeholders: usize,
    /// Composing the brief without compaction gives the source byte for byte (after CRLF
    /// line ends and a byte-order mark, if any, were normalised).
    pub exact: bool,
    /// Notes for the operator (normalisations made, blank lines that compose differently).
    pub notes: Vec<String>,
    /// The markers the sections were found by (empty: none, one item).
    pub markers: Vec<Marker>,
    /// The deepest heading level that started an item (0: headings were not used).
    pub headings_level: usize,
    /// What was normalised before splitting (`line ends`, `a byte-order mark`): the
    /// brief reproduces the source but for these.
    #[serde(skip)]
    pub normalised: Vec<&'static str>,
}

impl ImportPlan {
    /// `Markdown headings (h1–h2) and upper-case title lines`, or what was looked for.
    pub fn structure(&self) -> String {
        let used: Vec<String> = self
            .markers
            .iter()
            .map(|m| m.describe(self.headings_level))
            .collect();
        match used.as_slice() {
            [] => "no section markers (Markdown headings, XML-style section tags, ====/---- rules or upper-case title lines)".to_string(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }

    /// Writes each item with its suggested type (front matter stays a constant). A
    /// `context` item's placeholders are real ones: they are filled per call, so they are
    /// written without the backslash that kept them literal.
    pub fn apply_types(&mut self) {
        for item in &mut self.items {
            if item.kind != ItemType::Constant {
                item.kind = item.suggested.kind;
            }
            if item.kind == ItemType::Context {
                let unescaped = unescape(&item.body);
                self.escaped_placeholders = self
                    .escaped_placeholders
                    .saturating_sub(placeholder_count(&item.body));
                item.body = unescaped;
            }
        }
    }
}

/// Splits `source` into items where its sections start (see [`structure::find`]).
pub fn plan(source: &str, split: Split) -> ImportPlan {
    let mut notes = Vec::new();
    let mut normalised_parts = Vec::new();
    let mut text = source;
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        notes.push("a UTF-8 byte-order mark at the start was removed".to_string());
        normalised_parts.push("a byte-order mark");
        text = rest;
    }
    let normalised;
    if text.contains("\r\n") {
        normalised = text.replace("\r\n", "\n");
        notes.push("CRLF line ends were written as LF".to_string());
        normalised_parts.push("line ends");
        text = &normalised;
    }
    let mut sections: Vec<(Range<usize>, Option<String>, ItemType)> = Vec::new();
    let mut body_start = 0;
    if let Some(end) = front_matter_end(text) {
        sections.push((0..end, Some("Front matter".to_string()), ItemType::Constant));
        body_start = end;
    }
    let found = structure::find(&text[body_start..], split);
    let mut cursor = body_start;
    let mut pending_title: Option<String> = None;
    for start in &found.starts {
        let (offset, title) = (start.offset, start.title.clone());
        let at = body_start + offset;
        if at > cursor || pending_title.is_some() {
            sections.push((cursor..at, pending_title.take(), ItemType::Instruction));
        }
        cursor = at;
        pending_title = Some(title);
    }
    sections.push((cursor..text.len(), pending_title, ItemType::Instruction));

    let mut ids = HashSet::new();
    let mut items: Vec<PlannedItem> = Vec::new();
    let mut escaped_placeholders = 0;
    let mut previous_end = None;
    // Line numbers counted forward from the last one: sections come in order, and counting
    // from the start of the text for each made an import quadratic in its section count.
    let (mut counted_to, mut lines_before) = (0, 0);
    let mut line_at = |offset: usize| {
        lines_before += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..offset]).count();
        counted_to = offset;
        lines_before + 1
    };
    for (range, title, kind) in sections {
        let trimmed = trim_blank_tail(&text[range.clone()]);
        if trimmed.trim().is_empty() {
            continue;
        }
        let content_end = range.start + trimmed.len();
        // A section that follows the previous one with no blank line between them stays in
        // that item: a brief joins items with a blank line, and the text must compose back.
        let starts_blank = trimmed
            .split('\n')
            .next()
            .is_some_and(|l| l.trim().is_empty());
        let touches = previous_end == Some(range.start) && !starts_blank;
        // Blank lines before a section's first line separate it from the previous one: the
        // join puts one back, and only empty lines beyond that one stay, at the item's start.
        let start = range.start + blank_head_len(trimmed);
        let gap = previous_end.map_or("", |end| &text[end..start]);
        let kept = if gap.len() > 1 && gap.bytes().all(|b| b == b'\n') {
            gap.len() - 1
        } else {
            0
        };
        let slice = &text[start - kept..content_end];
        previous_end = Some(content_end);
        if touches && let Some(last) = items.last_mut() {
            let what = title
                .as_deref()
                .map_or_else(|| "the text".to_string(), |t| format!("the section `{t}`"));
            notes.push(format!(
                "{what} at line {} follows item `{}` with no blank line between them, so it stays in that item (a brief joins items with a blank line)",
                line_at(start),
                last.id
            ));
            let (more, escaped) = escape_placeholders(slice);
            escaped_placeholders += escaped;
            last.body.push_str(&more);
            continue;
        }
        let base = match (&title, kind) {
            (_, ItemType::Constant) => "front-matter".to_string(),
            (Some(title), _) if !title.is_empty() => slug(title),
            (_, _) if items.iter().all(|i| i.kind == ItemType::Constant) => "intro".to_string(),
            (_, _) => first_words(slice),
        };
        let id = unique(&base, &mut ids);
        let (body, escaped) = if kind == ItemType::Constant {
            (slice.to_string(), 0)
        } else {
            escape_placeholders(slice)
        };
        escaped_placeholders += escaped;
        let line = line_at(start);
        items.push(PlannedItem {
            id,
            kind,
            title: title.filter(|t| !t.is_empty()),
            line,
            body,
            suggested: Suggestion {
                kind,
                reason: "YAML front matter, kept as written".to_string(),
            },
        });
    }
    // Judged on the final bodies: a section that stayed in the previous item counts there.
    for item in items.iter_mut().filter(|i| i.kind != ItemType::Constant) {
        item.suggested = suggest::suggest(item.title.as_deref(), &item.body);
    }
    // A closing section of nothing but `{{…}}` lines holds the values of each call: it is
    // the brief's context (filled per call, after the cached prefix).
    if let Some(last) = items.last_mut().filter(|i| i.kind != ItemType::Constant)
        && let Some(count) = placeholder_lines(&last.body)
    {
        last.suggested = Suggestion {
            kind: ItemType::Context,
            reason: format!(
                "the last section, {} with a `{{{{…}}}}` placeholder: values filled per call",
                crate::numbers::count(count as u64, "line", "lines")
            ),
        };
    }
    let composed = items
        .iter()
        .map(|item| unescape(item.body.trim_end_matches('\n')))
        .collect::<Vec<_>>()
        .join("\n\n");
    let exact = composed == text.trim_end_matches('\n');
    if !exact {
        notes.push(
            "blank lines between sections differ from the source: a brief joins items with one blank line"
                .to_string(),
        );
    }
    ImportPlan {
        items,
        escaped_placeholders,
        exact,
        notes,
        markers: found.used,
        headings_level: found.headings_level,
        normalised: normalised_parts,
    }
}

/// When every line of `body` but its headings and blank lines holds an escaped `{{…}}`
/// placeholder: how many lines do.
fn placeholder_lines(body: &str) -> Option<usize> {
    let mut count = 0;
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !(line.contains("\\{{") && line.contains("}}")) {
            return None;
        }
        count += 1;
    }
    (count > 0).then_some(count)
}

/// The escaped placeholders of `body` (`\{{`).
fn placeholder_count(body: &str) -> usize {
    body.matches("\\{{").count()
}

/// The byte offset just past a leading YAML front matter block (`---` … `---`/`...`).
fn front_matter_end(text: &str) -> Option<usize> {
    let first = text.strip_prefix("---\n")?;
    let mut offset = 4;
    for line in first.split_inclusive('\n') {
        offset += line.len();
        let bare = line.trim_end_matches('\n');
        if bare == "---" || bare == "..." {
            return Some(offset);
        }
    }
    None
}

/// The length of the lines at the start of `text` that hold only whitespace.
fn blank_head_len(text: &str) -> usize {
    let mut len = 0;
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') || !line.trim().is_empty() {
            break;
        }
        len += line.len();
    }
    len
}

/// Removes trailing lines that hold only whitespace, keeping the last line's own newline.
fn trim_blank_tail(text: &str) -> &str {
    let mut end = text.len();
    while end > 0 {
        let head = &text[..end];
        let line_start = head.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
        let line = &head[line_start..];
        if !line.trim().is_empty() {
            // Keep exactly one newline after the last line that has content.
            let content_end = line_start + line.trim_end_matches('\n').len();
            return &text[..(content_end + 1).min(text.len())];
        }
        end = line_start;
    }
    ""
}

/// An id for an untitled section from the first words of its first line of text (an
/// example's `Task: …`), else `section`.
fn first_words(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.chars().any(char::is_alphanumeric))
        .unwrap_or("");
    let words: Vec<&str> = line.split_whitespace().take(6).collect();
    slug(&words.join(" "))
}

/// A heading's text as an item id: lower case, `[a-z0-9_-]`, at most 64 characters.
pub fn slug(title: &str) -> String {
    let mut id = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if let Some(base) = latin_base(c) {
            id.push_str(base);
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
    }
    let mut id: String = id.trim_end_matches('-').chars().take(56).collect();
    while id.ends_with('-') {
        id.pop();
    }
    if id.is_empty() {
        "section".to_string()
    } else {
        id
    }
}

/// The plain letters of a common accented Latin letter, so that headings in European
/// languages keep readable ids.
fn latin_base(c: char) -> Option<&'static str> {
    const FOLDS: &[(&str, &str)] = &[
        ("àáâãäåāăą", "a"),
        ("æ", "ae"),
        ("çćĉċč", "c"),
        ("ďđ", "d"),
        ("èéêëēĕėęě", "e"),
        ("ĝğġģ", "g"),
        ("ĥħ", "h"),
        ("ìíîïĩīĭįı", "i"),
        ("ĵ", "j"),
        ("ķ", "k"),
        ("ĺļľŀł", "l"),
        ("ñńņňŉ", "n"),
        ("òóôõöøōŏő", "o"),
        ("œ", "oe"),
        ("ŕŗř", "r"),
        ("śŝşš", "s"),
        ("ß", "ss"),
        ("ţťŧ", "t"),
        ("ùúûüũūŭůűų", "u"),
        ("ŵ", "w"),
        ("ýÿŷ", "y"),
        ("źżž", "z"),
        ("þ", "th"),
    ];
    FOLDS
        .iter()
        .find(|(letters, _)| letters.contains(c))
        .map(|(_, base)| *base)
}

fn unique(base: &str, taken: &mut HashSet<String>) -> String {
    let mut id = base.to_string();
    let mut n = 2;
    while taken.contains(&id) || !valid_id(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    taken.insert(id.clone());
    id
}

/// Escapes every placeholder outside code as `\{{…}}`; returns the text and the count.
fn escape_placeholders(text: &str) -> (String, usize) {
    let found = crate::brief::placeholders(text);
    if found.is_empty() {
        return (text.to_string(), 0);
    }
    let mut out = String::with_capacity(text.len() + found.len());
    let mut last = 0;
    for (_, range) in &found {
        out.push_str(&text[last..range.start]);
        out.push('\\');
        last = range.start;
    }
    out.push_str(&text[last..]);
    (out, found.len())
}

/// What composing does to escapes: `\{{` becomes `{{` outside code.
fn unescape(text: &str) -> String {
    crate::brief::unescape_braces(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(plan: &ImportPlan) -> Vec<&str> {
        plan.items.iter().map(|i| i.id.as_str()).collect()
    }

    #[test]
    fn a_closing_section_of_placeholders_is_offered_as_context_and_applied_unescaped() {
        let source = "# Desk\n\nYou help customers.\n\n## Caller\n\nName: {{customer_name}}\nPlan: {{plan}}\n";
        let mut plan = plan(source, Split::Auto);
        let last = plan.items.last().unwrap();
        assert_eq!(
            last.suggested.kind,
            ItemType::Context,
            "{:?}",
            last.suggested
        );
        assert_eq!(last.kind, ItemType::Instruction);
        assert!(last.body.contains("\\{{plan}}"));
        assert_eq!(plan.escaped_placeholders, 2);
        plan.apply_types();
        let last = plan.items.last().unwrap();
        assert_eq!(last.kind, ItemType::Context);
        assert!(last.body.contains("Plan: {{plan}}") && !last.body.contains('\\'));
        assert_eq!(plan.escaped_placeholders, 0);
        // A section with prose around its placeholder is not context.
        let prose = plan_of("# Desk\n\nGreet {{customer_name}} warmly.\nBe brief.\n");
        assert_ne!(
            prose.items.last().unwrap().suggested.kind,
            ItemType::Context
        );
    }

    fn plan_of(source: &str) -> ImportPlan {
        plan(source, Split::Auto)
    }

    #[test]
    fn every_item_has_the_line_of_its_heading_or_first_text() {
        let src = "---\nname: x\n---\n\nIntro.\n\n## A\nOne.\nTwo.\n\n\n\n## B\nThree.\nFour.\n## C\nFive.\n\n## D\n";
        let plan = plan(src, Split::H2);
        let lines: Vec<(&str, usize)> =
            plan.items.iter().map(|i| (i.id.as_str(), i.line)).collect();
        // `C` follows `B` with no blank line: it stays in `b`. `b` keeps two of the three
        // blank lines before it; its line is its heading's.
        assert_eq!(
            lines,
            [
                ("front-matter", 1),
                ("intro", 5),
                ("a", 7),
                ("b", 13),
                ("d", 19)
            ]
        );
        for item in &plan.items {
            let first = item.body.lines().find(|l| !l.is_empty()).unwrap_or("");
            assert_eq!(src.lines().nth(item.line - 1), Some(first), "{}", item.id);
        }
    }

    #[test]
    fn no_headings_is_one_item() {
        let plan = plan("Be brief.\n\nAnswer in English.\n", Split::H2);
        assert_eq!(ids(&plan), ["intro"]);
        assert!(plan.exact);
    }

    #[test]
    fn sections_split_at_h1_and_h2_not_h3() {
        let src = "# Role\nYou help.\n\n## Tone\nWarm.\n\n### Detail\nMore.\n\n## Tone\nAgain.\n";
        let plan = plan(src, Split::H2);
        assert_eq!(ids(&plan), ["role", "tone", "tone-2"]);
        assert_eq!(plan.items[1].title.as_deref(), Some("Tone"));
        assert!(plan.items[1].body.contains("### Detail"));
        assert!(plan.exact);
    }

    #[test]
    fn a_hash_inside_a_fence_or_a_list_is_not_a_heading() {
        let src = "# A\n```\n# not a heading\n```\n\n- item\n\n  # nested\n\n# B\nx\n";
        let plan = plan(src, Split::H1);
        assert_eq!(ids(&plan), ["a", "b"]);
        assert!(plan.exact);
    }

    #[test]
    fn front_matter_is_kept_as_a_constant_item() {
        let plan = plan("---\nmodel: x\n---\n\n# Hi\nthere\n", Split::H2);
        assert_eq!(ids(&plan), ["front-matter", "hi"]);
        assert_eq!(plan.items[0].kind, ItemType::Constant);
        assert!(plan.exact);
    }

    #[test]
    fn placeholders_are_escaped_and_compose_back() {
        let plan = plan("# T\nHello {{name}}, see `{{code}}`.\n", Split::H2);
        assert_eq!(plan.escaped_placeholders, 1);
        assert!(plan.items[0].body.contains("\\{{name}}"));
        assert!(plan.items[0].body.contains("`{{code}}`"));
        assert!(plan.exact);
    }

    #[test]
    fn a_section_with_no_blank_line_before_it_stays_with_the_previous_item() {
        let plan = plan(
            "---\nmodel: x\n---\n# Hi\nthere {{who}}\n# Next\nmore\n\n# Last\nend\n",
            Split::H1,
        );
        assert_eq!(ids(&plan), ["front-matter", "last"]);
        assert_eq!(plan.items[0].kind, ItemType::Constant);
        assert!(plan.items[0].body.ends_with("# Next\nmore\n"));
        assert_eq!(plan.escaped_placeholders, 1);
        assert!(plan.exact);
    }

    #[test]
    fn the_blank_line_after_front_matter_is_the_separator_not_part_of_the_item() {
        let plan = plan("---\nmodel: x\n---\n\nYou sort parcels.\n", Split::H1);
        assert_eq!(ids(&plan), ["front-matter", "intro"]);
        assert_eq!(plan.items[1].body, "You sort parcels.\n");
        assert_eq!(plan.items[1].line, 5);
        assert!(plan.exact);
    }

    #[test]
    fn extra_blank_lines_stay_at_the_start_of_the_next_item() {
        let plan = plan("# A\nx\n\n\n\n# B\ny\n", Split::H1);
        assert!(plan.exact);
        assert_eq!(plan.items[0].body, "# A\nx\n");
        assert_eq!(plan.items[1].body, "\n\n# B\ny\n");
        assert_eq!(plan.items[1].line, 6);
    }

    #[test]
    fn blank_lines_holding_spaces_are_reported_as_not_exact() {
        let plan = plan("# A\nx\n  \n\n# B\ny\n", Split::H1);
        assert!(!plan.exact);
        assert_eq!(plan.items[1].body, "# B\ny\n");
    }

    #[test]
    fn slugs_are_valid_ids() {
        assert_eq!(slug("Rules & Limits (v2)"), "rules-limits-v2");
        assert_eq!(slug("Ünïcödé"), "unicode");
        assert_eq!(slug("日本語"), "section");
        assert_eq!(slug("!!!"), "section");
        assert!(valid_id(&slug(&"long ".repeat(40))));
    }

    #[test]
    fn auto_splits_prompts_without_headings_and_stays_exact() {
        let sources = [
            "You help.\n\n<ROLE>\nAn agent.\n</ROLE>\n\n<RULES>\n- Never guess.\n- Always cite.\n</RULES>\n",
            "You plan.\n\n====\n\nRULES\n\n- You must ask first.\n- Never delete files.\n\n====\n\nTOOLS\n\nUse the shell.\n",
            "Examples:\n\n---\nUser: hi\nAssistant: hello\n\n---\nUser: bye\nAssistant: see you\n",
        ];
        for src in sources {
            let plan = plan(src, Split::Auto);
            assert!(plan.exact, "{src:?}");
            assert!(plan.items.len() >= 3, "{src:?}: {:?}", ids(&plan));
            assert!(!plan.markers.is_empty(), "{src:?}");
        }
        let plan = plan(sources[1], Split::Auto);
        assert_eq!(ids(&plan), ["intro", "rules", "tools"]);
        assert_eq!(plan.items[1].suggested.kind, ItemType::Rule);
        assert!(
            plan.items[0].body.ends_with("====\n"),
            "the rule ends the item before it"
        );
        let plan = super::plan(sources[2], Split::Auto);
        assert_eq!(plan.items[1].suggested.kind, ItemType::Sample);
        assert_eq!(ids(&plan)[1], "user-hi");
    }

    #[test]
    fn apply_types_writes_the_suggestions_but_keeps_front_matter_constant() {
        let mut plan = plan(
            "---\nmodel: x\n---\n\n# Rules\n\n- Never guess.\n- Always cite.\n",
            Split::Auto,
        );
        assert_eq!(plan.items[1].kind, ItemType::Instruction);
        plan.apply_types();
        assert_eq!(plan.items[0].kind, ItemType::Constant);
        assert_eq!(plan.items[1].kind, ItemType::Rule);
    }
}
