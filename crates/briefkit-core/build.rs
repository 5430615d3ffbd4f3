//! Turns the two OpenAI vocabularies into tables the binary uses in place (`tokens::vocab`):
//! no deserialising, hashing or allocating when a command first counts, and a fraction of
//! the size of `bpe-openai`'s serialised automata (BENCHMARKS.md, "Vocabulary").
//!
//! For each encoding, into `OUT_DIR`:
//! - `NAME.bytes`: every token's bytes, concatenated in rank order;
//! - `NAME.starts`: `n + 1` little-endian `u32` offsets into the bytes (token `r` is
//!   `bytes[starts[r]..starts[r + 1]]`);
//! - `NAME.table`: the hash table from a token's bytes to its rank (`vocab/layout.rs`);
//! - `NAME.dfa`: the pre-tokeniser, the encoding's split pattern compiled to a dense DFA
//!   (regex-automata's own serialisation, read back with `DFA::from_bytes`).
//!
//! The vocabularies come from the `bpe-openai` crate (the official tiktoken files, read in
//! rank order); the split patterns are the ones `bpe-openai` uses, so the pieces, and the
//! counts, are the same (tests/tokenizer_same_as_bpe_openai.rs compares them).

use std::env;
use std::fs;
use std::path::Path;

use regex_automata::MatchKind;
use regex_automata::dfa::{StartKind, dense};

#[path = "src/tokens/vocab/layout.rs"]
mod layout;

/// `(?!\S)` rewritten as in `bpe-openai`: pattern 1 (`\s+\s`) matches one character more,
/// which the splitter gives back. Patterns are tried leftmost-first, in this order.
const CL100K: &str = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$";
const O200K: &[&str] = &[
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "\\p{N}{1,3}",
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
    "\\s*[\\r\\n]+",
    "\\s+$",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/vocab/layout.rs");
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    let big_endian = env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    write_vocabulary(out, "o200k_base", &bpe_openai::o200k_base().bpe);
    write_splitter(out, "o200k_base", &O200K.join("|"), big_endian);
    // Written whatever the features: without `cl100k` nothing includes them.
    write_vocabulary(out, "cl100k_base", &bpe_openai::cl100k_base().bpe);
    write_splitter(out, "cl100k_base", CL100K, big_endian);
}

fn write_vocabulary(
    out: &Path,
    name: &str,
    bpe: &bpe_openai::byte_pair_encoding::BytePairEncoding,
) {
    let n = bpe.num_tokens();
    assert!(
        n < layout::RANK_MASK as usize,
        "{name}: too many tokens for a slot"
    );
    let mut bytes = Vec::new();
    let mut starts = Vec::with_capacity(4 * (n + 1));
    starts.extend_from_slice(&0u32.to_le_bytes());
    let slots = (2 * n).next_power_of_two();
    let mask = slots - 1;
    let mut table = vec![0u32; slots];
    for rank in 0..n {
        let token = bpe.token_bytes(rank as u32);
        bytes.extend_from_slice(token);
        let end = u32::try_from(bytes.len()).expect("vocabulary under 4 GiB");
        starts.extend_from_slice(&end.to_le_bytes());
        let h = layout::hash(token);
        let mut slot = layout::home(h, mask);
        while table[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        table[slot] = layout::tag(h) | (rank as u32 + 1);
    }
    let table: Vec<u8> = table.iter().flat_map(|s| s.to_le_bytes()).collect();
    fs::write(out.join(format!("{name}.bytes")), bytes).expect("writes OUT_DIR");
    fs::write(out.join(format!("{name}.starts")), starts).expect("writes OUT_DIR");
    fs::write(out.join(format!("{name}.table")), table).expect("writes OUT_DIR");
}

fn write_splitter(out: &Path, name: &str, first: &str, big_endian: bool) {
    let patterns = [first, "\\s+\\s", "\\s+"];
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::LeftmostFirst)
                .start_kind(StartKind::Anchored)
                .minimize(true),
        )
        .build_many(&patterns)
        .expect("the split patterns compile");
    let (bytes, pad) = if big_endian {
        dfa.to_bytes_big_endian()
    } else {
        dfa.to_bytes_little_endian()
    };
    fs::write(out.join(format!("{name}.dfa")), &bytes[pad..]).expect("writes OUT_DIR");
}
