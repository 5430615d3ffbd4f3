//! Regression tests for what a new user's review of the CLI found: numbers in brief.yaml
//! taken unchecked, a duplicate YAML key reported at the wrong line, messages that
//! contradict themselves, and commands without `--json`.

use std::fs;

use crate::common::{brief, snapshot_tree, stderr, workspace};
use crate::harness::assert_exit;

/// Rewrites one `key: value` of the clinic fixture's manifest, runs `brief check` and
/// returns (exit code, stderr), checking nothing was written.
fn check_with(from: &str, to: &str) -> (i32, String, String) {
    let ws = workspace("clinic");
    let manifest = ws.path().join("clinic/brief.yaml");
    let text = fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(from), "{from} not in the fixture");
    let text = text.replace(from, to);
    // Where the new value starts, as `line:column:`.
    let at = text.find(to).unwrap() + to.find(": ").unwrap() + 2;
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    fs::write(&manifest, &text).unwrap();
    let before = snapshot_tree(ws.path());
    let out = brief()
        .current_dir(ws.path())
        .args(["check", "clinic"])
        .output()
        .unwrap();
    assert_eq!(before, snapshot_tree(ws.path()));
    (
        out.status.code().unwrap(),
        stderr(&out),
        format!("{line}:{column}:"),
    )
}

#[test]
fn manifest_numbers_out_of_range_are_refused_at_their_line_and_column() {
    let cases = [
        ("context_limit: 4000", "context_limit: 0", "context_limit"),
        (
            "max_brief_tokens: 2000",
            "max_brief_tokens: 0",
            "max_brief_tokens",
        ),
        (
            "context_limit: 4000",
            "context_limit: 99999999999",
            "context_limit",
        ),
        (
            "input_per_mtok: 2.00",
            "input_per_mtok: -1",
            "input_per_mtok",
        ),
        (
            "input_per_mtok: 2.00",
            "input_per_mtok: 1e308",
            "input_per_mtok",
        ),
        (
            "input_per_mtok: 2.00",
            "input_per_mtok: .inf",
            "input_per_mtok",
        ),
        (
            "input_per_mtok: 2.00",
            "input_per_mtok: .nan",
            "input_per_mtok",
        ),
        (
            "output_per_mtok: 8.00",
            "output_per_mtok: -0.5",
            "output_per_mtok",
        ),
        (
            "cached_input_per_mtok: 0.50",
            "cached_input_per_mtok: 1e12",
            "cached_input_per_mtok",
        ),
    ];
    for (from, to, field) in cases {
        let (code, err, at) = check_with(from, to);
        assert_eq!(code, 2, "{to}: {err}");
        assert!(err.contains(&format!("brief.yaml:{at}")), "{to}: {err}");
        assert!(err.contains(field), "{to}: {err}");
        assert!(!err.contains("inf") || to.contains("inf"), "{to}: {err}");
        assert!(err.len() < 600, "{to}: a short message: {err}");
    }
    // In range is still accepted: a free model, a large window.
    for (from, to) in [
        ("input_per_mtok: 2.00", "input_per_mtok: 0"),
        ("context_limit: 4000", "context_limit: 2000000"),
    ] {
        let (code, err, _) = check_with(from, to);
        assert_ne!(code, 2, "{to}: {err}");
    }
}

