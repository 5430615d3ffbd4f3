//! HTML made readable text for a sub-agent's model, in time linear in the page.
//!
//! `html2text` (html5ever underneath) is quadratic in nesting: the tree builder checks
//! scopes by walking the stack of open elements, and every nested block copies its lines
//! into its parent, so 100k nested `<div>`s took over a minute and 190k (2 MiB) five. A
//! fetched page is the web's choice, so the page goes through [`flatten`] first: one pass
//! that tokenises it and writes it again balanced (every element closed, in order) with
//! at most [`MAX_DEPTH`] elements open (the tags of deeper ones are dropped, their text
//! kept) and at most [`MAX_TABLE_DEPTH`] tables inside each other. Scripts, styles,
//! comments and other non-text markup go. What `html2text` then reads is bounded in
//! depth, so its work is linear in the page's length.

use std::collections::HashMap;

/// Elements open at once in what `html2text` reads; the tags of deeper ones are dropped.
pub const MAX_DEPTH: usize = 24;
/// Tables open inside each other; deeper ones lose their table tags (their cells' text
/// stays).
pub const MAX_TABLE_DEPTH: usize = 2;
/// Columns of the text.
pub const WIDTH: usize = 100;

/// Elements that never have content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen",
];
/// Elements whose content is not shown as text: dropped with their content.
const DROPPED: &[&str] = &[
    "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "template", "svg",
    "math", "object", "head",
];
/// Elements whose content is text up to their end tag.
const RCDATA: &[&str] = &["textarea", "title"];

/// Tags whose content html5ever restructures in ways that add open elements (a table's
/// implied `tbody` and `tr`): counted three times against [`MAX_DEPTH`].
fn weight(name: &str) -> usize {
    if name == "table" { 3 } else { 1 }
}

/// `page` as readable text (see the module documentation).
pub fn to_text(page: &[u8]) -> Result<String, String> {
    let flat = flatten(&String::from_utf8_lossy(page));
    html2text::config::plain()
        .allow_width_overflow()
        .string_from_read(flat.as_bytes(), WIDTH)
        .map_err(|e| e.to_string())
}

/// The work [`flatten`] did: what tests hold it to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Flattened {
    /// The most elements open at once in the output.
    pub depth: usize,
    /// Tags dropped because they were too deep.
    pub dropped_tags: u64,
}

/// `html`, balanced and at most [`MAX_DEPTH`] elements deep (see the module
/// documentation).
pub fn flatten(html: &str) -> String {
    flatten_counted(html).0
}

/// [`flatten`] and what it did.
pub fn flatten_counted(html: &str) -> (String, Flattened) {
    let mut out = Writer::default();
    let bytes = html.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let Some(lt) = memchr::memchr(b'<', &bytes[at..]).map(|i| at + i) else {
            out.text(&html[at..]);
            break;
        };
        out.text(&html[at..lt]);
        at = match bytes.get(lt + 1) {
            Some(b'!') => skip_declaration(bytes, lt),
            Some(b'?') => skip_past(bytes, lt, b">"),
            Some(b'/') if bytes.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) => {
                let (name, end) = tag_name(bytes, lt + 2);
                out.end(&name);
                skip_past(bytes, end, b">")
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let tag = start_tag(html, lt + 1);
                let end = tag.end;
                if DROPPED.contains(&tag.name.as_str()) && !tag.self_closing {
                    skip_element(bytes, end, &tag.name)
                } else if RCDATA.contains(&tag.name.as_str()) && !tag.self_closing {
                    let close = find_end_tag(bytes, end, &tag.name);
                    out.start(&tag);
                    out.text(&html[end..close.0].replace('<', "&lt;"));
                    out.end(&tag.name);
                    close.1
                } else if tag.name == "plaintext" {
                    out.text(&html[end..].replace('<', "&lt;").replace('&', "&amp;"));
                    bytes.len()
                } else {
                    out.start(&tag);
                    end
                }
            }
            _ => {
                out.raw("&lt;");
                lt + 1
            }
        };
    }
    out.close_all();
    let done = out.done;
    (out.html, done)
}

#[derive(Default)]
struct Writer {
    html: String,
    /// The elements open in the output, with their weight.
    open: Vec<(String, usize)>,
    weight: usize,
    tables: usize,
    /// Elements open in the page but not in the output (too deep), by name.
    dropped: HashMap<String, u64>,
    dropped_total: u64,
    done: Flattened,
}

impl Writer {
    fn raw(&mut self, s: &str) {
        self.html.push_str(s);
    }

    fn text(&mut self, s: &str) {
        self.html.push_str(s);
    }

    fn start(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        let void = VOID.contains(&name) || tag.self_closing;
        let w = weight(name);
        let too_deep = !void
            && (self.weight + w > MAX_DEPTH || (name == "table" && self.tables >= MAX_TABLE_DEPTH));
        if too_deep {
            *self.dropped.entry(tag.name.clone()).or_default() += 1;
            self.dropped_total += 1;
            self.done.dropped_tags += 1;
            return;
        }
        self.html.push('<');
        self.html.push_str(name);
        self.html.push_str(&tag.attributes);
        self.html.push('>');
        if void {
            return;
        }
        self.open.push((tag.name.clone(), w));
        self.weight += w;
        if name == "table" {
            self.tables += 1;
        }
        self.done.depth = self.done.depth.max(self.open.len());
    }

