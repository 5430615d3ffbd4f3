//! Tokens and sentences for the second and third layers: the words of a text (lowercased
//! and interned, with contractions split so `can't` reads as `can not`), its numeric
//! values as single tokens, and the sentences constraints are compared in.
//!
//! Code, URLs, e-mail addresses and placeholders are skipped (the `hidden` spans of the
//! first layer), so a `not` inside a code block is never a negation. A text is read one
//! sentence at a time into a reused buffer: the tokens of a long text are never all held
//! at once.

use std::borrow::Cow;
use std::ops::Range;

use super::vocab::{Id, Vocab};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok {
    /// A lowercased word (or a symbol such as `<=`, `+`), by its id in the check's vocab.
    Word(Id),
    /// The numeric value at this index of the text's value keys.
    Num(u32),
    /// Clause punctuation inside a sentence: `;`, `:`, `,`, `(`, `)`.
    Mark(char),
}

#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
    /// Joined to the token before by `-`, `_` or `/` (`follow-ups`, `look_up`): part of
    /// a compound or a name.
    pub glued: bool,
}

impl Token {
    pub fn id(&self) -> Option<Id> {
        match self.tok {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }
}

/// A sentence: its bytes, first token to last.
#[derive(Debug, Clone, Copy)]
pub struct Sentence {
    pub start: usize,
    pub end: usize,
}

/// A numeric span given to the tokenizer: (start, end) in bytes, sorted, not overlapping.
pub type Span = (usize, usize);

/// Whether the line starting at `at` reads as blank: only spaces and hidden spans. `h` is
/// the index of the first hidden span that ends after `at`.
fn blank_line(text: &str, hidden: &[Range<usize>], at: usize, mut h: usize) -> bool {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < bytes.len() && bytes[i] != b'\n' {
        while h < hidden.len() && hidden[h].end <= i {
            h += 1;
        }
        if let Some(span) = hidden.get(h).filter(|s| s.start <= i) {
            i = span.end;
            continue;
        }
        if !bytes[i].is_ascii_whitespace() {
            return false;
        }
        i += 1;
    }
    true
}

/// Reads `text` sentence by sentence, interning words in `vocab`, and calls `each` with
/// the vocabulary, the sentence's tokens (a buffer reused for the next sentence) and its
/// bytes; `each` returns `false` to stop early. `numbers` are the spans already known to
/// be values (from the first layer), each one `Tok::Num` token; number words stay words.
/// `hidden` (sorted) are skipped: a line that only held inline code is not a blank line,
/// but a fence is a break.
pub fn each_sentence<'t, F>(
    text: &'t str,
    hidden: &[Range<usize>],
    numbers: &[Span],
    vocab: &mut Vocab<'t>,
    mut each: F,
) where
    F: FnMut(&mut Vocab<'t>, &mut Vec<Token>, Sentence) -> bool,
{
    let mut buf: Vec<Token> = Vec::with_capacity(64);
    let bytes = text.as_bytes();
    let mut next_num = 0;
    let mut h = 0;
    let mut at = 0;
    let mut close = |vocab: &mut Vocab<'t>, buf: &mut Vec<Token>| -> bool {
        if buf.is_empty() {
            return true;
        }
        let sentence = Sentence {
            start: buf[0].start,
            end: buf[buf.len() - 1].end,
        };
        let go = each(vocab, buf, sentence);
        buf.clear();
        go
    };
    while at < text.len() {
        while h < hidden.len() && hidden[h].end <= at {
            h += 1;
        }
        if let Some(span) = hidden.get(h).filter(|s| s.start <= at) {
            // Skipped, but its line breaks still end sentences where the reading shows a
            // blank line that the original has too (a fenced block between paragraphs).
            let end = span.end.min(text.len());
            let mut from = at;
            while let Some(n) = text[from..end].find('\n') {
                let line = from + n + 1;
                if hard_break(text, hidden, line, h) && !close(vocab, &mut buf) {
                    return;
                }
                from = line;
            }
            at = end.max(at + 1);
            continue;
        }
        if next_num < numbers.len() && numbers[next_num].0 <= at {
            let (start, end) = numbers[next_num];
            if start >= at || end > at {
                buf.push(Token {
                    tok: Tok::Num(next_num as u32),
                    start,
                    end,
                    glued: false,
                });
                at = end.max(at + 1);
            }
            next_num += 1;
            continue;
        }
        let b = bytes[at];
        let (c, len) = if b.is_ascii() {
            (b as char, 1)
        } else {
            let c = text[at..].chars().next().unwrap_or(' ');
            (c, c.len_utf8())
        };
        if c.is_alphabetic() {
            let limit = numbers
                .get(next_num)
                .map_or(text.len(), |n| n.0)
                .min(hidden.get(h).map_or(text.len(), |s| s.start.max(at)));
            // A script written without spaces between words (Chinese, Japanese) is read a
            // character at a time: each is a word, so a reworded sentence shares most of them.
            let end = if unspaced(c) {
                at + len
            } else {
                word_end(text, at, limit)
            };
            let glued = at > 0
                && matches!(bytes[at - 1], b'-' | b'_' | b'/')
                && buf.last().is_some_and(|t| t.end + 1 == at);
            push_word(&mut buf, vocab, &text[at..end], at, end);
            if glued && let Some(last) = buf.last_mut() {
                last.glued = true;
            }
            at = end;
            continue;
        }
        match c {
            '.' | '!' | '?' => {
                let after = bytes.get(at + 1).copied();
                if after
                    .is_none_or(|a| a.is_ascii_whitespace() || a == b'*' || a == b'"' || a == b')')
                    && !(c == '.' && latin_aside(&text[..at]))
                    && !close(vocab, &mut buf)
                {
                    return;
                }
            }
            ';' | ':' | ',' | '(' | ')' => buf.push(Token {
                tok: Tok::Mark(c),
                start: at,
                end: at + 1,
                glued: false,
            }),
            // Full-width punctuation, as the text's own script writes it.
            '。' | '！' | '？' if !close(vocab, &mut buf) => return,
            '；' | '：' | '，' | '、' | '（' | '）' => buf.push(Token {
                tok: Tok::Mark(match c {
                    '；' => ';',
                    '：' => ':',
                    '（' => '(',
                    '）' => ')',
                    _ => ',',
                }),
                start: at,
                end: at + len,
                glued: false,
            }),
            '<' | '>' | '≤' | '≥' | '+' => {
                let eq = bytes.get(at + 1) == Some(&b'=') && c.is_ascii();
                let end = at + len + usize::from(eq);
                let id = vocab.intern(Cow::Borrowed(&text[at..end]));
                buf.push(Token {
                    tok: Tok::Word(id),
                    start: at,
                    end,
                    glued: false,
                });
                at = end;
                continue;
            }
            '\n' if hard_break(text, hidden, at + 1, h) && !close(vocab, &mut buf) => return,
            _ => {}
        }
        at += len;
    }
    close(vocab, &mut buf);
}

