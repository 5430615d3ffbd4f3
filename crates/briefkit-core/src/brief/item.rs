//! One item file: a Markdown body under YAML front matter, or a `<id>.tool.yaml` schema.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use super::problem::{LineIndex, Problem, line_col};
use super::sample::{BodyFormat, SampleMessage};
use super::types::{ItemType, Policy, Tier};
use crate::text::yaml::YamlError;
use crate::wire::ToolDef;

#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    /// The file, as a path under the brief directory the user named.
    pub path: PathBuf,
    pub kind: ItemType,
    pub tier: Tier,
    pub title: Option<String>,
    pub compress_never: bool,
    pub policy: Policy,
    /// The whole file, exactly as read.
    pub raw: String,
    /// Byte offset in `raw` where the body starts (after the front matter).
    pub body_offset: usize,
    /// 1-based line in the file where the body starts.
    pub body_line: usize,
    /// The tool definition, for tool items.
    pub tool: Option<ToolDef>,
    /// The worked exchange of a `format: messages` sample (`None` for a Markdown body).
    pub messages: Option<Vec<SampleMessage>>,
    /// What a session's budget gate assumes of a tool's results (not sent to the model).
    pub tool_budget: ToolBudget,
}

/// A tool item's `result_estimate` (tokens the gate assumes a result takes) and
/// `high_volume` (results that may be large: refused from 95% of the context).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolBudget {
    pub result_estimate: Option<u64>,
    pub high_volume: bool,
}

impl Item {
    /// The Markdown body (empty for tools).
    pub fn body(&self) -> &str {
        &self.raw[self.body_offset..]
    }

    /// The front matter block, delimiters included, exactly as in the file.
    pub fn front_matter(&self) -> &str {
        &self.raw[..self.body_offset]
    }

    pub fn is_tool(&self) -> bool {
        self.kind == ItemType::Tool
    }

    /// The messages of a `format: messages` sample, `None` for a Markdown body.
    pub fn messages(&self) -> Option<&[SampleMessage]> {
        self.messages.as_deref()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    #[serde(rename = "type")]
    kind: ItemType,
    #[serde(default)]
    tier: Option<Tier>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    compress: Option<CompressSetting>,
    #[serde(default)]
    format: BodyFormat,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum CompressSetting {
    Never,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolFile {
    #[serde(rename = "type")]
    kind: ItemType,
    name: String,
    description: String,
    input_schema: serde_json::Value,
    #[serde(default)]
    title: Option<String>,
    /// Tokens a result is assumed to take when a session gates a call of this tool.
    #[serde(default)]
    result_estimate: Option<u64>,
    /// The tool's results may be large: a session refuses its calls from 95%.
    #[serde(default)]
    high_volume: bool,
}

/// The problem code of a placeholder in the static tier.
pub const STATIC_PLACEHOLDER: &str = "static-placeholder";

static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}").expect("placeholder pattern")
});

/// Byte ranges of code (fenced and indented blocks, inline spans) in a Markdown text:
/// a `{{name}}` written there is an example, not a placeholder.
fn code_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    use pulldown_cmark::{Event, Parser, Tag};
    if !text.contains("{{") {
        return Vec::new();
    }
    Parser::new(text)
        .into_offset_iter()
        .filter(|(event, _)| matches!(event, Event::Code(_) | Event::Start(Tag::CodeBlock(_))))
        .map(|(_, range)| range)
        .collect()
}

/// The `{{name}}` placeholders in a Markdown text, with their byte ranges (not those
/// inside code, which are literal examples).
pub fn placeholders(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let code = code_ranges(text);
    // Both lists run in text order, so one sweep decides which placeholders are in code.
    let mut code = code.iter().peekable();
    PLACEHOLDER
        .captures_iter(text)
        .filter_map(|c| {
            let range = c.get(0)?.range();
            while code.next_if(|r| r.end < range.end).is_some() {}
            let in_code = code
                .peek()
                .is_some_and(|r| r.start <= range.start && range.end <= r.end);
            let escaped = text[..range.start].ends_with('\\');
            (!in_code && !escaped).then(|| (c[1].to_string(), range))
        })
        .collect()
}

/// What the composed prompt shows for an escaped `\{{`: a literal `{{` (as in Handlebars).
/// Inside code a backslash is literal Markdown, so code is left as written.
pub fn unescape_braces(text: &str) -> String {
    if !text.contains("\\{{") {
        return text.to_string();
    }
    let code = code_ranges(text);
    // Escapes and code ranges both run in text order: one sweep, not a search per escape.
    let mut code = code.iter().peekable();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices("\\{{") {
        while code.next_if(|r| r.end <= at).is_some() {}
        if code.peek().is_some_and(|r| r.start <= at) {
            continue;
        }
        out.push_str(&text[last..at]);
        last = at + 1;
    }
    out.push_str(&text[last..]);
    out
}

