//! The two OpenAI vocabularies, as tables built at compile time (`build.rs`) and read in
//! place from the binary: the first count costs no deserialising, hashing or allocating;
//! only the pages a count touches are ever read from the executable.
//!
//! A text's count is the sum of its pieces' ([`split`]: the encoding's split pattern) and a
//! piece's count is the number of tokens tiktoken's byte-pair merging leaves ([`merge`]),
//! so counts are the same as Python tiktoken's `encode_ordinary` and as `bpe-openai`'s
//! (tests/tokenizer_same_as_bpe_openai.rs).

mod layout;
mod merge;
mod split;

use std::sync::LazyLock;

use super::Encoding;
use split::Splitter;

/// One vocabulary's tables, each a slice of the executable (`build.rs` has the layout).
pub(crate) struct Vocab {
    bytes: &'static [u8],
    starts: &'static [u8],
    table: &'static [u8],
}

impl Vocab {
    /// The rank of the token whose bytes are `key`, if there is one.
    pub(crate) fn rank(&self, key: &[u8]) -> Option<u32> {
        let h = layout::hash(key);
        let mask = self.table.len() / 4 - 1;
        let tag = layout::tag(h);
        let mut slot = layout::home(h, mask);
        loop {
            let entry = read_u32(self.table, slot);
            if entry == 0 {
                return None;
            }
            if entry & !layout::RANK_MASK == tag {
                let rank = (entry & layout::RANK_MASK) - 1;
                if self.token(rank) == key {
                    return Some(rank);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    fn token(&self, rank: u32) -> &'static [u8] {
        let start = read_u32(self.starts, rank as usize) as usize;
        let end = read_u32(self.starts, rank as usize + 1) as usize;
        &self.bytes[start..end]
    }
}

fn read_u32(bytes: &[u8], index: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[4 * index..4 * index + 4]);
    u32::from_le_bytes(word)
}

/// A vocabulary and its split pattern.
struct Tokenizer {
    vocab: Vocab,
    splitter: &'static LazyLock<Splitter>,
}

impl Tokenizer {
    fn count(&self, text: &str) -> usize {
        self.splitter
            .pieces(text)
            .map(|piece| merge::count(&self.vocab, piece.as_bytes()))
            .sum()
    }
}

macro_rules! tables {
    ($name:literal) => {
        Vocab {
            bytes: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bytes")),
            starts: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".starts")),
            table: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".table")),
        }
    };
}

static O200K_SPLITTER: LazyLock<Splitter> = LazyLock::new(|| {
    Splitter::from_bytes(split::aligned!(concat!(env!("OUT_DIR"), "/o200k_base.dfa")))
});
static O200K: Tokenizer = Tokenizer {
    vocab: tables!("o200k_base"),
    splitter: &O200K_SPLITTER,
};

#[cfg(feature = "cl100k")]
static CL100K_SPLITTER: LazyLock<Splitter> = LazyLock::new(|| {
    Splitter::from_bytes(split::aligned!(concat!(
        env!("OUT_DIR"),
        "/cl100k_base.dfa"
    )))
});
#[cfg(feature = "cl100k")]
static CL100K: Tokenizer = Tokenizer {
    vocab: tables!("cl100k_base"),
    splitter: &CL100K_SPLITTER,
};

/// Exact token count of `text` in `encoding` (see [`super::count`]).
pub(crate) fn count(encoding: Encoding, text: &str) -> usize {
    match encoding {
        Encoding::O200kBase => O200K.count(text),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100kBase => CL100K.count(text),
    }
}

/// The pieces the encoding's split pattern cuts `text` into (for the tests that compare
/// them with `bpe-openai`'s).
pub fn pieces(encoding: Encoding, text: &str) -> impl Iterator<Item = &str> {
    let tokenizer = match encoding {
        Encoding::O200kBase => &O200K,
        #[cfg(feature = "cl100k")]
        Encoding::Cl100kBase => &CL100K,
    };
    tokenizer.splitter.pieces(text)
}

/// The rank of the token whose bytes are `key` in `encoding`, if there is one.
pub fn rank(encoding: Encoding, key: &[u8]) -> Option<u32> {
    match encoding {
        Encoding::O200kBase => O200K.vocab.rank(key),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100kBase => CL100K.vocab.rank(key),
    }
}
