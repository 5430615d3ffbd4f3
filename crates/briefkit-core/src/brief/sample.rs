//! Samples as conversations: a `sample` item whose front matter says `format: messages`
//! holds a worked exchange as a YAML list of `{role, content}` messages.
//!
//! ```yaml
//! ---
//! type: sample
//! format: messages
//! ---
//! - role: user
//!   content: Where is my order 1042?
//! - role: assistant
//!   content: |
//!     It shipped on 3 May; the tracking link is in your e-mail.
//! ```
//!
//! The exchange starts with `user`, alternates `user` and `assistant`, and ends with
//! `assistant`; every content is a non-empty string. `compose --format openai|anthropic`
//! sends the messages as few-shot turns right after the system prompt, inside the stable
//! prefix; `text` shows them as `User:` / `Assistant:` turns at the item's place.
//!
//! [`parse`] reads a body (every problem at the line of its entry), [`to_body`] writes one
//! back (what a compress proposal holds), and the two round-trip.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::item::{Item, STATIC_PLACEHOLDER, capped, placeholders};
use super::problem::Problem;
use super::types::{ItemType, Tier};
pub use crate::wire::Role;

/// How an item's body is written: the front matter's optional `format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyFormat {
    /// Markdown (the default): the body is the item's text.
    #[default]
    Markdown,
    /// A YAML list of `{role, content}` messages (sample items only).
    Messages,
}

/// One message of a sample's worked exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleMessage {
    pub role: Role,
    /// The content as parsed from the YAML (a block scalar keeps its final newline).
    pub content: String,
    /// 1-based line of the entry's `-` in the body (0 when the entries could not be told
    /// apart by line, e.g. a flow sequence).
    pub line: usize,
}

impl SampleMessage {
    /// `message 3 (assistant)`: how findings and errors name a message (1-based).
    pub fn label(index: usize, role: Role) -> String {
        format!("message {} ({})", index + 1, role.as_str())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMessage {
    role: String,
    content: String,
}

/// A problem in a messages body: 1-based line within the body (0: the whole body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyProblem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

const SHAPE: &str = "a `format: messages` body is a YAML list of `{role, content}` mappings";

/// Parses a messages body; every problem found, each at the line of its entry.
pub fn parse(body: &str) -> Result<Vec<SampleMessage>, Vec<BodyProblem>> {
    let whole = |message: String| {
        vec![BodyProblem {
            line: 1,
            column: 1,
            message,
        }]
    };
    if body.trim().is_empty() {
        return Err(whole(format!("no messages: {SHAPE}")));
    }
    let raw: Vec<RawMessage> = match crate::text::yaml::from_str(body) {
        Ok(raw) => raw,
        Err(err) => {
            let (line, column) = err.location().unwrap_or((1, 1));
            return Err(vec![BodyProblem {
                line,
                column,
                message: format!("{}; {SHAPE}", super::item::yaml_message(&err.message())),
            }]);
        }
    };
    if raw.is_empty() {
        return Err(whole(format!("no messages: {SHAPE}")));
    }
    let lines = entry_lines(body, raw.len());
    let mut problems = Vec::new();
    let mut messages = Vec::with_capacity(raw.len());
    let mut previous: Option<Role> = None;
    for (i, (entry, &line)) in raw.into_iter().zip(&lines).enumerate() {
        let mut problem = |message: String| {
            problems.push(BodyProblem {
                line: line.max(1),
                column: 1,
                message,
            })
        };
        let role = match entry.role.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                problem(format!(
                    "message {}: role `{other}` is not `user` or `assistant` (a sample's worked exchange has no other roles)",
                    i + 1
                ));
                continue;
            }
        };
        match previous {
            None if role == Role::Assistant => problem(
                "message 1 is `assistant`: a sample's exchange starts with a `user` message"
                    .to_string(),
            ),
            Some(previous) if previous == role => problem(format!(
                "message {} is `{}` after a `{}` message: a sample's messages alternate `user` and `assistant`",
                i + 1,
                role.as_str(),
                role.as_str()
            )),
            _ => {}
        }
        previous = Some(role);
        if entry.content.trim().is_empty() {
            problem(format!(
                "{} has no content: every message needs text",
                SampleMessage::label(i, role)
            ));
        }
        messages.push(SampleMessage {
            role,
            content: entry.content,
            line,
        });
    }
    if problems.is_empty()
        && let Some(last) = messages.last()
        && last.role == Role::User
    {
        problems.push(BodyProblem {
            line: last.line.max(1),
            column: 1,
            message: format!(
                "the last message ({}) is `user`: a sample's exchange ends with the `assistant` answer",
                messages.len()
            ),
        });
    }
    if problems.is_empty() {
        Ok(messages)
    } else {
        Err(problems)
    }
}

