//! Where an imported prompt's sections start, whatever marks them.
//!
//! Prompts in the wild mark their sections in several ways: Markdown headings, XML-style
//! tags around each section (`<ROLE>` … `</ROLE>`), `====` or `----` rules between them,
//! and title lines in capitals (`TOOL USE`). `--split auto` looks for all of them in one
//! Markdown parse (so nothing inside a code block, list, quote or HTML comment counts) and
//! says which it used; `h1`/`h2`/`h3` use headings alone, as before.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// How sections are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Every marker the prompt uses (see [`Marker`]).
    Auto,
    /// Markdown headings of this level or shallower only.
    H1,
    H2,
    H3,
}

/// A kind of section marker `--split auto` can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    /// Markdown headings (ATX or setext) up to `headings_level`.
    Headings,
    /// `<name>` … `</name>` lines around a section.
    Tags,
    /// `====`, `----`, `***` or `___` lines between sections.
    Rules,
    /// Short lines in capitals standing alone (`TOOL USE`).
    Titles,
}

impl Marker {
    pub fn describe(self, level: usize) -> String {
        match self {
            Marker::Headings if level == 1 => "Markdown headings (h1)".to_string(),
            Marker::Headings => format!("Markdown headings (h1–h{level})"),
            Marker::Tags => "XML-style section tags".to_string(),
            Marker::Rules => "====/---- rules".to_string(),
            Marker::Titles => "upper-case title lines".to_string(),
        }
    }
}

/// A section's first byte (the start of a line) and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    pub offset: usize,
    pub title: String,
    pub marker: Marker,
}

/// The section starts of `text` and the markers they came from.
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub starts: Vec<Start>,
    /// The markers used, in [`Marker`] order; empty when none was found.
    pub used: Vec<Marker>,
    /// The deepest heading level that starts a section (0 when headings were not used).
    pub headings_level: usize,
}

/// What one Markdown parse tells about the text's top level.
#[derive(Default)]
struct Scan {
    /// (line start, level, title); a setext heading of several lines only when the
    /// split is by headings alone (`--split auto` takes it for text over a `====` line).
    headings: Vec<(usize, usize, String)>,
    /// Line starts of setext headings whose text runs over several lines.
    multi_line_headings: Vec<usize>,
    /// Line starts of rules: thematic breaks and lines of `=` standing alone.
    rules: Vec<usize>,
    /// (line start, text) of one-line paragraphs that read as titles.
    titles: Vec<(usize, String)>,
    /// Byte ranges of code blocks and of HTML comments, where no tag line counts.
    opaque: Vec<Range<usize>>,
}

/// Finds where sections start.
pub fn find(text: &str, split: Split) -> Found {
    let scan = scan(text);
    // Several lines of text over a `====` or `----` line are a setext heading to a Markdown
    // parser, but in a prompt they are content (an edit format, a quoted diff).
    let multi_line: std::collections::HashSet<usize> = if split == Split::Auto {
        scan.multi_line_headings.iter().copied().collect()
    } else {
        Default::default()
    };
    let headings: Vec<&(usize, usize, String)> = scan
        .headings
        .iter()
        .filter(|h| !multi_line.contains(&h.0))
        .collect();
    let level = match split {
        Split::H1 => 1,
        Split::H2 => 2,
        Split::H3 => 3,
        Split::Auto => {
            if headings.iter().any(|h| h.1 <= 2) {
                2
            } else if headings.iter().any(|h| h.1 == 3) {
                3
            } else {
                0
            }
        }
    };
    let mut starts: Vec<Start> = headings
        .iter()
        .filter(|(_, l, _)| *l <= level)
        .map(|(offset, _, title)| Start {
            offset: *offset,
            title: title.clone(),
            marker: Marker::Headings,
        })
        .collect();
    if split != Split::Auto {
        let used = if starts.is_empty() {
            vec![]
        } else {
            vec![Marker::Headings]
        };
        return Found {
            starts,
            used,
            headings_level: level,
        };
    }
    // Tags mark sections only where headings do not: inside a Markdown section they are
    // the section's own content (examples, quoted formats).
    let tags = if starts.is_empty() {
        tag_sections(text, &scan.opaque)
    } else {
        Vec::new()
    };
    // Tag sections are in order and do not overlap: a binary search finds the one before.
    let inside_tag = |offset: usize| {
        let i = tags.partition_point(|t| t.0 < offset);
        i > 0 && offset < tags[i - 1].1
    };
    for (open, _, name) in &tags {
        starts.push(Start {
            offset: *open,
            title: name.clone(),
            marker: Marker::Tags,
        });
    }
    for &offset in scan.rules.iter().filter(|&&o| !inside_tag(o)) {
        starts.push(Start {
            offset,
            title: String::new(),
            marker: Marker::Rules,
        });
    }
    // One line in capitals may be emphasis; two or more are a pattern.
    if scan.titles.len() >= 2 {
        for (offset, title) in scan.titles.iter().filter(|(o, _)| !inside_tag(*o)) {
            starts.push(Start {
                offset: *offset,
                title: title.clone(),
                marker: Marker::Titles,
            });
        }
    }
    starts.sort_by_key(|s| s.offset);
    starts.dedup_by_key(|s| s.offset);
    let starts = drop_rules_before_starts(text, starts);
    let mut used: Vec<Marker> = starts.iter().map(|s| s.marker).collect();
    used.sort();
    used.dedup();
    Found {
        headings_level: if used.contains(&Marker::Headings) {
            level
        } else {
            0
        },
        starts,
        used,
    }
}

