use crate::common::{brief, json, run_in, stderr, stdout, workspace};
use crate::harness::{argv_then, assert_exit};

const VARS: [&str; 4] = [
    "--var",
    "patient=Ada Lovelace",
    "--var",
    "last_visit=2026-10-02",
];

#[test]
fn text_puts_static_items_first_and_the_volatile_part_last() {
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic"])
        .args(VARS)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn openai_body_has_the_static_then_the_volatile_system_message_and_function_tools() {
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic", "--format", "openai", "--cache-key"])
        .args(VARS)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "compact JSON is one line");
    let body = json(&out);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["role"], "system");
    let static_part = messages[0]["content"].as_str().unwrap();
    assert!(static_part.starts_with("You are Pia"));
    assert!(!static_part.contains("2026-10-02"));
    let volatile = messages[1]["content"].as_str().unwrap();
    assert!(volatile.ends_with("Their last visit was 2026-10-02."));
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "find_slot");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"][0],
        "day"
    );
    assert!(
        body["prompt_cache_key"]
            .as_str()
            .unwrap()
            .starts_with("brief-")
    );
    // The body's keys in the order it is sent: messages, tools, then the cache key; a
    // tool's schema keys sorted.
    let m = text.find("\"messages\"").unwrap();
    let t = text.find("\"tools\"").unwrap();
    let k = text.find("\"prompt_cache_key\"").unwrap();
    assert!(m < t && t < k);
    let schema = &text[text.find("\"parameters\"").unwrap()..];
    assert!(schema.find("\"properties\"").unwrap() < schema.find("\"required\"").unwrap());
    assert!(schema.find("\"required\"").unwrap() < schema.find("\"type\":\"object\"").unwrap());
}

#[test]
fn anthropic_body_marks_the_last_static_block_for_caching() {
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic", "--format", "anthropic"])
        .args(VARS)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let body = json(&out);
    let system = body["system"].as_array().unwrap();
    assert_eq!(system.len(), 2);
    assert_eq!(system[0]["cache_control"]["type"], "ephemeral");
    assert!(system[1].get("cache_control").is_none());
    assert!(system[1]["text"].as_str().unwrap().contains("Ada Lovelace"));
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    assert!(body["tools"][0].get("type").is_none());
}

#[test]
fn composes_that_differ_only_in_var_values_share_a_byte_identical_prefix() {
    let ws = workspace("clinic");
    let run = |patient: &str, visit: &str| {
        let patient = format!("patient={patient}");
        let visit = format!("last_visit={visit}");
        let out = run_in(
            ws.path(),
            &argv_then(
                "compose clinic --format anthropic --stats --var",
                &[&patient, "--var", &visit],
            ),
        );
        assert_eq!(out.status.code(), Some(0));
        let body = json(&out);
        let prefix = format!("{}{}", body["tools"], body["system"][0]);
        (prefix, stderr(&out))
    };
    let (a, stats_a) = run("Ada", "2026-10-02");
    let (b, stats_b) = run("Grace Hopper", "yesterday");
    assert_eq!(a, b);
    assert_eq!(
        stats_a, stats_b,
        "the three prefix hashes do not depend on --var"
    );
    assert_eq!(stats_a.lines().count(), 3);
    assert!(
        stats_a
            .lines()
            .next()
            .unwrap()
            .ends_with("(anthropic wire)")
    );
    assert!(stats_a.starts_with("prefix  "));
}

#[test]
fn a_placeholder_without_a_var_is_an_error_naming_it() {
    let ws = workspace("clinic");
    let out = run_in(ws.path(), &["compose", "clinic", "--var", "patient=Ada"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn no_compact_keeps_bodies_as_written() {
    let ws = workspace("clinic");
    let compacted = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic"])
        .args(VARS)
        .output()
        .unwrap();
    let verbatim = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic", "--no-compact"])
        .args(VARS)
        .output()
        .unwrap();
    assert!(stdout(&verbatim).contains("## Booking   \n"));
    assert!(stdout(&verbatim).contains("Physio.\n\n\nYou book"));
    assert!(!stdout(&compacted).contains("## Booking   \n"));
    assert!(stdout(&compacted).len() < stdout(&verbatim).len());
}

#[test]
fn an_unused_var_is_a_warning_not_an_error() {
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic", "--var", "typo=1"])
        .args(VARS)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("--var typo is not used"));
}

/// Under `--json` the `--stats` lines stay off stderr (the document carries the hashes),
/// as every command's after-report lines do.
#[test]
fn compose_json_with_stats_keeps_stderr_for_warnings_only() {
    let ws = workspace("clinic");
    let out = run_in(
        ws.path(),
        &[&["compose", "clinic", "--json", "--stats"][..], &VARS].concat(),
    );
    assert_exit(&out, 0);
    assert_eq!(stderr(&out), "");
    assert!(json(&out)["prefix"]["hash"].is_string(), "{}", stdout(&out));
}
