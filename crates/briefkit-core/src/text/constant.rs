//! The marker of a deliberate constant: a line of a static item that holds a value which
//! looks volatile but is meant to stay (`Prices valid as of 2026-12-01.`) ends with
//! [`MARKER`]. `brief check` does not report volatile-looking values on such a line, and
//! composition removes the marker (with the spaces before it), so the model never sees it.
//!
//! The marker is one fixed string with no argument (no expiry date, no counter): removing
//! it gives the same bytes on every run, so it can never move the cached prefix by itself.

use std::borrow::Cow;

/// The marker, as written at the end of a line.
pub const MARKER: &str = "<!-- brief: constant -->";

/// Whether the line of `text` around byte `at` carries the marker.
pub fn line_is_marked(text: &str, at: usize) -> bool {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].contains(MARKER)
}

/// `text` without its markers: each one goes with the spaces and tabs just before it; a
/// line that held nothing but the marker goes whole.
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains(MARKER) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if !line.contains(MARKER) {
            out.push_str(line);
            continue;
        }
        let (content, ending) = match line.strip_suffix("\r\n") {
            Some(content) => (content, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(content) => (content, "\n"),
                None => (line, ""),
            },
        };
        if content.trim() == MARKER {
            continue;
        }
        let mut kept = String::with_capacity(content.len());
        let mut rest = content;
        while let Some(at) = rest.find(MARKER) {
            kept.push_str(rest[..at].trim_end_matches([' ', '\t']));
            rest = &rest[at + MARKER.len()..];
        }
        kept.push_str(rest);
        out.push_str(&kept);
        out.push_str(ending);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_marker_and_the_spaces_before_it_are_removed() {
        let text = "Prices valid as of 2026-12-01. <!-- brief: constant -->\nQuote them.\n";
        assert_eq!(strip(text), "Prices valid as of 2026-12-01.\nQuote them.\n");
        assert!(line_is_marked(text, 20));
        assert!(!line_is_marked(text, text.len() - 3));
        assert_eq!(strip("a\n<!-- brief: constant -->\nb"), "a\nb");
        assert!(matches!(strip("no marker"), Cow::Borrowed(_)));
    }

    proptest! {
        #[test]
        fn stripping_is_idempotent_and_leaves_no_marker(text in "(\\PC{0,6}( <!-- brief: constant -->)?\n?){0,6}") {
            let once = strip(&text).into_owned();
            prop_assert!(!once.contains(MARKER));
            prop_assert_eq!(strip(&once).into_owned(), once.clone());
        }
    }
}
