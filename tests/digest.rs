//! `brief digest`: routing by declared field type, instruction-bearing fields byte for byte
//! (also by the guard), one marker per backed section and every backed original one
//! `brief ccr get` away, the measurements, and bad input refused with nothing written.

use std::path::{Path, PathBuf};

use briefkit::ccr::digest::{self, DigestFile, Options};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{brief, json, snapshot_tree, stderr, stdout};
use crate::harness::{argv, assert_exit, assert_stderr_has, object_keys};

/// A build log with diagnostics in the middle, `n` lines long.
fn build_log(n: usize) -> String {
    (0..n)
        .map(|i| match i {
            _ if i == n / 3 => "error[E0425]: cannot find value `ttl` in this scope".to_string(),
            _ if i == n / 2 => "warning: field `source` is never read".to_string(),
            _ => format!(
                "   Compiling widget_{i} v1.{}.{} (/src/widget_{i})",
                i % 7,
                i % 11
            ),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| (i, ["north", "south", "east"][i % 3]))
            .map(|(i, region)| json!({"order": 1000 + i, "region": region, "total": (i * 37 % 500) as f64 + 0.25, "refunded": i % 9 == 0}))
            .collect(),
    )
}

const TASK: &str = "Ship the retry fix for the nightly export.\nKeep the public flags as they are.";
const CONSTRAINTS: [&str; 3] = [
    "Never delete a customer's export, even a failed one.",
    "Refunds above $250.00 need a second approval within 24 hours.",
    "Contact ops@example.com before touching https://status.example.com/export.",
];
const DONE: &str = "The export runs 3 nights in a row with 0 failures; version 2.4.1 is tagged.";
const DECISION: &str = "Exports stay in the EU region (eu-west-1) for good.";
const DECISION_DETAIL: &str = "Legal signed off on 2026-11-02 after a review of every data flow the export touches, \
     including the nightly copies, the retry queue and the audit trail.\n\
     Moving regions later means re-consent from 14,000 customers, a new data processing \
     agreement with each of the 37 resellers, and a second review by the works council.\n\
     The cost estimate for a move was 180 engineering days; the board declined it on 2026-11-09.";

/// A digest with all nine fields.
fn full_digest() -> Value {
    json!({
        "current_task": TASK,
        "hard_constraints": CONSTRAINTS,
        "definitions_of_done": DONE,
        "irreversible_decisions": [{"summary": DECISION, "detail": DECISION_DETAIL}],
        "open_threads": [{"summary": "Is  the  retry budget per job or per   customer?", "detail": "Asked in the platform channel on Monday, with the numbers from last week's incident.\nTwo answers so far, and they disagree: the platform team counts per job, the billing team per customer.\nThe scheduler's code counts per job; its comment says per customer.\nWaiting for the owner of the scheduler, back on Thursday."}],
        "learnings": ["The export API paginates at 500 rows.", "The export API   paginates at 500 rows.", "Backoff must honour Retry-After."],
        "tool_outputs": [{"name": "cargo build", "content": build_log(1200)}, {"name": "ls", "content": "a.txt\nb.txt"}],
        "prose_notes": ["Short note: staging is frozen on Fridays.", "The retry loop went wrong in three ways. First it ignored Retry-After. Then it retried non-idempotent calls.\n\n".repeat(40)],
        "bulk_json": [{"name": "orders", "content": rows(300)}, {"name": "as text", "content": rows(200).to_string()}],
    })
}

fn write_yaml(dir: &Path, value: &Value) -> PathBuf {
    let path = dir.join("wake.yaml");
    std::fs::write(&path, serde_yaml::to_string(value).unwrap()).unwrap();
    path
}

fn digest_cmd(store: &Path) -> assert_cmd::Command {
    let mut cmd = brief();
    cmd.env_remove("BRIEF_CCR_TTL_SECONDS")
        .env("BRIEF_CCR_PATH", store);
    cmd
}

/// `brief digest FILE` against the CCR store `store`.
fn digest_of(store: &Path, file: &Path) -> std::process::Output {
    digest_cmd(store).arg("digest").arg(file).output().unwrap()
}

/// A temporary folder and the CCR store path inside it.
fn with_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("ccr.sqlite");
    (dir, store)
}

