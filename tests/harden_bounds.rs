//! Issue 37 (third hardening pass), items 2, 3, 5, 6, 9, 10 and 11: one regression test per
//! defect, each named after it, against real loopback servers and the real binary.
//! The spool's disk-full path (item 4) is in `harden_spool`.

use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use briefkit::session::subagent::fetch::{Reach, fetch_within};
use briefkit::session::subagent::html;

use crate::common::{brief, run_in, stderr};
use crate::harness::{Workspace, assert_exit, assert_stderr_has, new_session, ok, session};
use crate::loopback::model::say;
use crate::loopback::{Reply, Server};

/// Runs `work` on a thread of its own and fails when it has not finished after
/// `limit`: a guard against a hang, never a measurement (BENCHMARKS.md has the timings).
fn watchdog<T: Send + 'static>(limit: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("did not finish within {limit:?}: not linear"))
}

/// A server that answers every connection with `head`, then trickles `byte` every
/// `every` for as long as the client reads (a minute at most).
fn trickle(head: &'static [u8], trickle_head: bool, every: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/page", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = [0u8; 4096];
                let _ = std::io::Read::read(&mut stream, &mut buf);
                let started = Instant::now();
                let (now, later): (&[u8], &[u8]) = if trickle_head {
                    (&head[..10], &head[10..])
                } else {
                    (head, b"")
                };
                if stream.write_all(now).is_err() {
                    return;
                }
                let mut rest = later.iter().copied().chain(std::iter::repeat(b'x'));
                while started.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(every);
                    let byte = rest.next().unwrap_or(b'x');
                    if stream
                        .write_all(&[byte])
                        .and_then(|()| stream.flush())
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    url
}

