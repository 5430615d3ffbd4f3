//! Cleaning a model's answer before anyone sees it or it is saved: a proposal is shown on
//! a terminal and may later become part of a brief, so terminal escapes and control
//! characters never survive, and a code fence the model wrapped around its whole answer
//! (despite being told not to) is taken off.

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

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// 8-bit introducers: CSI, OSC, DCS, SOS, PM, APC, and ST.
const CSI8: char = '\u{9b}';
const OSC8: char = '\u{9d}';
const ST8: char = '\u{9c}';

/// Removes escape sequences and control characters (newline and tab stay).
pub fn strip_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string(&mut chars);
                }
                Some(next) if ('\u{20}'..='\u{2f}').contains(&next) => {
                    // nF escape: intermediates, then one final byte.
                    while chars
                        .next_if(|c| ('\u{20}'..='\u{2f}').contains(c))
                        .is_some()
                    {}
                    chars.next_if(|c| ('\u{30}'..='\u{7e}').contains(c));
                }
                Some(next) if ('\u{30}'..='\u{7e}').contains(&next) => {
                    chars.next();
                }
                _ => {}
            },
            CSI8 => skip_csi(&mut chars),
            OSC8 | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            // Invisible format characters that reorder or hide text on a terminal.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

/// The one-line form of text a server or a file provided, for a terminal or a record:
/// escape sequences and control characters removed (as [`strip_controls`]), whitespace
/// runs folded to one space, at most `max` characters (then `…`).
pub fn one_line(text: &str, max: usize) -> String {
    // Line breaks of every kind separate words; the rest of the control characters go.
    let clean = strip_controls(&text.replace(['\r', '\u{b}', '\u{c}'], "\n"));
    let mut out = String::new();
    let mut count = 0;
    for word in clean.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
            count += 1;
        }
        for c in word.chars() {
            if count >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// Parameters and intermediates, then one final byte; stops early at a line end.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        if c == '\n' {
            return;
        }
        chars.next();
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
    }
}

/// An OSC/DCS-like string up to BEL or ST; unterminated, it ends at the line end.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => return,
            BEL | ST8 => {
                chars.next();
                return;
            }
            ESC => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
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
    fn escapes_and_controls_are_removed_newlines_and_tabs_kept() {
        let answer = "\u{1b}[31mRed\u{1b}[0m text\u{1b}]0;title\u{7} and \u{1b}]8;;https://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\\r\n\tnext\u{0}\u{8}\u{7f} line\u{9b}2J\u{202e}x\n";
        assert_eq!(strip_controls(answer), "Red text and link\n\tnext linex\n");
    }

    #[test]
    fn one_line_leaves_no_trace_of_an_escape() {
        assert_eq!(one_line("a\u{1b}[31mb\r\nc", 50), "ab c");
        assert_eq!(
            one_line("gpt\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]52;c;aGk=\u{7}-x", 50),
            "gpt-x"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
    }

    #[test]
    fn an_unterminated_osc_ends_at_the_line_end() {
        assert_eq!(strip_controls("a\u{1b}]0;oops\nb"), "a\nb");
        assert_eq!(strip_controls("trailing \u{1b}"), "trailing ");
    }

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
