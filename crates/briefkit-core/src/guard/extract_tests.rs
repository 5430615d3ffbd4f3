use super::*;
use crate::guard::Kind;

/// (kind, value as written, canonical) of every fact, in text order.
fn facts(text: &str) -> Vec<(Kind, String, String)> {
    extract(text)
        .facts
        .into_iter()
        .map(|f| (f.kind, f.value, f.canonical))
        .collect()
}

fn one(text: &str) -> (Kind, String, String) {
    let all = facts(text);
    assert_eq!(all.len(), 1, "expected one fact in {text:?}, got {all:?}");
    all.into_iter()
        .next()
        .unwrap_or((Kind::Number, String::new(), String::new()))
}

fn fact(kind: Kind, value: &str, canonical: &str) -> (Kind, String, String) {
    (kind, value.to_string(), canonical.to_string())
}

#[test]
fn fenced_code_is_one_fact_and_hides_its_numbers_and_urls() {
    let text = "Run this:\n\n```sh\ncurl https://api.example.com/v2 -d 'n=5'\n```\n\nThen wait 30 seconds.\n";
    let all = facts(text);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0].0, Kind::CodeBlock);
    assert_eq!(
        all[0].1,
        "```sh\ncurl https://api.example.com/v2 -d 'n=5'\n```"
    );
    assert_eq!(all[0].2, "curl https://api.example.com/v2 -d 'n=5'");
    assert_eq!(all[1], fact(Kind::Number, "30", "30"));
}

#[test]
fn code_inside_a_list_item_compares_without_the_list_indentation() {
    let text = "- step:\n\n  ~~~\n  make test\n  ~~~\n";
    assert_eq!(one(text).2, "make test");
}

#[test]
fn an_unclosed_fence_runs_to_the_end() {
    let text = "Intro 4.\n```\nlet x = 5;\n";
    let all = facts(text);
    assert_eq!(all[0], fact(Kind::Number, "4", "4"));
    assert_eq!(all[1].0, Kind::CodeBlock);
    assert_eq!(all[1].2, "let x = 5;");
}

#[test]
fn inline_code_is_byte_exact_and_hides_what_is_inside() {
    assert_eq!(
        one("Call `lookup_order(id=42)` first."),
        fact(
            Kind::InlineCode,
            "`lookup_order(id=42)`",
            "lookup_order(id=42)"
        )
    );
    assert_eq!(one("use `` a`b ``").2, "a`b");
}

#[test]
fn urls_drop_trailing_punctuation_and_unbalanced_brackets() {
    let cases = [
        ("See https://example.com/docs.", "https://example.com/docs"),
        ("(see https://example.com/a)", "https://example.com/a"),
        (
            "[docs](https://example.com/x_(y))!",
            "https://example.com/x_(y)",
        ),
        ("at www.example.org, or", "www.example.org"),
        (
            "GET https://api.example.com/{id}/items?",
            "https://api.example.com/{id}/items",
        ),
        (
            "ftp://files.example.net/pub;",
            "ftp://files.example.net/pub",
        ),
        ("<https://example.com/>", "https://example.com/"),
    ];
    for (text, url) in cases {
        assert_eq!(
            one(text),
            fact(Kind::Url, url, &crate::guard::canon::url(url)),
            "{text}"
        );
    }
}

#[test]
fn digits_in_a_url_are_not_numbers() {
    assert_eq!(one("https://example.com/v2/items/500").0, Kind::Url);
}

#[test]
fn emails_and_placeholders() {
    assert_eq!(
        one("write to Help.Desk@Example.com."),
        fact(
            Kind::Email,
            "Help.Desk@Example.com",
            "help.desk@example.com"
        )
    );
    assert_eq!(
        facts("Hi {{ name }}, {% if vip %}gold{% endif %} ${HOME}"),
        vec![
            fact(Kind::Placeholder, "{{ name }}", "{{name}}"),
            fact(Kind::Placeholder, "{% if vip %}", "{%if vip%}"),
            fact(Kind::Placeholder, "{% endif %}", "{%endif%}"),
            fact(Kind::Placeholder, "${HOME}", "${HOME}"),
        ]
    );
}