#[test]
fn fetch_that_trickles_its_body_ends_at_its_deadline() {
    let url = trickle(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2097152\r\n\r\n",
        false,
        Duration::from_millis(50),
    );
    let started = Instant::now();
    let err = fetch_within(&url, Reach { private: true }, Duration::from_secs(2)).unwrap_err();
    let took = started.elapsed();
    assert!(err.message.contains("deadline"), "{}", err.message);
    assert_eq!(err.exit_code(), 3);
    // The trickle would last a minute; the fetch ends at its 2 s deadline (the bound is
    // loose for a loaded machine, far below the trickle).
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn fetch_that_trickles_its_headers_ends_at_its_deadline() {
    let url = trickle(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        true,
        Duration::from_millis(50),
    );
    let started = Instant::now();
    let err = fetch_within(&url, Reach { private: true }, Duration::from_secs(2)).unwrap_err();
    assert!(err.message.contains("deadline"), "{}", err.message);
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// A page of `depth` nested `open` tags around one sentence.
fn nested(open: &str, close: &str, depth: usize) -> String {
    let mut page = String::with_capacity(depth * (open.len() + close.len()) + 64);
    page.push_str("<html><body>");
    for _ in 0..depth {
        page.push_str(open);
    }
    page.push_str("The deepest sentence.");
    for _ in 0..depth {
        page.push_str(close);
    }
    page.push_str("</body></html>");
    page
}

/// The conversion's work is bounded: what html2text reads is at most `MAX_DEPTH` deep
/// and no longer than the page, and the whole conversion ends (a generous watchdog).
fn converts_bounded(page: String) {
    let (flat, done) = html::flatten_counted(&page);
    assert!(done.depth <= html::MAX_DEPTH, "{done:?}");
    assert!(flat.len() <= page.len(), "{} > {}", flat.len(), page.len());
    let text = watchdog(Duration::from_secs(120), move || {
        html::to_text(page.as_bytes()).unwrap()
    });
    assert!(
        text.contains("The deepest sentence."),
        "{}",
        &text[..text.len().min(400)]
    );
}

#[test]
fn html_to_text_is_linear_on_190k_nested_divs() {
    let page = nested("<div>", "</div>", 190_000);
    assert!(page.len() > 2_000_000);
    converts_bounded(page);
}

#[test]
fn html_to_text_is_linear_on_100k_nested_blockquotes() {
    converts_bounded(nested("<blockquote>", "</blockquote>", 100_000));
}

#[test]
fn html_to_text_is_linear_on_nested_lists_and_tables() {
    converts_bounded(nested("<ul><li>", "</li></ul>", 100_000));
    converts_bounded(nested("<ol><li>", "", 100_000));
    converts_bounded(nested("<table><tr><td>", "</td></tr></table>", 50_000));
    // Unclosed formatting elements and misnested ones, which html5ever reorders.
    converts_bounded(nested("<b><i>", "</b></i>", 100_000));
}

fn session_with_call(root: &Path, session: &str, name: &str, args: Value) {
    let out = run_in(
        root,
        &[
            "session",
            "new",
            session,
            "--brief",
            "clinic",
            "--var",
            "patient=Ada",
            "--var",
            "last_visit=2026-10-01",
            "--framework-tools",
            "--context-limit",
            "100000",
        ],
    );
    assert_exit(&out, 0);
    ok(
        root,
        &["session", "append", session, "--user", "Look it up."],
    );
    ok(
        root,
        &[
            "session",
            "append",
            session,
            "--tool-call",
            name,
            "--args",
            &args.to_string(),
        ],
    );
}

fn subagent(
    root: &Path,
    session: &str,
    model: &Server,
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = brief();
    cmd.current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("OPENAI_API_KEY", "sk-test-bounds")
        .args(["session", "subagent", session, "tool_call_2", "--json"])
        .args(["--provider", "openai", "--model", "test-model"])
        .args(["--base-url", &format!("{}/v1", model.url())]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn web_search_agent_caps_its_backends_answer_in_bytes_and_hits() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    // 40,000 hits (about 3 MiB, under the byte cap): only the first ten go on.
    let hits: Vec<Value> = (0..40_000)
        .map(|i| json!({"url": format!("http://127.0.0.1:9/hit-{i}"), "title": format!("Hit {i}"), "content": "x"}))
        .collect();
    let many = json!({ "results": hits }).to_string();
    let backend = Server::answering(move |_| Reply::status(200, &[], "application/json", &many));
    session_with_call(root, "s", "web_search_agent", json!({"query": "slots"}));
    let done = json!({"status": "completed", "summary": "Nothing found."}).to_string();
    let model = Server::start(vec![say("openai", &done)]);
    let out = subagent(root, "s", &model, &[("BRIEF_SEARCH_URL", &backend.url())]);
    assert_exit(&out, 0);
    let sent = model.requests()[0].json().to_string();
    assert!(sent.contains("hit-9") && !sent.contains("hit-10\\u003e") && !sent.contains("hit-10>"));
    assert!(!sent.contains("hit-39999"));
    assert!(sent.len() < 64 * 1024, "{} bytes sent on", sent.len());

    // An answer past the byte cap is refused without being read whole, and nothing goes
    // to the model.
    let huge = format!(
        "{{\"results\": [{}]}}",
        "{\"url\": \"http://a/\"},".repeat(300_000)
    );
    let backend = Server::answering(move |_| Reply::status(200, &[], "application/json", &huge));
    session_with_call(root, "t", "web_search_agent", json!({"query": "slots"}));
    let model = Server::start(vec![say("openai", &done)]);
    let out = subagent(root, "t", &model, &[("BRIEF_SEARCH_URL", &backend.url())]);
    assert_exit(&out, 3);
    assert_stderr_has(&out, "longer than");
    assert!(model.requests().is_empty());
}

/// A directory tree's files, for "nothing was written here".
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn delegate_task_never_writes_through_a_planted_subagents_link() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let outside = tempfile::tempdir().unwrap();
    let goal = json!({"goal": "Find a slot"});
    let done = json!({"status": "completed", "summary": "10:30"}).to_string();
    // `subagents` itself a link, then `subagents/tool_call_2` a link.
    for (session, planted) in [("s", "subagents"), ("t", "subagents/tool_call_2")] {
        session_with_call(root, session, "delegate_task", goal.clone());
        let link = root.join(session).join(planted);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        let model = Server::start(vec![say("openai", &done)]);
        let out = subagent(root, session, &model, &[]);
        assert_exit(&out, 2);
        assert_stderr_has(&out, "symbolic link");
        assert!(model.requests().is_empty());
    }
    assert!(
        files_under(outside.path()).is_empty(),
        "{:?}",
        files_under(outside.path())
    );
}

#[test]
fn a_log_id_that_names_a_path_is_refused_on_replay_with_its_line() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    session_with_call(root, "s", "delegate_task", json!({"goal": "x"}));
    let log = root.join("s/log.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    let lines = text.lines().count();
    text.push_str(
        &json!({"event": "append", "at": "2026-12-01T00:00:00Z", "entries": [
            {"id": "../../outside/evil_2", "kind": "tool_call", "name": "delegate_task",
             "text": "{\"goal\":\"x\"}", "tokens": 5}]})
        .to_string(),
    );
    text.push('\n');
    std::fs::write(&log, text).unwrap();
    for args in [
        vec!["session", "status", "s"],
        vec!["session", "log", "s"],
        vec!["session", "render", "s"],
    ] {
        let out = run_in(root, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("log.jsonl:{}", lines + 1)), "{err}");
        assert!(err.contains("evil_2"), "{err}");
    }
    let model = Server::start(vec![]);
    let out = subagent(root, "s", &model, &[]);
    assert_exit(&out, 2);
    assert!(!root.join("outside").exists());
}

#[test]
fn a_session_path_holding_colon_space_makes_a_child_brief_that_loads() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    std::fs::create_dir(root.join("odd: place")).unwrap();
    session_with_call(
        root,
        "odd: place/s",
        "delegate_task",
        json!({"goal": "Find a slot"}),
    );
    let done = json!({"status": "completed", "summary": "10:30 is free."}).to_string();
    let model = Server::start(vec![say("openai", &done)]);
    let out = subagent(root, "odd: place/s", &model, &[]);
    assert_exit(&out, 0);
    let manifest = root.join("odd: place/s/subagents/tool_call_2/brief/brief.yaml");
    let yaml: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert!(
        yaml["description"]
            .as_str()
            .unwrap()
            .contains("odd: place/s"),
        "{yaml:?}"
    );
}