/// Replaces every `{{name}}` with its value; returns the names that had none.
pub fn fill_placeholders(
    text: &str,
    vars: &std::collections::BTreeMap<String, String>,
) -> (String, Vec<String>) {
    let mut missing = Vec::new();
    let mut filled = String::with_capacity(text.len());
    let mut last = 0;
    for (name, range) in placeholders(text) {
        filled.push_str(&text[last..range.start]);
        match vars.get(&name) {
            Some(value) => filled.push_str(value),
            None => {
                filled.push_str(&text[range.clone()]);
                missing.push(name);
            }
        }
        last = range.end;
    }
    filled.push_str(&text[last..]);
    (unescape_braces(&filled), missing)
}

fn yaml_problem(file: &Path, err: &YamlError, line_offset: usize) -> Problem {
    let (line, column) = err
        .location()
        .map_or((0, 0), |(line, column)| (line + line_offset, column));
    Problem::error(file, line, column, yaml_message(&err.message()))
}

/// A schema mismatch reads better without the "invalid YAML" label that a syntax error needs.
/// A UTF-8 byte-order mark some editors put first: it is not part of the text (YAML and
/// the `---` line would not be recognised after it), so it is dropped, with a note.
pub(crate) fn strip_bom(path: &Path, text: String, problems: &mut Vec<Problem>) -> String {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => {
            problems.push(Problem::warning(
                path,
                1,
                1,
                "starts with a UTF-8 byte-order mark; ignored (brief writes files without one)",
            ));
            rest.to_string()
        }
        None => text,
    }
}

/// A message from `files::inside` without its leading `path: `, for a problem that names
/// the path itself.
pub(crate) fn after_path(message: &str) -> String {
    message
        .split_once(": ")
        .map_or(message, |(_, rest)| rest)
        .to_string()
}

pub(crate) fn yaml_message(message: &str) -> String {
    const SCHEMA: [&str; 6] = [
        "unknown field",
        "invalid value",
        "unknown variant",
        "invalid type",
        "missing field",
        "duplicate field",
    ];
    if SCHEMA.iter().any(|s| message.contains(s)) {
        message.to_string()
    } else {
        format!("invalid YAML: {message}")
    }
}

/// Splits `---\n<yaml>\n---\n<body>`: returns (yaml, body offset, body line).
fn split_front_matter(raw: &str) -> Option<(&str, usize, usize)> {
    let first_len = if raw.starts_with("---\n") {
        4
    } else if raw.starts_with("---\r\n") {
        5
    } else {
        return None;
    };
    let mut offset = first_len;
    for (line, piece) in (2..).zip(raw[first_len..].split_inclusive('\n')) {
        let trimmed = piece.trim_end_matches(['\n', '\r']);
        if trimmed == "---" || trimmed == "..." {
            let yaml = &raw[first_len..offset];
            return Some((yaml, offset + piece.len(), line + 1));
        }
        offset += piece.len();
    }
    None
}

/// Parses a Markdown item. Problems go to `problems`; `None` when the item is unusable.
pub fn parse_markdown(
    id: &str,
    path: &Path,
    raw: String,
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    parse_markdown_with(id, path, raw, &std::collections::BTreeMap::new(), problems)
}

