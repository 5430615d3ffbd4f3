//! Samples as conversations: a `format: messages` sample parsed with file:line problems,
//! composed as few-shot turns inside the stable prefix, rendered in sessions, compacted,
//! guarded and compressed message by message.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use briefkit::brief::Brief;
use briefkit::prompt::compose::{ComposeOptions, compose};
use briefkit::wire::Wire;
use briefkit::wire::canonical::sorted;
use briefkit::wire::prefix::StablePrefix;

use crate::common::{json, run_in, snapshot_tree, stderr, stdout};
use crate::harness::{argv, assert_exit, assert_stderr_has};

const IDENTITY: &str =
    "---\ntype: identity\n---\nYou are Pip, the order-status assistant of a small bicycle shop.\n";
const EXAMPLE: &str = "---\ntype: sample\nformat: messages\n---\n- role: user\n  content: Where is order 1042?\n- role: assistant\n  content: |\n    Order 1042 left the shop on 3 May.   \n\n\n    Track it at https://shop.example/t/1042 (about 2 days).\n";
const TODAY: &str = "---\ntype: context\n---\nToday is {{date}}.\n";
const LOOKUP: &str = "type: tool\nname: lookup_order\ndescription: Find an order by number\ninput_schema:\n  type: object\n  properties:\n    number: { type: integer }\n  required: [number]\n";

/// A brief `b` in a new temporary directory: identity, the example, a tool, today.
fn workspace_with(example: &str) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("b");
    fs::create_dir_all(dir.join("items")).unwrap();
    fs::write(
        dir.join("brief.yaml"),
        "name: shop\nitems: [identity, example, lookup_order, today]\n",
    )
    .unwrap();
    fs::write(dir.join("items/identity.md"), IDENTITY).unwrap();
    fs::write(dir.join("items/example.md"), example).unwrap();
    fs::write(dir.join("items/lookup_order.tool.yaml"), LOOKUP).unwrap();
    fs::write(dir.join("items/today.md"), TODAY).unwrap();
    ws
}

fn compose_out(root: &Path, format: &str, date: &str) -> std::process::Output {
    let var = format!("date={date}");
    run_in(
        root,
        &["compose", "b", "--format", format, "--var", &var, "--stats"],
    )
}

fn prefix_hash(root: &Path, format: &str, date: &str) -> String {
    let out = compose_out(root, format, date);
    assert_exit(&out, 0);
    let body: Value = serde_json::from_str(&stdout(&out)).unwrap();
    StablePrefix::of_body(&body).unwrap().hash
}

