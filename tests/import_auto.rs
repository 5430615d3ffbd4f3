//! `brief import --split auto` (the default): sections found by whatever marks them
//! (Markdown headings, XML-style section tags, `====`/`----` rules, upper-case title lines),
//! each with a suggested type and its reason, written with `--apply-types`; and import
//! stays exact whatever the markers.

use std::fs;

use briefkit::brief::import::{Split, plan};
use briefkit::brief::unescape_braces;
use proptest::prelude::*;

use crate::common::{json, run_in, stdout};
use crate::harness::{assert_exit, assert_stderr_has};

const TAGGED: &str = "You are the depot's parcel assistant.\n\n<ROLE>\nYou sort parcels and answer drivers.\n</ROLE>\n\n<LIMITS>\n- Never accept a parcel over 30 kg.\n- Always weigh a parcel before you label it.\n- Do not promise a delivery day.\n</LIMITS>\n\n<EXAMPLE>\nDriver: Where does bay 4 go?\nAssistant: Bay 4 goes on the north route van.\n</EXAMPLE>\n";

const RULED: &str = "You plan the depot's day.\n\n====\n\nDEPOT RULES\n\nYou must scan every parcel. Never stack glass. Only the shift lead may open a sealed cage.\n\n====\n\nTOOLS\n\nUse the scanner to read labels, and the route board to see which van is next.\n";

fn import(source: &str, extra: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("prompt.txt"), source).unwrap();
    let mut args = vec!["import", "prompt.txt", "out"];
    args.extend_from_slice(extra);
    let out = run_in(ws.path(), &args);
    (ws, out)
}

fn items(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["type"].as_str().unwrap().to_string(),
                i["suggested_type"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn xml_style_tags_split_a_prompt_without_headings_and_types_are_suggested() {
    let (ws, out) = import(TAGGED, &["--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["split"], "auto");
    assert_eq!(report["structure"], "XML-style section tags");
    assert_eq!(report["markers"], serde_json::json!(["tags"]));
    assert_eq!(report["exact"], true);
    let found = items(&report);
    let expect = |id: &str, written: &str, suggested: &str| {
        (id.to_string(), written.to_string(), suggested.to_string())
    };
    assert_eq!(
        found,
        [
            expect("intro", "instruction", "instruction"),
            expect("role", "instruction", "instruction"),
            expect("limits", "instruction", "rule"),
            expect("example", "instruction", "sample"),
        ]
    );
    let reason = report["items"][2]["suggested_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("3 of 3 statements are constraints"),
        "{reason}"
    );
    let composed = run_in(ws.path(), &["compose", "out", "--no-compact"]);
    assert_eq!(stdout(&composed), TAGGED);
}

#[test]
fn rules_and_title_lines_split_and_the_table_shows_suggestions_with_reasons() {
    let (_ws, out) = import(RULED, &[]);
    assert_exit(&out, 0);
    insta::assert_snapshot!(stdout(&out));
    assert_stderr_has(&out, "split auto: 3 sections at upper-case title lines");
}

#[test]
fn apply_types_writes_the_suggestions_and_the_brief_locks_and_checks() {
    let (ws, out) = import(TAGGED, &["--apply-types", "--json"]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["types_applied"], true);
    let limits = fs::read_to_string(ws.path().join("out/items/limits.md")).unwrap();
    assert!(limits.starts_with("---\ntype: rule\n"), "{limits}");
    let example = fs::read_to_string(ws.path().join("out/items/example.md")).unwrap();
    assert!(example.starts_with("---\ntype: sample\n"), "{example}");
    assert_eq!(
        stdout(&run_in(ws.path(), &["compose", "out", "--no-compact"])),
        TAGGED
    );
    assert_eq!(run_in(ws.path(), &["lock", "out"]).status.code(), Some(0));
    let check = run_in(ws.path(), &["check", "out", "--strict"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let lock = fs::read_to_string(ws.path().join("out/brief.lock")).unwrap();
    assert!(lock.contains("\n  limits:\n"), "the rule is locked: {lock}");
}

#[test]
fn explicit_heading_splits_ignore_other_markers() {
    let (_ws, out) = import(TAGGED, &["--split", "h2", "--json"]);
    let report = json(&out);
    assert_eq!(report["split"], "h2");
    assert_eq!(report["items"].as_array().unwrap().len(), 1);
    assert_eq!(report["markers"], serde_json::json!([]));
}

#[test]
fn a_prompt_with_no_marker_is_one_item_and_says_how_to_split_it() {
    let (_ws, out) = import("Be brief.\n\nAnswer in English.\n", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_stderr_has(&out, "note: one item: mark the sections");
}

/// One block of a generated prompt.
fn block() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("parcel"),
        Just("never"),
        Just("must"),
        Just("User:"),
        Just("Assistant:"),
        Just("{{bay}}"),
        Just("`code`"),
        Just("van"),
        Just("#"),
        Just("<x>"),
        Just("===="),
    ];
    let line = proptest::collection::vec(word, 1..6).prop_map(|w| w.join(" "));
    prop_oneof![
        line.clone(),
        line.clone().prop_map(|l| format!("# {l}")),
        line.clone().prop_map(|l| format!("## {l}")),
        line.clone().prop_map(|l| format!("{l}\n===")),
        Just("====".to_string()),
        Just("---".to_string()),
        Just("***".to_string()),
        Just("TOOL USE".to_string()),
        Just("DEPOT RULES:".to_string()),
        line.clone().prop_map(|l| format!("<ROLE>\n{l}\n</ROLE>")),
        line.clone().prop_map(|l| format!("<ROLE>\n{l}")),
        line.clone().prop_map(|l| format!("- {l}\n- {l}")),
        line.clone().prop_map(|l| format!("```\n{l}\n====\n```")),
        line.prop_map(|l| format!("<!--\n{l}\n-->")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever markers a prompt mixes, the items join back into it.
    #[test]
    fn auto_import_composes_back_to_the_source(
        blocks in proptest::collection::vec((block(), 0usize..4), 1..14),
    ) {
        let mut source = String::new();
        for (text, blank) in &blocks {
            source.push_str(text);
            source.push('\n');
            source.push_str(&"\n".repeat(*blank));
        }
        let plan = plan(&source, Split::Auto);
        let joined: Vec<String> = plan
            .items
            .iter()
            .map(|i| unescape_braces(i.body.trim_end_matches('\n')))
            .collect();
        prop_assert!(plan.exact);
        prop_assert_eq!(joined.join("\n\n"), source.trim_end_matches('\n'));
    }
}
