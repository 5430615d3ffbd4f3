//! Human tables stay aligned whatever their cells hold: every table goes through the one
//! table helper, which sizes each column to its widest cell.

use std::fs;

use crate::common::{brief, stdout};

/// The table lines of `text`: from the line starting with `header` to the first blank line.
fn table_lines<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(header))
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// Regression: `brief stats` padded the item id to 22 characters by hand, so an id of 23 or
/// more pushed every later column of its row to the right.
#[test]
fn a_stats_table_with_a_long_id_stays_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("b");
    fs::create_dir_all(root.join("items")).unwrap();
    let long = "an-item-whose-id-is-much-longer-than-twenty-two";
    fs::write(
        root.join("brief.yaml"),
        format!("name: b\nitems: [short, {long}]\n"),
    )
    .unwrap();
    fs::write(
        root.join("items/short.md"),
        "---\ntype: instruction\n---\nAnswer briefly.\n",
    )
    .unwrap();
    fs::write(
        root.join(format!("items/{long}.md")),
        "---\ntype: context\n---\nThe opening hours are nine to five on weekdays.\n",
    )
    .unwrap();
    let out = brief().args(["stats"]).arg(&root).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let lines = table_lines(&text, "ITEM");
    assert_eq!(lines.len(), 4, "header, two items, total:\n{text}");
    let type_at = lines[0].find("TYPE").unwrap();
    for line in &lines {
        // The last column (SHARE) is right-aligned: aligned rows are equally long.
        assert_eq!(line.len(), lines[0].len(), "{text}");
        assert_ne!(&line[type_at - 1..type_at], "-", "{text}");
    }
    assert!(lines[2].starts_with(long), "{text}");
    assert!(lines[2][type_at..].starts_with("context"), "{text}");
    assert!(lines[1][type_at..].starts_with("instruction"), "{text}");
}

/// Regression: `brief usage` padded the brief column to 12 characters and the key column
/// to at most 40 by hand, so a longer brief name or model shifted the rest of its row.
#[test]
fn a_usage_table_with_long_names_stays_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let row = |brief: &str, model: &str, hash: &str| {
        format!(
            "{{\"time\":\"2026-11-30T09:00:02.114Z\",\"command\":\"probe\",\"provider\":\"openai\",\"model\":\"{model}\",\"brief\":\"{brief}\",\"prefix_hash\":\"{hash}\",\"input_tokens\":2310,\"cached_input_tokens\":1024,\"cache_write_tokens\":0,\"output_tokens\":1,\"latency_ms\":812,\"attempts\":1,\"status\":\"ok\"}}\n"
        )
    };
    let long_brief = "a-brief-whose-name-is-far-longer-than-twelve";
    let long_model = "a-fine-tuned-model-with-a-name-longer-than-forty-characters";
    fs::write(
        &path,
        row("b", "m", &"a".repeat(64)) + &row(long_brief, long_model, &"b".repeat(64)),
    )
    .unwrap();
    for (by, header) in [("prefix", "PREFIX"), ("model", "MODEL")] {
        let out = brief()
            .args(["usage", "--by", by, "--ledger"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        let lines = table_lines(&text, header);
        assert_eq!(lines.len(), 3, "header and two groups:\n{text}");
        let calls_end = lines[0].find("CALLS").unwrap() + "CALLS".len();
        for line in &lines[1..] {
            // CALLS is right-aligned: every row's count ends where the title does.
            assert_eq!(&line[calls_end - 1..calls_end], "1", "{by}:\n{text}");
        }
        // Same dates in the last column: aligned rows are equally long.
        assert_eq!(lines[1].len(), lines[2].len(), "{by}:\n{text}");
    }
}