#[test]
fn all_nine_fields_render_and_every_backed_section_is_one_get_away() {
    let (dir, store) = with_store();
    let file = write_yaml(dir.path(), &full_digest());
    let out = digest_cmd(&store)
        .args(["digest"])
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let report = json(&out);
    let keys = object_keys(&report);
    assert_eq!(
        keys,
        ["status", "summary", "digest_version", "text", "sections"]
    );
    assert_eq!(report["digest_version"], "digest/1");
    let text = report["text"].as_str().unwrap();
    let sections = report["sections"].as_array().unwrap();
    let fields: std::collections::BTreeSet<&str> = sections
        .iter()
        .map(|s| s["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields.len(), 9, "{fields:?}");
    for section in sections {
        let keys = object_keys(section);
        assert_eq!(
            keys,
            [
                "id",
                "field",
                "instruction_bearing",
                "handling",
                "bytes_before",
                "bytes_after",
                "tokens_before",
                "tokens_after",
                "cache_hit_expected",
                "ccr_hash",
                "reason"
            ]
        );
        assert_eq!(section["cache_hit_expected"], false);
        // Routing never makes a section larger than the section written out whole.
        for unit in ["bytes", "tokens"] {
            assert!(
                section[format!("{unit}_after")].as_u64()
                    <= section[format!("{unit}_before")].as_u64(),
                "{section}"
            );
        }
    }
    let by_id = |id: &str| {
        sections
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert_eq!(by_id("current_task")["handling"], "verbatim");
    assert_eq!(by_id("current_task")["instruction_bearing"], true);
    assert_eq!(
        by_id("irreversible_decisions[0]")["handling"],
        "verbatim_summary_ccr"
    );
    assert_eq!(by_id("open_threads[0]")["handling"], "compact_summary_ccr");
    assert_eq!(by_id("learnings")["handling"], "compact_summary");
    assert_eq!(by_id("tool_outputs[0]")["handling"], "head_tail_ccr");
    assert_eq!(by_id("tool_outputs[1]")["handling"], "verbatim");
    assert_eq!(by_id("prose_notes[0]")["handling"], "compact_summary");
    assert_eq!(by_id("prose_notes[1]")["handling"], "compact_summary_ccr");
    assert_eq!(by_id("bulk_json[0]")["handling"], "json_crush_ccr");
    assert_eq!(by_id("bulk_json[1]")["handling"], "json_crush_ccr");
    let tool = by_id("tool_outputs[0]");
    assert!(tool["bytes_after"].as_u64().unwrap() * 10 < tool["bytes_before"].as_u64().unwrap());
    assert!(tool["tokens_after"].as_u64().unwrap() < tool["tokens_before"].as_u64().unwrap());

    // One marker per backed section, and each hash gives back its original.
    let backed: Vec<&Value> = sections
        .iter()
        .filter(|s| !s["ccr_hash"].is_null())
        .collect();
    assert_eq!(backed.len(), 6);
    assert_eq!(text.matches("[ccr:").count(), backed.len());
    let digest = full_digest();
    let expected = |id: &str| -> String {
        match id {
            "irreversible_decisions[0]" => DECISION_DETAIL.to_string(),
            "open_threads[0]" => digest["open_threads"][0]["detail"]
                .as_str()
                .unwrap()
                .to_string(),
            "tool_outputs[0]" => build_log(1200),
            "prose_notes[1]" => digest["prose_notes"][1].as_str().unwrap().to_string(),
            "bulk_json[0]" => rows(300).to_string(),
            "bulk_json[1]" => rows(200).to_string(),
            other => panic!("unexpected backed section {other}"),
        }
    };
    for section in backed {
        let hash = section["ccr_hash"].as_str().unwrap();
        assert_eq!(
            hash,
            briefkit::ccr::hash(expected(section["id"].as_str().unwrap()).as_bytes())
        );
        assert!(
            text.contains(&format!("[ccr:{hash} "))
                && text.contains(&format!("brief ccr get {hash}]"))
        );
        let got = digest_cmd(&store)
            .args(["ccr", "get", hash])
            .output()
            .unwrap();
        assert_exit(&got, 0);
        assert_eq!(stdout(&got), expected(section["id"].as_str().unwrap()));
    }
    let get = digest_cmd(&store)
        .args([
            "ccr",
            "get",
            by_id("tool_outputs[0]")["ccr_hash"].as_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json(&get)["strategy"], "tool_output_head_tail");
    let get = digest_cmd(&store)
        .args([
            "ccr",
            "get",
            by_id("irreversible_decisions[0]")["ccr_hash"]
                .as_str()
                .unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json(&get)["strategy"], "verbatim_backing");
}

#[test]
fn instruction_bearing_fields_survive_byte_for_byte_and_by_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_yaml(dir.path(), &full_digest());
    let out = digest_of(&dir.path().join("s.sqlite"), &file);
    assert_exit(&out, 0);
    let text = stdout(&out);
    for original in [TASK, DONE, DECISION].iter().chain(CONSTRAINTS.iter()) {
        assert!(text.contains(original), "not verbatim: {original}");
        let report = briefkit::guard::check(original, &text);
        assert!(report.is_clean(), "{original}: {}", report.summary());
    }
    // The measurements are on stderr.
    let err = stderr(&out);
    assert!(err.contains("digest/1: 12 sections"), "{err}");
    assert!(
        err.contains("current_task")
            && err.contains("instruction")
            && err.contains("head_tail_ccr"),
        "{err}"
    );
}

#[test]
fn the_text_order_follows_the_routing_table() {
    let file = DigestFile::parse(
        &serde_yaml::to_string(&full_digest()).unwrap(),
        Path::new("w.yaml"),
    )
    .unwrap();
    let rendered = digest::render(&file, &Options::default());
    let at = |needle: &str| {
        rendered
            .text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}"))
    };
    let order = [
        "## Current task",
        "## Hard constraints",
        "## Definitions of done",
        "## Irreversible decisions",
        "## Open threads",
        "## Learnings",
        "## Tool outputs",
        "## Notes",
        "## Bulk data",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?}");
    }
    // Rendering is deterministic: the same file gives the same bytes.
    assert_eq!(digest::render(&file, &Options::default()), rendered);
    // Learnings are compacted and an exact repeat is dropped.
    assert_eq!(rendered.text.matches("paginates at 500 rows").count(), 1);
}

/// Regression (issue 27): a short detail behind a marker made its section bigger (78 → 157
/// bytes). The verbatim entry stays, and the record says why.
#[test]
fn a_short_detail_stays_verbatim_and_the_record_says_why() {
    let value = json!({
        "irreversible_decisions": [{"summary": "Keep EU hosting.", "detail": "Legal said so."}],
        "open_threads": [{"summary": "Which  queue?", "detail": "Ask ops."}],
    });
    let file =
        DigestFile::parse(&serde_yaml::to_string(&value).unwrap(), Path::new("w.yaml")).unwrap();
    let rendered = digest::render(&file, &Options::default());
    assert!(rendered.backings.is_empty());
    assert!(!rendered.text.contains("[ccr:"), "{}", rendered.text);
    assert!(
        rendered
            .text
            .contains("- Keep EU hosting.\n  Legal said so.")
    );
    assert!(rendered.text.contains("- Which  queue?\n  Ask ops."));
    for section in &rendered.sections {
        assert_eq!(section.handling, digest::Handling::Verbatim, "{section:?}");
        assert_eq!(section.bytes_after, section.bytes_before);
        let reason = section.reason.as_deref().unwrap_or_default();
        assert!(reason.starts_with("kept verbatim: "), "{section:?}");
        assert!(reason.contains("would be"), "{reason}");
    }
}

#[test]
fn the_human_report_says_why_a_section_stayed_verbatim() {
    let (dir, store) = with_store();
    let wake = write_yaml(
        dir.path(),
        &json!({
            "current_task": "Fix the export.",
            "irreversible_decisions": [{"summary": "Keep EU hosting.", "detail": "Legal said so."}],
            "open_threads": [{"summary": "Which  queue?", "detail": "Ask ops."}],
        }),
    );
    let out = digest_of(&store, &wake);
    assert_exit(&out, 0);
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn min_bytes_decides_what_is_compressed() {
    let value = json!({"tool_outputs": [{"name": "log", "content": build_log(100)}]});
    let file =
        DigestFile::parse(&serde_yaml::to_string(&value).unwrap(), Path::new("w.yaml")).unwrap();
    let big = Options {
        min_bytes: 1_000_000,
        ..Options::default()
    };
    let whole = digest::render(&file, &big);
    assert!(whole.backings.is_empty());
    assert!(whole.text.contains(&build_log(100)));
    let small = digest::render(
        &file,
        &Options {
            min_bytes: 100,
            ..Options::default()
        },
    );
    assert_eq!(small.backings.len(), 1);
    assert!(
        small.text.contains("error[E0425]") && small.text.contains("[… 29 lines left out …]"),
        "{}",
        small.text
    );
    assert!(
        small
            .text
            .contains("tool_output_head_tail: 58 of 100 lines left out"),
        "{}",
        small.text
    );
}

#[test]
fn a_digest_without_backed_sections_opens_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.sqlite");
    let file = write_yaml(
        dir.path(),
        &json!({"current_task": "Read the logs.", "learnings": "One line."}),
    );
    let out = digest_of(&store, &file);
    assert!(out.status.success());
    assert!(stdout(&out).contains("## Current task\n\nRead the logs.\n"));
    assert!(!store.exists());
}

#[test]
fn bad_yaml_and_unknown_fields_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store").join("ccr.sqlite");
    let big = build_log(500);
    for (yaml, needle) in [
        (
            format!(
                "current_task: t\ntool_outputs: [{{name: x, content: {big:?}}}]\nnext_steps: [a]\n"
            ),
            "unknown field `next_steps`",
        ),
        (
            format!("tool_outputs:\n  - name: x\n    content: {big:?}\n    kind: log\n"),
            "unknown field `kind`",
        ),
        ("hard_constraints: {rule: 1}\n".to_string(), "invalid type"),
        ("learnings: [[nested]]\n".to_string(), "invalid type"),
        (
            "bulk_json: [{name: n, content: {a: 1}}]\n".to_string(),
            "must be a JSON array",
        ),
        (
            "current_task: \"open\n  hard_constraints: [\n".to_string(),
            "wake.yaml:",
        ),
        ("\t- tab: bad\n".to_string(), "wake.yaml:"),
    ] {
        std::fs::write(dir.path().join("wake.yaml"), &yaml).unwrap();
        let before = snapshot_tree(dir.path());
        let out = digest_cmd(&store)
            .current_dir(dir.path())
            .args(["digest", "wake.yaml", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{yaml}: {}", stderr(&out));
        // Under --json the error is also one JSON object on stdout (the output contract).
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["status"], "error", "{yaml}");
        let err = stderr(&out);
        assert!(
            err.contains(needle) && err.contains("wake.yaml:"),
            "{yaml}\n{err}"
        );
        assert_eq!(snapshot_tree(dir.path()), before);
        assert!(!store.exists());
    }
    let out = digest_cmd(&store)
        .current_dir(dir.path())
        .args(["digest", "missing.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Whatever the text, instruction-bearing fields come out word for word (the task byte
    /// for byte; a list item with its continuation lines indented under its bullet) and the
    /// guard finds nothing of them dropped.
    #[test]
    fn instruction_fields_are_verbatim_for_any_text(
        task in "\\PC{0,80}(\n\\PC{0,40}){0,2}",
        rules in proptest::collection::vec("[^\u{0}-\u{8}\u{b}-\u{1f}\u{7f}\u{85}\u{2028}\u{2029}]{1,60}", 1..4),
        summary in "\\PC{1,60}",
    ) {
        let value = json!({"current_task": task, "hard_constraints": rules, "irreversible_decisions": [{"summary": summary, "detail": "d"}]});
        let file = DigestFile::parse(&serde_yaml::to_string(&value).unwrap(), Path::new("p.yaml")).unwrap();
        prop_assert_eq!(file.current_task.as_deref(), Some(task.as_str()));
        let rendered = digest::render(&file, &Options::default());
        prop_assert!(rendered.text.contains(task.as_str()), "{:?}", task);
        for item in rules.iter().chain(std::iter::once(&summary)) {
            let laid_out = format!("- {}", as_list_item(item.strip_suffix('\n').unwrap_or(item)));
            prop_assert!(rendered.text.contains(&laid_out), "{:?}", laid_out);
        }
        for original in std::iter::once(&task).chain(rules.iter()).chain(std::iter::once(&summary)) {
            prop_assert!(briefkit::guard::check(original, &rendered.text).is_clean());
        }
        for section in &rendered.sections {
            prop_assert!(section.bytes_after <= section.bytes_before, "{:?}", section);
            prop_assert!(section.tokens_after <= section.tokens_before, "{:?}", section);
        }
    }
}

/// `text` as a list item's body: lines after the first indented two spaces, blank lines empty.
fn as_list_item(text: &str) -> String {
    text.split('\n')
        .enumerate()
        .map(|(i, line)| match i {
            0 => line.to_string(),
            _ if line.is_empty() => String::new(),
            _ => format!("  {line}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `brief compose --format F --stats --digest FILE` in `dir`: stdout and the prefix line.
fn compose_with_digest(dir: &Path, store: &Path, format: &str, digest: &Path) -> (String, String) {
    let out = digest_cmd(store)
        .current_dir(dir)
        .args([
            "compose",
            &briefkit_support(),
            "--format",
            format,
            "--stats",
        ])
        .args(argv(
            "--var date=2026-11-30 --var customer_name=Ada --var plan=Pro",
        ))
        .arg("--digest")
        .arg(digest)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let prefix = stderr(&out)
        .lines()
        .find(|l| l.starts_with("prefix"))
        .unwrap()
        .to_string();
    (stdout(&out), prefix)
}

fn briefkit_support() -> String {
    format!("{}/briefs/support", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn compose_places_the_digest_after_the_prefix_and_the_prefix_hash_does_not_change() {
    let (dir, store) = with_store();
    let first = write_yaml(dir.path(), &full_digest());
    let second = dir.path().join("second.yaml");
    std::fs::write(
        &second,
        "current_task: Reply to the refund thread.\nlearnings: [Customers answer faster in the morning.]\n",
    )
    .unwrap();
    for format in ["text", "openai", "anthropic"] {
        let (one, prefix_one) = compose_with_digest(dir.path(), &store, format, &first);
        let (two, prefix_two) = compose_with_digest(dir.path(), &store, format, &second);
        assert_eq!(
            prefix_one, prefix_two,
            "{format}: the digest is not part of the prefix"
        );
        assert_ne!(one, two, "{format}");
        assert!(two.contains("Reply to the refund thread."), "{format}");
        assert!(
            one.contains("Ship the retry fix for the nightly export."),
            "{format}"
        );
    }
    // In the text form the digest comes after the static items and before the context.
    let (text, _) = compose_with_digest(dir.path(), &store, "text", &second);
    let at = text.find("Reply to the refund thread.").unwrap();
    let context = text.find("Ada").unwrap();
    assert!(at < context, "the digest precedes the run-specific context");
    assert!(at > 0);
}

#[test]
fn digest_json_snapshot() {
    let (dir, store) = with_store();
    let log: Vec<String> = (0..300).map(|i| format!("line {i}")).collect();
    let wake = write_yaml(
        dir.path(),
        &json!({
            "current_task": "Fix the export.",
            "hard_constraints": ["Keep the flags."],
            "tool_outputs": [{"name": "build", "content": log.join("\n")}],
        }),
    );
    let out = digest_cmd(&store)
        .arg("digest")
        .arg(&wake)
        .args(["--min-bytes", "100", "--json"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    insta::assert_snapshot!("digest_json", stdout(&out));
}

#[test]
fn ccr_get_unknown_json_snapshot() {
    let (_dir, store) = with_store();
    let out = digest_cmd(&store)
        .args(["ccr", "get", "000000000000000000000000", "--json"])
        .output()
        .unwrap();
    assert_exit(&out, 1);
    let text = stdout(&out).replace(&store.display().to_string(), "[STORE]");
    insta::assert_snapshot!("ccr_get_unknown_json", text);
}

/// Regression: only the first line of a multi-line `detail` stayed under its bullet; the
/// next lines began at column 0. Every multi-line field rendered as a list item is checked.
#[test]
fn digest_multi_line_detail_lines_after_the_first_fell_to_column_0() {
    let (dir, store) = with_store();
    let wake = write_yaml(
        dir.path(),
        &json!({
            "hard_constraints": ["Never delete rows.\n- not even test rows"],
            "definitions_of_done": ["Tests pass\nand the report is sent."],
            "irreversible_decisions": [{"summary": "Keep EU\nhosting.", "detail": "Legal said so.\nTwice.\n\n# in writing"}],
            "open_threads": [{"summary": "Which queue?", "detail": "Ask ops.\nOr the owner."}],
            "learnings": ["Exports paginate\nat 500 rows."],
        }),
    );
    let out = digest_of(&store, &wake);
    assert_exit(&out, 0);
    let text = stdout(&out);
    for expected in [
        "- Never delete rows.\n  - not even test rows",
        "- Tests pass\n  and the report is sent.",
        "- Keep EU\n  hosting.\n  Legal said so.\n  Twice.\n\n  # in writing",
        "\n  Ask ops.\n  Or the owner.",
        "\n  at 500 rows.",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    // Under the headings, every non-blank line is a bullet or indented under one.
    for line in text.lines().skip(1) {
        assert!(
            line.is_empty()
                || line.starts_with("## ")
                || line.starts_with("- ")
                || line.starts_with("  "),
            "{line:?} is outside its item:\n{text}"
        );
    }
}

/// Regression: `digest --json` printed the human measurement table on stderr too; under
/// `--json` the document is all there is (the human form keeps the table).
#[test]
fn digest_json_printed_the_human_table_on_stderr() {
    let (dir, store) = with_store();
    let wake = write_yaml(dir.path(), &full_digest());
    let out = digest_cmd(&store)
        .arg("digest")
        .arg(&wake)
        .arg("--json")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(stderr(&out), "");
    assert!(
        json(&out)["sections"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    );
    let human = digest_of(&store, &wake);
    assert_stderr_has(&human, "SECTION");
}
