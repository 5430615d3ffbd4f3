//! Token figures: exact counts for OpenAI's `o200k_base` and `cl100k_base`, and a cheap estimate.
//!
//! A brief's size and budget are measured in tokens, so the exact figures must match what the
//! provider bills: they are identical to Python tiktoken's `encode_ordinary` (special-token
//! strings such as `<|endoftext|>` count as plain text). The counting is done by `bpe-openai`,
//! whose vocabularies are compiled into the binary (fully offline) and deserialised on first
//! use only, once per process: commands that print no token figure never pay for it.
//! `bpe-openai` was chosen over `tiktoken-rs` for its start-up time (o200k: 60–105 ms against
//! 170–260 ms, which alone would break the 300 ms budget of a cold `brief compose`) and its
//! throughput; see BENCHMARKS.md.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

pub mod files;
mod memo;
pub mod stream;
pub use memo::Counter;

/// A byte-pair encoding, named as in `brief.yaml` (`tokenizer: o200k_base`).
///
/// `cl100k_base` exists only in builds with the `cl100k` cargo feature (on by default):
/// leaving it out drops its vocabulary from the binary (see BENCHMARKS.md), and a brief that
/// names it is then refused at load time with a hint, never counted with the wrong table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, o-series and later OpenAI models.
    O200kBase,
    /// GPT-4, GPT-3.5-turbo and OpenAI's text-embedding-3 models.
    #[cfg(feature = "cl100k")]
    Cl100kBase,
}

impl Encoding {
    /// Every encoding this build supports, in the order they are listed to users.
    #[cfg(feature = "cl100k")]
    pub const ALL: &[Encoding] = &[Encoding::O200kBase, Encoding::Cl100kBase];
    #[cfg(not(feature = "cl100k"))]
    pub const ALL: &[Encoding] = &[Encoding::O200kBase];

    /// The name used in `brief.yaml` and in output.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            #[cfg(feature = "cl100k")]
            Encoding::Cl100kBase => "cl100k_base",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(&encoding) = Encoding::ALL.iter().find(|e| e.name() == s) {
            return Ok(encoding);
        }
        if s == "cl100k_base" {
            return Err(
                Error::input("tokenizer `cl100k_base` is not in this build of brief").with_hint(
                    "this binary was built without the `cl100k` feature: use `o200k_base`, \
                     or a build with default features",
                ),
            );
        }
        Err(Error::input(format!("unknown tokenizer `{s}`"))
            .with_hint("use `o200k_base` (GPT-4o and later) or `cl100k_base` (GPT-4)"))
    }
}

/// Through [`FromStr`], so that a build without `cl100k` names the missing feature instead
/// of listing the variants it has.
impl<'de> serde::Deserialize<'de> for Encoding {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(|e: Error| {
            let hint = e.hint.map(|h| format!(" ({h})")).unwrap_or_default();
            serde::de::Error::custom(format!("{}{hint}", e.message))
        })
    }
}

/// Exact token count of `text` (ordinary text: special-token strings count as plain text).
/// The vocabulary is loaded on first use only, once per process; commands that print no
/// token figure never call this.
pub fn count(encoding: Encoding, text: &str) -> usize {
    if text.is_empty() {
        // Spares a command that only meets empty bodies the vocabulary load.
        return 0;
    }
    let tokenizer = match encoding {
        Encoding::O200kBase => bpe_openai::o200k_base(),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100kBase => bpe_openai::cl100k_base(),
    };
    tokenizer.count(text)
}

/// A cheap estimate of the token count, without loading any vocabulary (for `align` and quick
/// figures). It is the same for both encodings.
///
/// The heuristic mimics the encoders' pre-tokenisation instead of dividing bytes by four:
/// - a run of ASCII letters is one token per started 12 letters (common words, even long
///   ones, are a single token, and the space before a word joins it);
/// - a run of ASCII digits is one token per started 3 digits (the encoders split numbers so);
/// - a run of ASCII punctuation is one token per started 3 characters;
/// - every non-ASCII character is one token (CJK is ~0.75–1 per character, emoji more);
/// - a run of line breaks is one token, a run of two or more spaces or tabs is one token,
///   and a single space is free.
///
/// On the project's corpus (18 public agent briefs of 1–59 KB of English Markdown, and their
/// source list) it is within −3.3 % … +9.0 % of the exact `o200k_base` count (mean absolute
/// error 4.0 %) and within −3.2 % … +8.5 % of `cl100k_base` (mean 3.6 %), where bytes / 4 is
/// off by −9 % … +28 % (mean 14 %). It runs at ~150 MB/s (`cargo bench --bench tokens`).
/// Text dense in non-ASCII letters (accented European languages) is overestimated more.
pub fn estimate(text: &str) -> usize {
    let mut total = 0;
    let mut run = Run::None;
    for c in text.chars() {
        let class = Class::of(c);
        run = match (run, class) {
            (Run::Letters(n), Class::Letter) => Run::Letters(n + 1),
            (Run::Digits(n), Class::Digit) => Run::Digits(n + 1),
            (Run::Blanks(n), Class::Blank) => Run::Blanks(n + 1),
            (Run::Breaks, Class::Break) => Run::Breaks,
            (Run::Other { ascii, wide }, Class::Other) => Run::Other {
                ascii: ascii + usize::from(c.is_ascii()),
                wide: wide + usize::from(!c.is_ascii()),
            },
            (previous, class) => {
                total += previous.tokens();
                Run::start(class, c)
            }
        };
    }
    total + run.tokens()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Blank,
    Break,
    Other,
}

