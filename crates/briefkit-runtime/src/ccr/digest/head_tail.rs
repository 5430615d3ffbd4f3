//! Deterministic compression of tool, file and search outputs: the head, the tail, every
//! line that looks like an error or a warning, and a count of what was left out.
//!
//! No model and no guessing: the same output always gives the same text. Every gap says how
//! many lines it stands for, in lines, so a reader never mistakes what is missing or fuses
//! the lines on either side of it. One pass over the lines, so time is linear in the output.

use std::sync::LazyLock;

use regex::Regex;

use crate::ccr::thousands;

/// Lines kept from the start and from the end.
pub const HEAD_LINES: usize = 20;
pub const TAIL_LINES: usize = 20;

/// A kept line longer than this is shortened in the digest (the store has it whole).
pub const MAX_LINE_BYTES: usize = 400;

/// Words that mark a diagnostic line, as compilers, test runners, loggers and shells print
/// them (whole words, any case).
static DIAGNOSTIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:error|errors|err|warning|warnings|warn|fatal|panic|panicked|exception|traceback|fail|failed|failure|failures|critical|denied|abort|aborted|segmentation fault)\b",
    )
    .expect("static pattern")
});

/// Whether a line looks like an error or a warning.
pub fn is_diagnostic(line: &str) -> bool {
    DIAGNOSTIC.is_match(line)
}

/// The compressed view of an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadTail {
    pub text: String,
    pub lines_total: usize,
    pub lines_left_out: usize,
    /// Kept lines shortened to [`MAX_LINE_BYTES`].
    pub lines_shortened: usize,
}

/// Keeps the first [`HEAD_LINES`], the last [`TAIL_LINES`] and every diagnostic line of
/// `content`; each run of lines left out becomes one `[… N lines left out …]` line.
pub fn compress(content: &str) -> HeadTail {
    let lines: Vec<&str> = content.lines().collect();
    let total = lines.len();
    let tail_from = total.saturating_sub(TAIL_LINES);
    let mut text = String::new();
    let mut gap = 0usize;
    let mut left_out = 0usize;
    let mut shortened = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let keep = i < HEAD_LINES || i >= tail_from || is_diagnostic(line);
        if !keep {
            gap += 1;
            continue;
        }
        if gap > 0 {
            push_gap(&mut text, gap);
            left_out += gap;
            gap = 0;
        }
        if line.len() > MAX_LINE_BYTES {
            let mut cut = MAX_LINE_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            text.push_str(&line[..cut]);
            text.push_str(&format!(
                " […{} more bytes]",
                thousands((line.len() - cut) as u64)
            ));
            shortened += 1;
        } else {
            text.push_str(line);
        }
        text.push('\n');
    }
    if gap > 0 {
        push_gap(&mut text, gap);
        left_out += gap;
    }
    if text.ends_with('\n') {
        text.pop();
    }
    HeadTail {
        text,
        lines_total: total,
        lines_left_out: left_out,
        lines_shortened: shortened,
    }
}

fn push_gap(text: &mut String, lines: usize) {
    text.push_str(&format!(
        "[… {} line{} left out …]\n",
        thousands(lines as u64),
        if lines == 1 { "" } else { "s" }
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn log(n: usize, errors: &[usize]) -> String {
        (0..n)
            .map(|i| {
                if errors.contains(&i) {
                    format!("line {i}: ERROR disk full")
                } else {
                    format!("line {i}: compiling crate_{i}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn keeps_head_tail_and_diagnostics_and_counts_the_gaps() {
        let out = compress(&log(1000, &[500, 501, 700]));
        assert_eq!(out.lines_total, 1000);
        assert_eq!(out.lines_left_out, 1000 - 20 - 20 - 3);
        assert!(out.text.starts_with("line 0: compiling"));
        assert!(out.text.ends_with("line 999: compiling crate_999"));
        assert!(out.text.contains("line 19: compiling crate_19\n[… 480 lines left out …]\nline 500: ERROR disk full\nline 501: ERROR disk full\n[… 198 lines left out …]\nline 700: ERROR"));
        assert!(
            out.text.contains(
                "line 700: ERROR disk full\n[… 279 lines left out …]\nline 980: compiling"
            )
        );
    }

    #[test]
    fn diagnostics_are_whole_words_in_any_case() {
        for line in [
            "warning: unused variable",
            "Error: x",
            "test foo ... FAILED",
            "thread 'main' panicked at",
            "Traceback (most recent call last):",
            "npm ERR! code 1",
        ] {
            assert!(is_diagnostic(line), "{line}");
        }
        for line in [
            "terrorist",
            "stderr_log",
            "warnings_as_info_flag",
            "compiling",
        ] {
            assert!(!is_diagnostic(line), "{line}");
        }
    }

    #[test]
    fn a_short_output_loses_nothing() {
        let out = compress(&log(30, &[]));
        assert_eq!(out.lines_left_out, 0);
        assert_eq!(out.text, log(30, &[]));
    }

    #[test]
    fn long_lines_are_shortened_on_a_char_boundary() {
        let line = "é".repeat(300);
        let out = compress(&line);
        assert_eq!(out.lines_shortened, 1);
        assert!(out.text.ends_with(" […200 more bytes]"), "{}", out.text);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Kept lines plus gap counts always account for every line, in order.
        #[test]
        fn kept_and_left_out_add_up(n in 0usize..400, errors in proptest::collection::vec(0usize..400, 0..20)) {
            let text = log(n, &errors);
            let out = compress(&text);
            let kept = out.text.lines().filter(|l| !l.starts_with("[… ")).count();
            prop_assert_eq!(kept + out.lines_left_out, n);
            let expected_errors = errors.iter().filter(|&&e| e < n).collect::<std::collections::BTreeSet<_>>().len();
            prop_assert_eq!(out.text.matches("ERROR").count(), expected_errors);
        }
    }
}
