//! Byte-pair merging as tiktoken does it: start from single bytes and, while some adjacent
//! pair of parts is a token, merge the pair of lowest rank (the leftmost of equal ranks).
//! The number of parts left is the piece's count.
//!
//! Short pieces (nearly all: a word and its space) merge in a small array, rescanning for
//! the lowest rank after each merge as tiktoken does; a long piece (a run of letters or
//! symbols without a space, on hostile input megabytes long) keeps its candidate pairs in
//! a heap instead, so it costs O(n log n) rather than O(n²).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Vocab;

/// Pieces up to this many bytes merge in an array on the stack.
const SHORT: usize = 64;

const NONE: u32 = u32::MAX;

/// The number of tokens `piece` encodes to.
pub(super) fn count(vocab: &Vocab, piece: &[u8]) -> usize {
    if piece.len() <= 1 || vocab.rank(piece).is_some() {
        return piece.len().min(1);
    }
    if piece.len() <= SHORT {
        count_short(vocab, piece)
    } else {
        count_long(vocab, piece)
    }
}

fn rank_or_none(vocab: &Vocab, key: &[u8]) -> u32 {
    vocab.rank(key).unwrap_or(NONE)
}

/// tiktoken's `_byte_pair_merge`: `parts[i]` is where part `i` starts and the rank of
/// part `i` joined with part `i + 1`.
fn count_short(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let mut starts = [0u8; SHORT + 1];
    let mut ranks = [NONE; SHORT + 1];
    for (i, start) in starts.iter_mut().enumerate().take(n + 1) {
        *start = i as u8;
    }
    for (i, rank) in ranks.iter_mut().enumerate().take(n - 1) {
        *rank = rank_or_none(vocab, &piece[i..i + 2]);
    }
    // Parts live in `starts[..len]`; `starts[len]` is the end of the piece.
    let mut len = n;
    let pair_rank = |starts: &[u8], len: usize, i: usize| {
        if i + 2 <= len {
            rank_or_none(vocab, &piece[starts[i] as usize..starts[i + 2] as usize])
        } else {
            NONE
        }
    };
    loop {
        let (mut best, mut at) = (NONE, 0);
        for (i, &rank) in ranks[..len].iter().enumerate() {
            if rank < best {
                (best, at) = (rank, i);
            }
        }
        if best == NONE {
            return len;
        }
        // Part `at + 1` joins part `at`.
        starts.copy_within(at + 2..=len, at + 1);
        ranks.copy_within(at + 2..len, at + 1);
        len -= 1;
        ranks[len] = NONE;
        ranks[at] = pair_rank(&starts, len, at);
        if at > 0 {
            ranks[at - 1] = pair_rank(&starts, len, at - 1);
        }
    }
}

/// The same merges, parts as a linked list over their first byte and candidate pairs in a
/// min-heap of (rank, first byte): the leftmost of equal ranks comes first, as in the scan.
/// An entry is stale when its part is gone or its pair's rank has changed since.
fn count_long(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    // `next[i]`: where the part after the part starting at `i` starts (`n` at the end).
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut ranks = vec![NONE; n];
    let mut heap = BinaryHeap::with_capacity(n);
    let pair_rank = |next: &[usize], i: usize| {
        let j = next[i];
        if j < n {
            rank_or_none(vocab, &piece[i..next[j]])
        } else {
            NONE
        }
    };
    for (i, rank) in ranks.iter_mut().enumerate().take(n - 1) {
        *rank = pair_rank(&next, i);
        if *rank != NONE {
            heap.push(Reverse((*rank, i)));
        }
    }
    let mut parts = n;
    while let Some(Reverse((rank, i))) = heap.pop() {
        if !alive[i] || ranks[i] != rank {
            continue;
        }
        let j = next[i];
        alive[j] = false;
        next[i] = next[j];
        if next[j] < n {
            prev[next[j]] = i;
        }
        parts -= 1;
        ranks[i] = pair_rank(&next, i);
        if ranks[i] != NONE {
            heap.push(Reverse((ranks[i], i)));
        }
        if i > 0 {
            let p = prev[i];
            ranks[p] = pair_rank(&next, p);
            if ranks[p] != NONE {
                heap.push(Reverse((ranks[p], p)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::O200K;
    use super::*;

    #[test]
    fn the_array_and_the_heap_merge_alike() {
        let vocab = &O200K.vocab;
        let samples: &[&[u8]] = &[
            b"internationalization",
            b"antidisestablishmentarianism",
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"0123456789",
            "наибольшийобщийделитель".as_bytes(),
            "退款需要在三十天内申请".as_bytes(),
            b"////////////////////==========",
            b"xqzjvkwxqzjvkwqqqqzzzz",
        ];
        for piece in samples {
            assert_eq!(
                count_short(vocab, piece),
                count_long(vocab, piece),
                "{piece:?}"
            );
        }
    }
}