#[test]
fn a_log_counter_near_u64_max_is_refused_never_wrapped() {
    let ws = Workspace::clinic_session(&["--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("hello");
    let log = root.join("s/log.jsonl");
    let clean = std::fs::read_to_string(&log).unwrap();
    let line = clean.lines().count() + 1;
    for entry in [
        json!({"id": "msg_18446744073709551615", "kind": "user", "text": "x", "tokens": 1}),
        json!({"id": "msg_7", "kind": "user", "text": "x", "tokens": u64::MAX}),
    ] {
        let event = json!({"event": "append", "at": "2026-12-01T00:00:00Z", "entries": [entry]});
        std::fs::write(&log, format!("{clean}{event}\n")).unwrap();
        for args in [
            vec!["session", "status", "s"],
            vec!["session", "append", "s", "--user", "again"],
            vec!["session", "gate", "s", "--estimate", "10"],
        ] {
            let out = run_in(root, &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("log.jsonl:{line}")),
                "{}",
                stderr(&out)
            );
        }
    }
    std::fs::write(&log, &clean).unwrap();
    // A gate record whose op id is at the edge: the next id would pass the limit, so the
    // session refuses the operation rather than wrap to op_0.
    let edge = json!({"event": "gate", "at": "2026-12-01T00:00:00Z", "op": "op_9007199254740992",
        "kind": "tool", "estimate": 1, "high_volume": false, "outcome": "ok",
        "effective_estimate": 1, "current_context_tokens": 1, "available_operation_tokens": 1});
    std::fs::write(&log, format!("{clean}{edge}\n")).unwrap();
    let out = run_in(root, &["session", "gate", "s", "--estimate", "10"]);
    assert_exit(&out, 2);
    assert_stderr_has(&out, "past the highest id");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("{clean}{edge}\n")
    );
}

