use proptest::prelude::*;

use super::*;

fn proven(body: &str) -> String {
    let c = compact_markdown(body);
    assert!(c.proven, "not proven: {:?}\ninput: {body:?}", c.reason);
    assert_eq!(c.reason, None);
    c.text
}

#[test]
fn crlf_becomes_lf_everywhere_including_code() {
    let body = "Greet the caller.\r\n\r\n```text\r\nHello  \r\n```\r\n";
    assert_eq!(proven(body), "Greet the caller.\n\n```text\nHello  \n```\n");
}

#[test]
fn trailing_spaces_and_tabs_are_stripped() {
    assert_eq!(
        proven("Be brief.\t\nStay polite. \n"),
        "Be brief.\nStay polite.\n"
    );
    assert_eq!(proven("Be brief. \t\n\nStay.\n"), "Be brief.\n\nStay.\n");
    assert_eq!(proven("# Tone   \n\nCalm. \n"), "# Tone\n\nCalm.\n");
}

#[test]
fn hard_break_becomes_exactly_two_spaces_and_is_never_removed() {
    assert_eq!(proven("Line one  \nLine two\n"), "Line one  \nLine two\n");
    assert_eq!(
        proven("Line one     \nLine two\n"),
        "Line one  \nLine two\n"
    );
    assert_eq!(proven("Line one\t  \nLine two\n"), "Line one  \nLine two\n");
    assert_eq!(proven("Line one\\\nLine two\n"), "Line one\\\nLine two\n");
}

#[test]
fn blanks_ending_in_a_tab_before_text_are_left_alone() {
    // pulldown-cmark reads `" \t"` as a hard break, cmark does not: no rewrite is safe.
    assert_eq!(proven("Line one \t\nLine two\n"), "Line one \t\nLine two\n");
    assert_eq!(
        proven("Line one  \t\nLine two  \n"),
        "Line one  \t\nLine two\n"
    );
}

#[test]
fn a_blank_after_a_backslash_is_kept_when_stripping_it_would_make_a_hard_break() {
    assert_eq!(proven("Path C:\\ \nnext\n"), "Path C:\\ \nnext\n");
    assert_eq!(proven("Path C:\\ \n\nnext\n"), "Path C:\\\n\nnext\n");
}

#[test]
fn a_heading_with_a_trailing_tab_is_kept_while_the_rest_is_compacted() {
    // pulldown-cmark keeps the tab in the heading text, so stripping it is not provable.
    let body = "# Refunds\t\n\n\n\nAsk for the order number.   \n";
    assert_eq!(proven(body), "# Refunds\t\n\nAsk for the order number.\n");
}

#[test]
fn two_spaces_before_a_blank_line_or_the_end_are_not_a_hard_break() {
    assert_eq!(
        proven("Para one.   \n\nPara two.  \n"),
        "Para one.\n\nPara two.\n"
    );
    assert_eq!(proven("Last line.    "), "Last line.\n");
}

#[test]
fn blank_runs_collapse_and_no_blank_line_leads_or_trails() {
    let body = "\n  \n\t\nIdentity.\n\n \n\n\n- one\n- two\n\n\n\n";
    assert_eq!(proven(body), "Identity.\n\n- one\n- two\n");
}

#[test]
fn empty_and_blank_only_bodies_become_empty() {
    assert_eq!(proven(""), "");
    assert_eq!(proven(" \n\t\r\n\n"), "");
}

#[test]
fn a_final_newline_is_added() {
    assert_eq!(proven("No newline at the end"), "No newline at the end\n");
    assert_eq!(proven("```\nx = 1\n```"), "```\nx = 1\n```\n");
}

#[test]
fn fenced_code_keeps_trailing_spaces_and_blank_runs() {
    let body =
        "Run:\n\n```sh\nmake   \n\n\n  \nmake install\t\n```\n\n~~~\nkeep   \n\n\nthis\n~~~\n";
    assert_eq!(proven(body), body);
}

#[test]
fn unclosed_fence_runs_to_the_end_and_keeps_its_blank_lines() {
    let body = "Intro.\n\n```\ncode  \n\n\n";
    assert_eq!(proven(body), body);
    let no_newline = "Intro.\n\n```\ncode";
    assert_eq!(proven(no_newline), no_newline);
}

#[test]
fn indented_code_keeps_its_interior_blank_runs_and_spaces() {
    let body = "Example:\n\n    first  \n\n\n    second\t\n\nAfter.\n";
    assert_eq!(proven(body), body);
}

#[test]
fn html_blocks_and_tables_are_untouched() {
    let html = "<!-- note   \n\n\nstill a comment  -->\n\nText.\n";
    assert_eq!(proven(html), html);
    let table = "| plan | price |   \n| --- | --- |\n| basic   | $5 |  \n\nAfter.\n";
    assert_eq!(proven(table), table);
}

