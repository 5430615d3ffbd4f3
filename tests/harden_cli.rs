//! Regressions from the adversarial run, through the real binary: what a hostile server
//! or a hostile pull request could make `brief` print, write or send. Each test is named
//! after what broke.

use std::fs;
use std::path::Path;

use crate::common::server::{Reply, Server, loopback};
use crate::common::store::content_tree;
use crate::common::{brief, stderr, stdout, workspace};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has};

const KEY: &str = "sk-test-SECRET123-abcdef";

fn compress_with(root: &Path, base_url: &str, extra: &[&str]) -> std::process::Output {
    brief()
        .current_dir(root)
        .env("BRIEF_RETRY_BASE_MS", "1")
        .env("OPENAI_API_KEY", KEY)
        .args(argv_then(
            "compress clinic booking --model test-model --base-url",
            &[base_url],
        ))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_redirect_carries_neither_the_key_nor_the_item_elsewhere() {
    for code in [302u16, 307, 308] {
        let ws = workspace("clinic");
        let elsewhere = Server::start(Reply::Text("Short.".into()));
        let location = format!("{}/v1/chat/completions", elsewhere.base_url);
        let origin = loopback::Server::answering(move |_| {
            loopback::Reply::status(code, &[("location", &location)], "text/plain", "")
        });
        let tree = content_tree(ws.path());
        let out = compress_with(ws.path(), &origin.url(), &[]);
        assert_eq!(out.status.code(), Some(3), "{code}: {}", stderr(&out));
        assert_stderr_has(&out, "redirected to");
        assert!(
            elsewhere.requests().is_empty(),
            "{code}: the target was contacted"
        );
        assert_eq!(
            content_tree(ws.path()),
            tree,
            "{code}: something was written"
        );
    }
}

#[test]
fn an_answer_echoing_the_key_is_flagged_and_not_saved() {
    let ws = workspace("clinic");
    let echoed = format!("Booking: call us. Key {}", KEY.to_uppercase());
    let server = Server::start(Reply::Text(echoed));
    let tree = content_tree(ws.path());
    let out = compress_with(ws.path(), &server.base_url, &["--json"]);
    assert_exit(&out, 1);
    assert_stderr_has(&out, "contains the API key");
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!all.to_lowercase().contains(&KEY.to_lowercase()), "{all}");
    assert_eq!(content_tree(ws.path()), tree);
    assert!(!ws.path().join("clinic/proposals").exists());
}

#[test]
fn an_answer_over_the_cap_writes_nothing() {
    let ws = workspace("clinic");
    let server = Server::start(Reply::Text("word ".repeat(60 * 1024)));
    let tree = content_tree(ws.path());
    let out = compress_with(ws.path(), &server.base_url, &[]);
    assert_exit(&out, 3);
    assert_stderr_has(&out, "the limit is 256 KiB");
    assert_eq!(content_tree(ws.path()), tree);
}

/// A stream whose model name sets the window title, clears the screen and writes the
/// clipboard.
fn hostile_model_server() -> loopback::Server {
    let model =
        serde_json::to_string("m\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\u{9b}31m-1")
            .unwrap();
    loopback::Server::answering(move |_| {
        let body = crate::loopback::fixtures::openai_stream(
            "Booking: 45 minutes, €80; follow-ups 30 minutes. https://harbour-physio.example.org/visit",
            Some("stop"),
            Some(crate::loopback::fixtures::OPENAI_USAGE),
            true,
        )
        .replace("\"test-model-2025\"", &model);
        loopback::Reply::sse(&body, &[])
    })
}

fn assert_no_escape(what: &str, text: &str) {
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{9b}') && !text.contains('\u{7}'),
        "{what}: {text:?}"
    );
    assert!(
        !text.contains("[31m") && !text.contains("]0;"),
        "{what}: {text:?}"
    );
}