/// Whether `c` is of a script written without spaces between words: Han ideographs,
/// Hiragana and Katakana (Korean Hangul is written with spaces).
pub(crate) fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B and later
}

/// Where the word starting at `at` ends: letters, digits, and apostrophes between letters
/// (a character of a script without spaces ends it: it is a word of its own).
fn word_end(text: &str, at: usize, limit: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = at;
    while end < limit {
        let b = bytes[end];
        if b.is_ascii_alphanumeric() {
            end += 1;
            continue;
        }
        let Some(ch) = text[end..limit].chars().next() else {
            break;
        };
        let next = end + ch.len_utf8();
        let apostrophe = (ch == '\'' || ch == '’')
            && text[next..].chars().next().is_some_and(char::is_alphabetic);
        if (ch.is_alphanumeric() && !unspaced(ch)) || apostrophe {
            end = next;
        } else {
            break;
        }
    }
    end
}

/// Pushes the tokens of one word, a contraction as two (`can't` → `can`, `not`).
fn push_word<'t>(
    tokens: &mut Vec<Token>,
    vocab: &mut Vocab<'t>,
    raw: &'t str,
    start: usize,
    end: usize,
) {
    let mut push = |id| {
        tokens.push(Token {
            tok: Tok::Word(id),
            start,
            end,
            glued: false,
        })
    };
    let id = vocab.intern_raw(raw);
    let word = vocab.word(id);
    // Only a word with an apostrophe (or `cannot`) is a contraction.
    if !word.contains('\'') && word != "cannot" {
        push(id);
        return;
    }
    let (base, not) = split_contraction(word);
    let base = base.to_string();
    let base = vocab.intern_str(&base);
    push(base);
    if not {
        let not = vocab.intern(Cow::Borrowed("not"));
        push(not);
    }
}

