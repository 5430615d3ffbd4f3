//! Where two canonical texts first differ, shown as a short context with secrets cut.

use crate::text::volatile;

/// Bytes of context shown on each side of the first difference.
const CONTEXT_BYTES: usize = 40;

/// The byte offset of the first difference between two texts, on a char boundary of both;
/// `None` when they are equal.
pub fn first_difference(previous: &str, current: &str) -> Option<usize> {
    if previous == current {
        return None;
    }
    let common = previous
        .bytes()
        .zip(current.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    // Both texts agree up to `common`, so a boundary of one is a boundary of the other.
    Some(floor_boundary(current, common.min(current.len())))
}

/// About 40 bytes either side of `offset`, on char boundaries, with `…` where the text was
/// cut and every id, hash or token that touches the window replaced by its cut sample.
pub fn context(text: &str, offset: usize) -> String {
    let offset = floor_boundary(text, offset.min(text.len()));
    let start = floor_boundary(text, offset.saturating_sub(CONTEXT_BYTES));
    let end = ceil_boundary(text, (offset + CONTEXT_BYTES).min(text.len()));
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = start;
    // The whole text is scanned so a long token that starts before the window is still
    // recognised as a token and cut, not shown in the middle.
    for finding in volatile::scan(text) {
        if finding.end <= start || finding.start >= end {
            continue;
        }
        if finding.sample == text[finding.start..finding.end] {
            continue;
        }
        if finding.start >= at {
            out.push_str(&text[at..finding.start]);
        }
        out.push_str(&finding.sample);
        at = at.max(finding.end);
    }
    if at < end {
        out.push_str(&text[at..end]);
    }
    if end.max(at) < text.len() && !out.ends_with('…') {
        out.push('…');
    }
    out
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_difference() {
        assert_eq!(first_difference("abc", "abc"), None);
    }

    #[test]
    fn difference_is_found_at_the_first_byte_and_on_a_char_boundary() {
        assert_eq!(first_difference("abcd", "abXd"), Some(2));
        assert_eq!(first_difference("ab", "abc"), Some(2));
        // "é" and "è" share their first byte: the offset backs up to the char start.
        assert_eq!(first_difference("xé", "xè"), Some(1));
    }

    #[test]
    fn context_is_short_and_marks_cuts() {
        let text = format!("{}MIDDLE{}", "a".repeat(100), "b".repeat(100));
        let shown = context(&text, 100);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert!(shown.contains("MIDDLE"));
        assert!(shown.len() < 100);
    }

    #[test]
    fn context_cuts_a_token_that_starts_before_the_window() {
        let token = format!("eyJhbGciOiJIUzI1NiJ9.{}.sig123456", "Q".repeat(200));
        let text = format!("{{\"content\":\"Bearer {token} then the change\"}}");
        let offset = text.find("then").expect("present");
        let shown = context(&text, offset);
        assert!(!shown.contains("QQQQ"), "{shown}");
        assert!(shown.contains("eyJhbGci…"), "{shown}");
    }
}
