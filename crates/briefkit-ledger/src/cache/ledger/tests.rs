use std::path::PathBuf;

use super::*;

fn entry(n: u64) -> Entry {
    let mut e = Entry::new("probe", "openai", "gpt-4.1-mini");
    e.brief = Some("clinic".into());
    e.prefix_hash = Some(format!("{n:064x}"));
    e.input_tokens = Some(1000 + n);
    e.cached_input_tokens = Some(n);
    e.output_tokens = Some(1);
    e
}

#[test]
fn every_line_has_every_key_in_the_same_order() {
    let ok = serde_json::to_string(&entry(1)).unwrap();
    let failed = serde_json::to_string(
        &Entry::new("probe", "anthropic", "m")
            .failed(crate::call_status::CallStatus::Http(429), "slow down"),
    )
    .unwrap();
    let keys = |text: &str| -> Vec<String> {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        value.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys(&ok), keys(&failed));
    assert_eq!(keys(&ok)[0], "time");
    assert!(!ok.contains('\n'));
    assert!(failed.contains(r#""input_tokens":null"#));
}

#[test]
fn append_creates_the_directory_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/usage.jsonl");
    append(&path, &entry(1)).unwrap();
    append(&path, &entry(2)).unwrap();
    let (entries, warnings) = read(&path).unwrap();
    assert_eq!(
        entries,
        vec![entry_at(&entries[0], 1), entry_at(&entries[1], 2)]
    );
    assert!(warnings.is_empty());
}

/// `entry(n)` with the time of an entry already read (times differ by milliseconds).
fn entry_at(read: &Entry, n: u64) -> Entry {
    Entry {
        time: read.time.clone(),
        ..entry(n)
    }
}

#[test]
fn a_torn_last_line_is_skipped_with_a_warning() {
    let good = serde_json::to_string(&entry(1)).unwrap();
    let text = format!("{good}\n{}", &good[..40]);
    let (entries, warnings) = parse(text.as_bytes());
    assert_eq!(entries.len(), 1);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].torn);
    assert_eq!(warnings[0].line, 2);
    assert!(warnings[0].to_string().contains("torn last line"));
}

#[test]
fn a_corrupt_middle_line_is_skipped_with_its_line_number() {
    let good = serde_json::to_string(&entry(1)).unwrap();
    let text = format!("{good}\n\n{{\"time\": 3}}\nnot json\n{good}\n");
    let (entries, warnings) = parse(text.as_bytes());
    assert_eq!(entries.len(), 2);
    assert_eq!(
        warnings
            .iter()
            .map(|w| (w.line, w.torn))
            .collect::<Vec<_>>(),
        vec![(3, false), (4, false)]
    );
}

#[test]
fn appending_after_a_torn_line_starts_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let good = serde_json::to_string(&entry(1)).unwrap();
    fs::write(&path, format!("{good}\n{}", &good[..30])).unwrap();
    append(&path, &entry(2)).unwrap();
    let (entries, warnings) = read(&path).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1].input_tokens, Some(1002));
    assert_eq!(warnings.len(), 1);
    assert!(!warnings[0].torn, "the torn line is now in the middle");
}

#[test]
fn lines_written_by_other_tools_with_fewer_fields_still_load() {
    let line = r#"{"time":"2026-11-30T09:05:01Z","command":"probe","provider":"openai","model":"m","status":"ok","extra":1}"#;
    let (entries, warnings) = parse(line.as_bytes());
    assert!(warnings.is_empty());
    assert_eq!(entries[0].attempts, 1);
    assert_eq!(entries[0].cached_input_tokens, None);
}

#[test]
fn concurrent_appends_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("usage.jsonl");
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..200u64 {
                    let mut e = entry(t * 1000 + i);
                    // Long lines make a split write more likely if appends were not atomic.
                    e.error = Some("x".repeat(2000 + (i as usize % 7) * 500));
                    append(&path, &e).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let (entries, warnings) = read(&path).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(entries.len(), 1600);
    let mut seen: Vec<u64> = entries.iter().map(|e| e.input_tokens.unwrap()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 1600);
}

#[test]
fn redact_removes_key_shaped_tokens_only() {
    let message = "401 from server: invalid key sk-proj-abcdefghijklmnop1234 (see sk-short)";
    let clean = crate::redact::redact(message);
    assert!(!clean.contains("abcdefghijklmnop1234"));
    assert!(clean.contains("[redacted]"));
    assert!(clean.contains("sk-short"));
}

#[test]
fn the_flag_wins_over_everything() {
    assert_eq!(
        resolve_path(Some(PathBuf::from("x.jsonl"))),
        PathBuf::from("x.jsonl")
    );
}

#[test]
fn read_of_a_missing_ledger_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let err = read(&dir.path().join("none.jsonl")).unwrap_err();
    assert!(err.message.contains("none.jsonl"));
}

/// A failed call's row reads only the error; the answer type (the runtime's
/// `provider::Answer`) is never looked at.
struct NoAnswer;

impl Answered for NoAnswer {
    fn attempts(&self) -> u32 {
        0
    }
    fn usage(&self) -> Option<&crate::wire::Usage> {
        None
    }
}

#[test]
fn a_failed_call_records_the_class_the_provider_layer_decided() {
    use crate::error::{CallStatus, Error};
    let err = Error::provider("openai call to m failed: HTTP 429 Too Many Requests")
        .with_call_status(CallStatus::Http(429));
    let entry = Entry::new("probe", "openai", "m")
        .record(std::time::Duration::ZERO, &Err::<NoAnswer, _>(err));
    assert_eq!(entry.status, "http_429");
    // The message alone decides nothing: a timeout whose text mentions HTTP is a timeout.
    let err = Error::provider("no answer within 5 s from HTTP 200 server")
        .with_call_status(CallStatus::Timeout);
    let entry = Entry::new("probe", "openai", "m")
        .record(std::time::Duration::ZERO, &Err::<NoAnswer, _>(err));
    assert_eq!(entry.status, "timeout");
}
