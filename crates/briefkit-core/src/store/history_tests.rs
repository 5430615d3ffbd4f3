//! The history's checks: round trips, gaps, edited bodies and fields, removed or
//! reordered versions, legacy versions without `chain`.

use super::*;

/// Loading the history of `tone` under `dir` fails with a message containing `needle`.
fn refused(dir: &Path, needle: &str) {
    let err = History::load(dir, "tone").unwrap_err();
    assert_eq!(err.exit_code(), 2, "{}", err.message);
    assert!(err.message.contains(needle), "{needle}: {}", err.message);
}

fn record(history: &mut History, body: &str) {
    let new = NewVersion {
        action: Some(Action::Record),
        tokens: 3,
        ..NewVersion::default()
    };
    history.append(new, body, "2026-01-02T03:04:05Z").unwrap();
}

/// A fresh directory whose history of `tone` recorded `bodies`, in order.
fn recorded(bodies: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::load(dir.path(), "tone").unwrap();
    for body in bodies {
        record(&mut history, body);
    }
    dir
}

#[test]
fn versions_round_trip_byte_for_byte_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = History::load(dir.path(), "tone").unwrap();
    assert!(history.latest().is_none());
    let bodies = [
        "first\n",
        "",
        "---\nnot front matter\n---\n",
        "no newline",
        "  \n\ttabs\r\n",
    ];
    for body in bodies {
        record(&mut history, body);
    }
    assert!(dir.path().join("history/tone/0005.md").is_file());
    let loaded = History::load(dir.path(), "tone").unwrap();
    let read: Vec<&str> = loaded.versions.iter().map(|v| v.body.as_str()).collect();
    assert_eq!(read, bodies);
    assert_eq!(loaded.next_number(), 6);
    assert_eq!(loaded.previous().unwrap().meta.version, 4);
}

#[test]
fn a_gap_is_reported_naming_the_missing_file() {
    let dir = recorded(&["a\n", "b\n", "c\n"]);
    fs::remove_file(dir.path().join("history/tone/0002.md")).unwrap();
    refused(dir.path(), "0002.md: missing");
}

#[test]
fn a_hand_edited_or_unparsable_version_is_reported_by_name() {
    let dir = recorded(&["a\n"]);
    let path = dir.path().join("history/tone/0001.md");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.replace("\na\n", "\nb\n")).unwrap();
    refused(dir.path(), "0001.md: its body does not match");
    fs::write(&path, "just text").unwrap();
    refused(dir.path(), "0001.md: not a version file");
    fs::write(&path, "---\nversion: [\n---\nx").unwrap();
    refused(dir.path(), "0001.md: unreadable front matter");
}