/// Whether the line starting at `at` begins a new block: blank, a list item, a heading, a
/// quote, a table row, a fence. A line of only hidden spans is blank when the original
/// line is blank or a fence, not when it held inline code or a URL (still part of the
/// sentence). `h` is the index of the first hidden span that ends after the line break.
fn hard_break(text: &str, hidden: &[Range<usize>], at: usize, h: usize) -> bool {
    let line = &text[at.min(text.len())..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let t = line.trim_start_matches([' ', '\t', '>']);
    if t.trim().is_empty() || t.starts_with("```") || t.starts_with("~~~") {
        return true;
    }
    if blank_line(text, hidden, at, h) {
        return false;
    }
    let t = line.trim_start();
    let b = t.as_bytes();
    if matches!(b[0], b'-' | b'*' | b'+' | b'#' | b'>' | b'|') {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && matches!(b.get(digits), Some(b'.' | b')'))
}

/// `can't` → (`can`, not), `don't` → (`do`, not), `cannot` → (`can`, not), `it's` → `it`.
/// Whether a text ends with `e.g` or `i.e` (its last stop still to come): that stop opens
/// an example or a gloss inside the sentence, never ends it.
fn latin_aside(before: &str) -> bool {
    let b = before.as_bytes();
    let n = b.len();
    n >= 3
        && (b[n - 3..].eq_ignore_ascii_case(b"e.g") || b[n - 3..].eq_ignore_ascii_case(b"i.e"))
        && (n == 3 || !b[n - 4].is_ascii_alphanumeric())
}

fn split_contraction(word: &str) -> (&str, bool) {
    if word == "cannot" {
        return ("can", true);
    }
    if let Some(base) = word.strip_suffix("n't") {
        let base = match base {
            "ca" => "can",
            "wo" => "will",
            "sha" => "shall",
            "ai" => "is",
            other => other,
        };
        return (base, true);
    }
    for suffix in ["'s", "'re", "'ll", "'ve", "'d", "'m"] {
        if let Some(base) = word.strip_suffix(suffix) {
            return (base, false);
        }
    }
    (word, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_split_into_their_negation() {
        assert_eq!(split_contraction("can't"), ("can", true));
        assert_eq!(split_contraction("don't"), ("do", true));
        assert_eq!(split_contraction("won't"), ("will", true));
        assert_eq!(split_contraction("cannot"), ("can", true));
        assert_eq!(split_contraction("it's"), ("it", false));
    }

    #[test]
    fn a_stop_of_e_g_or_i_e_ends_no_sentence() {
        let mut v = Vocab::default();
        let text =
            "Build through make (i.e. the all target), e.g. nightly. Then ship. Café, i.e. bar.";
        let mut sentences = 0;
        each_sentence(text, &[], &[], &mut v, |_, _, _| {
            sentences += 1;
            true
        });
        assert_eq!(sentences, 3);
    }

    #[test]
    fn sentences_end_at_stops_and_block_breaks() {
        let mut v = Vocab::default();
        let text = "Do not share. Reply now\n- item one `code` here\n\n```\nx\n```\nlast";
        let hidden = [35..41, 48..57];
        assert_eq!(&text[hidden[0].clone()], "`code`");
        let mut sentences = 0;
        let mut ids = Vec::new();
        each_sentence(text, &hidden, &[], &mut v, |_, toks, _| {
            sentences += 1;
            ids.extend(toks.iter().filter_map(Token::id));
            true
        });
        assert_eq!(sentences, 4);
        let words: Vec<&str> = ids.iter().map(|&i| v.word(i)).collect();
        assert_eq!(
            words,
            [
                "do", "not", "share", "reply", "now", "item", "one", "here", "last"
            ]
        );
    }
}