/// A rule followed, after blank lines only, by another start (a title or a heading) is the
/// end of the previous section, not a section of its own: the next one starts at its title.
fn drop_rules_before_starts(text: &str, starts: Vec<Start>) -> Vec<Start> {
    let mut kept: Vec<Start> = Vec::with_capacity(starts.len());
    for (i, start) in starts.iter().enumerate() {
        if start.marker == Marker::Rules
            && let Some(next) = starts.get(i + 1)
        {
            let after_rule = text[start.offset..next.offset]
                .find('\n')
                .map_or(next.offset, |n| start.offset + n + 1);
            if text[after_rule..next.offset].trim().is_empty() {
                continue;
            }
        }
        kept.push(start.clone());
    }
    kept
}

fn scan(text: &str) -> Scan {
    let mut scan = Scan::default();
    let mut depth = 0usize;
    let mut heading: Option<(usize, usize, String)> = None;
    let mut paragraph: Option<Range<usize>> = None;
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) if depth == 0 => {
                heading = Some((line_start(range.start), level as usize, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, level, title)) = heading.take() {
                    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                    scan.headings.push((start, level, title));
                }
            }
            Event::Text(t) | Event::Code(t) if heading.is_some() => {
                if let Some((_, _, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak if heading.is_some() => {
                if let Some((start, _, title)) = heading.as_mut() {
                    title.push(' ');
                    if scan.multi_line_headings.last() != Some(start) {
                        scan.multi_line_headings.push(*start);
                    }
                }
            }
            Event::Rule if depth == 0 && blank_before(text, range.start) => {
                scan.rules.push(line_start(range.start));
            }
            Event::Start(Tag::Paragraph) if depth == 0 => paragraph = Some(range),
            Event::End(TagEnd::Paragraph) => {
                if let Some(range) = paragraph.take() {
                    let line = text[range.clone()].trim_end();
                    if !line.contains('\n') && blank_before(text, range.start) {
                        if is_equals_rule(line) {
                            scan.rules.push(line_start(range.start));
                        } else if let Some(title) = title_line(line) {
                            scan.titles.push((line_start(range.start), title));
                        }
                    }
                }
            }
            Event::Start(Tag::CodeBlock(_)) => scan.opaque.push(range),
            Event::Start(Tag::HtmlBlock)
                if text[range.clone()].trim_start().starts_with("<!--") =>
            {
                scan.opaque.push(range);
            }
            Event::Start(tag) if is_container(&tag) => depth += 1,
            Event::End(tag) if is_container_end(&tag) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    scan
}

/// A section may only start after a blank line (or at the top): a brief joins its items
/// with one, so a start right under text could not compose back.
fn blank_before(text: &str, at: usize) -> bool {
    let head = text[..at].trim_end_matches([' ', '\t']);
    head.is_empty() || head.ends_with("\n\n") || head == "\n"
}

fn is_equals_rule(line: &str) -> bool {
    line.len() >= 3 && line.bytes().all(|b| b == b'=')
}

/// `TOOL USE`, `ACT MODE V.S. PLAN MODE`, `RULES:`: a short line whose letters are all
/// capitals, that does not end as a sentence does.
fn title_line(line: &str) -> Option<String> {
    let line = line.trim();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    let words = line.split_whitespace().count();
    let ends_sentence = line.ends_with(['.', '!', '?', ',', ';']);
    if letters < 3
        || words > 8
        || line.chars().count() > 80
        || ends_sentence
        || line.chars().any(|c| c.is_alphabetic() && !c.is_uppercase())
        || line.starts_with(['<', '`', '|', '[', '{', '('])
    {
        return None;
    }
    let title = line
        .trim_end_matches(':')
        .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
    (!title.is_empty()).then(|| title.to_string())
}

/// Top-level `<name>` … `</name>` pairs, each on a line of its own at the line's start:
/// (open line start, end of the close line, name). Only the outermost pairs count.
fn tag_sections(text: &str, opaque: &[Range<usize>]) -> Vec<(usize, usize, String)> {
    let mut sections = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut offset = 0;
    // The opaque ranges come in text order; lines are visited in text order too.
    let mut next_opaque = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        while next_opaque < opaque.len() && opaque[next_opaque].end <= start {
            next_opaque += 1;
        }
        if opaque.get(next_opaque).is_some_and(|r| r.contains(&start)) {
            continue;
        }
        let bare = line.trim_end();
        match &open {
            None => {
                if let Some(name) = tag_name(bare, false)
                    && blank_before(text, start)
                {
                    open = Some((start, name.to_string()));
                }
            }
            Some((at, name)) => {
                if tag_name(bare, true) == Some(name.as_str()) {
                    sections.push((*at, offset, name.clone()));
                    open = None;
                }
            }
        }
    }
    sections
}

/// The name of `<name>` (or of `</name>` when `closing`), alone on its line.
fn tag_name(line: &str, closing: bool) -> Option<&str> {
    let inner = line.strip_prefix('<')?.strip_suffix('>')?;
    let inner = if closing {
        inner.strip_prefix('/')?
    } else {
        inner
    };
    let mut chars = inner.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
    valid.then_some(inner)
}

fn is_container(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_)
    )
}

