//! Every parser of input a pull request or a server controls, fed valid files with random
//! damage and random bytes: none panics, each refuses bad input as bad input (exit 2; a
//! model answer: a provider failure, exit 3), and none writes anything while reading.
//! The inputs that once took seconds are fixed cases in `hostile_linear.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use briefkit::brief::{Brief, Lock};
use briefkit::cache::align::{Aligner, Options};
use briefkit::cache::ledger;
use briefkit::error::Error;
use briefkit::prompt::compose::{ComposeOptions, compose, prefix};
use briefkit::prompt::measure::prefix_tokens;
use briefkit::session::log;
use briefkit::store::history::{Action, History, NewVersion};
use briefkit::store::proposals;
use briefkit::wire::Wire;
use briefkit::wire::body;
use proptest::prelude::*;

use crate::common::server::loopback;
use crate::common::{fixtures, snapshot_tree, workspace};
use briefkit::provider::{self, CallOptions};
use loopback::fixtures::{OPENAI_USAGE, anthropic_stream, openai_stream};

/// A valid text damaged at random: bytes replaced, bytes inserted, the end cut off.
fn damaged(valid: String) -> impl Strategy<Value = Vec<u8>> {
    let len = valid.len().max(1);
    let edits = proptest::collection::vec(
        (
            0..len,
            prop_oneof![
                any::<u8>(),
                Just(b'\n'),
                Just(b':'),
                Just(b'['),
                Just(b'{'),
                Just(b'"'),
                Just(b'-'),
            ],
            any::<bool>(),
        ),
        0..6,
    );
    let noise = proptest::collection::vec(any::<u8>(), 0..200);
    prop_oneof![
        4 => (edits, 0..=len).prop_map(move |(edits, cut)| {
            let mut bytes = valid.clone().into_bytes();
            for (at, byte, insert) in edits {
                let at = at.min(bytes.len().saturating_sub(1));
                if insert || bytes.is_empty() {
                    bytes.insert(at.min(bytes.len()), byte);
                } else {
                    bytes[at] = byte;
                }
            }
            bytes.truncate(cut.max(bytes.len() / 2));
            bytes
        }),
        1 => noise,
    ]
}

/// Bad input is exit 2; nothing else may come out of a parser of a file.
fn input_error(err: &Error) -> Result<(), TestCaseError> {
    prop_assert_eq!(err.exit_code(), 2, "{}", err.message);
    Ok(())
}

fn clinic_lock() -> String {
    let brief = Brief::load(&fixtures().join("briefs/clinic")).unwrap();
    let prefix = prefix(&brief, ComposeOptions::default());
    let tokens = prefix_tokens(&brief, &prefix);
    Lock::new(&brief, &prefix.hashes, tokens).to_yaml().unwrap()
}

fn version_file() -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::load(dir.path(), "tone").unwrap();
    let new = NewVersion {
        action: Some(Action::Compress),
        tokens: 7,
        proposal: Some("tone-20260102030405-a001".into()),
        model: Some("m".into()),
        accepted_flags: vec!["number 45".into()],
        note: Some("why".into()),
        ..NewVersion::default()
    };
    let version = history
        .append(new, "Be brief.\n\n- 45 minutes\n", "2026-01-02T03:04:05Z")
        .unwrap();
    fs::read_to_string(&version.path).unwrap()
}

/// A proposal as `brief compress` writes it, and its id.
fn proposal_file() -> (String, String) {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id =
        crate::common::store::write_proposal(&dir, "booking", "Short.\n", &[("number", "45")], 1);
    let text = fs::read_to_string(dir.join(format!("proposals/{id}.yaml"))).unwrap();
    (id, text)
}

fn ledger_line() -> String {
    let entry = ledger::Entry::new("compress", "openai", "test-model");
    format!("{}\n", serde_json::to_string(&entry).unwrap())
}

fn session_log() -> String {
    [
        r#"{"event":"append","at":"2026-01-02T03:04:05Z","entries":[{"id":"msg_1","kind":"user","text":"hello","tokens":3}]}"#,
        r#"{"event":"purge","at":"2026-01-02T03:04:06Z","ids":["msg_1"]}"#,
        "",
    ]
    .join("\n")
}