#[test]
fn code_inside_lists_and_quotes_is_protected() {
    let body = "- step:\n\n  ```\n  keep  \n\n\n  ```\n\n> ```\n> quoted  \n> ```\n";
    assert_eq!(proven(body), body);
}

#[test]
fn unprovable_compaction_leaves_the_input_unchanged_with_a_reason() {
    // Trailing spaces inside a code span that crosses a line are content.
    let body = "Type `git   \ncommit` now.\n";
    let c = compact_markdown(body);
    assert!(!c.proven);
    assert_eq!(c.text, body);
    let reason = c.reason.expect("a reason");
    assert!(reason.contains("code"), "{reason}");
}

#[test]
fn front_matter_passes_through_byte_for_byte() {
    let doc = "---\r\ntype: rule   \r\ntitle: Refunds\r\n\r\n\r\n---\r\n\r\nRefund within 30 days.  \r\n\r\n\r\n";
    let c = compact_document(doc);
    assert!(c.proven);
    assert_eq!(
        c.text,
        "---\r\ntype: rule   \r\ntitle: Refunds\r\n\r\n\r\n---\r\nRefund within 30 days.\n"
    );
}

#[test]
fn front_matter_with_dots_closing_and_empty_body() {
    assert_eq!(
        compact_document("---\na: 1\n...\n").text,
        "---\na: 1\n...\n"
    );
    assert_eq!(compact_document("---\na: 1\n---").text, "---\na: 1\n---");
}

#[test]
fn unclosed_front_matter_is_markdown() {
    let c = compact_document("---\nNot closed.  \n\n\n");
    assert!(c.proven);
    assert_eq!(c.text, "---\nNot closed.\n");
}

#[test]
fn unprovable_body_leaves_the_whole_document_unchanged() {
    let doc = "---\ntype: sample\n---\n\nUse `a   \nb` here.\n\n\n";
    let c = compact_document(doc);
    assert!(!c.proven);
    assert_eq!(c.text, doc);
}

/// Checks the contract on one input: proven means equal events and a fixed point;
/// unproven means unchanged; either way compacting again changes nothing.
fn check_contract(input: &str) -> Result<(), TestCaseError> {
    let c = compact_markdown(input);
    if c.proven {
        prop_assert_eq!(proof::same_events(input, &c.text), Ok(()));
        prop_assert_eq!(c.reason, None);
    } else {
        prop_assert_eq!(&c.text, input);
        prop_assert!(c.reason.is_some());
    }
    let again = compact_markdown(&c.text);
    prop_assert_eq!(&again.text, &c.text, "not idempotent");
    Ok(())
}

/// Lines of the kinds that meet in briefs, with the whitespace that compaction touches.
fn markdownish_line() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("Refunds take 5 days.".to_owned()),
        Just("# Heading".to_owned()),
        Just("Setext title".to_owned()),
        Just("===".to_owned()),
        Just("- item".to_owned()),
        Just("  - nested item".to_owned()),
        Just("1. first".to_owned()),
        Just("> quoted".to_owned()),
        Just(">".to_owned()),
        Just("```".to_owned()),
        Just("~~~".to_owned()),
        Just("````md".to_owned()),
        Just("    indented code".to_owned()),
        Just("\tcode after tab".to_owned()),
        Just("| a | b |".to_owned()),
        Just("|---|---|".to_owned()),
        Just("<div>".to_owned()),
        Just("</div>".to_owned()),
        Just("<!-- c".to_owned()),
        Just("-->".to_owned()),
        Just("Use `x` and **y**.".to_owned()),
        Just("end\\".to_owned()),
        Just("[ref]: https://example.com".to_owned()),
        Just("---".to_owned()),
        Just("* * *".to_owned()),
        Just(String::new()),
        "[a-z`*_ ]{0,12}",
    ];
    let trailing = prop_oneof![
        Just(""),
        Just(" "),
        Just("  "),
        Just("   "),
        Just("\t"),
        Just("\t  "),
        Just("  \t"),
    ];
    let ending = prop_oneof![4 => Just("\n"), 1 => Just("\r\n")];
    (fragment, trailing, ending).prop_map(|(f, t, e)| format!("{f}{t}{e}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn markdownish_text_is_proven_or_unchanged_and_idempotent(
        lines in prop::collection::vec(markdownish_line(), 0..24),
        cut in any::<bool>(),
    ) {
        let mut text = lines.concat();
        if cut {
            // Also end without a final newline.
            text.truncate(text.trim_end_matches(['\n', '\r']).len());
        }
        check_contract(&text)?;
    }

    #[test]
    fn arbitrary_strings_keep_the_contract(text in "(?s).{0,200}") {
        check_contract(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        check_contract(&text)?;
        let doc = compact_document(&text);
        if !doc.proven {
            prop_assert_eq!(doc.text.as_str(), text.as_ref());
        }
    }

    #[test]
    fn whitespace_heavy_strings_keep_the_contract(text in "[a\\- >`#|\t\r\n]{0,80}") {
        check_contract(&text)?;
    }
}