#[test]
fn a_duplicate_key_is_reported_at_its_own_line_not_at_1_1() {
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .args(["session", "new", "s", "--brief", "clinic"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let config = ws.path().join("s/session.yaml");
    let mut text = fs::read_to_string(&config).unwrap();
    let lines = text.lines().count();
    text.push_str("# a comment\n\ncontext_limit: 9000\n");
    fs::write(&config, &text).unwrap();
    let out = brief()
        .current_dir(ws.path())
        .args(["session", "status", "s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "session.yaml:{}:1: duplicate field `context_limit`",
            lines + 3
        )),
        "{err}"
    );

    // The same in brief.yaml, at the top level and inside a nested mapping.
    let manifest = ws.path().join("clinic/brief.yaml");
    let original = fs::read_to_string(&manifest).unwrap();
    for (extra, at) in [
        (
            "tokenizer: o200k_base\n",
            "8:1: duplicate field `tokenizer`",
        ),
        (
            "model:\n  provider: openai\n  name: a\n  name: b\n",
            "11:3: model: duplicate field `name`",
        ),
    ] {
        let text = format!("{original}\n{extra}");
        fs::write(&manifest, text).unwrap();
        let out = brief()
            .current_dir(ws.path())
            .args(["check", "clinic"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("brief.yaml:{at}")),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_file_where_a_directory_is_wanted_is_said_in_words_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("afile.md"), "mine\n").unwrap();
    for (args, hint) in [
        (&["init", "afile.md"][..], "choose another directory"),
        (
            &["generate", "man", "--dir", "afile.md"][..],
            "name a directory",
        ),
    ] {
        let out = brief().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("afile.md: already exists"), "{args:?}: {err}");
        assert!(!err.contains("os error"), "{args:?}: {err}");
        assert!(err.contains(hint), "{args:?}: {err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("afile.md")).unwrap(),
            "mine\n"
        );
    }
}

#[test]
fn import_of_a_crlf_prompt_does_not_claim_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("crlf.md"),
        "# Role\r\nYou help.\r\n\r\n# Rules\r\nBe brief.\r\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("lf.md"),
        "# Role\nYou help.\n\n# Rules\nBe brief.\n",
    )
    .unwrap();
    for (file, out_dir, exact_claim) in [("crlf.md", "a", false), ("lf.md", "b", true)] {
        let out = brief()
            .current_dir(dir.path())
            .args(["import", file, out_dir])
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let all = format!("{}{}", crate::common::stdout(&out), stderr(&out));
        let json_out = brief()
            .current_dir(dir.path())
            .args(["import", file, &format!("{out_dir}-json"), "--json"])
            .output()
            .unwrap();
        let summary = crate::common::json(&json_out)["summary"]
            .as_str()
            .unwrap()
            .to_string();
        for text in [&all, &summary] {
            assert!(text.contains("byte for byte"), "{file}: {text}");
            assert_eq!(
                !text.contains("but for line ends"),
                exact_claim,
                "{file}: {text}"
            );
        }
    }
}