/// The roles of a body's entries, read leniently (any role, in any order): `None` when the
/// body is not a YAML list of `{role, content}` mappings at all.
pub fn roles(body: &str) -> Option<Vec<String>> {
    let raw: Vec<RawMessage> = crate::text::yaml::from_str(body).ok()?;
    Some(raw.into_iter().map(|m| m.role).collect())
}

/// The messages of an item whose front matter says `format: messages`, checked: only a
/// static `sample` may hold them, and the body must parse. Problems go to `problems` at
/// their file line; `None` when there are any.
pub(super) fn of_item(
    item: &Item,
    format_line: usize,
    static_vars: &BTreeMap<String, String>,
    problems: &mut Vec<Problem>,
) -> Option<Vec<SampleMessage>> {
    let before = problems.len();
    if item.kind != ItemType::Sample {
        problems.push(Problem::error(
            &item.path,
            format_line,
            1,
            format!(
                "`format: messages` is for `sample` items, and this item is `type: {}` (remove the line, or make it `type: sample`)",
                item.kind
            ),
        ));
        return None;
    } else if item.tier != Tier::Static {
        problems.push(Problem::error(
            &item.path,
            format_line,
            1,
            "a `format: messages` sample is part of the stable prefix: it cannot be `tier: volatile` (put run-specific text in a `context` item)",
        ));
    }
    let offset = item.body_line - 1;
    let messages = match parse(item.body()) {
        Ok(messages) => messages,
        Err(found) => {
            problems.extend(
                found
                    .into_iter()
                    .map(|p| Problem::error(&item.path, p.line + offset, p.column, p.message)),
            );
            return None;
        }
    };
    for (i, message) in messages.iter().enumerate() {
        // A set, not `contains` on a list: a message may hold tens of thousands of them.
        let mut seen = std::collections::HashSet::new();
        let mut names: Vec<String> = Vec::new();
        for (name, _) in placeholders(&message.content) {
            if !static_vars.contains_key(&name) && seen.insert(name.clone()) {
                names.push(name);
            }
        }
        if names.is_empty() {
            continue;
        }
        let listed = capped(names.iter().map(|n| format!("`{{{{{n}}}}}`")), names.len());
        problems.push(
            Problem::error(
                &item.path,
                message.line.max(1) + offset,
                1,
                format!(
                    "{} in {} of a static sample: the cacheable prefix must not change per turn; give {} a build-time value under `vars:` in brief.yaml, or write `\\{{{{` for literal text",
                    listed,
                    SampleMessage::label(i, message.role),
                    if names.len() == 1 { "it" } else { "them" },
                ),
            )
            .with_code(STATIC_PLACEHOLDER),
        );
    }
    let refused = problems[before..].iter().any(|p| p.code.is_none());
    (!refused).then_some(messages)
}

/// The 1-based line of each of `count` top-level entries: the lines starting (after the
/// sequence's indentation) with `- ` or a lone `-`. Entry content is indented deeper, so
/// it cannot be mistaken for an entry; when the count does not match (a flow sequence),
/// every entry gets 0.
fn entry_lines(body: &str, count: usize) -> Vec<usize> {
    let is_entry = |line: &str| {
        let rest = line.trim_start_matches(' ');
        rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t") || rest == "-\r"
    };
    let indent = |line: &str| line.len() - line.trim_start_matches(' ').len();
    let Some(first) = body.lines().find(|l| is_entry(l)) else {
        return vec![0; count];
    };
    let depth = indent(first);
    let found: Vec<usize> = body
        .lines()
        .enumerate()
        .filter(|(_, l)| is_entry(l) && indent(l) == depth)
        .map(|(i, _)| i + 1)
        .collect();
    if found.len() == count {
        found
    } else {
        vec![0; count]
    }
}