#[test]
fn prices_in_their_many_spellings() {
    let cases = [
        ("costs $1,200.00 now", "$1,200.00", "USD 1200"),
        ("costs $1200", "$1200", "USD 1200"),
        ("costs USD 1200", "USD 1200", "USD 1200"),
        ("costs 1200 USD", "1200 USD", "USD 1200"),
        ("costs 49 €", "49 €", "EUR 49"),
        ("costs €49.50", "€49.50", "EUR 49.5"),
        ("costs £15K a year", "£15K a year", "GBP 15000/year"),
        ("plans $50-200/mo", "$50-200/mo", "USD 50-200/month"),
        (
            "plans $500-2,000/month",
            "$500-2,000/month",
            "USD 500-2000/month",
        ),
        ("plans $200-2K/mo", "$200-2K/mo", "USD 200-2000/month"),
        (
            "from $5 to $9 per user",
            "$5 to $9 per user",
            "USD 5-9/user",
        ),
        ("about $1.5M", "$1.5M", "USD 1500000"),
        ("tip: 20 dollars", "20 dollars", "USD 20"),
        ("fee ¥300", "¥300", "JPY 300"),
        ("charge $0.05/request", "$0.05/request", "USD 0.05/request"),
    ];
    for (text, value, canonical) in cases {
        assert_eq!(one(text), fact(Kind::Price, value, canonical), "{text}");
    }
}

#[test]
fn a_price_running_into_a_word_is_not_a_price() {
    assert_eq!(one("a $5Mbps link"), fact(Kind::Number, "5Mbps", "5"));
}

#[test]
fn loose_numbers() {
    let cases = [
        ("up to 1,200 rows", Kind::Number, "1,200", "1200"),
        ("ratio 0.75 max", Kind::Number, "0.75", "0.75"),
        ("a 15% discount", Kind::Number, "15%", "15%"),
        ("a 15 percent discount", Kind::Number, "15 percent", "15%"),
        ("keep 45K tokens", Kind::Number, "45K", "45000"),
        ("retry 3x", Kind::Number, "3x", "3"),
        ("wait 7s", Kind::Number, "7s", "7"),
        ("on 2024-05-15, ok", Kind::Date, "2024-05-15", "2024-05-15"),
        (
            "at 2024-05-15T09:30:00Z",
            Kind::Date,
            "2024-05-15T09:30:00Z",
            "2024-05-15T09:30:00Z",
        ),
        ("at 15:00:00 EST", Kind::Time, "15:00:00", "15:00:00"),
        ("at 3 PM sharp", Kind::Time, "3 PM", "3pm"),
        ("Node 18.17 or later", Kind::Number, "18.17", "18.17"),
        ("needs v2.3.1", Kind::Version, "v2.3.1", "2.3.1"),
        ("needs 1.10.0", Kind::Version, "1.10.0", "1.10.0"),
        (
            "bind 127.0.0.1 only",
            Kind::IpAddress,
            "127.0.0.1",
            "127.0.0.1",
        ),
        ("a 15 percentage-point gap", Kind::Number, "15", "15"),
    ];
    for (text, kind, value, canonical) in cases {
        assert_eq!(one(text), fact(kind, value, canonical), "{text}");
    }
}

#[test]
fn a_time_that_runs_into_a_word_falls_back_to_its_number() {
    assert_eq!(one("5 amazing ideas"), fact(Kind::Number, "5", "5"));
}

#[test]
fn ranges_are_their_numbers_and_share_a_percent_sign() {
    assert_eq!(
        facts("between 5 to 7 days, 8–12 items, 10-20% off"),
        vec![
            fact(Kind::Number, "5", "5"),
            fact(Kind::Number, "7", "7"),
            fact(Kind::Number, "8", "8"),
            fact(Kind::Number, "12", "12"),
            fact(Kind::Number, "10", "10%"),
            fact(Kind::Number, "20%", "20%"),
        ]
    );
}

