//! Exact counts of many texts that share most of their words (`brief stats`: each item as
//! written and compacted, then the prefix and the volatile template built from them).
//!
//! Both encoders first cut text into pieces with a regular expression, then byte-pair encode
//! each piece alone, so a text's count is the sum of its pieces'. Where a text has a space
//! right after a character that is not whitespace, a piece always ends, whatever follows:
//! no alternative of either pattern (o200k_base's or cl100k_base's) matches a
//! non-whitespace character followed by a space (a space only ever opens a piece, or is
//! part of a run of whitespace), so every match attempt dies on that space. Such a *hard
//! boundary* splits a text into segments whose pieces are the same alone as in the text;
//! so a text's count is the sum of its segments' counts, each segment counted alone. A
//! segment is typically one word with the space before it, and each distinct one is counted
//! once ([`Counter::count`]). The same cut gives the count of texts joined by a separator
//! from the parts' own counts, counting only the few words on either side of each join
//! ([`Counter::count_joined`]).
//!
//! Tests compare every figure here with a direct count of the whole text, including
//! property tests over text made of the characters that matter (spaces, other Unicode
//! whitespace, line breaks, apostrophes, letters of every case, digits, punctuation).

use std::collections::HashMap;

use super::{Encoding, count};

/// Segments longer than this are counted each time: long runs without a space (code,
/// URLs, Chinese or Japanese text) rarely repeat, and would make the memo large.
const MEMO_BYTES: usize = 48;
/// At most this many remembered segments (bounds the memory on hostile input).
const MEMO_ENTRIES: usize = 1 << 20;

/// Counts texts in one encoding, remembering the count of each short segment.
pub struct Counter {
    encoding: Encoding,
    memo: HashMap<Box<str>, u32, foldhash::fast::RandomState>,
}

impl Counter {
    /// Loads no vocabulary until a non-empty text is counted.
    pub fn new(encoding: Encoding) -> Self {
        Counter {
            encoding,
            memo: HashMap::default(),
        }
    }

    /// Exact token count of `text`: equal to [`count`] of the whole text.
    pub fn count(&mut self, text: &str) -> usize {
        let mut total = 0;
        let mut start = 0;
        for q in hard_boundaries(text) {
            total += self.segment(&text[start..q]);
            start = q;
        }
        total + self.segment(&text[start..])
    }

    /// Exact token count of `text[..len]`, given that `text` has `tokens` tokens: only the
    /// last segment is counted again.
    pub fn count_prefix(&mut self, text: &str, tokens: usize, len: usize) -> usize {
        if len == text.len() {
            return tokens;
        }
        match last_boundary(&text[..len]) {
            // Segments before `q` are the same in both texts.
            Some(q) => tokens - self.count(&text[q..]) + self.count(&text[q..len]),
            None => self.count(&text[..len]),
        }
    }

    /// Exact token count of `parts` joined with `separator`, given each part's own count:
    /// equal to [`count`] of the joined text. Only each part's first and last segment and
    /// the text around each join are counted. `separator` must be whitespace without a
    /// space (such as `"\n\n"`), so that a join makes no hard boundary of its own.
    pub fn count_joined(&mut self, parts: &[(&str, usize)], separator: &str) -> usize {
        assert!(
            separator.chars().all(|c| c.is_whitespace() && c != ' '),
            "a separator must be whitespace other than spaces"
        );
        let mut total = 0;
        // The text since the last hard boundary, across joins: one segment of the whole.
        let mut bridge = String::new();
        for (i, &(text, tokens)) in parts.iter().enumerate() {
            if i > 0 {
                bridge.push_str(separator);
            }
            match (first_boundary(text), last_boundary(text)) {
                (Some(first), Some(last)) => {
                    bridge.push_str(&text[..first]);
                    total += self.segment(&bridge);
                    bridge.clear();
                    // The part's own segments between its first and last hard boundary.
                    total += tokens;
                    total -= self.segment(&text[..first]) + self.segment(&text[last..]);
                    bridge.push_str(&text[last..]);
                }
                _ => bridge.push_str(text),
            }
        }
        total + self.segment(&bridge)
    }

    /// One segment (text without a hard boundary after its first byte).
    fn segment(&mut self, segment: &str) -> usize {
        if segment.len() > MEMO_BYTES {
            return count(self.encoding, segment);
        }
        if let Some(&n) = self.memo.get(segment) {
            return n as usize;
        }
        let n = count(self.encoding, segment);
        if self.memo.len() < MEMO_ENTRIES {
            self.memo.insert(segment.into(), n as u32);
        }
        n
    }
}

/// Whitespace as the encoders' `\s` means it (Unicode `White_Space`).
fn is_space_before(text: &str, q: usize) -> bool {
    match text.as_bytes()[q - 1] {
        b @ 0..=0x7f => matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' '),
        _ => text[..q]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace),
    }
}

/// Byte offsets `q > 0` where `text[q]` is a space and the character before it is not
/// whitespace: the encoders' pre-tokenisers end a piece there whatever follows.
fn hard_boundaries(text: &str) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b' ', text.as_bytes()).filter(move |&q| q > 0 && !is_space_before(text, q))
}

fn first_boundary(text: &str) -> Option<usize> {
    hard_boundaries(text).next()
}

pub(super) fn last_boundary(text: &str) -> Option<usize> {
    memchr::memrchr_iter(b' ', text.as_bytes()).find(|&q| q > 0 && !is_space_before(text, q))
}

#[cfg(test)]
#[path = "memo_tests.rs"]
mod tests;