#[test]
fn ledger_push_refuses_a_time_outside_clickhouses_range_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("usage.jsonl");
    let row = |time: &str| {
        let mut entry = briefkit::cache::ledger::Entry::new("probe", "openai", "m");
        entry.time = time.to_string();
        serde_json::to_string(&entry).unwrap()
    };
    std::fs::write(
        &file,
        format!(
            "{}\n{}\n{}\n",
            row("2026-12-01T00:00:00Z"),
            row("2200-01-01T00:00:00Z"),
            row("1901-06-01T00:00:00Z")
        ),
    )
    .unwrap();
    // Nothing listens there: the refusal comes before any request.
    let out = brief()
        .args([
            "ledger",
            "push",
            file.to_str().unwrap(),
            "http://127.0.0.1:9/db.t",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("usage.jsonl:2") && err.contains("usage.jsonl:3"),
        "{err}"
    );
    assert!(err.contains("2200-01-01") && err.contains("2106"), "{err}");
}

#[test]
fn no_key_goes_to_a_brief_named_base_url_without_the_operators_allow() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let server = Server::start(vec![say("openai", "Fine."); 4]);
    crate::harness::command::brief_naming(root, &server);
    new_session(root, &["--context-limit", "100000"]);
    let host = "127.0.0.1";
    let run = |args: &[&str], allow: Option<&str>| {
        let mut cmd = brief();
        cmd.current_dir(root)
            .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("OPENAI_API_KEY", "sk-operator-secret-0123456789")
            .args(args);
        if let Some(allow) = allow {
            cmd.env("BRIEF_ALLOWED_HOSTS", allow);
        }
        cmd.output().unwrap()
    };
    let turn = [
        "session",
        "turn",
        "s",
        "--user",
        "Hi",
        "--var",
        "patient=Ada",
        "--var",
        "last_visit=May",
    ];
    for args in [&["probe", "clinic"][..], &turn[..]] {
        let out = run(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(host) && err.contains("BRIEF_ALLOWED_HOSTS"),
            "{err}"
        );
        assert!(!err.contains("sk-operator-secret"), "{err}");
    }
    assert!(server.requests().is_empty(), "no request before the allow");
    // Allowed by the operator's own file: the call goes, with the key.
    std::fs::create_dir_all(root.join("config/briefkit")).unwrap();
    std::fs::write(
        root.join("config/briefkit/allowed_hosts"),
        format!("{host}\n"),
    )
    .unwrap();
    let out = run(&turn, None);
    assert_exit(&out, 0);
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert!(
        sent[0]
            .header("authorization")
            .is_some_and(|a| a.contains("sk-operator-secret"))
    );
    std::fs::remove_file(root.join("config/briefkit/allowed_hosts")).unwrap();
    // Allowed by the variable.
    let out = run(&turn, Some("example.org, 127.0.0.1"));
    assert_exit(&out, 0);
    // Another host listed does not allow this one.
    let out = run(&turn, Some("example.org"));
    assert_exit(&out, 2);
}

#[test]
fn an_implausible_upstream_usage_is_not_summed_in_stats() {
    use crate::common::proxy::{Proxy, Script, Upstream, post_chat};
    let up = Upstream::start(|_| {
        Script::json(
            200,
            r#"{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":5}}"#,
        )
    });
    let proxy = Proxy::start(&up.url, &[]);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).to_string();
    for _ in 0..2 {
        let (status, _, _) = post_chat(&proxy.url, body.as_bytes());
        assert_eq!(status, 200);
    }
    let started = Instant::now();
    let stats: Value = loop {
        let stats: Value = serde_json::from_str(&proxy.get("/stats")).unwrap();
        if stats["totals"]["calls"] == 2 || started.elapsed() > Duration::from_secs(20) {
            break stats;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(stats["totals"]["calls"], 2, "{stats}");
    assert_eq!(stats["totals"]["input_tokens"], 0, "{stats}");
}
