//! Tokens and sentences for the second layer: the words of a text (lowercased and
//! interned, with contractions split so `can't` reads as `can not`), its numeric values as
//! single tokens, and the sentences constraints are compared in.
//!
//! The text read here has code, URLs, e-mail addresses and placeholders blanked (same
//! offsets as the original), so a `not` inside a code block is never a negation.

use std::borrow::Cow;

use super::vocab::{Id, Vocab};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok {
    /// A lowercased word (or a symbol such as `<=`, `+`), by its id in the check's vocab.
    Word(Id),
    /// The numeric value at this index of the text's value keys.
    Num(usize),
    /// Clause punctuation inside a sentence: `;`, `:`, `,`, `(`, `)`.
    Mark(char),
}

#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn id(&self) -> Option<Id> {
        match self.tok {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }
}

/// A sentence: a range of tokens and of bytes.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub tokens: std::ops::Range<usize>,
    pub start: usize,
    pub end: usize,
}

/// A numeric span given to the tokenizer: (start, end) in bytes, sorted, not overlapping.
pub type Span = (usize, usize);

/// The tokens of one text and its sentences.
pub struct Tokens {
    pub tokens: Vec<Token>,
    pub sentences: Vec<Sentence>,
}

/// Splits `text` into tokens and sentences, interning words in `vocab`. `numbers` are the
/// spans already known to be values (from the first layer), each one `Tok::Num` token;
/// number words stay words. `original` is the text before code and URLs were blanked
/// (same offsets): a line that only held inline code is not a blank line.
pub fn tokenize<'t>(
    text: &'t str,
    original: &str,
    numbers: &[Span],
    vocab: &mut Vocab<'t>,
) -> Tokens {
    let mut out = Tokens {
        tokens: Vec::with_capacity(text.len() / 5),
        sentences: Vec::new(),
    };
    let bytes = text.as_bytes();
    let mut next_num = 0;
    let mut first_tok = 0;
    let mut at = 0;
    let close = |out: &mut Tokens, first_tok: &mut usize| {
        if out.tokens.len() > *first_tok {
            out.sentences.push(Sentence {
                tokens: *first_tok..out.tokens.len(),
                start: out.tokens[*first_tok].start,
                end: out.tokens[out.tokens.len() - 1].end,
            });
        }
        *first_tok = out.tokens.len();
    };
    while at < text.len() {
        if next_num < numbers.len() && numbers[next_num].0 <= at {
            let (start, end) = numbers[next_num];
            if start >= at || end > at {
                out.tokens.push(Token {
                    tok: Tok::Num(next_num),
                    start,
                    end,
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
            let limit = numbers.get(next_num).map_or(text.len(), |n| n.0);
            let end = word_end(text, at, limit);
            push_word(&mut out.tokens, vocab, &text[at..end], at, end);
            at = end;
            continue;
        }
        match c {
            '.' | '!' | '?' => {
                let after = bytes.get(at + 1).copied();
                if after
                    .is_none_or(|a| a.is_ascii_whitespace() || a == b'*' || a == b'"' || a == b')')
                {
                    close(&mut out, &mut first_tok);
                }
            }
            ';' | ':' | ',' | '(' | ')' => out.tokens.push(Token {
                tok: Tok::Mark(c),
                start: at,
                end: at + 1,
            }),
            '<' | '>' | '≤' | '≥' | '+' => {
                let eq = bytes.get(at + 1) == Some(&b'=') && c.is_ascii();
                let end = at + len + usize::from(eq);
                let id = vocab.intern(Cow::Borrowed(&text[at..end]));
                out.tokens.push(Token {
                    tok: Tok::Word(id),
                    start: at,
                    end,
                });
                at = end;
                continue;
            }
            '\n' if hard_break(text, original, at + 1) => close(&mut out, &mut first_tok),
            _ => {}
        }
        at += len;
    }
    close(&mut out, &mut first_tok);
    out
}

/// Where the word starting at `at` ends: letters, digits, and apostrophes between letters.
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
        if ch.is_alphanumeric() || apostrophe {
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
/// quote, a table row, a fence.
fn hard_break(text: &str, original: &str, at: usize) -> bool {
    let line = &text[at.min(text.len())..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let t = line.trim_start();
    if t.is_empty() {
        // Blank here; in the original a blank line or a fence, not a line of inline code
        // or a URL (blanked for the reading, still part of the sentence).
        let raw = original
            .get(at..at + line.len())
            .unwrap_or("")
            .trim_start_matches([' ', '\t', '>']);
        return raw.trim().is_empty() || raw.starts_with("```") || raw.starts_with("~~~");
    }
    let b = t.as_bytes();
    if matches!(b[0], b'-' | b'*' | b'+' | b'#' | b'>' | b'|') {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && matches!(b.get(digits), Some(b'.' | b')'))
}

/// `can't` → (`can`, not), `don't` → (`do`, not), `cannot` → (`can`, not), `it's` → `it`.
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
    fn sentences_end_at_stops_and_block_breaks() {
        let mut v = Vocab::default();
        let text = "Do not share. Reply now\n- item one";
        let t = tokenize(text, text, &[], &mut v);
        assert_eq!(t.sentences.len(), 3);
        let words: Vec<&str> = t
            .tokens
            .iter()
            .filter_map(|t| t.id())
            .map(|i| v.word(i))
            .collect();
        assert_eq!(words, ["do", "not", "share", "reply", "now", "item", "one"]);
    }
}
