//! `brief import`: an existing prompt becomes a brief that composes back to the source.

use std::fs;

use crate::common::{json, run_in, snapshot_tree, stderr, stdout};
use crate::harness::{assert_exit, assert_stderr_has};

/// Imports `source` as `prompt.md` into `./out` and returns the workspace and the output.
fn import(source: &str, extra: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("prompt.md"), source).unwrap();
    let mut args = vec!["import", "prompt.md", "out"];
    args.extend_from_slice(extra);
    let out = run_in(ws.path(), &args);
    (ws, out)
}

fn compose_raw(ws: &tempfile::TempDir) -> String {
    let out = run_in(ws.path(), &["compose", "out", "--no-compact"]);
    assert_exit(&out, 0);
    stdout(&out)
}

const SHAPES: &[(&str, &str)] = &[
    (
        "no headings",
        "You sort parcels for a depot.\n\nAsk before you guess a postcode.\n",
    ),
    (
        "deep headings",
        "# Depot helper\nYou sort parcels.\n\n## Intake\nWeigh first.\n\n### Fragile\nUse the red tray.\n\n#### Glass\nTwo layers of wrap.\n\n## Dispatch\nVans leave at 16:00.\n",
    ),
    (
        "code fences",
        "# Tools\nCall the scanner like this:\n\n```bash\n# not a heading\nscan --tray 4\n```\n\n# Replies\n~~~\n## also not a heading\n~~~\n",
    ),
    (
        "front matter",
        "---\nmodel: small\ntemperature: 0\n---\n\n# Role\nYou sort parcels.\n",
    ),
    (
        "html comments",
        "<!-- owner: depot team -->\n\n# Role\nYou sort parcels.\n\n<!--\n# commented-out heading\n-->\n\n## Rules\nNo guessing.\n",
    ),
    (
        "placeholders",
        "# Greeting\nHello {{customer}}, your parcel {{ parcel_id }} is on its way.\n\nWrite `{{literal}}` in code as is.\n",
    ),
    (
        "sections with no blank line between them",
        "---\nmodel: small\n---\n<!-- owner: depot -->\nYou sort parcels.\n# Rules\nNo guessing.\n## Late vans\nCall the hub.\n\n# Tone\nShort answers.\n",
    ),
    (
        "setext headings",
        "Role\n====\n\nYou sort parcels.\n\nRules\n-----\n\nNo guessing.\n",
    ),
];

#[test]
fn composing_an_imported_prompt_reproduces_the_source_for_every_shape() {
    for (shape, source) in SHAPES {
        let (ws, out) = import(source, &["--json"]);
        assert_eq!(out.status.code(), Some(0), "{shape}: {}", stderr(&out));
        let report = json(&out);
        assert_eq!(report["status"], "ok", "{shape}");
        assert_eq!(report["exact"], true, "{shape}: {report}");
        assert_eq!(compose_raw(&ws), *source, "{shape}");
        // The imported brief is a valid brief: it locks and checks clean.
        let lock = run_in(ws.path(), &["lock", "out"]);
        assert_eq!(lock.status.code(), Some(0), "{shape}: {}", stderr(&lock));
        let check = run_in(ws.path(), &["check", "out"]);
        assert_eq!(check.status.code(), Some(0), "{shape}: {}", stderr(&check));
    }
}