#[test]
fn show_diff_and_session_tools_take_json() {
    let ws = workspace("clinic");
    let run = |args: &[&str]| {
        let out = brief().current_dir(ws.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    };
    let keys = |doc: &serde_json::Value| -> Vec<String> {
        doc.as_object().unwrap().keys().cloned().collect()
    };
    let body = fs::read_to_string(ws.path().join("clinic/items/persona.md")).unwrap();
    let plain = crate::common::stdout(&run(&["show", "clinic", "persona"]));
    let shown = crate::common::json(&run(&["show", "clinic", "persona", "--json"]));
    assert_eq!(
        keys(&shown)[..2],
        ["status".to_string(), "summary".to_string()]
    );
    assert_eq!(shown["item"], "persona");
    assert!(shown["version"].is_null());
    assert_eq!(shown["body"].as_str().unwrap(), plain);
    assert!(
        body.ends_with(&plain) || plain == body,
        "show prints the item's body"
    );

    run(&["record", "clinic", "persona", "-m", "first"]);
    fs::write(
        ws.path().join("clinic/items/persona.md"),
        body.clone() + "One more line.\n",
    )
    .unwrap();
    let diffed = crate::common::json(&run(&["diff", "clinic", "persona", "--json"]));
    assert_eq!(
        keys(&diffed)[..2],
        ["status".to_string(), "summary".to_string()]
    );
    assert_eq!(diffed["from"], 1);
    assert!(diffed["to"].is_null());
    assert_eq!(diffed["changed"], true);
    assert_eq!(diffed["lines_added"], 1);
    assert_eq!(diffed["lines_removed"], 0);
    let unified = diffed["unified_diff"].as_str().unwrap();
    assert!(
        unified.starts_with("--- version 1\n+++ the current file\n@@"),
        "{unified}"
    );
    assert!(unified.contains("\n+One more line.\n"), "{unified}");
    assert!(diffed["summary"].as_str().unwrap().contains("1 line added"));
    let same = crate::common::json(&run(&["diff", "clinic", "persona", "--to", "1", "--json"]));
    assert_eq!(same["changed"], false);
    assert_eq!(same["unified_diff"], "");

    for format in ["openai", "anthropic"] {
        let bare: serde_json::Value =
            serde_json::from_slice(&run(&["session", "tools", "--format", format]).stdout).unwrap();
        let doc = crate::common::json(&run(&["session", "tools", "--format", format, "--json"]));
        assert_eq!(
            keys(&doc)[..2],
            ["status".to_string(), "summary".to_string()]
        );
        assert_eq!(doc["format"], format);
        assert_eq!(doc["tools"], bare);
        assert_eq!(doc["count"], bare.as_array().unwrap().len());
    }
}

#[test]
fn counts_of_one_read_in_the_singular_and_tables_stay_readable() {
    let ws = workspace("clinic");
    let run = |args: &[&str]| {
        let out = brief().current_dir(ws.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    };
    // The clinic brief has one tool.
    let made = crate::common::stdout(&run(&["session", "new", "s", "--brief", "clinic"]));
    assert!(made.contains("1 tool in Tier 1"), "{made}");
    let appended = crate::common::json(&run(&["session", "append", "s", "--user", "hi", "--json"]));
    let summary = appended["summary"].as_str().unwrap();
    assert!(!summary.contains("(1 tokens)"), "{summary}");
    let log = crate::common::json(&run(&["session", "log", "s", "--json"]));
    let summary = log["summary"].as_str().unwrap();
    assert!(summary.starts_with("1 entry, "), "{summary}");

    // A long note is cut in the history table, kept whole in JSON.
    let note = "because ".repeat(120);
    run(&["record", "clinic", "persona", "-m", note.trim()]);
    let table = crate::common::stdout(&run(&["history", "clinic", "persona"]));
    let row = table.lines().nth(1).unwrap();
    assert!(row.ends_with('…'), "{row}");
    assert!(row.chars().count() < 160, "{row}");
    let json = crate::common::json(&run(&["history", "clinic", "persona", "--json"]));
    let stored = json["versions"][0]["note"].as_str().unwrap();
    assert!(stored.chars().count() > 150, "{stored}");
    assert!(note.starts_with(stored.trim_end_matches('…')), "{stored}");

    // compact: the arrows of every row line up, under numbers of different widths.
    let table = crate::common::stdout(&run(&["compact", "clinic"]));
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert!(rows.len() >= 2, "{table}");
    for nth in 0..2 {
        let columns: Vec<usize> = rows
            .iter()
            .map(|row| row.match_indices('→').nth(nth).unwrap().0)
            .collect();
        assert!(columns.windows(2).all(|w| w[0] == w[1]), "{table}");
    }

    // import's table has upper-case headers, as every other table.
    fs::write(
        ws.path().join("p.md"),
        "# Role\nYou help.\n\n# Rules\nBe brief.\n",
    )
    .unwrap();
    let out = run(&["import", "p.md", "imported"]);
    let header = crate::common::stdout(&out);
    let header = header.lines().next().unwrap();
    assert!(header.starts_with("ID "), "{header}");
    assert_eq!(header, header.to_uppercase(), "{header}");
}

#[test]
fn the_stats_example_in_the_docs_is_what_the_binary_prints() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = fs::read_to_string(repo.join("docs/briefs.md")).unwrap();
    let command = "$ brief stats briefs/support\n";
    let start = docs.find(command).expect("the stats example") + command.len();
    let shown = &docs[start..start + docs[start..].find("```").unwrap()];
    let out = brief()
        .current_dir(repo)
        .args(["stats", "briefs/support"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(
        shown,
        crate::common::stdout(&out),
        "docs/briefs.md's `brief stats` example differs from the real output: paste the \
         output of `brief stats briefs/support` run at the repository's root"
    );
}