/// [`parse_markdown`] for a brief whose manifest declares `vars`: a static item may use
/// those names.
pub fn parse_markdown_with(
    id: &str,
    path: &Path,
    raw: String,
    static_vars: &std::collections::BTreeMap<String, String>,
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    let Some((yaml, body_offset, body_line)) = split_front_matter(&raw) else {
        problems.push(Problem::error(
            path,
            1,
            1,
            "missing front matter: an item starts with a `---` line, `type: <type>`, and a closing `---` line",
        ));
        return None;
    };
    let front: FrontMatter = match crate::text::yaml::from_str(yaml) {
        Ok(front) => front,
        Err(err) => {
            problems.push(yaml_problem(path, &err, 1));
            return None;
        }
    };
    if front.kind == ItemType::Tool {
        problems.push(Problem::error(
            path,
            2,
            1,
            format!("a tool item is a `{id}.tool.yaml` file, not Markdown"),
        ));
        return None;
    }
    // The `format:` line, where a misplaced `format: messages` is reported.
    let format_line = yaml
        .lines()
        .position(|l| l.starts_with("format"))
        .map_or(1, |i| i + 2);
    let tier = front.tier.unwrap_or(front.kind.default_tier());
    let compress_never = front.compress == Some(CompressSetting::Never);
    let item = Item {
        id: id.to_string(),
        path: path.to_path_buf(),
        kind: front.kind,
        tier,
        title: front.title,
        compress_never,
        policy: Policy::of(front.kind, compress_never),
        raw,
        body_offset,
        body_line,
        tool: None,
        messages: None,
        tool_budget: ToolBudget::default(),
    };
    if item.kind == ItemType::Rule && item.body().trim().is_empty() {
        // An empty rule locks nothing and reads as a rule that was lost in an edit.
        problems.push(Problem::error(
            path,
            item.body_line,
            1,
            "an empty rule: a rule item needs a body (delete the item, or write the rule)",
        ));
    }
    if front.format == BodyFormat::Messages {
        let messages = super::sample::of_item(&item, format_line, static_vars, problems);
        return Some(Item { messages, ..item });
    }
    if item.tier == Tier::Static
        && let Some(problem) = static_placeholders(&item, static_vars)
    {
        problems.push(problem);
    }
    Some(item)
}

/// The placeholders of a static item that `vars:` gives no value, as one problem at the
/// first of them (one item, one message, one hint), `None` when there are none.
fn static_placeholders(
    item: &Item,
    static_vars: &std::collections::BTreeMap<String, String>,
) -> Option<Problem> {
    let found: Vec<(String, std::ops::Range<usize>)> = placeholders(item.body())
        .into_iter()
        .filter(|(name, _)| !static_vars.contains_key(name))
        .collect();
    let (_, first) = found.first()?;
    let lines = LineIndex::new(&item.raw);
    let (line, column) = lines.line_col(item.body_offset + first.start);
    // Sets, not `contains` on a list: an item may hold tens of thousands of placeholders.
    let mut seen_names = std::collections::HashSet::new();
    let mut seen_lines = std::collections::HashSet::new();
    let mut names: Vec<&str> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for (name, range) in &found {
        if seen_names.insert(name.as_str()) {
            names.push(name);
        }
        let (line, _) = lines.line_col(item.body_offset + range.start);
        if seen_lines.insert(line) {
            at.push(line);
        }
    }
    let listed = capped(names.iter().map(|n| format!("`{{{{{n}}}}}`")), names.len());
    let at_lines = capped(at.iter().map(usize::to_string), at.len());
    let noun = if found.len() == 1 {
        "placeholder"
    } else {
        "placeholders"
    };
    let lines_word = if at.len() == 1 { "line" } else { "lines" };
    Some(
        Problem::error(
            &item.path,
            line,
            column,
            format!(
                "{noun} {} in a static item ({lines_word} {}): the cacheable prefix must not change per turn; give {} a build-time value under `vars:` in brief.yaml, move {} to a `context` item (tier: volatile), or write `\\{{{{` for literal text",
                listed,
                at_lines,
                if names.len() == 1 { "it" } else { "them" },
                if names.len() == 1 { "it" } else { "them" },
            ),
        )
        .with_code(STATIC_PLACEHOLDER),
    )
}

/// The first few of `total` entries, comma-separated, and how many more there are: a
/// message names what to fix without becoming a wall of text.
pub(super) fn capped(entries: impl Iterator<Item = String>, total: usize) -> String {
    const SHOWN: usize = 8;
    let mut text = entries.take(SHOWN).collect::<Vec<_>>().join(", ");
    if total > SHOWN {
        text.push_str(&format!(" and {} more", total - SHOWN));
    }
    text
}

