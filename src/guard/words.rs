//! Tokens and sentences for the second layer: the words of a text (lowercased, with
//! contractions split so `can't` reads as `can not`), its numeric values as single tokens,
//! and the sentences constraints are compared in.
//!
//! The text read here has code, URLs, e-mail addresses and placeholders blanked (same
//! offsets as the original), so a `not` inside a code block is never a negation.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A lowercased word (or a symbol such as `<=`, `+`).
    Word(String),
    /// The numeric value at this index of the text's [`super::bindings::Value`] list.
    Num(usize),
    /// Clause punctuation inside a sentence: `;`, `:`, `,`, `(`, `)`.
    Mark(char),
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn word(&self) -> Option<&str> {
        match &self.tok {
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

/// Splits `text` into tokens and sentences. `numbers` are the spans already known to be
/// values (from the first layer), each one `Tok::Num` token; number words stay words.
pub fn tokenize(text: &str, numbers: &[Span]) -> (Vec<Token>, Vec<Sentence>) {
    let mut tokens = Vec::new();
    let mut sentences = Vec::new();
    let bytes = text.as_bytes();
    let mut next_num = 0;
    let mut sentence_start_tok = 0;
    let mut sentence_start = None::<usize>;
    let mut at = 0;
    let mut close = |tokens: &Vec<Token>, start_tok: &mut usize, start: &mut Option<usize>| {
        if tokens.len() > *start_tok {
            let first = tokens[*start_tok].start;
            let last = tokens[tokens.len() - 1].end;
            sentences.push(Sentence {
                tokens: *start_tok..tokens.len(),
                start: start.unwrap_or(first).min(first),
                end: last,
            });
        }
        *start_tok = tokens.len();
        *start = None;
    };
    while at < text.len() {
        if next_num < numbers.len() && numbers[next_num].0 <= at {
            let (start, end) = numbers[next_num];
            if start >= at || end > at {
                tokens.push(Token {
                    tok: Tok::Num(next_num),
                    start,
                    end,
                });
                at = end.max(at + 1);
            }
            next_num += 1;
            continue;
        }
        let limit = numbers.get(next_num).map_or(text.len(), |n| n.0);
        let c = text[at..].chars().next().unwrap_or(' ');
        let len = c.len_utf8();
        if c.is_alphabetic() {
            let mut end = at;
            for (i, ch) in text[at..limit].char_indices() {
                let apostrophe = (ch == '\'' || ch == '’')
                    && text[at + i + ch.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphabetic);
                if ch.is_alphanumeric() || apostrophe {
                    end = at + i + ch.len_utf8();
                } else {
                    break;
                }
            }
            let raw = text[at..end].to_lowercase().replace('’', "'");
            for word in split_contraction(&raw) {
                tokens.push(Token {
                    tok: Tok::Word(word),
                    start: at,
                    end,
                });
            }
            at = end;
            continue;
        }
        match c {
            '.' | '!' | '?' => {
                let after = text[at + 1..].chars().next();
                if after.is_none_or(|a| a.is_whitespace() || a == '*' || a == '"' || a == ')') {
                    close(&tokens, &mut sentence_start_tok, &mut sentence_start);
                }
            }
            ';' | ':' | ',' | '(' | ')' => tokens.push(Token {
                tok: Tok::Mark(c),
                start: at,
                end: at + 1,
            }),
            '<' | '>' | '≤' | '≥' | '+' => {
                let eq = bytes.get(at + 1) == Some(&b'=') && c.is_ascii();
                let end = at + len + usize::from(eq);
                tokens.push(Token {
                    tok: Tok::Word(text[at..end].to_string()),
                    start: at,
                    end,
                });
                at = end;
                continue;
            }
            '\n' if hard_break(text, at + 1) => {
                close(&tokens, &mut sentence_start_tok, &mut sentence_start);
            }
            _ => {}
        }
        at += len;
    }
    close(&tokens, &mut sentence_start_tok, &mut sentence_start);
    (tokens, sentences)
}

/// Whether the line starting at `at` begins a new block: blank, a list item, a heading, a
/// quote, a table row, a fence.
fn hard_break(text: &str, at: usize) -> bool {
    let line = &text[at.min(text.len())..];
    let line = line.split('\n').next().unwrap_or("");
    let t = line.trim_start();
    if t.is_empty() {
        return true;
    }
    let b = t.as_bytes();
    if matches!(b[0], b'-' | b'*' | b'+' | b'#' | b'>' | b'|') {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && matches!(b.get(digits), Some(b'.' | b')'))
}

/// `can't` → `can not`, `don't` → `do not`, `cannot` → `can not`, `it's` → `it`.
fn split_contraction(word: &str) -> Vec<String> {
    if word == "cannot" {
        return vec!["can".into(), "not".into()];
    }
    if let Some(base) = word.strip_suffix("n't") {
        let base = match base {
            "ca" => "can",
            "wo" => "will",
            "sha" => "shall",
            "ai" => "is",
            other => other,
        };
        return vec![base.to_string(), "not".into()];
    }
    for suffix in ["'s", "'re", "'ll", "'ve", "'d", "'m"] {
        if let Some(base) = word.strip_suffix(suffix) {
            return vec![base.to_string()];
        }
    }
    vec![word.to_string()]
}

/// The lowercased words of a text, cheaply (for language detection).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
}

/// A crude English stem, only ever compared with another stem: `refunds` = `refund`,
/// `verified` = `verify` = `verifies`, `shared` = `share` = `sharing`.
pub fn stem(word: &str) -> String {
    let w = word;
    if w.chars().count() <= 3 {
        return w.to_string();
    }
    for (suffix, with) in [("ies", "y"), ("ied", "y"), ("ying", "y")] {
        if let Some(base) = w.strip_suffix(suffix) {
            return format!("{base}{with}");
        }
    }
    for suffix in ["ing", "ed", "es", "s", "e"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            return base.trim_end_matches('e').to_string();
        }
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_agree_across_inflections() {
        assert_eq!(stem("verified"), stem("verify"));
        assert_eq!(stem("verifies"), stem("verify"));
        assert_eq!(stem("shared"), stem("share"));
        assert_eq!(stem("sharing"), stem("share"));
        assert_eq!(stem("refunds"), stem("refund"));
        assert_eq!(stem("bags"), stem("bag"));
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn contractions_split_into_their_negation() {
        assert_eq!(split_contraction("can't"), ["can", "not"]);
        assert_eq!(split_contraction("don't"), ["do", "not"]);
        assert_eq!(split_contraction("won't"), ["will", "not"]);
        assert_eq!(split_contraction("cannot"), ["can", "not"]);
    }
}