#[test]
fn sections_become_items_with_ids_from_their_headings() {
    let (ws, out) = import(SHAPES[1].1, &["--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    let ids: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["depot-helper", "intake", "dispatch"]);
    let item = fs::read_to_string(ws.path().join("out/items/intake.md")).unwrap();
    assert!(item.starts_with("---\ntype: instruction\ntitle: \"Intake\"\n---\n## Intake\n"));
    assert!(
        item.contains("#### Glass"),
        "deeper headings stay inside: {item}"
    );
    assert!(report["items"][0]["tokens"].as_u64().unwrap() > 0);
}

#[test]
fn split_h1_keeps_second_level_sections_together() {
    let (_ws, out) = import(SHAPES[1].1, &["--split", "h1", "--json"]);
    assert_eq!(json(&out)["items"].as_array().unwrap().len(), 1);
    let (_ws, out) = import(SHAPES[1].1, &["--split", "h3", "--json"]);
    assert_eq!(json(&out)["items"].as_array().unwrap().len(), 4);
}

#[test]
fn duplicate_and_odd_headings_get_valid_unique_ids() {
    let source = "# Rules!\na\n\n# Rules!\nb\n\n# ***\nc\n\n# Ünïcode Größe\nd\n";
    let (_ws, out) = import(source, &["--split", "h1", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    let ids: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["rules", "rules-2", "section", "unicode-grosse"]);
    for id in &ids {
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
    }
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
}

#[test]
fn placeholders_import_as_literal_text_not_as_errors() {
    let (ws, out) = import(SHAPES[5].1, &["--json"]);
    assert_exit(&out, 0);
    assert_eq!(json(&out)["escaped_placeholders"], 2);
    let item = fs::read_to_string(ws.path().join("out/items/greeting.md")).unwrap();
    assert!(item.contains("Hello \\{{customer}}"), "{item}");
    assert!(
        item.contains("`{{literal}}`"),
        "code is left as written: {item}"
    );
    let composed = run_in(ws.path(), &["compose", "out"]);
    assert_exit(&composed, 0);
    assert!(stdout(&composed).contains("Hello {{customer}}, your parcel {{ parcel_id }}"));
}

#[test]
fn extra_blank_lines_between_sections_compose_back() {
    let source = "# A\nfirst\n\n\n\n# B\nsecond\n";
    let (ws, out) = import(source, &["--json"]);
    let report = json(&out);
    assert_eq!(report["exact"], true, "{report}");
    assert_eq!(compose_raw(&ws), source);
    // Compaction still collapses them in what is sent.
    let sent = run_in(ws.path(), &["compose", "out"]);
    assert_eq!(stdout(&sent), "# A\nfirst\n\n# B\nsecond\n");
}

#[test]
fn blank_lines_holding_spaces_are_said_and_the_text_is_otherwise_kept() {
    let source = "# A\nfirst\n   \n\n# B\nsecond\n";
    let (ws, out) = import(source, &["--json"]);
    let report = json(&out);
    assert_eq!(report["exact"], false);
    assert!(report["notes"][0].as_str().unwrap().contains("blank lines"));
    assert_eq!(compose_raw(&ws), "# A\nfirst\n\n# B\nsecond\n");
}

#[test]
fn importing_into_an_existing_brief_is_refused_and_writes_nothing() {
    let (ws, out) = import("# A\nx\n", &[]);
    assert_exit(&out, 0);
    let before = snapshot_tree(ws.path());
    let again = run_in(ws.path(), &["import", "prompt.md", "out"]);
    assert_eq!(again.status.code(), Some(2));
    assert_stderr_has(&again, "already a brief");
    assert_eq!(snapshot_tree(ws.path()), before);
}

#[test]
fn a_file_that_is_not_utf8_is_bad_input() {
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("prompt.md"), b"# A\n\xff\xfe\n").unwrap();
    let out = run_in(ws.path(), &["import", "prompt.md", "out"]);
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "not valid UTF-8");
    assert!(!ws.path().join("out").exists());
}

#[test]
fn the_human_report_lists_items_and_the_next_step_with_a_quoted_path() {
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("prompt.md"), SHAPES[1].1).unwrap();
    let out = run_in(ws.path(), &["import", "prompt.md", "My Brief"]);
    assert_exit(&out, 0);
    let table = stdout(&out);
    assert!(table.starts_with("ID"), "{table}");
    assert!(table.contains("depot-helper"), "{table}");
    assert_stderr_has(&out, "brief lock 'My Brief'");
}

#[test]
fn a_section_over_the_item_limit_is_refused_before_anything_is_written() {
    // Regression: import wrote a 2 MB item that every other command then refused.
    let line = "Sort each parcel by its postcode before the vans leave.\n";
    let source = line.repeat(2 * 1024 * 1024 / line.len() + 1);
    let (ws, out) = import(&source, &[]);
    assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("limit"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!ws.path().join("out").exists(), "import left files behind");
}

#[test]
fn a_prompt_of_many_sections_imports_every_one_with_its_line() {
    // Past the count where the new item files are synced together rather than one by one.
    let source: String = (0..600)
        .map(|i| format!("## Depot {i}\n\nBay {i} takes parcels up to {i} kg.\n\n"))
        .collect();
    let (ws, out) = import(&source, &["--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["exact"], true);
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 600);
    assert_eq!(items[599]["id"], "depot-599");
    assert_eq!(items[599]["line"], 599 * 4 + 1);
    assert_eq!(compose_raw(&ws), source.trim_end().to_string() + "\n");
    assert_eq!(
        fs::read_dir(ws.path().join("out/items")).unwrap().count(),
        600
    );
}