    fn end(&mut self, name: &str) {
        if let Some(n) = self.dropped.get_mut(name).filter(|n| **n > 0) {
            *n -= 1;
            self.dropped_total -= 1;
            self.done.dropped_tags += 1;
            return;
        }
        // The stack holds at most MAX_DEPTH elements: this search is bounded.
        let Some(at) = self.open.iter().rposition(|(n, _)| n == name) else {
            return;
        };
        while self.open.len() > at {
            self.pop();
        }
        // Elements opened too deep inside the one just closed are closed with it.
        if self.dropped_total > 0 {
            self.dropped.clear();
            self.dropped_total = 0;
        }
    }

    fn pop(&mut self) {
        if let Some((name, w)) = self.open.pop() {
            self.weight -= w;
            if name == "table" {
                self.tables -= 1;
            }
            self.html.push_str("</");
            self.html.push_str(&name);
            self.html.push('>');
        }
    }

    fn close_all(&mut self) {
        while !self.open.is_empty() {
            self.pop();
        }
    }
}

struct Tag {
    name: String,
    /// Written again: ` name="value"` each, quotes escaped.
    attributes: String,
    self_closing: bool,
    /// Just past the tag's `>`.
    end: usize,
}

/// A tag name from `from`: ASCII letters, digits and `-`, lowercased.
fn tag_name(bytes: &[u8], from: usize) -> (String, usize) {
    let mut end = from;
    while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
        end += 1;
    }
    let name = String::from_utf8_lossy(&bytes[from..end]).to_ascii_lowercase();
    (name, end)
}

/// The start tag whose name begins at `from`.
fn start_tag(html: &str, from: usize) -> Tag {
    let bytes = html.as_bytes();
    let (name, mut at) = tag_name(bytes, from);
    let mut attributes = String::new();
    let mut self_closing = false;
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        match bytes.get(at) {
            None => break,
            Some(b'>') => {
                at += 1;
                break;
            }
            Some(b'/') => {
                self_closing = bytes.get(at + 1) == Some(&b'>');
                at += 1;
                continue;
            }
            _ => {}
        }
        let start = at;
        while at < bytes.len() && !matches!(bytes[at], b'=' | b'>' | b'/') {
            if bytes[at].is_ascii_whitespace() {
                break;
            }
            at += 1;
        }
        let key = &html[start..at];
        let at_start = at;
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = None;
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            match bytes.get(at) {
                Some(&q @ (b'"' | b'\'')) => {
                    let close =
                        memchr::memchr(q, &bytes[at + 1..]).map_or(bytes.len(), |i| at + 1 + i);
                    value = Some(&html[at + 1..close]);
                    at = (close + 1).min(bytes.len());
                }
                _ => {
                    let start = at;
                    while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>'
                    {
                        at += 1;
                    }
                    value = Some(&html[start..at]);
                }
            }
        } else {
            at = at_start;
        }
        if at == start {
            // Nothing consumed (a stray `=`): step over it.
            at += 1;
            continue;
        }
        let plain = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':'));
        if plain {
            attributes.push(' ');
            attributes.push_str(&key.to_ascii_lowercase());
            if let Some(value) = value {
                attributes.push_str("=\"");
                attributes.push_str(&value.replace('"', "&quot;").replace('<', "&lt;"));
                attributes.push('"');
            }
        }
    }
    Tag {
        name,
        attributes,
        self_closing,
        end: at,
    }
}

/// Just past the first `needle` at or after `from` (the end of the page if none).
fn skip_past(bytes: &[u8], from: usize, needle: &[u8]) -> usize {
    memchr::memmem::find(&bytes[from..], needle).map_or(bytes.len(), |i| from + i + needle.len())
}

/// A comment, a doctype or a CDATA section: skipped.
fn skip_declaration(bytes: &[u8], lt: usize) -> usize {
    if bytes[lt..].starts_with(b"<!--") {
        skip_past(bytes, lt + 4, b"-->")
    } else {
        skip_past(bytes, lt, b">")
    }
}

/// The start of `</name` (case-insensitive) at or after `from` and just past its `>`; the
/// end of the page if there is none.
fn find_end_tag(bytes: &[u8], from: usize, name: &str) -> (usize, usize) {
    let mut at = from;
    while let Some(i) = memchr::memmem::find(&bytes[at..], b"</") {
        let start = at + i;
        let after = start + 2;
        let candidate = bytes.get(after..after + name.len());
        let boundary = bytes
            .get(after + name.len())
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes())) && boundary {
            return (start, skip_past(bytes, after, b">"));
        }
        at = after;
    }
    (bytes.len(), bytes.len())
}

/// Past an element whose content is dropped.
fn skip_element(bytes: &[u8], from: usize, name: &str) -> usize {
    find_end_tag(bytes, from, name).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_rewritten_balanced_and_readable() {
        let flat = flatten(
            "<!doctype html><p class=x title='a \"b\"'>Hi <b>there<i>you</b> & <script>x<y</script>1 < 2<!-- c --></p",
        );
        assert_eq!(
            flat,
            "<p class=\"x\" title=\"a &quot;b&quot;\">Hi <b>there<i>you</i></b> & 1 &lt; 2</p>"
        );
        let text = to_text(b"<h1>Pricing</h1><p>Pro costs <b>$12</b>.</p>").unwrap();
        assert!(text.contains("Pricing") && text.contains("$12"), "{text}");
    }

    #[test]
    fn nesting_past_the_cap_keeps_its_text_and_drops_its_tags() {
        let html = format!("{}deep{}", "<div>".repeat(1000), "</div>".repeat(1000));
        let (flat, done) = flatten_counted(&html);
        assert_eq!(done.depth, MAX_DEPTH);
        assert_eq!(done.dropped_tags, 2 * (1000 - MAX_DEPTH as u64));
        assert!(flat.contains("deep"));
        assert_eq!(flat.matches("<div>").count(), MAX_DEPTH);
        assert_eq!(flat.matches("</div>").count(), MAX_DEPTH);
    }
}
