//! One status everywhere (issue 22): `proposals` (table and JSON), `review` (screen and
//! JSON), `accept` and `brief guard` on the item file judge a proposal from one guard
//! report, run again on the item's current body; a dropped instruction is named with its
//! line by each of them, and `accept` treats it like a dropped fact.

use std::fs;
use std::path::Path;

use crate::common::store::{body, content_tree, write_proposal};
use crate::common::{json, run_in, stderr, stdout, workspace};
use crate::harness::assert_exit;

/// The clinic's persona without its second sentence (line 7 of the item file).
const PERSONA_CUT: &str = "You are Pia, the booking assistant of Harbour Street Physio.\n";
/// The clinic's persona, reworded, every instruction kept.
const PERSONA_KEPT: &str = "You are Pia, booking assistant of Harbour Street Physio. You book, move and cancel appointments.\n";

/// What `brief guard` says about the item file against `proposal` (written to a file).
fn guard_on_item(root: &Path, item: &str, proposal: &str) -> serde_json::Value {
    let file = root.join("proposal.md");
    fs::write(&file, proposal).unwrap();
    let out = run_in(
        root,
        &[
            "guard",
            &format!("clinic/items/{item}.md"),
            "proposal.md",
            "--json",
        ],
    );
    let report = json(&out);
    let flagged = report["status"] == "flagged";
    assert_eq!(out.status.code(), Some(if flagged { 1 } else { 0 }));
    report
}

#[test]
fn every_surface_names_a_dropped_instruction_with_its_line() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "persona", PERSONA_CUT, &[], 1);

    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    let entry = &listed["proposals"][0];
    assert_eq!(entry["status"], "flagged", "{entry}");
    assert_eq!(entry["guard"], "flagged");
    // Every surface places it in the item file, front matter counted (line 7).
    assert_eq!(entry["dropped_instructions"][0]["line"], 7);
    assert_eq!(
        entry["dropped_instructions"][0]["file"],
        "clinic/items/persona.md"
    );
    let table = stdout(&run_in(
        ws.path(),
        &["--color", "never", "proposals", "clinic"],
    ));
    assert!(table.contains("1 instruction"), "{table}");
    assert!(!table.contains("clean"), "{table}");

    let review = json(&run_in(ws.path(), &["review", "clinic", &id, "--json"]));
    assert_eq!(review["status"], "flagged");
    assert!(review["changed"].is_array(), "{review}");
    let dropped = &review["dropped_instructions"][0];
    assert_eq!(dropped["text"], "You book, move and cancel appointments");
    // In the file, as the screen shows it (it was line 4 of the body: two positions).
    assert_eq!(
        (&dropped["line"], &dropped["column"]),
        (&serde_json::json!(7), &serde_json::json!(1))
    );
    let screen = stdout(&run_in(
        ws.path(),
        &["--color", "never", "review", "clinic", &id],
    ));
    let listed_at = screen.find("clinic/items/persona.md:7:1").expect(&screen);
    let diff_at = screen
        .rfind("You book, move and cancel appointments.")
        .expect(&screen);
    assert!(
        listed_at < diff_at,
        "the instruction is listed above the diff:\n{screen}"
    );

    let report = guard_on_item(ws.path(), "persona", PERSONA_CUT);
    assert_eq!(report["status"], "flagged");
    assert_eq!(
        report["dropped_instructions"][0]["text"],
        "You book, move and cancel appointments"
    );
    assert_eq!(report["dropped_instructions"][0]["line"], 7);
    assert_eq!(report["coverage"]["instructions"], 2);
    assert_eq!(report["coverage"]["kept"], 1);

    let tree = content_tree(ws.path());
    let out = run_in(ws.path(), &["accept", "clinic", &id]);
    assert_exit(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("dropped 1 instruction"), "{err}");
    assert!(
        err.contains("You book, move and cancel appointments"),
        "{err}"
    );
    assert!(err.contains("--allow-flags"), "{err}");
    assert_eq!(content_tree(ws.path()), tree);

    let out = run_in(ws.path(), &["accept", "clinic", &id, "--allow-flags"]);
    assert_exit(&out, 0);
    let v2 = fs::read_to_string(dir.join("history/persona/0002.md")).unwrap();
    assert!(
        v2.contains(
            "dropped instruction (clinic/items/persona.md:7:1): You book, move and cancel appointments"
        ),
        "{v2}"
    );
}

#[test]
fn a_faithful_proposal_is_clean_everywhere_whatever_its_file_claims() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    // The stored report claims a dropped price; the body keeps every fact and
    // instruction, and every surface judges the body, not the claim.
    let id = write_proposal(&dir, "persona", PERSONA_KEPT, &[("price", "€80")], 1);
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    assert_eq!(listed["proposals"][0]["status"], "clean");
    assert_eq!(listed["proposals"][0]["dropped"], serde_json::json!([]));
    let review = json(&run_in(ws.path(), &["review", "clinic", &id, "--json"]));
    assert_eq!(review["status"], "clean");
    assert_eq!(
        guard_on_item(ws.path(), "persona", PERSONA_KEPT)["status"],
        "clean"
    );
    let out = run_in(ws.path(), &["accept", "clinic", &id, "--json"]);
    assert_exit(&out, 0);
    assert_eq!(body(&dir.join("items/persona.md")), PERSONA_KEPT);
}