#[test]
fn an_edited_front_matter_field_is_caught() {
    // Regression: only the body was hash-checked; action, note, from and tokens could
    // be changed unnoticed.
    for (from, to) in [
        ("action: record", "action: import"),
        ("tokens: 3", "tokens: 2"),
        ("note: null", "note: approved by legal"),
        ("from: null", "from: 1"),
        (
            "created: 2026-01-02T03:04:05Z",
            "created: 2025-01-02T03:04:05Z",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::load(dir.path(), "tone").unwrap();
        record(&mut history, "a\n");
        record(&mut history, "b\n");
        let path = dir.path().join("history/tone/0002.md");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{text}");
        fs::write(&path, text.replacen(from, to, 1)).unwrap();
        refused(
            dir.path(),
            "0002.md: its front matter does not match its chain",
        );
    }
}

/// Renumbers version file `text` to `number`, as someone hiding a removal would.
fn renumber(text: &str, number: u32) -> String {
    let start = text.find("version: ").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    format!("{}version: {number}{}", &text[..start], &text[end..])
}

#[test]
fn a_removed_or_reordered_version_is_caught() {
    let dir = recorded(&["a\n", "b\n", "c\n"]);
    let files = dir.path().join("history/tone");
    let read = |n: u32| fs::read_to_string(files.join(format!("{n:04}.md"))).unwrap();
    let (one, two, three) = (read(1), read(2), read(3));
    // Version 2 removed, 3 renumbered to close the gap.
    fs::remove_file(files.join("0003.md")).unwrap();
    fs::write(files.join("0002.md"), renumber(&three, 2)).unwrap();
    refused(dir.path(), "0002.md: its front matter");
    // Versions 1 and 2 swapped.
    fs::write(files.join("0001.md"), renumber(&two, 1)).unwrap();
    fs::write(files.join("0002.md"), renumber(&one, 2)).unwrap();
    fs::write(files.join("0003.md"), &three).unwrap();
    refused(dir.path(), "0001.md: its front matter");
    // Put back: whole again.
    for (n, text) in [(1, &one), (2, &two), (3, &three)] {
        fs::write(files.join(format!("{n:04}.md")), text).unwrap();
    }
    assert_eq!(History::load(dir.path(), "tone").unwrap().versions.len(), 3);
}

/// A version file as briefs wrote them before the `chain` field existed.
fn legacy(number: u32, body: &str) -> String {
    format!(
        "---\nversion: {number}\ncreated: 2026-01-0{number}T03:04:05Z\naction: record\nfrom: null\nsha256: {}\ntokens: 3\nproposal: null\nmodel: null\naccepted_flags: []\nnote: null\n---\n{body}",
        sha256_hex(body.as_bytes())
    )
}

#[test]
fn a_history_written_before_the_chain_field_is_legacy_not_tampered() {
    // Regression: versions written before `chain` existed were all reported as edited.
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("history/tone");
    fs::create_dir_all(&files).unwrap();
    fs::write(files.join("0001.md"), legacy(1, "a\n")).unwrap();
    fs::write(files.join("0002.md"), legacy(2, "b\n")).unwrap();
    let mut history = History::load(dir.path(), "tone").unwrap();
    assert_eq!(history.versions.len(), 2);
    assert!(history.versions.iter().all(|v| v.meta.chain.is_none()));
    // New versions chain on from the legacy ones...
    record(&mut history, "c\n");
    let loaded = History::load(dir.path(), "tone").unwrap();
    assert_eq!(loaded.versions.len(), 3);
    assert!(loaded.latest().unwrap().meta.chain.is_some());
    // ...so a legacy version edited, removed or swapped afterwards is caught.
    let one = fs::read_to_string(files.join("0001.md")).unwrap();
    let two = fs::read_to_string(files.join("0002.md")).unwrap();
    fs::write(files.join("0002.md"), two.replace("tokens: 3", "tokens: 2")).unwrap();
    refused(
        dir.path(),
        "0003.md: its front matter does not match its chain",
    );
    fs::write(files.join("0001.md"), renumber(&two, 1)).unwrap();
    fs::write(files.join("0002.md"), renumber(&one, 2)).unwrap();
    assert!(History::load(dir.path(), "tone").is_err());
    fs::write(files.join("0001.md"), &one).unwrap();
    fs::write(files.join("0002.md"), &two).unwrap();
    assert_eq!(History::load(dir.path(), "tone").unwrap().versions.len(), 3);
    // A legacy body is still verified by its sha256.
    fs::write(files.join("0001.md"), one.replace("\na\n", "\nz\n")).unwrap();
    refused(dir.path(), "0001.md: its body does not match");
}

#[test]
fn a_chain_removed_after_a_chained_version_is_tampered() {
    let dir = recorded(&["a\n", "b\n"]);
    let path = dir.path().join("history/tone/0002.md");
    let text = fs::read_to_string(&path).unwrap();
    let start = text.find("chain: ").unwrap();
    let end = start + text[start..].find('\n').unwrap() + 1;
    fs::write(&path, format!("{}{}", &text[..start], &text[end..])).unwrap();
    refused(dir.path(), "0002.md: its front matter has no `chain` hash");
}

#[test]
fn stray_names_are_reported_and_temporary_files_ignored() {
    let dir = recorded(&["a\n"]);
    fs::write(dir.path().join("history/tone/.0002.md.tmp-77"), "half").unwrap();
    assert_eq!(History::load(dir.path(), "tone").unwrap().versions.len(), 1);
    fs::write(dir.path().join("history/tone/2.md"), "x").unwrap();
    refused(dir.path(), "2.md: not a version file");
}

#[test]
fn file_names_map_to_numbers_only_in_the_padded_form() {
    assert_eq!(number_of("0001.md"), Some(1));
    assert_eq!(number_of("12345.md"), Some(12345));
    for bad in [
        "1.md", "0000.md", "00001.md", "0001.txt", "abcd.md", "-001.md",
    ] {
        assert_eq!(number_of(bad), None, "{bad}");
    }
}
