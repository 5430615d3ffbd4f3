//! The layout of the vocabulary tables, shared by the build script that writes them
//! (`build.rs`, through `#[path]`) and the code that reads them in place
//! (`tokens::vocab`): one hash function and one slot packing, so the two cannot disagree.
//!
//! A table is an open-addressing hash table of little-endian `u32` slots, a power of two
//! long and at most half full, probed linearly. A slot holds `rank + 1` in its low
//! [`RANK_BITS`] bits (0 = empty) and a tag of the key's hash in the rest, so that most
//! probes for a byte string that is not a token end without reading the token's bytes.

/// Bits of a slot that hold `rank + 1`: both vocabularies have fewer than 2^18 − 1 tokens.
pub const RANK_BITS: u32 = 18;
pub const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// A fixed hash of a byte string (the same at build time and at run time, on every
/// platform): eight bytes at a time, each word mixed by a multiply, then a final avalanche
/// (murmur3's `fmix64`).
pub fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = K ^ (bytes.len() as u64);
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(K);
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The first slot to probe for a key of hash `h` in a table of `mask + 1` slots.
pub fn home(h: u64, mask: usize) -> usize {
    (h as usize) & mask
}

/// The tag kept beside the rank: hash bits not used by [`home`] for tables under 2^32 slots.
pub fn tag(h: u64) -> u32 {
    ((h >> 32) as u32) << RANK_BITS
}