#[test]
fn a_server_provided_model_name_is_sanitised_wherever_it_is_printed_or_stored() {
    let ws = workspace("clinic");
    let server = hostile_model_server();
    let out = compress_with(ws.path(), &server.url(), &[]);
    assert_exit(&out, 0);
    assert_no_escape("compress", &format!("{}{}", stdout(&out), stderr(&out)));
    let proposals = ws.path().join("clinic/proposals");
    let file = fs::read_dir(&proposals)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let saved = fs::read_to_string(&file).unwrap();
    assert_no_escape("proposal file", &saved);
    assert!(saved.contains("model: m-1"), "{saved}");
    let out = brief()
        .current_dir(ws.path())
        .args(["proposals", "clinic"])
        .output()
        .unwrap();
    assert_no_escape("proposals", &format!("{}{}", stdout(&out), stderr(&out)));
    let id = file.file_stem().unwrap().to_string_lossy().into_owned();
    let out = brief()
        .current_dir(ws.path())
        .args(["accept", "clinic", &id, "--allow-flags"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let out = brief()
        .current_dir(ws.path())
        .args(["history", "clinic", "booking"])
        .output()
        .unwrap();
    assert_no_escape("history", &format!("{}{}", stdout(&out), stderr(&out)));
    let out = brief()
        .current_dir(ws.path())
        .env("OPENAI_API_KEY", KEY)
        .args(argv_then(
            "probe clinic --model test-model --base-url",
            &[&server.url()],
        ))
        .output()
        .unwrap();
    assert_no_escape("probe", &format!("{}{}", stdout(&out), stderr(&out)));
}

#[test]
fn a_planted_model_name_in_a_proposal_or_version_is_sanitised_when_shown() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = crate::common::store::write_proposal(&dir, "booking", "Booking.\n", &[], 1);
    let path = dir.join("proposals").join(format!("{id}.yaml"));
    let text = fs::read_to_string(&path).unwrap();
    fs::write(
        &path,
        text.replace("model: test-model", "model: \"evil\\e]0;title\\a\\e[2J\""),
    )
    .unwrap();
    let out = brief()
        .current_dir(ws.path())
        .args(["proposals", "clinic"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_no_escape("proposals", &format!("{}{}", stdout(&out), stderr(&out)));
    let out = brief()
        .current_dir(ws.path())
        .args(["proposals", "clinic", "--json"])
        .output()
        .unwrap();
    assert_no_escape("proposals --json", &stdout(&out));
}

#[test]
fn a_silent_server_trips_the_idle_timeout_from_the_flag_or_brief_timeout() {
    let partial = crate::loopback::fixtures::openai_stream("Booking", None, None, false);
    for (flag, env) in [(Some("300ms"), None), (None, Some("300ms"))] {
        let ws = workspace("clinic");
        let partial = partial.clone();
        let server = loopback::Server::answering(move |_| {
            loopback::Reply::sse(&partial, &[]).hang(std::time::Duration::from_secs(3))
        });
        let mut cmd = brief();
        cmd.current_dir(ws.path()).env("BRIEF_RETRY_BASE_MS", "1");
        if let Some(env) = env {
            cmd.env("BRIEF_TIMEOUT", env);
        }
        cmd.args(argv_then(
            "compress clinic booking --model m --base-url",
            &[&server.url()],
        ));
        if let Some(flag) = flag {
            cmd.args(["--timeout", flag]);
        }
        let tree = content_tree(ws.path());
        let out = cmd.output().unwrap();
        assert_exit(&out, 3);
        assert_stderr_has(&out, "no data from the server for 300 ms (idle timeout");
        assert_eq!(content_tree(ws.path()), tree);
    }
    let ws = workspace("clinic");
    let out = brief()
        .current_dir(ws.path())
        .env("BRIEF_TIMEOUT", "soon")
        .args(argv(
            "compress clinic booking --model m --base-url http://127.0.0.1:9",
        ))
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert_stderr_has(&out, "BRIEF_TIMEOUT");
}

#[test]
fn usage_skips_impossible_figures_with_a_warning_by_line() {
    // Regression: two entries of u64::MAX and 2 tokens printed "Input 1 tokens" (a wrapped
    // sum), cached above input showed a 500% share, and a `time` of "not a time" was shown
    // as the first call.
    let dir = tempfile::tempdir().unwrap();
    let line = |time: &str, input: u64, cached: u64| {
        format!(
            r#"{{"time":"{time}","command":"probe","provider":"openai","model":"m","brief":null,"brief_dir":null,"item":null,"prefix_hash":null,"input_tokens":{input},"cached_input_tokens":{cached},"cache_write_tokens":null,"output_tokens":1,"latency_ms":5,"attempts":1,"status":"ok","error":null}}"#
        )
    };
    let ledger = [
        line("2026-11-30T09:00:00.000Z", 1000, 500),
        line("2026-11-30T09:01:00.000Z", u64::MAX, 0),
        line("2026-11-30T09:02:00.000Z", 100, 500),
        line("not a time", 100, 0),
        line("2026-11-30T09:03:00.000Z", 2, 0),
    ]
    .join("\n");
    let path = dir.path().join("usage.jsonl");
    fs::write(&path, ledger + "\n").unwrap();
    let out = brief()
        .args(["usage", "--json", "--ledger"])
        .arg(&path)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let err = stderr(&out);
    for line in [":2:", ":3:", ":4:"] {
        assert!(err.contains(line), "{line}: {err}");
    }
    let text = stdout(&out);
    assert!(text.contains("\"input_tokens\": 1002"), "{text}");
    assert!(
        text.contains("\"first_seen\": \"2026-11-30T09:00:00.000Z\""),
        "{text}"
    );
}

#[test]
fn a_planted_oversized_proposal_cannot_brick_the_item() {
    // Regression: a 50 MB answer became a proposal, accept wrote it, and every command
    // (restore included) then refused the brief.
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let big = "word ".repeat(60 * 1024);
    let id = crate::common::store::write_proposal(&dir, "booking", &big, &[], 1);
    accept_is_refused(ws.path(), &id, "KiB");
}

/// `brief accept --allow-flags` of a planted proposal exits 2 naming `why` and writes nothing.
fn accept_is_refused(root: &Path, id: &str, why: &str) {
    let tree = content_tree(root);
    let out = brief()
        .current_dir(root)
        .args(["accept", "clinic", id, "--allow-flags"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert_stderr_has(&out, why);
    assert_eq!(content_tree(root), tree);
}

#[test]
fn a_planted_sample_proposal_cannot_make_an_item_file_over_the_limit() {
    // A conversation sample's body holds one answer per message, so the one-answer cap does
    // not apply to it; the loader's 1 MiB item limit still does.
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    fs::write(
        dir.join("items/sample-booking.md"),
        "---\ntype: sample\nformat: messages\n---\n- role: user\n  content: Book me in.\n- role: assistant\n  content: Done, for 9:00.\n",
    )
    .unwrap();
    let long = "word ".repeat(120 * 1024);
    let big = format!("- role: user\n  content: {long}\n- role: assistant\n  content: {long}\n");
    let id = crate::common::store::write_proposal(&dir, "sample-booking", &big, &[], 1);
    accept_is_refused(ws.path(), &id, "over the 1 MiB an item may have");
}

#[test]
fn restore_and_record_work_on_an_item_over_the_loader_limit() {
    // Regression: a body over the loader's 1 MiB limit made restore (the documented way
    // back) and record refuse the brief, like every other command.
    let ws = workspace("clinic");
    let file = ws.path().join("clinic/items/booking.md");
    let original = fs::read_to_string(&file).unwrap();
    let out = brief()
        .current_dir(ws.path())
        .args(["record", "clinic", "booking"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let huge = format!("{original}{}", "padding words here\n".repeat(70_000));
    assert!(huge.len() > 1024 * 1024);
    fs::write(&file, &huge).unwrap();
    let check = brief()
        .current_dir(ws.path())
        .args(["check", "clinic"])
        .output()
        .unwrap();
    assert_exit(&check, 2);
    // record keeps the oversized hand edit as a version and says the item is over the limit.
    let out = brief()
        .current_dir(ws.path())
        .args(["record", "clinic", "booking", "-m", "too big"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_stderr_has(&out, "limit");
    assert!(ws.path().join("clinic/history/booking/0002.md").is_file());
    // history shows the versions to choose from; other commands keep refusing.
    let out = brief()
        .current_dir(ws.path())
        .args(["history", "clinic", "booking"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let out = brief()
        .current_dir(ws.path())
        .args(["compose", "clinic"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    // restore brings the small body back, and the brief loads again.
    let out = brief()
        .current_dir(ws.path())
        .args(["restore", "clinic", "booking", "1"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
    let check = brief()
        .current_dir(ws.path())
        .args(["check", "clinic"])
        .output()
        .unwrap();
    assert_ne!(check.status.code(), Some(2), "{}", stderr(&check));
}
