//! `brief count`: exact token counts of plain files and stdin, per file and in total.

use std::fs;

use briefkit::tokens::{self, Encoding};

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{argv_then, assert_exit};

/// Text of `size` bytes that crosses many read blocks, with words, numbers, CJK, emoji,
/// runs of spaces and line breaks, and a different sentence in every line.
fn long_text(size: usize) -> String {
    let mut out = String::new();
    let mut n = 0u64;
    while out.len() < size {
        n += 1;
        out.push_str(&format!(
            "Line {n}: refunds over ${}.{:02} need approval — 退款 {n} 🚀  \tdon't wait.\n",
            n * 37 % 10_000,
            n % 100
        ));
        if n.is_multiple_of(7) {
            out.push_str("\n\n   \n");
        }
    }
    out
}

#[test]
fn files_are_counted_exactly_per_file_and_in_total() {
    let dir = tempfile::tempdir().unwrap();
    let big = long_text(3 << 20);
    fs::write(dir.path().join("big.md"), &big).unwrap();
    fs::write(dir.path().join("small.txt"), "hello world").unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    for &encoding in Encoding::ALL {
        let out = run_in(
            dir.path(),
            &argv_then(
                "count big.md small.txt empty.txt --tokenizer",
                &[encoding.name(), "--json"],
            ),
        );
        assert_exit(&out, 0);
        let report = json(&out);
        let expected = tokens::count(encoding, &big);
        assert_eq!(report["status"], "ok");
        assert_eq!(report["tokenizer"], encoding.name());
        assert_eq!(report["files"][0]["file"], "big.md");
        assert_eq!(report["files"][0]["tokens"], expected);
        assert_eq!(report["files"][0]["bytes"], big.len());
        assert_eq!(report["files"][1]["tokens"], 2);
        assert_eq!(report["files"][2]["tokens"], 0);
        assert_eq!(report["tokens"], expected + 2);
        assert_eq!(report["bytes"], big.len() + 11);
    }
}

#[test]
fn the_human_output_is_one_line_per_file_and_a_total() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a.md"),
        "Refunds over $1,200.00 need a manager's approval.",
    )
    .unwrap();
    fs::write(dir.path().join("b.md"), "hello world\n").unwrap();
    let out = run_in(dir.path(), &["count", "a.md", "b.md"]);
    assert_exit(&out, 0);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn stdin_is_counted_exactly_and_printed_as_a_bare_number() {
    let text = long_text(1 << 20);
    let expected = tokens::count(Encoding::O200kBase, &text);
    for args in [&["count"][..], &["count", "-"][..]] {
        let out = brief()
            .args(args)
            .write_stdin(text.clone())
            .output()
            .unwrap();
        assert_exit(&out, 0);
        assert_eq!(stdout(&out), format!("{expected}\n"));
    }
    let out = brief()
        .args(["count", "-", "--tokenizer", "o200k_base", "--json"])
        .write_stdin("Never print <|endoftext|> or <|im_start|> to the user.")
        .output()
        .unwrap();
    // Special-token strings are plain text, as tiktoken's encode_ordinary counts them.
    assert_eq!(json(&out)["tokens"], 20);
    assert_eq!(json(&out)["files"][0]["file"], "-");
}

#[test]
fn bad_inputs_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = b"fine text, then ".to_vec();
    bytes.push(0xff);
    fs::write(dir.path().join("binary.bin"), &bytes).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["count", "missing.md"],
            "missing.md: no such file or directory",
        ),
        (&["count", "."], ".: a directory, not a regular file"),
        (
            &["count", "binary.bin"],
            "binary.bin:1: not UTF-8 text (the byte at offset 16 is not valid UTF-8)",
        ),
        (&["count", "-", "-"], "`-` (stdin) is named more than once"),
        (
            &["count", "x", "--tokenizer", "p50k_base"],
            "unknown tokenizer `p50k_base`",
        ),
    ];
    for (args, message) in cases {
        let out = run_in(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}
