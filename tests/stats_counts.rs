//! `brief stats` derives the prefix and volatile-template totals from the items' counts
//! (`tokens::Counter`): on any brief they must equal counting the composed texts whole.

use std::fs;
use std::path::Path;

use briefkit::brief::Brief;
use briefkit::cache::cost::measure;
use briefkit::compact::compact_markdown;
use briefkit::prompt::compose::{ComposeOptions, prefix};
use briefkit::prompt::measure::{prefix_tokens, volatile_template};
use briefkit::tokens::count;
use proptest::prelude::*;

use crate::common::{brief, json, stdout, workspace};

/// Writes a brief of `bodies` (type, body) and checks every figure of `measure`.
fn check_brief(root: &Path, tokenizer: &str, vars: &str, bodies: &[(&str, String)]) {
    fs::create_dir_all(root.join("items")).unwrap();
    let ids: Vec<String> = (0..bodies.len()).map(|i| format!("i{i}")).collect();
    fs::write(
        root.join("brief.yaml"),
        format!(
            "name: p\ntokenizer: {tokenizer}\nitems: [{}]\n{vars}",
            ids.join(", ")
        ),
    )
    .unwrap();
    for (id, (kind, body)) in ids.iter().zip(bodies) {
        fs::write(
            root.join(format!("items/{id}.md")),
            format!("---\ntype: {kind}\n---\n{body}"),
        )
        .unwrap();
    }
    let brief = Brief::load(root).expect("the brief loads");
    let encoding = brief.manifest.tokenizer;
    let measured = measure(&brief);
    for (cost, item) in measured.items.iter().zip(&brief.items) {
        assert_eq!(
            cost.tokens,
            count(encoding, item.body()),
            "{:?}",
            item.body()
        );
        let compacted = compact_markdown(item.body()).text;
        assert_eq!(
            cost.tokens_compacted,
            count(encoding, &compacted),
            "{compacted:?}"
        );
    }
    let options = ComposeOptions::default();
    let direct = prefix_tokens(&brief, &prefix(&brief, options));
    assert_eq!(
        measured.prefix_tokens, direct,
        "{:?}",
        measured.prefix.static_system
    );
    let template = volatile_template(&brief, options);
    assert_eq!(
        measured.volatile_tokens,
        count(encoding, &template),
        "{template:?}"
    );
}

/// Markdown-ish bodies whose joins are tight: sentence ends and slashes (`.\n\n/` is one
/// piece), trailing spaces and line breaks, leading whitespace, Unicode whitespace,
/// contractions, lists, code and blank lines that compaction changes.
fn body() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "word",
        "Word",
        "it's",
        "'s",
        "don't",
        ".",
        "!",
        "/path",
        "/",
        "1234",
        "7",
        "é",
        "ß",
        "退款",
        "🚀",
        "`code`",
        "**bold**",
        "- item",
        "# Title",
        "  ",
        " ",
        "\t",
        "\u{a0}",
        "\u{3000}",
        "\n",
        "\n\n",
        "\n\n\n",
        "\r\n",
        "   \n",
        "x ",
        "\\{{esc}}",
        "{{name}}",
    ]);
    prop::collection::vec(word, 0..24).prop_map(|words| {
        let mut text = String::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 && i % 3 == 0 {
                text.push(' ');
            }
            text.push_str(w);
        }
        text
    })
}

fn kind() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["rule", "instruction", "identity", "context"])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn stats_totals_equal_counting_the_composed_texts(
        items in prop::collection::vec((kind(), body()), 1..7),
        cl100k in any::<bool>(),
        vars in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let tokenizer = if cl100k && cfg!(feature = "cl100k") { "cl100k_base" } else { "o200k_base" };
        // Static items may use only the manifest's vars: without them, no placeholder.
        let items: Vec<(&str, String)> = items
            .into_iter()
            .map(|(kind, body)| {
                let body = if vars || kind == "context" { body } else { body.replace("{{name}}", "name") };
                // A rule needs a body.
                let body = if kind == "rule" { format!("Rule:{body}") } else { body };
                (kind, body)
            })
            .collect();
        let vars = if vars { "vars: { name: \"Ada  L. \" }\n" } else { "" };
        check_brief(dir.path(), tokenizer, vars, &items);
    }
}

#[test]
fn the_bundled_shapes_count_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let items = vec![
        ("identity", "You are a helpful agent.\n".to_string()),
        ("rule", "Never promise a date.   \n\n\n".to_string()),
        (
            "instruction",
            "  indented start\n\n- one\n- two\n\n```\ncode  here\n```\n".to_string(),
        ),
        ("rule", "/slash start and end.".to_string()),
        (
            "sample\nformat: messages",
            "- role: user\n  content: Where is order 1042?\n- role: assistant\n  content: |\n    It left on 3 May.   \n\n\n    Track it.\n".to_string(),
        ),
        ("instruction", "\n\n".to_string()),
        ("context", "Today: {{date}}.\n".to_string()),
        ("context", "Plan: {{plan}}".to_string()),
    ];
    check_brief(dir.path(), "o200k_base", "", &items);
}

/// Issue 15: `stats` shows the composed brief against `budget.max_brief_tokens`, the
/// figure `brief check` fails on, with how far under or over it is.
#[test]
fn stats_shows_max_brief_tokens_beside_the_total() {
    let dir = workspace("clinic");
    let manifest = dir.path().join("clinic/brief.yaml");
    let original = fs::read_to_string(&manifest).unwrap();
    let stats = |max: &str| {
        let yaml = original.replace(
            "max_brief_tokens: 2000",
            &format!("max_brief_tokens: {max}"),
        );
        fs::write(&manifest, yaml).unwrap();
        let run = |json_flag: bool| {
            let mut cmd = brief();
            cmd.current_dir(dir.path()).args(["stats", "clinic"]);
            if json_flag {
                cmd.arg("--json");
            }
            cmd.output().unwrap()
        };
        (stdout(&run(false)), json(&run(true)))
    };
    let (text, data) = stats("2000");
    assert!(
        text.contains("Budget: 198 / 2000 max_brief_tokens (1802 under)"),
        "{text}"
    );
    assert_eq!(data["budget"]["max_brief_tokens"], 2000);
    assert_eq!(data["budget"]["tokens"], data["context"]["tokens"]);
    assert_eq!(data["budget"]["under_by"], 1802);
    assert_eq!(data["budget"]["over"], false);
    let (text, data) = stats("150");
    assert!(
        text.contains("Budget: 198 / 150 max_brief_tokens, over by 48 tokens"),
        "{text}"
    );
    assert_eq!(data["budget"]["over"], true);
    assert_eq!(data["budget"]["over_by"], 48);
    assert_eq!(data["budget"]["under_by"], 0);
    assert_eq!(data["status"], "warning");
    // `check` fails on the same figure.
    let check = brief()
        .current_dir(dir.path())
        .args(["check", "clinic"])
        .output()
        .unwrap();
    assert!(!check.status.success());
    assert!(
        String::from_utf8_lossy(&check.stderr).contains("198 tokens")
            || stdout(&check).contains("198 tokens")
    );
    let yaml = original.replace("max_brief_tokens: 2000", "");
    fs::write(&manifest, yaml).unwrap();
    let data = json(
        &brief()
            .current_dir(dir.path())
            .args(["stats", "clinic", "--json"])
            .output()
            .unwrap(),
    );
    assert!(data["budget"].is_null());
}
