//! The pre-tokeniser: an encoding's split pattern as a dense DFA compiled by `build.rs` and
//! read in place from the executable (`DFA::from_bytes` checks it once, without copying:
//! about a millisecond), where compiling the pattern at run time took 11 ms.

use regex_automata::dfa::{Automaton, dense};
use regex_automata::{Anchored, Input};

/// The pattern whose match takes one character of look-ahead (`\s+\s`, standing for
/// `\s+(?!\S)`): the splitter gives that character back (as `bpe-openai` does).
const LOOKAHEAD_PATTERN: usize = 1;

/// A byte array aligned for the DFA's `u32` transitions (`DFA::from_bytes` requires it).
#[repr(C)]
pub(super) struct Aligned<B: ?Sized> {
    pub(super) _align: [u32; 0],
    pub(super) bytes: B,
}

/// `include_bytes!` of a file, 4-byte aligned.
macro_rules! aligned {
    ($path:expr) => {{
        static ALIGNED: &split::Aligned<[u8]> = &split::Aligned {
            _align: [],
            bytes: *include_bytes!($path),
        };
        &ALIGNED.bytes
    }};
}
pub(super) use aligned;

pub(super) struct Splitter {
    dfa: dense::DFA<&'static [u32]>,
}

impl Splitter {
    pub(super) fn from_bytes(bytes: &'static [u8]) -> Splitter {
        let (dfa, _) = dense::DFA::from_bytes(bytes).expect("build.rs wrote a valid DFA");
        Splitter { dfa }
    }

    pub(super) fn pieces<'a>(&'a self, text: &'a str) -> Pieces<'a> {
        Pieces {
            dfa: &self.dfa,
            text,
            last: 0,
        }
    }
}

pub(super) struct Pieces<'a> {
    dfa: &'a dense::DFA<&'static [u32]>,
    text: &'a str,
    last: usize,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = &self.text[self.last..];
        if rest.is_empty() {
            return None;
        }
        // Every character starts a match of some pattern, and a dense DFA without quit
        // bytes never fails; were either not so, the rest would be one piece.
        let found = self
            .dfa
            .try_search_fwd(&Input::new(rest).anchored(Anchored::Yes))
            .ok()
            .flatten();
        let mut end = match found {
            Some(m) if m.offset() > 0 => {
                let mut end = m.offset();
                if m.pattern().as_usize() == LOOKAHEAD_PATTERN {
                    let last = rest[..end].chars().next_back().map_or(0, char::len_utf8);
                    if end > last {
                        end -= last;
                    }
                }
                end
            }
            _ => rest.len(),
        };
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        self.last += end;
        Some(&rest[..end])
    }
}
