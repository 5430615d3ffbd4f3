//! Code in Markdown: fenced blocks and inline backtick spans, found in one line scan.
//!
//! A full CommonMark parser does far more than the guard needs and was half of its time;
//! this scan follows the CommonMark rules that decide what is code (fence characters and
//! lengths, a closing fence at least as long as the opening one, an unclosed fence running
//! to the end, backtick runs of equal length, spans not crossing a block) and ignores the
//! rest. It is linear: each line is read once and each backtick run paired through a
//! precomputed "next run of the same length" table.

use std::collections::HashMap;
use std::ops::Range;

use super::Kind;
use super::patterns::Found;

/// Code facts, the spans to blank for the prose passes, and the ranges of code content
/// (scanned separately, for lookup only).
#[derive(Debug, Default)]
pub struct Code {
    pub found: Vec<Found>,
    pub spans: Vec<Range<usize>>,
    pub inner: Vec<Range<usize>>,
}

struct Fence {
    start: usize,
    marker: u8,
    len: usize,
    indent: usize,
    quotes: usize,
    body: String,
}

pub fn code_spans(text: &str) -> Code {
    let mut code = Code::default();
    if !text.contains(['`', '~']) {
        return code;
    }
    let mut fence: Option<Fence> = None;
    let mut block_start: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let end = at + line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        let (quotes, indent, rest) = prefix(bare);
        if let Some(open) = fence.as_mut() {
            if closes(rest, open) {
                let body = std::mem::take(&mut open.body);
                finish(&mut code, text, open.start, at + bare.len(), body);
                fence = None;
            } else {
                let skip = strip(bare, open.quotes, open.indent);
                code.inner.push(at + skip..at + bare.len());
                open.body.push_str(&bare[skip..]);
                open.body.push('\n');
            }
        } else if let Some((marker, len, item)) = opens(rest) {
            if let Some(start) = block_start.take() {
                inline(&mut code, text, start..at);
            }
            fence = Some(Fence {
                start: at,
                marker,
                len,
                indent: indent + item,
                quotes,
                body: String::new(),
            });
        } else if rest.trim().is_empty() || starts_block(rest) {
            if let Some(start) = block_start.take() {
                inline(&mut code, text, start..at);
            }
            if !rest.trim().is_empty() {
                block_start = Some(at);
            }
        } else if block_start.is_none() {
            block_start = Some(at);
        }
        at = end;
    }
    if let Some(open) = fence {
        let written = text[open.start..].trim_end_matches(['\n', '\r']).len();
        // An unclosed fence runs to the end of the text: blank lines there are the text's
        // end, not code, or a copy with one more newline would "introduce" a code block.
        let body = without_trailing_blank_lines(&open.body).to_string();
        finish(&mut code, text, open.start, open.start + written, body);
    } else if let Some(start) = block_start {
        inline(&mut code, text, start..text.len());
    }
    code.spans.sort_by_key(|r| r.start);
    code.inner.sort_by_key(|r| r.start);
    code
}

/// `body` (lines each ending in a newline) without its trailing whitespace-only lines.
fn without_trailing_blank_lines(body: &str) -> &str {
    let mut end = body.len();
    while end > 0 {
        let line_start = body[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        if !body[line_start..end].trim().is_empty() {
            break;
        }
        end = line_start;
    }
    &body[..end]
}

fn finish(code: &mut Code, text: &str, start: usize, end: usize, body: String) {
    let canonical = body.strip_suffix('\n').unwrap_or(&body);
    if !canonical.is_empty() {
        code.found.push(Found {
            kind: Kind::CodeBlock,
            start,
            end,
            canonical: canonical.to_string(),
        });
    }
    let through = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
    code.spans.push(start..through);
}

/// Block-quote markers and indentation before a line's content: (quote depth, columns of
/// indentation after the markers, the content).
fn prefix(line: &str) -> (usize, usize, &str) {
    let mut quotes = 0;
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start_matches(' ');
        match trimmed.strip_prefix('>') {
            Some(after) if rest.len() - trimmed.len() <= 3 => {
                quotes += 1;
                rest = after.strip_prefix(' ').unwrap_or(after);
            }
            _ => break,
        }
    }
    let content = rest.trim_start_matches([' ', '\t']);
    (quotes, rest.len() - content.len(), content)
}

