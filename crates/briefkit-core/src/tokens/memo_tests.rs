//! Every shortcut of [`Counter`] against a direct count of the whole text.

use proptest::prelude::*;

use super::*;

/// Text where the pre-tokenisers' choices are tight: spaces after and before every kind of
/// character, Unicode whitespace that is not a space, line breaks, contractions, marks,
/// digits, punctuation that absorbs line breaks and slashes, and wide characters.
const TRICKY: &[&str] = &[
    "hello world",
    "Refunds over $1,200.00 need a manager's approval.",
    "  leading spaces  and trailing  ",
    "tab\t space \u{a0}nbsp\u{3000} ideographic\u{2003} em \u{85}nel x",
    "don't  won't it's 'tis ' s 'll'LL 'D",
    "e\u{301} combining  \u{301}mark \u{301} ",
    "a.\n\n/path /x. /\n y",
    "1234567 89 0 x1 1x",
    "退款需要 在三十天内 申请。 🚀 👍🏽 today!",
    "\r\n\r\n  \n \n\t\n",
    "x \x0b y \x0c z \x1c w",
    "`code`  (paren) [link](https://example.com/a b) **bold** _it_",
    " ",
    "",
    "end.",
];

fn encodings() -> impl Iterator<Item = Encoding> {
    Encoding::ALL.iter().copied()
}

#[test]
fn segment_sums_equal_whole_counts() {
    for encoding in encodings() {
        let mut counter = Counter::new(encoding);
        for text in TRICKY {
            assert_eq!(
                counter.count(text),
                count(encoding, text),
                "{encoding} {text:?}"
            );
            // Twice: the second time from the memo.
            assert_eq!(
                counter.count(text),
                count(encoding, text),
                "{encoding} {text:?}"
            );
        }
    }
}

#[test]
fn joined_counts_equal_whole_counts() {
    for encoding in encodings() {
        let mut counter = Counter::new(encoding);
        for window in TRICKY.windows(3) {
            let parts: Vec<(&str, usize)> =
                window.iter().map(|t| (*t, count(encoding, t))).collect();
            for separator in ["\n\n", "\n", "\r\n"] {
                let joined = window.join(separator);
                assert_eq!(
                    counter.count_joined(&parts, separator),
                    count(encoding, &joined),
                    "{encoding} {joined:?}"
                );
            }
        }
        // Every item after a sentence end: `.\n\n` is one piece across the join.
        let texts = ["One.", "Two.", "/three", "four  ", "x"];
        let parts: Vec<_> = texts.iter().map(|t| (*t, count(encoding, t))).collect();
        let joined = texts.join("\n\n");
        assert_eq!(
            counter.count_joined(&parts, "\n\n"),
            count(encoding, &joined)
        );
        assert_eq!(counter.count_joined(&[], "\n\n"), 0);
    }
}

#[test]
fn prefix_counts_equal_whole_counts() {
    for encoding in encodings() {
        let mut counter = Counter::new(encoding);
        for text in [
            "Last line.\n\n",
            "x y z\r\n",
            "no space\n",
            "\n\n",
            "a b.\n \n",
        ] {
            let tokens = count(encoding, text);
            let trimmed = text.trim_end_matches(['\n', '\r']);
            assert_eq!(
                counter.count_prefix(text, tokens, trimmed.len()),
                count(encoding, trimmed),
                "{encoding} {text:?}"
            );
        }
    }
}

#[test]
#[should_panic(expected = "separator")]
fn a_separator_with_a_space_is_refused() {
    Counter::new(Encoding::O200kBase).count_joined(&[("a", 1), ("b", 1)], " \n");
}

fn tricky_text() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        ' ', ' ', ' ', 'a', 'b', 'S', 'T', 'x', 's', 't', 'l', 'd', 'é', 'ß', 'Ω', '\u{301}', '\'',
        '1', '2', '0', '.', ',', '/', '-', '!', '"', '(', '`', '#', '*', '\n', '\n', '\r', '\t',
        '\u{a0}', '\u{3000}', '\u{85}', '\u{2028}', '\x0b', '\x1c', '退', '款', '🚀', '\u{200b}',
    ]);
    prop::collection::vec(alphabet, 0..40).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_text_counts_the_same_by_segments(text in tricky_text()) {
        for encoding in encodings() {
            let mut counter = Counter::new(encoding);
            prop_assert_eq!(counter.count(&text), count(encoding, &text));
        }
    }

    #[test]
    fn any_parts_count_the_same_joined(
        texts in prop::collection::vec(tricky_text(), 0..6),
        separator in prop::sample::select(vec!["\n\n", "\n", "\r\n", "\t"]),
    ) {
        for encoding in encodings() {
            let mut counter = Counter::new(encoding);
            let parts: Vec<(&str, usize)> =
                texts.iter().map(|t| (t.as_str(), count(encoding, t))).collect();
            prop_assert_eq!(
                counter.count_joined(&parts, separator),
                count(encoding, &texts.join(separator))
            );
        }
    }

    #[test]
    fn any_prefix_counts_the_same(text in tricky_text(), cut in 0usize..40) {
        let len = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
        for encoding in encodings() {
            let mut counter = Counter::new(encoding);
            let tokens = count(encoding, &text);
            prop_assert_eq!(
                counter.count_prefix(&text, tokens, len),
                count(encoding, &text[..len])
            );
        }
    }
}
