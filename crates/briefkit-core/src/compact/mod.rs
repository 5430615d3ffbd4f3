//! Lossless whitespace compaction of Markdown, with its proof.
//!
//! A brief is re-sent on every turn, so stray whitespace is paid for again and again; but a
//! rule item is locked byte-for-byte and code samples mean what their bytes say. Compaction
//! therefore only removes whitespace that Markdown ignores, and proves it for every item:
//! the pulldown-cmark event streams of before and after (adjacent text merged) must be equal
//! under CommonMark and under the GitHub extensions, and compacting the result again must
//! change nothing. When either check fails the item is left exactly as it was and the reason
//! is reported.
//!
//! What changes, outside code blocks (fenced with ``` or ~~~, closed or not, and indented),
//! HTML blocks and tables, which are never edited except for their line endings:
//! - CRLF line endings become LF (everywhere: Markdown reads them as the same line ending,
//!   code included, and the proof checks it);
//! - trailing spaces and tabs are removed, except that a hard line break (two or more spaces
//!   before a non-blank line) becomes exactly two spaces; a backslash hard break is text and
//!   stays. Before a non-blank line, a line is left as it is when it ends in two or more
//!   blanks whose last two are not both spaces (say `" \t"`: Markdown readers disagree on
//!   whether that is a hard break), or in a backslash and one blank (stripping the blank
//!   would make a hard break). Where removing trailing tabs cannot be proven (pulldown-cmark
//!   keeps a trailing tab in a heading's text), lines with trailing tabs are kept as they are
//!   and the rest is still compacted;
//! - blank-only lines are emptied, runs of blank lines become one, and leading and trailing
//!   blank lines go;
//! - a non-empty result ends with exactly one newline.
//!
//! [`file`] and [`brief`] are `brief compact`'s operations on a file and on a brief.

mod apply;
mod messages;
mod proof;
#[cfg(test)]
mod tests;

use std::ops::Range;

pub use apply::{BriefCompaction, FileCompaction, ItemCompaction, brief, file};
pub use messages::compact_messages;

/// The outcome of compacting one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// The compacted text; when `proven` is false, the input unchanged.
    pub text: String,
    /// Whether the compaction was proven lossless (an unchanged input is proven).
    pub proven: bool,
    /// Why the compaction could not be proven, when it could not.
    pub reason: Option<String>,
}

/// Compacts a Markdown body (no front matter). When the proof fails, `text` is the input
/// unchanged.
///
/// A non-empty result has no leading or trailing blank lines and ends with exactly one
/// newline; the one exception is a body that ends inside a code block left open without a
/// final newline, where adding one would change the code, so none is added. An empty or
/// blank-only body compacts to the empty string.
pub fn compact_markdown(body: &str) -> Compaction {
    let checked = prove(body).and_then(|text| {
        if text == body {
            // `prove` is a function of its input: proving the same text again would give
            // the same answer, so an already compact body is idempotent as it stands.
            return Ok(text);
        }
        match prove(&text) {
            Ok(again) if again == text => Ok(text),
            Ok(_) => Err("compacting the result again would change it (not idempotent)".to_owned()),
            Err(reason) => Err(format!("the result does not compact cleanly: {reason}")),
        }
    });
    match checked {
        Ok(text) => Compaction {
            text,
            proven: true,
            reason: None,
        },
        Err(reason) => Compaction {
            text: body.to_owned(),
            proven: false,
            reason: Some(reason),
        },
    }
}

/// Compacts a whole Markdown document: a leading YAML front matter block (`---` … `---` or
/// `...`) passes through byte for byte, the rest is compacted as by [`compact_markdown`].
/// A document whose opening `---` is never closed has no front matter.
pub fn compact_document(doc: &str) -> Compaction {
    let Some(split) = front_matter_len(doc) else {
        return compact_markdown(doc);
    };
    let (front, body) = doc.split_at(split);
    let compacted = compact_markdown(body);
    let text = if compacted.proven {
        format!("{front}{}", compacted.text)
    } else {
        doc.to_owned()
    };
    Compaction { text, ..compacted }
}

/// The length of the leading front matter block, closing line included.
fn front_matter_len(doc: &str) -> Option<usize> {
    let bare = |line: &str| line.trim_end_matches([' ', '\t', '\r', '\n']).to_owned();
    let mut lines = doc.split_inclusive('\n');
    let first = lines.next()?;
    if bare(first) != "---" || !first.ends_with('\n') {
        return None;
    }
    let mut len = first.len();
    for line in lines {
        len += line.len();
        if matches!(bare(line).as_str(), "---" | "...") {
            return Some(len);
        }
    }
    None
}

