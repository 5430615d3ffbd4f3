//! The built-in list prices (issue 33): every hosted model the guide, the README, the
//! bundled briefs and the examples name is priced without setup (the bundled example's own
//! `gpt-4.1-mini` was not: "Cost covers 2 of 7 calls"), and every row of the table is dated
//! and found by the names providers give a model's dated snapshots.

use std::path::Path;

use briefkit::cache::list_prices::{LIST_PRICES, lookup};

/// Hosted model names in `text`: a lower-case token (model ids are; "GPT-4" in prose names
/// a family) that starts with a hosted family's prefix and has a digit in it
/// (`gpt-4.1-mini`, `claude-sonnet-4-5`; not `claude-code-session-id` or `gemini-upstream`,
/// which are no models).
fn model_names(text: &str) -> Vec<String> {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    text.split(|c: char| !is_name_char(c))
        .map(|t| t.trim_end_matches(['.', '-', '_']))
        .filter(|t| {
            let lower = t.to_ascii_lowercase();
            if lower != *t {
                return false;
            }
            let hosted = ["claude-", "gpt-", "gemini-"]
                .iter()
                .any(|p| lower.starts_with(p))
                || ["o1", "o3", "o4-mini"].iter().any(|m| lower == *m);
            hosted && lower.chars().any(|c| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files_under(&path, out);
        } else if kind.is_file()
            && path.extension().is_some_and(|e| {
                ["md", "yaml", "yml", "toml", "json", "rs"].contains(&e.to_str().unwrap_or(""))
            })
        {
            out.push(path);
        }
    }
}

#[test]
fn every_hosted_model_the_docs_and_bundled_briefs_name_has_a_list_price() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "briefs", "examples"] {
        files_under(&root.join(dir), &mut files);
    }
    let mut named = std::collections::BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for name in model_names(&text) {
            named.insert((name, file.strip_prefix(root).unwrap().display().to_string()));
        }
    }
    // The bundled example's model is among them: the scan finds what it should.
    assert!(
        named.iter().any(|(name, _)| name == "gpt-4.1-mini"),
        "{named:?}"
    );
    let unpriced: Vec<_> = named
        .iter()
        .filter(|(name, _)| lookup(name).is_none())
        .collect();
    assert!(
        unpriced.is_empty(),
        "named without a built-in price (add a dated row to list_prices.rs): {unpriced:?}"
    );
}

#[test]
fn every_list_price_is_dated_and_found_by_its_dated_snapshot_names() {
    for row in LIST_PRICES {
        // Each row says when its figures were read.
        let dated = row.source.split("read ").skip(1).any(|after| {
            let date = after.get(..10).unwrap_or("");
            date.len() == 10 && briefkit::clock::parse(&format!("{date}T00:00:00Z")).is_some()
        });
        assert!(dated, "{}: no read date in {:?}", row.family, row.source);
        assert!(row.input_per_mtok > 0.0 && row.output_per_mtok >= row.input_per_mtok);
        // A snapshot is priced as its family: Anthropic's `-20250929`, OpenAI's
        // `-2025-04-14`, Vertex's `@20250929`, a gateway's `vendor/` prefix.
        for name in [
            row.family.to_string(),
            format!("{}-20250929", row.family),
            format!("{}-2025-04-14", row.family),
            format!("{}@20250929", row.family),
            format!("vendor/{}", row.family),
        ] {
            let found = lookup(&name).unwrap_or_else(|| panic!("{name} is unpriced"));
            assert_eq!(found.family, row.family, "{name}");
        }
    }
}

#[test]
fn the_scan_reads_model_names_as_written() {
    assert_eq!(
        model_names("model: { provider: openai, name: gpt-4.1-mini }. Use `claude-sonnet-4-5`."),
        ["gpt-4.1-mini", "claude-sonnet-4-5"]
    );
    assert!(model_names("x-claude-code-session-id, --gemini-upstream, gpt-test, GPT-4").is_empty());
    assert_eq!(
        model_names("models/gemini-2.5-pro:generateContent"),
        ["gemini-2.5-pro"]
    );
}