/// A messages body for `messages`: each content as a literal block scalar when that reads
/// back to the same string, else as a double-quoted scalar (JSON's escapes are YAML's).
/// [`parse`] of the result gives back the same roles and contents.
pub fn to_body<'a>(messages: impl IntoIterator<Item = (Role, &'a str)>) -> String {
    let mut out = String::new();
    for (role, content) in messages {
        out.push_str("- role: ");
        out.push_str(role.as_str());
        out.push('\n');
        out.push_str(&content_field(content));
    }
    out
}

fn content_field(content: &str) -> String {
    if let Some(block) = block_scalar(content) {
        let field = format!("  content: {block}");
        // Kept only when it reads back as written, in the place it is written to.
        let reads_back = serde_yaml::from_str::<Vec<RawMessage>>(&format!("- role: user\n{field}"))
            .is_ok_and(|probe| probe.len() == 1 && probe[0].content == content);
        if reads_back {
            return field;
        }
    }
    let quoted = serde_json::to_string(content).unwrap_or_default();
    format!("  content: {quoted}\n")
}

/// `|`, `|-` or `|+` and the content indented by four spaces, when a block scalar can
/// hold it at all (no leading space on its first line, nothing that is not printable).
fn block_scalar(content: &str) -> Option<String> {
    let printable = |c: char| c == '\n' || c == '\t' || !c.is_control();
    let first = content.lines().next()?;
    if first.is_empty() || first.starts_with([' ', '\t']) || !content.chars().all(printable) {
        return None;
    }
    if content.contains('\r') || content.contains('\u{feff}') {
        return None;
    }
    let text = content.trim_end_matches('\n');
    let trailing = content.len() - text.len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let mut out = format!("|{chomp}\n");
    for line in text.split('\n') {
        if !line.is_empty() {
            out.push_str("    ");
            out.push_str(line);
        }
        out.push('\n');
    }
    for _ in 1..trailing {
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(messages: &[SampleMessage]) -> Vec<(Role, &str)> {
        messages
            .iter()
            .map(|m| (m.role, m.content.as_str()))
            .collect()
    }

    #[test]
    fn a_valid_exchange_parses_with_entry_lines() {
        let body = "- role: user\n  content: Hi\n\n- role: assistant\n  content: |\n    Hello.\n    - a list\n";
        let messages = parse(body).unwrap();
        assert_eq!(
            pairs(&messages),
            [(Role::User, "Hi"), (Role::Assistant, "Hello.\n- a list\n")]
        );
        assert_eq!(messages[0].line, 1);
        assert_eq!(messages[1].line, 4);
    }

    #[test]
    fn problems_are_at_their_entry() {
        let body = "- role: user\n  content: a\n- role: user\n  content: b\n- role: system\n  content: c\n";
        let problems = parse(body).unwrap_err();
        let at: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(at, [3, 5], "{problems:?}");
        let problems = parse("- role: user\n  content: a\n").unwrap_err();
        assert!(problems[0].message.contains("ends with"), "{problems:?}");
        let problems =
            parse("- role: user\n  content: ' '\n- role: assistant\n  content: b\n").unwrap_err();
        assert!(problems[0].message.contains("message 1 (user)"));
        for bad in ["", "[]", "role: user\n", "- role: user\n  text: a\n"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bodies_round_trip() {
        let contents = [
            "plain",
            "two\nlines\n",
            "ends with blanks\n\n\n",
            " leading space",
            "tab\tinside\n\n  indented after a blank",
            "# heading: with colon\n- item\n",
            "quote \" and \\ and \u{7} bell",
            "crlf\r\nline",
        ];
        for content in contents {
            let body = to_body([(Role::User, content), (Role::Assistant, "ok")]);
            let back = parse(&body).unwrap_or_else(|e| panic!("{body}: {e:?}"));
            assert_eq!(back[0].content, content, "{body}");
        }
    }
}
