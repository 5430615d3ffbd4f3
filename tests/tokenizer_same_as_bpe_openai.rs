//! The in-place vocabulary tables (`tokens::vocab`, built by build.rs) count exactly as the
//! `bpe-openai` tokenizer they replaced: the same pieces and the same count, on the bundled
//! briefs, on every line of them, on text made of the characters the split patterns and the
//! merges treat differently, and on long runs without a space (the heap merge).

use std::fs;
use std::path::Path;

use briefkit::tokens::{Encoding, count, vocab};
use proptest::prelude::*;

fn reference(encoding: Encoding) -> &'static bpe_openai::Tokenizer {
    match encoding {
        Encoding::O200kBase => bpe_openai::o200k_base(),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100kBase => bpe_openai::cl100k_base(),
    }
}

fn assert_same(encoding: Encoding, text: &str) {
    let tokenizer = reference(encoding);
    let pieces: Vec<&str> = vocab::pieces(encoding, text).collect();
    let expected: Vec<&str> = tokenizer.split(text).collect();
    assert_eq!(pieces, expected, "{encoding} pieces of {text:?}");
    assert_eq!(
        count(encoding, text),
        tokenizer.count(text),
        "{encoding} count of {text:?}"
    );
}

fn bundled_texts() -> Vec<String> {
    let mut texts = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("briefs")];
    stack.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs"));
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                texts.push(text);
            }
        }
    }
    assert!(
        texts.len() > 10,
        "the bundled briefs and the guide are there"
    );
    texts
}

#[test]
fn the_bundled_briefs_and_the_guide_count_as_bpe_openai_counts_them() {
    for &encoding in Encoding::ALL {
        for text in bundled_texts() {
            assert_same(encoding, &text);
            for line in text.lines() {
                assert_same(encoding, line);
            }
        }
    }
}

#[test]
fn every_token_of_the_vocabulary_is_found_with_its_rank() {
    for &encoding in Encoding::ALL {
        let bpe = &reference(encoding).bpe;
        for rank in 0..bpe.num_tokens() as u32 {
            assert_eq!(vocab::rank(encoding, bpe.token_bytes(rank)), Some(rank));
        }
        assert_eq!(
            vocab::rank(encoding, b"\xff\xfe not a token at all \x00"),
            None
        );
    }
}

#[test]
fn long_runs_without_a_space_merge_as_bpe_openai_merges_them() {
    let runs = [
        "a".repeat(5_000),
        "ab".repeat(3_000),
        "Supercalifragilisticexpialidocious".repeat(200),
        "退款需要在三十天内申请".repeat(300),
        "0123456789".repeat(500),
        "=-+*/".repeat(1_000),
        "https://example.com/a/very/long/path?with=query&and=more#frag".repeat(50),
        "\u{1F680}\u{1F44D}\u{1F3FD}".repeat(400),
        "é".repeat(2_000),
        " ".repeat(3_000) + "x",
        "\n".repeat(2_000),
        "\t \r\n".repeat(700),
    ];
    for &encoding in Encoding::ALL {
        for run in &runs {
            assert_same(encoding, run);
        }
    }
}

/// Characters the patterns and the merges treat differently: spaces and other whitespace,
/// line breaks, apostrophes (contractions), letters of each case and script, combining
/// marks, digits of several scripts, punctuation, emoji, and `<|endoftext|>`-like strings.
fn tricky_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\u{a0}",
        "\u{2003}",
        "\u{200b}",
        "'",
        "'s",
        "'LL",
        "'re",
        "a",
        "Z",
        "the",
        " The",
        "DON'T",
        "ǅ",
        "ß",
        "ÿ",
        "Ω",
        "ω",
        "й",
        "Ж",
        "\u{301}",
        "\u{64b}",
        "1",
        "42",
        "12345",
        "٣",
        "۴",
        "½",
        "Ⅻ",
        ".",
        ",",
        "!?",
        "/",
        "//",
        "$",
        "€",
        "(",
        ")",
        "{",
        "}",
        "<|endoftext|>",
        "退款",
        "申请",
        "カタカナ",
        "한국어",
        "🚀",
        "👍🏽",
        "\u{fe0f}",
        "ʰ",
        "ˇ",
        "_",
        "-",
        "—",
        "\u{0}",
        "\u{7f}",
        "\u{85}",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn tricky_text_counts_as_bpe_openai_counts_it(text in tricky_text()) {
        for &encoding in Encoding::ALL {
            assert_same(encoding, &text);
        }
    }

    #[test]
    fn any_text_counts_as_bpe_openai_counts_it(text in any::<String>()) {
        for &encoding in Encoding::ALL {
            assert_same(encoding, &text);
        }
    }
}