#[test]
fn problems_are_reported_at_the_line_of_their_entry_and_nothing_is_written() {
    let ws = workspace_with(
        "---\ntype: sample\nformat: messages\n---\n- role: user\n  content: a\n- role: user\n  content: b\n- role: system\n  content: c\n",
    );
    let dir = ws.path().join("b");
    fs::write(
        dir.join("items/identity.md"),
        "---\ntype: identity\nformat: messages\n---\nx\n",
    )
    .unwrap();
    let before = snapshot_tree(ws.path());
    let out = run_in(ws.path(), &["compose", "b", "--var", "date=1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("b/items/identity.md:3:1: `format: messages` is for `sample` items"),
        "{err}"
    );
    assert!(
        err.contains("b/items/example.md:7:1: message 2 is `user` after a `user` message"),
        "{err}"
    );
    assert!(
        err.contains("b/items/example.md:9:1: message 3: role `system`"),
        "{err}"
    );
    assert_eq!(snapshot_tree(ws.path()), before);

    for (body, at, says) in [
        (
            "- role: user\n  content: a\n",
            "example.md:5:1",
            "ends with the `assistant`",
        ),
        (
            "- role: assistant\n  content: a\n",
            "example.md:5:1",
            "starts with a `user`",
        ),
        (
            "- role: user\n  content: a\n- role: assistant\n  content: '  '\n",
            "example.md:7:1",
            "message 2 (assistant) has no content",
        ),
        (
            "- role: user\n  text: a\n",
            "example.md:6:",
            "unknown field `text`",
        ),
        ("", "example.md:5:1", "no messages"),
        (
            "- role: user\n  content: Hi {{name}}\n- role: assistant\n  content: b\n",
            "example.md:5:1",
            "`{{name}}` in message 1 (user)",
        ),
    ] {
        fs::write(dir.join("items/identity.md"), IDENTITY).unwrap();
        fs::write(
            dir.join("items/example.md"),
            format!("---\ntype: sample\nformat: messages\n---\n{body}"),
        )
        .unwrap();
        let out = run_in(ws.path(), &["compose", "b", "--var", "date=1"]);
        assert_eq!(out.status.code(), Some(2), "{body}");
        let err = stderr(&out);
        assert!(err.contains(at) && err.contains(says), "{body:?}: {err}");
    }

    fs::write(
        dir.join("items/example.md"),
        "---\ntype: sample\nformat: messages\ntier: volatile\n---\n- role: user\n  content: a\n- role: assistant\n  content: b\n",
    )
    .unwrap();
    let out = run_in(ws.path(), &["compose", "b", "--var", "date=1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("example.md:3:1: a `format: messages` sample is part of the stable prefix"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compose_renders_the_example_as_turns_in_every_format() {
    let ws = workspace_with(EXAMPLE);
    for format in ["text", "openai", "anthropic"] {
        let out = compose_out(ws.path(), format, "2026-12-01");
        assert_exit(&out, 0);
        insta::assert_snapshot!(format!("compose_{format}"), stdout(&out));
    }
    // Anthropic: at most 4 breakpoints (here: the static system and the last example).
    let out = compose_out(ws.path(), "anthropic", "2026-12-01");
    let breakpoints = stdout(&out).matches("\"cache_control\"").count();
    assert_eq!(breakpoints, 2);
    assert_stderr_has(&out, "examples ");
}

#[test]
fn the_prefix_hash_follows_the_examples_and_not_the_vars() {
    let ws = workspace_with(EXAMPLE);
    for format in ["openai", "anthropic"] {
        let first = prefix_hash(ws.path(), format, "2026-12-01");
        assert_eq!(
            first,
            prefix_hash(ws.path(), format, "2027-01-15"),
            "{format}: a --var of a volatile item is not the prefix"
        );
        fs::write(
            ws.path().join("b/items/example.md"),
            EXAMPLE.replace("3 May", "4 May"),
        )
        .unwrap();
        assert_ne!(
            first,
            prefix_hash(ws.path(), format, "2026-12-01"),
            "{format}: an example is part of the prefix"
        );
        fs::write(ws.path().join("b/items/example.md"), EXAMPLE).unwrap();
    }
}

#[test]
fn align_names_a_changed_example_and_nothing_else() {
    let ws = workspace_with(EXAMPLE);
    for format in ["openai", "anthropic"] {
        let save = |name: &str, date: &str| {
            let out = compose_out(ws.path(), format, date);
            let path = ws.path().join(format!("{format}-{name}.json"));
            fs::write(&path, stdout(&out)).unwrap();
            path.display().to_string()
        };
        let a = save("a", "2026-12-01");
        let b = save("b", "2026-12-02");
        fs::write(
            ws.path().join("b/items/example.md"),
            EXAMPLE.replace("3 May", "4 May"),
        )
        .unwrap();
        let c = save("c", "2026-12-03");
        fs::write(ws.path().join("b/items/example.md"), EXAMPLE).unwrap();
        let out = run_in(ws.path(), &["align", &a, &b, &c, "--json"]);
        let report = json(&out);
        let wakes = report["wakes"].as_array().unwrap();
        assert_eq!(wakes[1]["drifted_parts"], serde_json::json!([]), "{format}");
        assert_eq!(
            wakes[2]["drifted_parts"],
            serde_json::json!(["examples"]),
            "{format}"
        );
        assert_eq!(wakes[2]["first_difference"]["part"], "examples");
    }
}

#[test]
fn a_brief_without_message_samples_has_no_examples_key_in_its_prefix() {
    let ws = workspace_with(EXAMPLE);
    fs::write(
        ws.path().join("b/items/example.md"),
        "---\ntype: sample\n---\nUser: Where is order 1042?\n",
    )
    .unwrap();
    for format in ["openai", "anthropic"] {
        let out = compose_out(ws.path(), format, "2026-12-01");
        let body: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let stable = StablePrefix::of_body(&body).unwrap();
        assert!(stable.examples_text.is_none());
        assert!(stable.text().starts_with("{\"tools\":["));
        assert!(!stable.text().contains("\"examples\""));
        assert!(!stderr(&out).contains("examples "));
    }
}

#[test]
fn a_session_sends_the_examples_as_compose_does_with_the_same_prefix_hash() {
    let ws = workspace_with(EXAMPLE);
    let root = ws.path();
    let out = run_in(root, &argv("session new s --brief b --var date=2026-12-01"));
    assert_exit(&out, 0);
    let out = run_in(root, &["session", "append", "s", "--user", "Where is 7?"]);
    assert_exit(&out, 0);
    for format in ["openai", "anthropic"] {
        let out = run_in(root, &["session", "render", "s", "--format", format]);
        assert_exit(&out, 0);
        // `session render` prints keys sorted: compare both in that one form.
        let body: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let composed = compose_out(root, format, "2026-12-01");
        let composed: Value = serde_json::from_str(&stdout(&composed)).unwrap();
        let composed = StablePrefix::of_body(&sorted(&composed)).unwrap().hash;
        let session = StablePrefix::of_body(&sorted(&body)).unwrap();
        assert_eq!(session.hash, composed, "{format}");
        assert!(session.examples_text.is_some(), "{format}");
        let text = stdout(&out);
        let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle}"));
        assert!(at("Where is order 1042?") < at("Where is 7?"), "{format}");
        assert!(text.matches("\"cache_control\"").count() <= 4, "{format}");
    }
    let text = stdout(&run_in(
        root,
        &["session", "render", "s", "--format", "text"],
    ));
    assert!(text.contains("User: Where is order 1042?"), "{text}");
}

#[test]
fn compact_write_compacts_each_message_and_keeps_a_valid_body() {
    let ws = workspace_with(EXAMPLE);
    let out = run_in(ws.path(), &["compact", "b", "--write"]);
    assert_exit(&out, 0);
    let written = fs::read_to_string(ws.path().join("b/items/example.md")).unwrap();
    assert!(written.starts_with("---\ntype: sample\nformat: messages\n---\n- role: user\n"));
    assert!(!written.contains("   \n"), "{written}");
    let brief = Brief::load(&ws.path().join("b")).unwrap();
    let messages = brief.item("example").unwrap().messages().unwrap();
    assert_eq!(
        messages[1].content,
        "Order 1042 left the shop on 3 May.\n\nTrack it at https://shop.example/t/1042 (about 2 days).\n"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any valid exchange written with `to_body` parses back to itself, and composes to
    /// the same turns in `openai` (without compaction) and readably in `text`.
    #[test]
    fn any_valid_exchange_round_trips_through_parse_and_compose(
        contents in prop::collection::vec("[ -z|~\n\t\u{e9}\u{4e2d}]{0,40}[a-z]", 1..4)
    ) {
        use briefkit::brief::sample::{Role, parse, to_body};
        let pairs: Vec<(Role, &str)> = contents
            .iter()
            .flat_map(|c| [(Role::User, c.as_str()), (Role::Assistant, c.as_str())])
            .collect();
        let body = to_body(pairs.iter().copied());
        let parsed = parse(&body).map_err(|e| TestCaseError::fail(format!("{body}: {e:?}")))?;
        let back: Vec<(Role, &str)> = parsed.iter().map(|m| (m.role, m.content.as_str())).collect();
        prop_assert_eq!(&back, &pairs);

        let ws = tempfile::tempdir().unwrap();
        let dir = ws.path().join("b");
        fs::create_dir_all(dir.join("items")).unwrap();
        fs::write(dir.join("brief.yaml"), "name: p\nitems: [identity, example]\n").unwrap();
        fs::write(dir.join("items/identity.md"), IDENTITY).unwrap();
        fs::write(dir.join("items/example.md"), format!("---\ntype: sample\nformat: messages\n---\n{body}")).unwrap();
        let brief = Brief::load(&dir).unwrap();
        let composed = compose(&brief, &Default::default(), ComposeOptions { compact: false }).unwrap();
        let openai = composed.body(Wire::OpenAi, None, None);
        let sent: Vec<(&str, &str)> = openai["messages"].as_array().unwrap()[1..]
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
            .collect();
        let expected: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(r, c)| (r.as_str(), c.trim_end_matches(['\n', '\r'])))
            .collect();
        prop_assert_eq!(sent, expected);
        let text = composed.text();
        for (role, content) in &pairs {
            let who = if *role == Role::User { "User: " } else { "Assistant: " };
            let turn = format!("{who}{}", content.trim_end_matches(['\n', '\r']));
            prop_assert!(text.contains(&turn), "{} not in {}", turn, text);
        }
        let stable = StablePrefix::of_body(&openai).unwrap();
        prop_assert!(stable.examples_text.is_some());
    }
}