#[test]
fn a_lying_clean_report_does_not_make_a_lossy_proposal_clean() {
    // Regression: `proposals` listed a flagged proposal as clean from its stored report.
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(
        &dir,
        "booking",
        "## Booking\n\nFirst visits take 45 minutes.\n",
        &[],
        1,
    );
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    assert_eq!(listed["proposals"][0]["status"], "flagged");
    assert!(
        !listed["proposals"][0]["dropped"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let table = stdout(&run_in(
        ws.path(),
        &["--color", "never", "proposals", "clinic"],
    ));
    assert!(table.contains("dropped"), "{table}");
    let review = json(&run_in(ws.path(), &["review", "clinic", &id, "--json"]));
    assert_eq!(review["status"], "flagged");
    assert_eq!(
        run_in(ws.path(), &["accept", "clinic", &id]).status.code(),
        Some(1)
    );
}

/// The keys of `brief proposals --json` and their order are a contract: the report became
/// a typed struct, and its JSON must stay byte for byte what it was.
#[test]
fn the_proposals_json_keeps_its_keys_in_order() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    write_proposal(&dir, "persona", PERSONA_CUT, &[], 1);
    let listed = json(&run_in(ws.path(), &["proposals", "clinic", "--json"]));
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&listed), ["status", "summary", "proposals"]);
    let entry = &listed["proposals"][0];
    assert_eq!(
        keys(entry),
        [
            "id",
            "item",
            "created",
            "provider",
            "model",
            "tokens_before",
            "tokens_after",
            "stale",
            "status",
            "guard",
            "guard_summary",
            "dropped",
            "changed",
            "dropped_instructions",
            "introduced",
            "coverage",
        ]
    );
    assert_eq!(
        keys(&entry["coverage"]),
        [
            "instructions",
            "kept",
            "borderline",
            "dropped",
            "share",
            "original_chars",
            "proposal_chars",
            "size_ratio",
        ]
    );
}

/// Regression: on one proposal, `compress` said "2 instructions dropped" at the item
/// file's lines while its `--json`, `review --json` and `accept` gave body lines with no
/// file, and `accept` counted the coverage line as one more dropped instruction. One
/// judgement now gives every surface the same findings, count and file positions.
#[test]
fn compress_and_accept_disagreed_on_count_and_line_of_dropped_instructions() {
    use crate::loopback::Server;
    use crate::loopback::model::say;
    let ws = workspace("clinic");
    let root = ws.path();
    let cut = "Hello there.";
    let model = Server::start(vec![say("openai", cut), say("openai", cut)]);
    let base = format!("{}/v1", model.url());
    let ledger = root.join("ledger.jsonl").display().to_string();
    let env = [
        ("OPENAI_API_KEY", "sk-test"),
        ("OPENAI_BASE_URL", base.as_str()),
        ("BRIEF_LEDGER", ledger.as_str()),
    ];
    let compress = |json: bool| {
        let mut cmd = crate::common::brief();
        cmd.current_dir(root)
            .envs(env)
            .args(["--color", "never", "compress", "clinic", "persona"])
            .args(["--provider", "openai", "--model", "test-model"]);
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let human = compress(false);
    let printed = compress(true);
    assert_exit(&printed, 0);
    let compressed = json(&printed);
    let id = compressed["proposal_id"].as_str().unwrap().to_string();
    let positions = |list: &serde_json::Value| -> Vec<(String, u64, u64)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["file"].as_str().unwrap_or("(no file)").to_string(),
                    d["line"].as_u64().unwrap(),
                    d["column"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let expected = vec![
        ("clinic/items/persona.md".to_string(), 4, 1),
        ("clinic/items/persona.md".to_string(), 7, 1),
    ];
    assert_eq!(positions(&compressed["dropped_instructions"]), expected);
    let review = json(&run_in(root, &["review", "clinic", &id, "--json"]));
    assert_eq!(positions(&review["dropped_instructions"]), expected);
    let listed = json(&run_in(root, &["proposals", "clinic", "--json"]));
    let entry = listed["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(positions(&entry["dropped_instructions"]), expected);

    let shown = stdout(&human) + &stderr(&human);
    assert!(shown.contains("2 instructions dropped"), "{shown}");
    for (file, line, column) in &expected {
        assert!(
            shown.contains(&format!("{file}:{line}:{column}")),
            "{shown}"
        );
    }
    let out = run_in(root, &["accept", "clinic", &id]);
    assert_exit(&out, 1);
    let refused = stderr(&out);
    assert!(refused.contains("dropped 2 instructions"), "{refused}");
    for (file, line, column) in &expected {
        assert!(
            refused.contains(&format!("({file}:{line}:{column})")),
            "{refused}"
        );
    }
    assert!(!refused.contains("(line "), "{refused}");
}
