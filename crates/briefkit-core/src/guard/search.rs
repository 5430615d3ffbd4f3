//! Which of many code facts occur in a text, in time linear in the facts plus the text.
//!
//! An occurrence counts only where it fits (a block's code as whole lines after any
//! indentation or quote markers, inline code as a whole token). Checking that per hit let
//! facts sharing a beginning re-verify at every hit, and the `aho-corasick` crate's
//! automaton build is itself quadratic in its number of patterns: 40,000 dropped code
//! blocks took seconds. Instead, both the text and each fact are rewritten with boundary
//! marks (bytes that never occur in UTF-8), so that "occurs where it fits" becomes "the
//! marked fact is a substring of the marked text"; then one hand-built Aho-Corasick
//! automaton finds which marked facts occur, visiting each dictionary entry once.

use super::hash::FxMap;

/// Where a line's content starts, after its indentation and quote markers.
const CONTENT: u8 = 0xFE;
/// Where a line ends (before `\n`, `\r`, or the end of the text).
const LINE_END: u8 = 0xFD;
/// A word boundary: between a word character and another character, or the text's edge.
const BOUNDARY: u8 = 0xFF;

fn is_prefix(c: char) -> bool {
    matches!(c, ' ' | '\t' | '>')
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with block marks: [`CONTENT`] after each line's leading indentation and quote
/// markers, [`LINE_END`] before each `\n` and `\r` and at the end.
pub fn mark_lines(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16 + 2);
    let mut in_prefix = true;
    for c in text.chars() {
        if in_prefix && !is_prefix(c) {
            out.push(CONTENT);
            in_prefix = false;
        }
        if c == '\n' || c == '\r' {
            if in_prefix {
                out.push(CONTENT);
            }
            out.push(LINE_END);
            in_prefix = c == '\n';
        }
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    if in_prefix {
        out.push(CONTENT);
    }
    out.push(LINE_END);
    out
}

/// The text with [`BOUNDARY`] at every word boundary, the text's edges included when a
/// word character stands there.
pub fn mark_words(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 4 + 2);
    let mut previous: Option<bool> = None;
    for c in text.chars() {
        let word = is_word(c);
        if previous.map_or(word, |p| p != word) {
            out.push(BOUNDARY);
        }
        previous = Some(word);
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    if previous == Some(true) {
        out.push(BOUNDARY);
    }
    out
}

/// A code block's marked form: it must start where a line's content starts (its own
/// leading indentation, if any, ending that line's indentation) and end a line.
pub fn marked_block(code: &str) -> Vec<u8> {
    mark_lines(code)
}

/// An inline code span's marked form: a word character at either edge must stand at a
/// word boundary of the text, which the marked text has wherever one is.
pub fn marked_token(code: &str) -> Vec<u8> {
    mark_words(code)
}

/// Which of `patterns` occur in `text` (both already marked), in time linear in their
/// total length.
pub fn occurring(patterns: &[Vec<u8>], text: &[u8]) -> Vec<bool> {
    let mut trie = Trie::default();
    let ends: Vec<Option<u32>> = patterns
        .iter()
        .map(|p| (!p.is_empty()).then(|| trie.insert(p)))
        .collect();
    trie.link();
    let seen = trie.scan(text);
    ends.iter()
        .map(|end| end.is_none_or(|node| seen[node as usize]))
        .collect()
}

/// An Aho-Corasick automaton over bytes: goto edges, failure links, and dictionary links
/// to the nearest proper suffix that ends a pattern.
///
/// Most nodes of a trie of long patterns (code blocks) have one child, made right after
/// them: that edge is the node's [`Trie::chain`] byte, to the next node; only the others
/// go in the map. A map entry per byte of every pattern was most of the guard's memory on
/// a text whose code blocks the other text lacks.
#[derive(Default)]
struct Trie {
    edges: FxMap<(u32, u8), u32>,
    /// Per node: the byte leading to node + 1, or [`NO_CHAIN`].
    chain: Vec<u16>,
    /// The root's edges as a table: most steps of a scan start there.
    root: Vec<u32>,
    fail: Vec<u32>,
    dict: Vec<u32>,
    terminal: Vec<bool>,
}

const NONE: u32 = u32::MAX;
const NO_CHAIN: u16 = u16::MAX;

impl Trie {
    fn node(&mut self) -> u32 {
        self.fail.push(0);
        self.dict.push(NONE);
        self.terminal.push(false);
        self.chain.push(NO_CHAIN);
        (self.terminal.len() - 1) as u32
    }

    fn child(&self, at: u32, b: u8) -> Option<u32> {
        if self.chain[at as usize] == u16::from(b) {
            return Some(at + 1);
        }
        self.edges.get(&(at, b)).copied()
    }

    fn insert(&mut self, pattern: &[u8]) -> u32 {
        if self.terminal.is_empty() {
            self.node();
        }
        let mut at = 0;
        for &b in pattern {
            at = match self.child(at, b) {
                Some(next) => next,
                None => {
                    let next = self.node();
                    if next == at + 1 && self.chain[at as usize] == NO_CHAIN {
                        self.chain[at as usize] = u16::from(b);
                    } else {
                        self.edges.insert((at, b), next);
                    }
                    next
                }
            };
        }
        self.terminal[at as usize] = true;
        at
    }

    /// Breadth-first failure and dictionary links.
    fn link(&mut self) {
        if self.terminal.is_empty() {
            self.node();
        }
        self.root = (0..=255u8).map(|b| self.child(0, b).unwrap_or(0)).collect();
        // Each node's children, laid out flat by node (a counting sort of the edges): one
        // vector per node was an allocation per byte of every pattern.
        let nodes = self.terminal.len();
        let chained = (0..nodes).filter(|&n| self.chain[n] != NO_CHAIN);
        let mut first = vec![0u32; nodes + 1];
        for from in self
            .edges
            .keys()
            .map(|&(from, _)| from as usize)
            .chain(chained.clone())
        {
            first[from + 1] += 1;
        }
        for i in 0..nodes {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut children = vec![(0u8, 0u32); first[nodes] as usize];
        let sequential = chained.map(|n| ((n as u32, self.chain[n] as u8), n as u32 + 1));
        for ((from, b), to) in self.edges.iter().map(|(&k, &v)| (k, v)).chain(sequential) {
            children[fill[from as usize] as usize] = (b, to);
            fill[from as usize] += 1;
        }
        drop(fill);
        let mut queue = std::collections::VecDeque::from([0u32]);
        while let Some(node) = queue.pop_front() {
            let own = first[node as usize] as usize..first[node as usize + 1] as usize;
            for &(b, child) in &children[own] {
                let fail = if node == 0 {
                    0
                } else {
                    self.step(self.fail[node as usize], b)
                };
                self.fail[child as usize] = fail;
                self.dict[child as usize] = if self.terminal[fail as usize] {
                    fail
                } else {
                    self.dict[fail as usize]
                };
                queue.push_back(child);
            }
        }
    }

    fn step(&self, mut state: u32, b: u8) -> u32 {
        loop {
            if state == 0 {
                return self.root[b as usize];
            }
            if let Some(next) = self.child(state, b) {
                return next;
            }
            state = self.fail[state as usize];
        }
    }

    /// Marks every node whose pattern occurs in `text`. A dictionary chain is walked only
    /// up to the first node already marked (its own chain was marked with it), so each
    /// node is marked once.
    fn scan(&self, text: &[u8]) -> Vec<bool> {
        let mut seen = vec![false; self.terminal.len()];
        let mut state = 0;
        for &b in text {
            state = self.step(state, b);
            let mut at = if self.terminal[state as usize] {
                state
            } else {
                self.dict[state as usize]
            };
            while at != NONE && !seen[at as usize] {
                seen[at as usize] = true;
                at = self.dict[at as usize];
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_in(code: &str, text: &str) -> bool {
        occurring(&[marked_block(code)], &mark_lines(text))[0]
    }

    fn token_in(code: &str, text: &str) -> bool {
        occurring(&[marked_token(code)], &mark_words(text))[0]
    }

    #[test]
    fn a_block_counts_as_whole_lines_after_indentation_or_quotes() {
        assert!(block_in("let x = 1;", "let x = 1;\n"));
        assert!(block_in("let x = 1;", "prose\n    let x = 1;\r\nmore"));
        assert!(block_in("a\nb", "> a\nb\n"));
        assert!(block_in("  a", "    a\n"));
        assert!(!block_in("let x = 1;", "so let x = 1;\n"));
        assert!(!block_in("let x = 1;", "let x = 1; // no\n"));
        assert!(!block_in("a\nb", "a\n b\n"));
        assert!(!block_in("  a", " a\n"));
    }

    #[test]
    fn inline_code_counts_as_a_whole_token() {
        assert!(token_in("id", "the id field"));
        assert!(token_in("id", "id"));
        assert!(token_in("--json", "pass --json here"));
        assert!(token_in("x.y", "call(x.y)"));
        assert!(token_in("é_1", "voilà é_1."));
        assert!(!token_in("id", "provide"));
        assert!(!token_in("id", "ids"));
        assert!(!token_in("é", "éa"));
    }

    proptest::proptest! {
        /// Over a small alphabet (so patterns share beginnings, nest and repeat, and the
        /// chained and mapped edges mix), the automaton answers as a substring search does.
        #[test]
        fn the_automaton_agrees_with_a_plain_substring_search(
            patterns in proptest::collection::vec("[ab\n]{0,6}", 0..12),
            text in "[ab\n]{0,40}",
        ) {
            let patterns: Vec<Vec<u8>> = patterns.iter().map(|p| p.as_bytes().to_vec()).collect();
            let plain: Vec<bool> = patterns
                .iter()
                .map(|p| p.is_empty() || text.as_bytes().windows(p.len()).any(|w| w == &p[..]))
                .collect();
            proptest::prop_assert_eq!(occurring(&patterns, text.as_bytes()), plain);
        }
    }

    #[test]
    fn patterns_sharing_a_beginning_or_nested_in_each_other_are_each_found() {
        let patterns: Vec<Vec<u8>> = ["he", "she", "his", "hers", "", "x"]
            .iter()
            .map(|p| p.as_bytes().to_vec())
            .collect();
        assert_eq!(
            occurring(&patterns, b"ushers"),
            vec![true, true, false, true, true, false]
        );
    }
}
