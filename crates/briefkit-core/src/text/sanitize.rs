//! The one sanitiser: text that came from a model, a client, a server or a file, made safe
//! to show on a terminal or to keep in a record.
//!
//! A terminal obeys what it prints: an escape sequence can set the window title, plant a
//! hyperlink whose target differs from its text (OSC 8), clear the screen, switch to the
//! alternate screen or move the cursor over earlier output; a bidirectional override
//! reorders the characters after it so that what is shown is not what is there. So escape
//! sequences (CSI, OSC, DCS, SOS, PM, APC, 7- and 8-bit) are removed whole, with every
//! other control character but newline and tab. Bidirectional embeddings, overrides and
//! isolates (U+202A–U+202E, U+2066–U+2069) are removed from what is kept ([`strip_controls`],
//! [`one_line`]) and shown as visible marks such as `<U+202E>` in what is displayed
//! ([`for_terminal`], [`terminal_line`]), so a reader sees that they were there.
//!
//! Stored logs keep the text as it came (JSON escapes it); every renderer of it to a
//! terminal goes through [`for_terminal`]. JSON output stays exact data.

use std::borrow::Cow;

/// What happens to a bidirectional control character.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bidi {
    /// Dropped (text that is kept, e.g. a proposal that may become part of a brief).
    Remove,
    /// Replaced by `<U+XXXX>` (text a person reads).
    Show,
}

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// 8-bit introducers: CSI, OSC, DCS, SOS, PM, APC, and ST.
const CSI8: char = '\u{9b}';
const OSC8: char = '\u{9d}';
const ST8: char = '\u{9c}';

/// Whether `c` reorders or isolates the text around it on display.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `text` holds anything the sanitiser changes (a control other than newline and
/// tab, or a bidirectional control).
fn needs_cleaning(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c))
}

/// Removes escape sequences, control characters (newline and tab stay) and bidirectional
/// controls: for text that is kept and may be shown later.
pub fn strip_controls(text: &str) -> String {
    clean(text, Bidi::Remove)
}

/// Text for a terminal: escape sequences and control characters removed (newline and tab
/// stay), bidirectional controls shown as `<U+XXXX>`. Borrowed when nothing changes.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if needs_cleaning(text) {
        Cow::Owned(clean(text, Bidi::Show))
    } else {
        Cow::Borrowed(text)
    }
}

/// One cell or line for a terminal (a table key, a name in a summary): as [`for_terminal`],
/// with every run of whitespace, line breaks included, folded to one space.
pub fn terminal_line(text: &str) -> String {
    fold(
        &clean(&line_breaks_as_newlines(text), Bidi::Show),
        usize::MAX,
    )
}

/// The one-line form of text a server or a file provided, for a terminal or a record:
/// escape sequences, control and bidirectional characters removed (as [`strip_controls`]),
/// whitespace runs folded to one space, at most `max` characters (then `…`).
pub fn one_line(text: &str, max: usize) -> String {
    fold(&strip_controls(&line_breaks_as_newlines(text)), max)
}

/// Line breaks of every kind separate words; the rest of the control characters go.
fn line_breaks_as_newlines(text: &str) -> Cow<'_, str> {
    if text.contains(['\r', '\u{b}', '\u{c}']) {
        Cow::Owned(text.replace(['\r', '\u{b}', '\u{c}'], "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

fn fold(clean: &str, max: usize) -> String {
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

fn clean(text: &str, bidi: Bidi) -> String {
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
            c if is_bidi_control(c) => {
                if bidi == Bidi::Show {
                    out.push_str(&format!("<U+{:04X}>", c as u32));
                }
            }
            c => out.push(c),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_controls_are_removed_newlines_and_tabs_kept() {
        let answer = "\u{1b}[31mRed\u{1b}[0m text\u{1b}]0;title\u{7} and \u{1b}]8;;https://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\\r\n\tnext\u{0}\u{8}\u{7f} line\u{9b}2J\u{202e}x\n";
        assert_eq!(strip_controls(answer), "Red text and link\n\tnext linex\n");
        assert_eq!(
            for_terminal(answer),
            "Red text and link\n\tnext line<U+202E>x\n"
        );
    }

    #[test]
    fn a_terminal_sees_every_hostile_sequence_removed_and_bidi_marked() {
        let hostile = [
            "\u{1b}]0;owned title\u{7}",
            "\u{1b}]2;title\u{1b}\\",
            "\u{1b}]8;;http://evil.example/\u{1b}\\",
            "\u{1b}[2J\u{1b}[H",
            "\u{1b}[?1049h",
            "\u{9b}31m",
            "\u{9d}0;t\u{9c}",
            "\u{1b}P1$r\u{1b}\\",
            "\u{1b}c",
        ];
        for seq in hostile {
            let text = format!("before {seq}after");
            let shown = for_terminal(&text);
            assert_eq!(shown, "before after", "{seq:?}");
            assert!(!shown.chars().any(char::is_control), "{seq:?}");
        }
        let spoof = "invoice\u{202e}fdp.exe\u{2066}x\u{2069}";
        assert_eq!(
            for_terminal(spoof),
            "invoice<U+202E>fdp.exe<U+2066>x<U+2069>"
        );
        assert_eq!(strip_controls(spoof), "invoicefdp.exex");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(for_terminal("plain\n\ttext é"), Cow::Borrowed(_)));
    }

    #[test]
    fn one_line_leaves_no_trace_of_an_escape() {
        assert_eq!(one_line("a\u{1b}[31mb\r\nc", 50), "ab c");
        assert_eq!(
            one_line("gpt\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]52;c;aGk=\u{7}-x", 50),
            "gpt-x"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(
            terminal_line("gpt\u{1b}[2J\n-4\u{202e}o"),
            "gpt -4<U+202E>o"
        );
    }

    proptest::proptest! {
        /// Whatever a model sends, a terminal gets no control character but newline and
        /// tab and no bidirectional control; text without any is shown unchanged; and a
        /// second pass changes nothing.
        #[test]
        fn nothing_a_terminal_obeys_survives(
            text in "(\\PC|[\u{0}-\u{1f}\u{7f}-\u{9f}\u{202a}-\u{202e}\u{2066}-\u{2069}\\[\\]\\\\;0-9]){0,64}"
        ) {
            let shown = for_terminal(&text);
            proptest::prop_assert!(!shown
                .chars()
                .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)));
            let again = for_terminal(&shown).into_owned();
            proptest::prop_assert_eq!(again.as_str(), shown.as_ref());
            let kept = strip_controls(&text);
            proptest::prop_assert!(!kept
                .chars()
                .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)));
            if !needs_cleaning(&text) {
                proptest::prop_assert_eq!(shown.as_ref(), text.as_str());
            }
            let line = terminal_line(&text);
            proptest::prop_assert!(!line.chars().any(|c| c.is_control() || is_bidi_control(c)));
        }
    }

    #[test]
    fn an_unterminated_osc_ends_at_the_line_end() {
        assert_eq!(strip_controls("a\u{1b}]0;oops\nb"), "a\nb");
        assert_eq!(strip_controls("trailing \u{1b}"), "trailing ");
    }
}