impl Class {
    fn of(c: char) -> Class {
        match c {
            'a'..='z' | 'A'..='Z' => Class::Letter,
            '0'..='9' => Class::Digit,
            ' ' | '\t' => Class::Blank,
            '\n' | '\r' => Class::Break,
            _ => Class::Other,
        }
    }
}

#[derive(Clone, Copy)]
enum Run {
    None,
    Letters(usize),
    Digits(usize),
    Blanks(usize),
    Breaks,
    Other { ascii: usize, wide: usize },
}

impl Run {
    fn start(class: Class, c: char) -> Run {
        match class {
            Class::Letter => Run::Letters(1),
            Class::Digit => Run::Digits(1),
            Class::Blank => Run::Blanks(1),
            Class::Break => Run::Breaks,
            Class::Other => Run::Other {
                ascii: usize::from(c.is_ascii()),
                wide: usize::from(!c.is_ascii()),
            },
        }
    }

    fn tokens(self) -> usize {
        match self {
            Run::None => 0,
            Run::Letters(n) => n.div_ceil(12),
            Run::Digits(n) => n.div_ceil(3),
            Run::Blanks(n) => usize::from(n > 1),
            Run::Breaks => 1,
            Run::Other { ascii, wide } => ascii.div_ceil(3) + wide,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (text, o200k_base, cl100k_base): counts from Python tiktoken 0.14
    /// `get_encoding(..).encode_ordinary(text)`, with the official vocabulary files.
    const KNOWN: &[(&str, usize, usize)] = &[
        ("hello world", 2, 2),
        ("Refunds over $1,200.00 need a manager's approval.", 15, 15),
        ("退款需要在三十天内申请。", 9, 12),
        ("Ship it 🚀👍🏽 today!", 9, 13),
        ("line one\r\nline two\r\n\r\n", 6, 6),
        (
            "Never print <|endoftext|> or <|im_start|> to the user.",
            20,
            18,
        ),
        ("    fn main() {\n\tprintln!(\"hi\");\n    }\n", 12, 11),
        ("1234567890 2024-05-17T09:30:00Z v1.2.3", 24, 24),
        ("                                        x", 2, 2),
        ("Don't, won't, it's, they're, I'll, we've, she'd.", 14, 21),
        ("zero\u{200b}width\u{a0}space", 5, 5),
    ];

    #[test]
    fn counts_equal_python_tiktoken_on_tricky_text() {
        for &(text, o200k, cl100k) in KNOWN {
            assert_eq!(
                count(Encoding::O200kBase, text),
                o200k,
                "o200k_base {text:?}"
            );
            #[cfg(feature = "cl100k")]
            assert_eq!(
                count(Encoding::Cl100kBase, text),
                cl100k,
                "cl100k_base {text:?}"
            );
            let _ = cl100k;
        }
    }

    #[test]
    fn empty_text_is_zero_tokens() {
        for &encoding in Encoding::ALL {
            assert_eq!(count(encoding, ""), 0);
        }
        assert_eq!(estimate(""), 0);
    }

    #[test]
    fn names_round_trip_through_display_fromstr_and_serde() {
        for &encoding in Encoding::ALL {
            let name = encoding.to_string();
            assert_eq!(name.parse::<Encoding>().ok(), Some(encoding));
            let json = serde_json::to_string(&encoding).expect("serialises");
            assert_eq!(json, format!("\"{name}\""));
            let back: Encoding = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(back, encoding);
        }
        assert_eq!(Encoding::O200kBase.to_string(), "o200k_base");
        #[cfg(feature = "cl100k")]
        assert_eq!(Encoding::Cl100kBase.to_string(), "cl100k_base");
    }

    #[test]
    fn a_build_without_cl100k_names_the_missing_feature() {
        let parsed = "cl100k_base".parse::<Encoding>();
        let from_yaml = serde_yaml::from_str::<Encoding>("cl100k_base");
        if cfg!(feature = "cl100k") {
            assert_eq!(parsed.ok().map(Encoding::name), Some("cl100k_base"));
            assert!(from_yaml.is_ok());
        } else {
            let err = parsed.expect_err("not in this build");
            assert!(err.hint.unwrap_or_default().contains("`cl100k` feature"));
            let err = from_yaml.expect_err("not in this build").to_string();
            assert!(err.contains("`cl100k` feature"), "{err}");
        }
    }

    #[test]
    fn unknown_encoding_name_is_an_input_error_with_a_hint() {
        let err = "p50k_base".parse::<Encoding>().expect_err("not supported");
        assert_eq!(err.kind, crate::error::ErrorKind::Input);
        assert!(err.message.contains("p50k_base"));
        assert!(err.hint.is_some());
        assert!("O200K_BASE".parse::<Encoding>().is_err());
    }

    #[test]
    fn estimate_follows_pretokenisation() {
        // "Hello" 1, " world" 1 (single space free), "." 1.
        assert_eq!(estimate("Hello world."), 3);
        // 13 letters start a second token; 7 digits are three groups.
        assert_eq!(estimate("internationalx 1234567"), 2 + 3);
        // Two spaces and one line-break run count one each; CJK one per character.
        assert_eq!(estimate("a  b\n\n退款"), 1 + 1 + 1 + 1 + 2);
    }

    #[test]
    fn estimate_is_near_the_exact_count_on_ordinary_prose() {
        let text = "When a customer asks for a refund, check the order date first. \
                    Orders older than 30 days go to a human agent, and refunds above \
                    $250 need the account owner's written approval.\n\n\
                    - Be brief and polite.\n- Never promise a delivery date.\n";
        let exact = count(Encoding::O200kBase, text) as f64;
        let guess = estimate(text) as f64;
        assert!(
            (guess - exact).abs() / exact < 0.2,
            "estimate {guess} vs exact {exact}"
        );
    }
}