#[test]
fn numbers_inside_identifiers_are_not_numbers() {
    let all = facts("use sha256 and o200k_base on x86_64 for msg_12");
    assert_eq!(
        all,
        vec![fact(Kind::Identifier, "o200k_base", "o200k_base")]
    );
}

#[test]
fn list_markers_and_section_numbers_are_structure() {
    let text = "## 2. Refunds\n\n1. Ask for the order.\n2) Check it.\n   10. Nested\n> 3. Quoted\n- 4. Mixed\n\nAfter 2 days.\n";
    assert_eq!(facts(text), vec![fact(Kind::Number, "2", "2")]);
}

#[test]
fn each_fact_is_listed_once_at_its_first_occurrence_with_its_position() {
    let text = "Fee: $10.\nAgain $10.00 and\n  naïve 7 and 7.\n";
    let all = extract(text).facts;
    assert_eq!(all.len(), 2);
    assert_eq!((all[0].line, all[0].column), (1, 6));
    assert_eq!(
        (all[1].value.as_str(), all[1].line, all[1].column),
        ("7", 3, 9)
    );
}

#[test]
fn facts_inside_code_and_number_words_that_count_nothing_are_keys_but_not_facts() {
    let extracted = extract("Set `limit=50` for one of the tries.");
    assert_eq!(extracted.facts.len(), 1);
    assert!(!extracted.keys.contains(Class::Numeric, "50"));
    assert!(extracted.has(Class::Numeric, "50"));
    assert!(extracted.has(Class::Numeric, "1"));
    assert!(!extracted.has(Class::Numeric, "4"));
}

#[test]
fn blanking_keeps_offsets_and_newlines() {
    let text = "a €5\nb €\nc";
    let mut out = text.to_string();
    blank(&mut out, &[2..12, 13..14]);
    assert_eq!(out.len(), text.len());
    assert_eq!(out, "a     \n     \n ");
}

#[test]
fn a_fence_may_open_right_after_a_list_marker() {
    let text = "1. ```\n   make\n   ```\n2. Done 3 times.\n";
    let all = facts(text);
    assert_eq!(all[0].0, Kind::CodeBlock);
    assert_eq!(all[0].2, "make");
    assert_eq!(all[1], fact(Kind::Number, "3", "3"));
}

#[test]
fn fences_in_block_quotes_lose_their_markers() {
    let text = "> ```\n> ls -la\n> ```\n";
    assert_eq!(one(text).2, "ls -la");
}

#[test]
fn a_closing_fence_must_be_as_long_and_of_the_same_character() {
    let text = "````\n```\nx\n~~~\n````\nafter 9\n";
    let all = facts(text);
    assert_eq!(all[0].2, "```\nx\n~~~");
    assert_eq!(all[1], fact(Kind::Number, "9", "9"));
}

#[test]
fn inline_code_does_not_cross_a_blank_line_or_a_list_item() {
    assert_eq!(
        facts("a `b\n\nc` 5\n- d `e\n- f` 6"),
        vec![fact(Kind::Number, "5", "5"), fact(Kind::Number, "6", "6")]
    );
    assert_eq!(one("a `b\nc` d").2, "b c");
    assert_eq!(one("x `` ` `` y").2, "`");
    assert_eq!(facts("\\`not code` 4"), vec![fact(Kind::Number, "4", "4")]);
}

#[test]
fn blank_lines_ending_an_unclosed_fence_are_not_code() {
    // Regression (found by guard_props): "```sh\n\r\n" against itself plus a newline
    // reported an introduced code block of one empty line.
    assert_eq!(facts("```sh\n\r\n"), facts("```sh\n\r\n\n"));
    assert!(facts("```sh\n  \n\n").is_empty());
    assert_eq!(facts("```sh\necho 1\n\n\n")[0].2, "echo 1");
    assert_eq!(facts("```sh\necho 1\n\n\n"), facts("```sh\necho 1\n"));
    // A closed fence keeps its blank lines: they are inside the code.
    assert_eq!(facts("```\nx\n\n```\n")[0].2, "x\n");
}