/// Compaction with its event check: the rewrite, or why it is not lossless. Tabs first get
/// the full treatment; where that fails, lines whose trailing blanks hold a tab are kept as
/// they are (pulldown-cmark keeps a trailing tab in a heading's text and does not take a
/// table delimiter row that ends in one), and whatever else is provable is still compacted.
fn prove(body: &str) -> Result<String, String> {
    settle(body, Tabs::Strip).or_else(|reason| settle(body, Tabs::Keep).map_err(|_| reason))
}

/// Whether trailing blanks that contain a tab are removed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tabs {
    Strip,
    Keep,
}

/// One compaction pass with its event check.
fn settle(body: &str, tabs: Tabs) -> Result<String, String> {
    let (text, open_end) = rewrite(body, tabs);
    let with_newline = format!("{text}\n");
    // A text ending in an unclosed code block gets its final newline only where Markdown
    // says that changes nothing.
    let first_try = if open_end { &with_newline } else { &text };
    match proof::same_events(body, first_try) {
        Ok(()) => Ok(first_try.clone()),
        Err(reason) if !open_end => Err(reason),
        Err(reason) => proof::same_events(body, &text)
            .map(|()| text)
            .map_err(|_| reason),
    }
}

/// A source line: its text without the line ending, its byte span in the source (line ending
/// included), and whether it had a line ending.
struct Line<'a> {
    text: &'a str,
    span: Range<usize>,
    ended: bool,
}

/// The rewrite itself. Returns the text and whether its last line is a protected line that had
/// no line ending (so none was added).
fn rewrite(body: &str, tabs: Tabs) -> (String, bool) {
    let lines = split_lines(body);
    let protected = mark_protected(&lines, &proof::protected_ranges(body));
    let mut out = String::with_capacity(body.len());
    let mut blank_pending = false;
    let mut open_end = false;
    for (i, line) in lines.iter().enumerate() {
        let (kept, hard_break) = if protected[i] {
            (line.text, false)
        } else {
            let trimmed = line.text.trim_end_matches([' ', '\t']);
            if trimmed.is_empty() {
                // Emitted only when more content follows, so runs become one and no blank
                // line leads or trails.
                blank_pending = !out.is_empty();
                continue;
            }
            let next_has_text = lines.get(i + 1).is_some_and(|next| !is_blank(next.text));
            let trailing = &line.text[trimmed.len()..];
            if tabs == Tabs::Keep && trailing.contains('\t') {
                (line.text, false)
            } else if !next_has_text || trailing.is_empty() {
                (trimmed, false)
            } else if trailing.ends_with("  ") {
                (trimmed, true)
            } else if trailing.len() >= 2 || trimmed.ends_with('\\') {
                // Two or more blanks with a tab among the last two are a hard break to some
                // readers (pulldown-cmark) and not to others (cmark); a backslash followed by
                // a blank is text, but would become a hard break. No rewrite is safe.
                (line.text, false)
            } else {
                (trimmed, false)
            }
        };
        if blank_pending {
            out.push('\n');
            blank_pending = false;
        }
        out.push_str(kept);
        if hard_break {
            out.push_str("  ");
        }
        open_end = protected[i] && !line.ended;
        if !open_end {
            out.push('\n');
        }
    }
    (out, open_end)
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| b == b' ' || b == b'\t')
}

/// Splits on LF, dropping the CR of a CRLF. A CR that ends the text is a line ending too
/// (CommonMark reads a lone CR as one); a lone CR elsewhere stays inside its line.
fn split_lines(body: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for piece in body.split_inclusive('\n') {
        let end = start + piece.len();
        let (text, ended) = match piece.strip_suffix('\n') {
            Some(text) => (text.strip_suffix('\r').unwrap_or(text), true),
            None => match piece.strip_suffix('\r') {
                Some(text) => (text, true),
                None => (piece, false),
            },
        };
        lines.push(Line {
            text,
            span: start..end,
            ended,
        });
        start = end;
    }
    lines
}

/// For each line, whether any protected byte range touches it.
fn mark_protected(lines: &[Line<'_>], ranges: &[Range<usize>]) -> Vec<bool> {
    let mut marks = vec![false; lines.len()];
    for range in ranges {
        let first = lines.partition_point(|line| line.span.end <= range.start);
        for (i, line) in lines.iter().enumerate().skip(first) {
            if line.span.start >= range.end {
                break;
            }
            marks[i] = true;
        }
    }
    marks
}