/// How many bytes of a line inside a fence are container, not code: its block-quote
/// markers and up to the opening fence's indentation.
fn strip(line: &str, quotes: usize, indent: usize) -> usize {
    let mut rest = line;
    for _ in 0..quotes {
        let trimmed = rest.trim_start_matches(' ');
        match trimmed.strip_prefix('>') {
            Some(after) => rest = after.strip_prefix(' ').unwrap_or(after),
            None => break,
        }
    }
    let spaces = rest.len() - rest.trim_start_matches(' ').len();
    line.len() - rest.len() + spaces.min(indent)
}

/// A fence opening, possibly right after a list-item marker (`1. ````): at least three
/// backticks or tildes; a backtick fence's info string has no backtick (otherwise it is
/// inline code). Returns the fence character, its length and the list marker's width.
fn opens(line: &str) -> Option<(u8, usize, usize)> {
    let item = item_marker(line);
    let rest = &line[item..];
    let marker = *rest.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|b| *b == marker).count();
    if len < 3 || (marker == b'`' && rest[len..].contains('`')) {
        return None;
    }
    Some((marker, len, item))
}

/// The width of a list-item marker and the spaces after it at the start of `rest`, or 0.
fn item_marker(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let marker = match bytes.first() {
        Some(b'-' | b'*' | b'+') => 1,
        Some(_) if (1..=9).contains(&digits) && matches!(bytes.get(digits), Some(b'.' | b')')) => {
            digits + 1
        }
        _ => return 0,
    };
    let spaces = bytes[marker..].iter().take_while(|b| **b == b' ').count();
    if spaces == 0 { 0 } else { marker + spaces }
}

fn closes(rest: &str, fence: &Fence) -> bool {
    let len = rest.bytes().take_while(|b| *b == fence.marker).count();
    len >= fence.len && rest[len..].trim().is_empty()
}

/// A line that starts a block of its own (a heading or a list item), so inline code
/// cannot continue into it from the line before.
fn starts_block(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let hashes = bytes.iter().take_while(|b| **b == b'#').count();
    (1..=6).contains(&hashes) && matches!(bytes.get(hashes), None | Some(b' ' | b'\t'))
        || item_marker(rest) > 0
}

/// Inline code spans in one block: a run of n backticks opens a span that the next run
/// of exactly n backticks closes; an opening run with no partner is literal text.
fn inline(code: &mut Code, text: &str, block: Range<usize>) {
    let bytes = &text.as_bytes()[block.clone()];
    if !bytes.contains(&b'`') {
        return;
    }
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let len = bytes[i..].iter().take_while(|b| **b == b'`').count();
            runs.push((block.start + i, len));
            i += len;
        } else {
            i += 1;
        }
    }
    let mut next_same = vec![usize::MAX; runs.len()];
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (index, (_, len)) in runs.iter().enumerate().rev() {
        if let Some(&later) = last.get(len) {
            next_same[index] = later;
        }
        last.insert(*len, index);
    }
    let mut index = 0;
    while index < runs.len() {
        let (start, len) = runs[index];
        let escaped = start > 0 && text.as_bytes()[start - 1] == b'\\';
        let close = next_same[index];
        if escaped || close == usize::MAX {
            index += 1;
            continue;
        }
        let (close_at, _) = runs[close];
        let content = &text[start + len..close_at];
        let end = close_at + len;
        if !content.is_empty() {
            code.inner.push(start + len..close_at);
            code.found.push(Found {
                kind: Kind::InlineCode,
                start,
                end,
                canonical: normalized(content),
            });
        }
        code.spans.push(start..end);
        index = close + 1;
    }
}

/// CommonMark's code span content: line endings become spaces, and one space is stripped
/// from each side when both sides have one and the content is not all spaces. A line's
/// leading spaces and tabs are the paragraph's indentation (a list item's continuation
/// line, say), stripped before inlines are read, so they are not part of the span.
fn normalized(content: &str) -> String {
    let mut flat = String::with_capacity(content.len());
    for (i, line) in content.split('\n').enumerate() {
        if i > 0 {
            if flat.ends_with('\r') {
                flat.pop();
            }
            flat.push(' ');
            flat.push_str(line.trim_start_matches([' ', '\t']));
        } else {
            flat.push_str(line);
        }
    }
    let bare = flat.strip_prefix(' ').and_then(|s| s.strip_suffix(' '));
    match bare {
        Some(bare) if !flat.trim_matches(' ').is_empty() => bare.to_string(),
        _ => flat,
    }
}