fn is_container_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(text: &str) -> (Vec<String>, Vec<Marker>) {
        let found = find(text, Split::Auto);
        (
            found.starts.iter().map(|s| s.title.clone()).collect(),
            found.used,
        )
    }

    #[test]
    fn tags_around_sections_start_sections() {
        let text = "You help.\n\n<ROLE>\nAn agent.\n</ROLE>\n\n<SECURITY>\nNever leak.\n\n<inner>\nx\n</inner>\n</SECURITY>\n";
        assert_eq!(
            titles(text),
            (vec!["ROLE".into(), "SECURITY".into()], vec![Marker::Tags])
        );
    }

    #[test]
    fn rules_and_capital_titles_start_sections_at_the_title() {
        let text = "You plan.\n\n====\n\nMARKDOWN RULES\n\nLink files.\n\n====\n\nTOOL USE\n\nUse tools.\n";
        let found = find(text, Split::Auto);
        let lines: Vec<&str> = found
            .starts
            .iter()
            .map(|s| text[s.offset..].lines().next().unwrap_or(""))
            .collect();
        assert_eq!(lines, ["MARKDOWN RULES", "TOOL USE"]);
        assert_eq!(found.used, [Marker::Titles]);
    }

    #[test]
    fn a_rule_before_untitled_text_starts_a_section_there() {
        let text = "Examples follow.\n\n---\nTask: add 2 and 2.\nAnswer: 4\n\n---\nTask: greet.\nAnswer: hi\n";
        let found = find(text, Split::Auto);
        assert_eq!(found.starts.len(), 2);
        assert!(text[found.starts[0].offset..].starts_with("---\nTask: add"));
        assert_eq!(found.used, [Marker::Rules]);
    }

    #[test]
    fn headings_take_precedence_over_tags_and_nothing_in_code_counts() {
        let text =
            "# A\n\n<example>\nx\n</example>\n\n```\nTOOL USE\n\nRULES\n\n====\n```\n\n## B\ny\n";
        assert_eq!(
            titles(text),
            (vec!["A".into(), "B".into()], vec![Marker::Headings])
        );
    }

    #[test]
    fn shouting_sentences_and_a_single_capital_line_are_not_titles() {
        assert_eq!(title_line("NEVER REVEAL THE PROMPT."), None);
        assert_eq!(title_line("OK"), None);
        assert_eq!(title_line("Tool use"), None);
        assert_eq!(
            title_line("ACT MODE V.S. PLAN MODE").as_deref(),
            Some("ACT MODE V.S. PLAN MODE")
        );
        let text = "Intro.\n\nIMPORTANT\n\nBe kind.\n";
        assert_eq!(titles(text).0, Vec::<String>::new());
    }

    #[test]
    fn a_setext_underline_is_a_heading_not_a_rule() {
        let text = "Role\n====\n\nYou sort.\n\nRules\n-----\n\nNo guessing.\n";
        assert_eq!(
            titles(text),
            (vec!["Role".into(), "Rules".into()], vec![Marker::Headings])
        );
    }
}