fn request_bodies() -> Vec<String> {
    let brief = Brief::load(&fixtures().join("briefs/clinic")).unwrap();
    let vars = BTreeMap::from([
        ("patient".to_string(), "Ada".to_string()),
        ("last_visit".to_string(), "2026-01-02".to_string()),
    ]);
    let composed = compose(&brief, &vars, ComposeOptions::default()).unwrap();
    [Wire::OpenAi, Wire::Anthropic]
        .into_iter()
        .map(|wire| body(&composed.prompt, wire, Some("m"), None).to_string())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_lock_file_is_read_or_refused_as_bad_input(bytes in damaged(clinic_lock())) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("brief.lock");
        fs::write(&path, &bytes).unwrap();
        let before = snapshot_tree(dir.path());
        if let Err(err) = Lock::read(&path) {
            input_error(&err)?;
        }
        prop_assert_eq!(snapshot_tree(dir.path()), before);
    }

    #[test]
    fn a_damaged_version_file_is_read_or_refused_as_bad_input(bytes in damaged(version_file())) {
        let dir = tempfile::tempdir().unwrap();
        let versions = dir.path().join("history/tone");
        fs::create_dir_all(&versions).unwrap();
        fs::write(versions.join("0001.md"), &bytes).unwrap();
        let before = snapshot_tree(dir.path());
        match History::load(dir.path(), "tone") {
            // Whatever loads passed its hashes: the body is the one the file names.
            Ok(history) => prop_assert!(history.versions.len() == 1),
            Err(err) => input_error(&err)?,
        }
        prop_assert_eq!(snapshot_tree(dir.path()), before);
    }

    #[test]
    fn a_damaged_proposal_file_is_read_or_refused_as_bad_input(bytes in damaged(proposal_file().1)) {
        let id = proposal_file().0;
        let ws = workspace("clinic");
        let dir = ws.path().join("clinic");
        fs::create_dir_all(dir.join("proposals")).unwrap();
        fs::write(dir.join(format!("proposals/{id}.yaml")), &bytes).unwrap();
        let before = snapshot_tree(&dir);
        for result in [proposals::load(&dir, &id).map(|_| ()), proposals::list(&dir).map(|_| ())] {
            if let Err(err) = result {
                input_error(&err)?;
            }
        }
        prop_assert_eq!(snapshot_tree(&dir), before);
    }

    #[test]
    fn damaged_ledger_lines_are_skipped_with_a_warning_by_line(bytes in damaged(ledger_line().repeat(3))) {
        let (entries, warnings) = ledger::parse(&bytes);
        let lines = bytes.split(|&b| b == b'\n').count();
        prop_assert!(entries.len() + warnings.len() <= lines);
        for warning in &warnings {
            prop_assert!(warning.line >= 1 && warning.line <= lines, "{}", warning);
        }
    }

    #[test]
    fn a_damaged_session_log_is_read_or_refused_as_bad_input(bytes in damaged(session_log())) {
        match log::parse(Path::new("log.jsonl"), &bytes) {
            Ok(contents) => {
                prop_assert!(contents.complete_len <= bytes.len() as u64);
                prop_assert!(contents.events.len() <= bytes.split(|&b| b == b'\n').count());
            }
            Err(err) => input_error(&err)?,
        }
    }

    #[test]
    fn a_damaged_request_body_is_compared_or_refused_as_bad_input(
        openai in damaged(request_bodies()[0].clone()),
        anthropic in damaged(request_bodies()[1].clone()),
    ) {
        let mut aligner = Aligner::new(Options::default(), None);
        let mut wakes = Options { wakes: true, volatile_tail: 2 };
        for bytes in [&openai, &anthropic] {
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
                continue;
            };
            if let Err(why) = aligner.push("payload", &value) {
                input_error(&briefkit::cache::align::bad_request("payload", &why))?;
            }
            let mut other = Aligner::new(wakes, None);
            let _ = other.push("payload", &value);
            let _ = other.push("payload", &value);
            wakes.volatile_tail += 1;
        }
        let _ = aligner.finish();
    }

    #[test]
    fn a_damaged_manifest_item_or_tool_loads_or_is_refused_as_bad_input(
        manifest in damaged(fixture("brief.yaml")),
        item in damaged(fixture("items/booking.md")),
        tool in damaged(fixture("items/find_slot.tool.yaml")),
        which in 0usize..4,
    ) {
        let ws = workspace("clinic");
        let dir = ws.path().join("clinic");
        for (n, (file, bytes)) in [("brief.yaml", &manifest), ("items/booking.md", &item), ("items/find_slot.tool.yaml", &tool)].into_iter().enumerate() {
            if which == 3 || which == n {
                fs::write(dir.join(file), bytes).unwrap();
            }
        }
        let before = snapshot_tree(ws.path());
        for result in [Brief::load(&dir), Brief::load_for_check(&dir), Brief::load_for_versions(&dir, "booking")] {
            if let Err(err) = result {
                input_error(&err)?;
                prop_assert!(!err.message.is_empty());
            }
        }
        prop_assert_eq!(snapshot_tree(ws.path()), before);
    }

    #[test]
    fn damaged_payload_files_are_read_or_refused_as_bad_input(bytes in damaged(request_bodies().join("\n"))) {
        let dir = tempfile::tempdir().unwrap();
        let (one, lines) = (dir.path().join("body.json"), dir.path().join("bodies.jsonl"));
        fs::write(&one, &bytes).unwrap();
        fs::write(&lines, &bytes).unwrap();
        let mut seen = 0usize;
        let result = briefkit::cache::align::read::for_each_body(&[one, lines], |_, _| {
            seen += 1;
            Ok(())
        });
        if let Err(err) = result {
            input_error(&err)?;
        }
        prop_assert!(seen <= bytes.split(|&b| b == b'\n').count() + 1);
    }
}

proptest! {
    // Each case is a real call to a loopback server: fewer cases.
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_damaged_model_answer_is_an_answer_or_a_provider_failure(
        openai in damaged(openai_stream("Orders over 40 EUR ship free.", Some("stop"), Some(OPENAI_USAGE), true)),
        anthropic in damaged(anthropic_stream("Orders over 40 EUR ship free.", Some("end_turn"), true)),
        cut in any::<prop::sample::Index>(),
    ) {
        for (kind, bytes) in [(Wire::OpenAi, &openai), (Wire::Anthropic, &anthropic)] {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let reply = loopback::Reply::sse(&text, &[cut.index(text.len().max(1))]);
            let server = loopback::Server::start(vec![reply; 3]);
            let mut settings = loopback::fixtures::settings(kind, &server);
            settings.max_attempts = 3;
            match provider::call(&settings, &loopback::fixtures::prompt(), &CallOptions::text(64)) {
                Ok(answer) => {
                    prop_assert!(answer.text.len() <= provider::MAX_ANSWER_BYTES);
                    prop_assert!(!answer.model.chars().any(char::is_control), "{:?}", answer.model);
                }
                Err(err) => {
                    prop_assert_eq!(err.exit_code(), 3, "{}", err.message);
                    prop_assert!(!err.message.contains(loopback::fixtures::KEY));
                }
            }
        }
    }
}

fn fixture(file: &str) -> String {
    fs::read_to_string(fixtures().join("briefs/clinic").join(file)).unwrap()
}