/// Tool names as the providers accept them.
fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Parses a `<id>.tool.yaml` item.
pub fn parse_tool(id: &str, path: &Path, raw: String, problems: &mut Vec<Problem>) -> Option<Item> {
    let tool: ToolFile = match crate::text::yaml::from_str(&raw) {
        Ok(tool) => tool,
        Err(err) => {
            problems.push(yaml_problem(path, &err, 0));
            return None;
        }
    };
    let at = |needle: &str| {
        raw.find(needle)
            .map_or((1, 1), |offset| line_col(&raw, offset))
    };
    let before = problems.len();
    if tool.kind != ItemType::Tool {
        let (line, column) = at("type");
        problems.push(Problem::error(
            path,
            line,
            column,
            format!(
                "a `.tool.yaml` file must have `type: tool`, not `{}`",
                tool.kind
            ),
        ));
    }
    if !valid_tool_name(&tool.name) {
        let (line, column) = at("name");
        problems.push(Problem::error(
            path,
            line,
            column,
            format!(
                "tool name `{}` must be 1 to 64 letters, digits, `_` or `-`",
                tool.name
            ),
        ));
    }
    if !tool.input_schema.is_object() {
        let (line, column) = at("input_schema");
        problems.push(Problem::error(
            path,
            line,
            column,
            "`input_schema` must be a JSON Schema object",
        ));
    }
    let lines = LineIndex::new(&raw);
    for c in PLACEHOLDER.captures_iter(&raw) {
        let name = &c[1];
        let (line, column) = lines.line_col(c.get(0).map_or(0, |m| m.start()));
        problems.push(
            Problem::error(
                path,
                line,
                column,
                format!(
                    "placeholder `{{{{{name}}}}}` in a tool: tools are part of the cacheable prefix"
                ),
            )
            .with_code(STATIC_PLACEHOLDER),
        );
    }
    if problems[before..].iter().any(|p| p.code.is_none()) {
        return None;
    }
    Some(Item {
        id: id.to_string(),
        path: path.to_path_buf(),
        kind: ItemType::Tool,
        tier: Tier::Static,
        title: tool.title,
        compress_never: true,
        policy: Policy::Verbatim,
        body_offset: raw.len(),
        body_line: raw.lines().count() + 1,
        raw,
        tool: Some(ToolDef {
            name: tool.name,
            description: tool.description,
            input_schema: tool.input_schema,
        }),
        messages: None,
        tool_budget: ToolBudget {
            result_estimate: tool.result_estimate,
            high_volume: tool.high_volume,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_split_keeps_body_offset_and_line() {
        let raw = "---\ntype: rule\n---\nBody\n";
        let (yaml, offset, line) = split_front_matter(raw).unwrap();
        assert_eq!(yaml, "type: rule\n");
        assert_eq!(&raw[offset..], "Body\n");
        assert_eq!(line, 4);
    }

    #[test]
    fn placeholder_in_static_item_is_reported_at_its_line() {
        let mut problems = Vec::new();
        let raw = "---\ntype: instruction\n---\nHello\nDear {{ name }}\n".to_string();
        parse_markdown("x", Path::new("x.md"), raw, &mut problems);
        assert_eq!(problems.len(), 1);
        assert_eq!((problems[0].line, problems[0].column), (5, 6));
    }

    #[test]
    fn placeholders_of_one_item_are_one_problem_and_declared_vars_are_none() {
        let raw = "---\ntype: instruction\n---\n{{a}} {{b}}\n{{a}} {{c}}\n".to_string();
        let mut problems = Vec::new();
        parse_markdown("x", Path::new("x.md"), raw.clone(), &mut problems);
        assert_eq!(problems.len(), 1);
        let message = &problems[0].message;
        assert!(message.contains("`{{a}}`, `{{b}}`, `{{c}}`"), "{message}");
        assert!(message.contains("lines 4, 5"), "{message}");
        assert!(message.contains("vars:"), "{message}");
        let vars = std::collections::BTreeMap::from([
            ("a".to_string(), "1".to_string()),
            ("b".to_string(), "2".to_string()),
            ("c".to_string(), "3".to_string()),
        ]);
        let mut problems = Vec::new();
        parse_markdown_with("x", Path::new("x.md"), raw, &vars, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn fill_reports_missing_names() {
        let mut vars = std::collections::BTreeMap::new();
        vars.insert("a".to_string(), "1".to_string());
        let (text, missing) = fill_placeholders("{{a}} {{b}}", &vars);
        assert_eq!(text, "1 {{b}}");
        assert_eq!(missing, vec!["b".to_string()]);
    }

    #[test]
    fn an_escaped_placeholder_is_literal_text_and_composes_without_its_backslash() {
        let text = "Hi {{name}}, write \\{{name}} or `\\{{code}}`.";
        let found: Vec<String> = placeholders(text).into_iter().map(|(n, _)| n).collect();
        assert_eq!(found, ["name"]);
        let vars = std::collections::BTreeMap::from([("name".to_string(), "Ada".to_string())]);
        let (filled, missing) = fill_placeholders(text, &vars);
        assert!(missing.is_empty());
        assert_eq!(filled, "Hi Ada, write {{name}} or `\\{{code}}`.");
    }

    #[test]
    fn placeholders_inside_code_are_literal_examples() {
        let text = "Use `{{name}}` as shown.\n\n```\n{{also}}\n```\n\nHi {{real}}\n";
        let names: Vec<String> = placeholders(text).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["real".to_string()]);
    }
}
