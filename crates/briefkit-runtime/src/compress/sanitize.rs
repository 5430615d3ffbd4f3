//! Cleaning a model's answer before anyone sees it or it is saved: a proposal is shown on
//! a terminal and may later become part of a brief, so terminal escapes and control
//! characters never survive (the one sanitiser, [`crate::text::sanitize`]), and a code
//! fence the model wrapped around its whole answer (despite being told not to) is taken off.

use crate::text::sanitize::strip_controls;

/// Strips ANSI escape sequences (CSI, OSC, DCS and the like, 7- and 8-bit), every other
/// control character except newline and tab, and one outer code fence wrapping the whole
/// answer (unless `original` itself is one fenced block); then trims. The result ends with
/// a newline when `original` does.
pub fn sanitize(answer: &str, original: &str) -> String {
    let clean = strip_controls(answer);
    let trimmed = clean.trim();
    let unwrapped = if starts_with_fence(original.trim_start()) {
        trimmed
    } else {
        unwrap_fence(trimmed).map_or(trimmed, str::trim)
    };
    let mut text = unwrapped.to_string();
    if original.ends_with('\n') && !text.is_empty() {
        text.push('\n');
    }
    text
}

/// The opening fence of a line: its character, its length and whether it is one.
fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let line = &line[indent..];
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.len() - line.trim_start_matches(c).len();
    (len >= 3).then(|| (c, len, line[len..].trim()))
}

fn starts_with_fence(text: &str) -> bool {
    text.lines().next().and_then(fence_of).is_some()
}

/// The content of a code fence that wraps all of `text`: the first line opens it and the
/// last line closes it. Models often wrap an answer that holds code blocks of its own in a
/// fence no longer than theirs, which Markdown would close at the first inner closer; so
/// besides Markdown's reading, a wrapper is recognised when its inner fences are balanced
/// (an opener with an info string pairs with the next bare fence), or when it is labelled
/// `markdown`/`md` and its last line closes it.
fn unwrap_fence(text: &str) -> Option<&str> {
    let (first, rest) = text.split_once('\n')?;
    let (c, len, info) = fence_of(first)?;
    if c == '`' && info.contains('`') {
        return None;
    }
    let closes = |line: &str| {
        fence_of(line.trim_end_matches(['\n', '\r']))
            .is_some_and(|(c2, len2, info2)| c2 == c && len2 >= len && info2.is_empty())
    };
    let (body, last) = match rest.rfind('\n') {
        Some(i) => (&rest[..=i], &rest[i + 1..]),
        None => ("", rest),
    };
    let labelled_markdown = matches!(info.to_ascii_lowercase().as_str(), "markdown" | "md");
    let mut offset = 0;
    let mut open_inner: Vec<(char, usize)> = Vec::new();
    let mut markdown_reading = true;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if markdown_reading && closes(line) {
            let after = &rest[offset + line.len()..];
            if after.trim().is_empty() {
                return Some(&rest[..offset]);
            }
            markdown_reading = false;
        }
        match fence_of(bare) {
            Some((c2, len2, info2)) if !info2.is_empty() => open_inner.push((c2, len2)),
            Some((c2, len2, _)) => {
                let pairs = open_inner
                    .last()
                    .is_some_and(|&(open_c, open_len)| open_c == c2 && len2 >= open_len);
                if pairs {
                    open_inner.pop();
                } else if closes(line) {
                    let after = &rest[offset + line.len()..];
                    if after.trim().is_empty() {
                        return Some(&rest[..offset]);
                    }
                    break;
                }
            }
            None => {}
        }
        offset += line.len();
    }
    (labelled_markdown && closes(last)).then_some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outer_fence_is_dropped_but_inner_code_stays() {
        let original = "Some text.\n";
        assert_eq!(
            sanitize("```markdown\nShort text.\n```", original),
            "Short text.\n"
        );
        assert_eq!(sanitize("~~~\nShort.\n~~~\n\n", original), "Short.\n");
        let inner = "````md\nUse:\n```sh\nls\n```\n````";
        assert_eq!(sanitize(inner, original), "Use:\n```sh\nls\n```\n");
        let two_blocks = "```sh\nls\n```\nthen\n```sh\npwd\n```";
        assert_eq!(sanitize(two_blocks, original), format!("{two_blocks}\n"));
        let two_bare = "```\nls\n```\nthen\n```\npwd\n```";
        assert_eq!(sanitize(two_bare, original), format!("{two_bare}\n"));
    }

    #[test]
    fn an_outer_fence_no_longer_than_the_inner_ones_is_dropped() {
        let original = "Some text.\n";
        let balanced = "```markdown\nUse:\n```sh\nls\n```\nThen read.\n```";
        assert_eq!(
            sanitize(balanced, original),
            "Use:\n```sh\nls\n```\nThen read.\n"
        );
        let bare_wrapper = "```\nUse:\n```sh\nls\n```\n```";
        assert_eq!(sanitize(bare_wrapper, original), "Use:\n```sh\nls\n```\n");
        let bare_inner = "```md\nRun:\n```\nls\n```\ndone\n```\n";
        assert_eq!(sanitize(bare_inner, original), "Run:\n```\nls\n```\ndone\n");
        let tildes = "~~~markdown\nA\n~~~python\nx = 1\n~~~\nB\n~~~";
        assert_eq!(sanitize(tildes, original), "A\n~~~python\nx = 1\n~~~\nB\n");
        let unwrapped_ending_in_code = "```sh\nls\n```\nthen\n```";
        assert_eq!(
            sanitize(unwrapped_ending_in_code, original),
            format!("{unwrapped_ending_in_code}\n")
        );
    }

    #[test]
    fn an_original_that_is_one_code_block_keeps_its_fence() {
        let original = "```json\n{\"a\": 1}\n```\n";
        assert_eq!(
            sanitize("```json\n{\"a\":1}\n```", original),
            "```json\n{\"a\":1}\n```\n"
        );
    }

    #[test]
    fn the_result_is_trimmed_and_follows_the_original_final_newline() {
        assert_eq!(sanitize("  \n Short. \n\n", "x"), "Short.");
        assert_eq!(sanitize("Short.", "x\n"), "Short.\n");
        assert_eq!(sanitize("\u{1b}[0m", "x\n"), "");
    }
}
