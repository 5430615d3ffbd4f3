//! What the compactor may touch, and the proof that it changed nothing that matters.
//!
//! Both come from the same parser: pulldown-cmark tells which byte ranges are code, HTML or
//! tables (never edited), and its event stream is the yardstick of "lossless". Two Markdown
//! texts whose event streams are equal have the same structure and the same text, code and
//! HTML, byte for byte; only their source whitespace differs. The check is done under plain
//! CommonMark and under the GitHub extensions, so it holds for either reading of a brief.

use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

/// The dialects the proof must hold under, with the names used in reasons.
const DIALECTS: [(&str, Options); 2] = [
    ("CommonMark", Options::empty()),
    (
        "GitHub Markdown",
        Options::ENABLE_TABLES
            .union(Options::ENABLE_FOOTNOTES)
            .union(Options::ENABLE_STRIKETHROUGH)
            .union(Options::ENABLE_TASKLISTS)
            .union(Options::ENABLE_GFM),
    ),
];

/// Byte ranges of `text` that compaction must leave alone: code blocks (fenced and indented,
/// closed or not), HTML blocks and tables, as found under any dialect. Sorted by start.
pub(super) fn protected_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = DIALECTS
        .iter()
        .flat_map(|&(_, options)| {
            Parser::new_ext(text, options)
                .into_offset_iter()
                .filter(|(event, range)| {
                    !range.is_empty()
                        && matches!(
                            event,
                            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::Table(_))
                        )
                })
                .map(|(_, range)| range)
                .collect::<Vec<_>>()
        })
        .collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    ranges
}

/// `Ok` when `before` and `after` parse to the same events under every dialect; otherwise
/// why not, naming the dialect and the first differing event.
pub(super) fn same_events(before: &str, after: &str) -> Result<(), String> {
    if before == after {
        // The parser is deterministic: equal texts have equal events. Most items are
        // already compact, so this spares them every parse of the proof.
        return Ok(());
    }
    for (dialect, options) in DIALECTS {
        let old = events(before, options);
        let new = events(after, options);
        if old == new {
            continue;
        }
        let at = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        return Err(format!(
            "the {dialect} structure would change at event {}: {} became {}",
            at + 1,
            describe(old.get(at)),
            describe(new.get(at)),
        ));
    }
    Ok(())
}

/// The parser's events with adjacent text (and adjacent raw HTML) merged: the parser splits
/// them at source line boundaries, which are exactly what compaction moves.
fn events(text: &str, options: Options) -> Vec<Event<'_>> {
    let mut merged: Vec<Event<'_>> = Vec::new();
    for event in Parser::new_ext(text, options) {
        match (merged.last_mut(), event) {
            (Some(Event::Text(acc)), Event::Text(more)) => append(acc, &more),
            (Some(Event::Html(acc)), Event::Html(more)) => append(acc, &more),
            (_, event) => merged.push(event),
        }
    }
    merged
}

fn append(acc: &mut CowStr<'_>, more: &str) {
    let mut joined = String::with_capacity(acc.len() + more.len());
    joined.push_str(acc);
    joined.push_str(more);
    *acc = CowStr::from(joined);
}

fn describe(event: Option<&Event<'_>>) -> String {
    let Some(event) = event else {
        return "the end".to_owned();
    };
    match event {
        Event::Start(tag) => format!("the start of {:?}", tag.to_end()),
        Event::End(tag) => format!("the end of {tag:?}"),
        Event::Text(s) => format!("text {}", quoted(s)),
        Event::Code(s) => format!("code {}", quoted(s)),
        Event::Html(s) | Event::InlineHtml(s) => format!("HTML {}", quoted(s)),
        Event::SoftBreak => "a line break".to_owned(),
        Event::HardBreak => "a hard line break".to_owned(),
        other => format!("{other:?}"),
    }
}

/// `s` quoted, shortened to its first 60 characters.
fn quoted(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((cut, _)) => format!("{:?}…", &s[..cut]),
        None => format!("{s:?}"),
    }
}
