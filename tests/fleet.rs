//! A fleet's ledger in one ClickHouse (issue 26), against a real `clickhouse-server` started
//! on loopback with a temporary data directory: two proxies and a session land every row
//! once; ClickHouse stopped, hung, killed and restarted and a proxy killed -9 lose
//! nothing, duplicate nothing and never hold an answer; a wrong password, a missing table
//! and a full spool say so and keep the rows.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::clickhouse::{ClickHouse, PASSWORD};
use crate::common::proxy::{Proxy, Script, Upstream, send};
use crate::common::{brief, json, stderr, stdout, workspace};
use crate::harness::argv;

pub(crate) const TABLE: &str = "fleet.usage";

/// An OpenAI-compatible upstream that reports 1,200 input tokens, 1,024 of them cached.
pub(crate) fn upstream() -> Upstream {
    Upstream::start(|_| {
        Script::json(
            200,
            r#"{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":1024}}}"#,
        )
    })
}

pub(crate) fn init(ch: &ClickHouse, table: &str) {
    let out = brief()
        .args(["ledger", "init", &ch.url(table)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A proxy writing to `url`, its spool under `state`, naming its machine `host`.
pub(crate) fn proxy(upstream: &Upstream, url: &str, state: &Path, host: &str) -> Proxy {
    Proxy::start_env(
        &upstream.url,
        OsStr::new(url),
        &[],
        &[
            ("XDG_STATE_HOME", state.as_os_str()),
            ("BRIEF_HOST", OsStr::new(host)),
        ],
    )
}

/// One chat call through `proxy`; returns how long the answer took.
pub(crate) fn call(proxy: &Proxy, session: &str) -> Duration {
    let body = json!({"model": "m", "messages": [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]})
    .to_string();
    let started = Instant::now();
    let (status, _, _) = send(
        &proxy.url,
        "POST",
        "/v1/chat/completions",
        &[("X-Brief-Session", session)],
        body.as_bytes(),
    );
    assert_eq!(status, 200);
    started.elapsed()
}

pub(crate) fn calls(proxy: &Proxy, session: &str, n: usize) -> Duration {
    (0..n)
        .map(|_| call(proxy, session))
        .max()
        .unwrap_or_default()
}

pub(crate) fn stats(proxy: &Proxy) -> Value {
    serde_json::from_str(&proxy.get("/stats")).unwrap()
}

/// Waits (bounded) until `check` holds on the proxy's `/stats`.
pub(crate) fn wait_stats(proxy: &Proxy, limit: Duration, check: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let stats = stats(proxy);
        if check(&stats) || started.elapsed() > limit {
            return stats;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// (rows as stored, rows counted once, distinct event ids) of `table`.
pub(crate) fn counts(ch: &ClickHouse, table: &str) -> (u64, u64, u64) {
    let raw = ch.count(&format!("SELECT count() FROM {table}"));
    let once = ch.count(&format!("SELECT count() FROM {table} FINAL"));
    let ids = ch.count(&format!("SELECT uniqExact(event_id) FROM {table}"));
    (raw, once, ids)
}

/// Waits (bounded) until `table` holds `n` rows stored, counted once and by distinct id.
pub(crate) fn wait_rows(ch: &ClickHouse, table: &str, n: u64, limit: Duration) -> (u64, u64, u64) {
    let started = Instant::now();
    loop {
        // The three figures are three queries: rows may land between them, so wait until
        // each has reached `n` (a raw count read before the last insert once came out 13
        // of 21 while the later FINAL count read all 21).
        let found = counts(ch, table);
        let reached = found.0 >= n && found.1 >= n && found.2 >= n;
        if reached || started.elapsed() > limit {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn by(ch: &ClickHouse, sql: &str) -> Vec<(String, u64)> {
    ch.query(&format!("{sql} FORMAT TabSeparated"))
        .lines()
        .map(|line| {
            let (key, n) = line.split_once('\t').unwrap();
            (key.to_string(), n.parse().unwrap())
        })
        .collect()
}

/// A session made in `root` (the clinic brief), and one `session turn` against a scripted
/// model, its row going to `url`.
fn session_turn(root: &Path, state: &Path, url: &str) -> std::process::Output {
    let server =
        crate::loopback::Server::start(vec![crate::loopback::model::say("openai", "Booked.")]);
    crate::harness::new_session(root, &["--context-limit", "100000"]);
    brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", state)
        .env("BRIEF_RETRY_BASE_MS", "1")
        .args(argv("session turn s --provider openai --model test-model"))
        .args(["--base-url", &format!("{}/v1", server.url())])
        .args(["--user", "Book me in.", "--ledger", url])
        .output()
        .unwrap()
}

#[test]
fn two_proxies_and_a_session_land_every_row_once() {
    let ch = ClickHouse::start();
    init(&ch, TABLE);
    let up = upstream();
    let state = tempfile::tempdir().unwrap();
    let url = format!("{}?batch_interval=100ms", ch.url(TABLE));
    let a = proxy(&up, &url, state.path(), "machine-a");
    let b = proxy(&up, &url, state.path(), "machine-b");
    calls(&a, "agent-1", 12);
    calls(&b, "agent-2", 8);
    let root = workspace("clinic");
    let out = session_turn(root.path(), state.path(), &url);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let (raw, once, ids) = wait_rows(&ch, TABLE, 21, Duration::from_secs(20));
    assert_eq!(
        (raw, once, ids),
        (21, 21, 21),
        "every row once, each its own"
    );
    assert_eq!(
        by(
            &ch,
            "SELECT command, count() FROM fleet.usage GROUP BY command ORDER BY command"
        ),
        [("proxy".to_string(), 20), ("session".to_string(), 1)]
    );
    let hosts = by(
        &ch,
        "SELECT ifNull(host, '-'), count() FROM fleet.usage WHERE command = 'proxy' GROUP BY host ORDER BY host",
    );
    assert_eq!(
        hosts,
        [("machine-a".to_string(), 12), ("machine-b".to_string(), 8)]
    );
    // Every ledger field is there with its meaning: the cached figure of each call.
    assert_eq!(
        ch.count("SELECT sum(cached_input_tokens) FROM fleet.usage WHERE command = 'proxy'"),
        20 * 1024
    );
    let stats = wait_stats(&a, Duration::from_secs(5), |s| {
        s["sink"]["rows_pending"] == 0
    });
    let sink = &stats["sink"];
    assert_eq!(sink["kind"], "clickhouse");
    assert_eq!(sink["rows_stored"], 12);
    assert!(sink["last_success"].is_string(), "{sink}");
    assert_eq!(sink["last_error"], Value::Null);
    assert!(!sink.to_string().contains(PASSWORD), "{sink}");
    let metrics = a.get("/metrics");
    assert!(
        metrics.contains("brief_proxy_sink_rows_pending{sink=\"clickhouse\"} 0\n"),
        "{metrics}"
    );

    // The fleet, per machine: the two proxies and the session's machine.
    let usage = json(
        &brief()
            .args(["usage", "--ledger", &url, "--by", "machine", "--json"])
            .output()
            .unwrap(),
    );
    let groups: Vec<(&str, u64)> = usage["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap(), g["calls"].as_u64().unwrap()))
        .collect();
    assert!(groups.contains(&("machine-a", 12)), "{groups:?}");
    assert!(groups.contains(&("machine-b", 8)), "{groups:?}");
    assert_eq!(usage["total"]["calls"], 21);
}

#[test]
fn clickhouse_stopped_hung_killed_and_restarted_and_a_proxy_killed_lose_and_double_nothing_with_a_session_between()
 {
    let mut ch = ClickHouse::start();
    init(&ch, TABLE);
    let up = upstream();
    let state = tempfile::tempdir().unwrap();
    let url = format!(
        "{}?batch_interval=100ms&timeout=2s&exit_wait=1s",
        ch.url(TABLE)
    );
    let mut a = proxy(&up, &url, state.path(), "machine-a");
    let b = proxy(&up, &url, state.path(), "machine-b");
    let mut slowest = Duration::ZERO;
    let mut sent = 0;
    let mut round = |a: &Proxy, b: &Proxy, slowest: &mut Duration| {
        *slowest = (*slowest)
            .max(calls(a, "agent-1", 5))
            .max(calls(b, "agent-2", 5));
        sent += 10;
        sent
    };

    round(&a, &b, &mut slowest);
    assert_eq!(wait_rows(&ch, TABLE, 10, Duration::from_secs(20)).1, 10);

    // Stopped: the calls are answered at once, the rows wait in the spool.
    ch.stop();
    round(&a, &b, &mut slowest);
    let down = wait_stats(&a, Duration::from_secs(5), |s| {
        s["sink"]["last_error"].is_string()
    });
    let error = down["sink"]["last_error"].as_str().unwrap();
    assert!(error.contains("ClickHouse at http://127.0.0.1:"), "{error}");
    assert!(!error.contains(PASSWORD), "{error}");
    assert!(
        down["sink"]["rows_pending"].as_u64().unwrap() >= 5,
        "{down}"
    );
    // A session's turn while ClickHouse is down: answered, its row left in the spool when
    // the command ends, for a proxy of the same table to send later.
    let root = workspace("clinic");
    let turn = session_turn(root.path(), state.path(), &url);
    assert_eq!(turn.status.code(), Some(0), "{}", stderr(&turn));
    let said = stderr(&turn);
    assert!(said.contains("not in ClickHouse"), "{said}");
    assert!(!said.contains(PASSWORD), "{said}");

    // Hung (it holds the connection and answers nothing): still no call waits.
    ch.restart();
    ch.pause();
    round(&a, &b, &mut slowest);
    std::thread::sleep(Duration::from_millis(300));
    ch.resume();

    // Killed with inserts possibly in flight, then the proxy killed -9 once its rows
    // are in its spool.
    round(&a, &b, &mut slowest);
    ch.kill();
    round(&a, &b, &mut slowest);
    // Its rows are made after the answers (digest, then the writer's queue): once both
    // are empty, every row is in the spool, and only then is the kill a test of the spool.
    let per_proxy = sent / 2;
    let spooled = wait_stats(&a, Duration::from_secs(20), |s| {
        s["digest_backlog"] == 0 && s["ledger_backlog"] == 0 && s["totals"]["calls"] == per_proxy
    });
    assert_eq!(spooled["totals"]["calls"], per_proxy, "{spooled}");
    a.kill();
    ch.restart();
    slowest = slowest.max(calls(&b, "agent-2", 5));
    // A new proxy on the same state directory takes over what the killed one left.
    let a2 = proxy(&up, &url, state.path(), "machine-a");
    slowest = slowest.max(calls(&a2, "agent-1", 5));
    let proxied = sent + 10;
    let total = proxied + 1;

    let (_, once, ids) = wait_rows(&ch, TABLE, total, Duration::from_secs(60));
    assert_eq!(once, total, "every row arrived");
    assert_eq!(ids, total, "each row is its own");
    // Stored once, not merely counted once under `FINAL`: a retry waits for an insert of
    // its batch still running in ClickHouse (frozen, then resumed) before looking for it.
    // Counted once both senders have nothing left (a raw count taken while rows still
    // arrive says less, not more).
    for proxy in [&b, &a2] {
        wait_stats(proxy, Duration::from_secs(20), |s| {
            s["sink"]["rows_pending"] == 0
        });
    }
    let raw = ch.count(&format!("SELECT count() FROM {TABLE}"));
    assert_eq!(raw, total, "every row stored once, without a merge");
    assert!(
        slowest < Duration::from_secs(1),
        "an answer waited {slowest:?} for ClickHouse"
    );
    assert_eq!(
        by(
            &ch,
            "SELECT ifNull(host, '-'), count() FROM fleet.usage WHERE command = 'proxy' GROUP BY host ORDER BY host"
        ),
        [
            ("machine-a".to_string(), proxied / 2),
            ("machine-b".to_string(), proxied / 2)
        ]
    );
    assert_eq!(
        ch.count("SELECT count() FROM fleet.usage FINAL WHERE command = 'session'"),
        1
    );
    drop(b);
    drop(a2);
}

#[test]
fn a_wrong_password_says_so_and_keeps_the_rows_for_the_right_one() {
    let ch = ClickHouse::start();
    init(&ch, TABLE);
    let up = upstream();
    let state = tempfile::tempdir().unwrap();
    let wrong = format!(
        "clickhouse://fleet:not-the-password@127.0.0.1:{}/{TABLE}?batch_interval=100ms&exit_wait=1s",
        ch.port
    );
    let mut p = proxy(&up, &wrong, state.path(), "machine-a");
    calls(&p, "agent-1", 4);
    // All four rows made and refused (a snapshot at the first refusal could count fewer).
    let stats = wait_stats(&p, Duration::from_secs(10), |s| {
        s["sink"]["last_error"].is_string() && s["sink"]["rows_pending"] == 4
    });
    let error = stats["sink"]["last_error"].as_str().unwrap();
    assert!(error.contains("refused user `fleet`"), "{error}");
    assert!(error.contains("BRIEF_CLICKHOUSE_PASSWORD"), "{error}");
    assert!(!error.contains("not-the-password"), "{error}");
    assert_eq!(stats["sink"]["rows_pending"], 4);
    let (_, stderr) = p.stop();
    assert!(stderr.contains("stay in the spool"), "{stderr}");
    assert!(!stderr.contains("not-the-password"), "{stderr}");
    assert_eq!(counts(&ch, TABLE).1, 0);

    // The password from the environment this time; the spool is the same table's.
    let right = format!(
        "clickhouse://fleet@127.0.0.1:{}/{TABLE}?batch_interval=100ms",
        ch.port
    );
    let fixed = Proxy::start_env(
        &up.url,
        OsStr::new(&right),
        &[],
        &[
            ("XDG_STATE_HOME", state.path().as_os_str()),
            ("BRIEF_CLICKHOUSE_PASSWORD", OsStr::new(PASSWORD)),
        ],
    );
    calls(&fixed, "agent-1", 1);
    assert_eq!(wait_rows(&ch, TABLE, 5, Duration::from_secs(20)), (5, 5, 5));
}

/// `brief probe` of the clinic brief against a loopback model, its rows going to `url`.
fn probe(
    dir: &Path,
    state: &Path,
    server: &crate::common::server::Server,
    url: &str,
) -> std::process::Output {
    brief()
        .current_dir(dir)
        .env("XDG_STATE_HOME", state)
        .args(argv(
            "probe clinic --var patient=Ines --var last_visit=2026-11-02",
        ))
        .args(["--provider", "openai", "--model", "m"])
        .args(["--base-url", &format!("{}/v1", server.base_url)])
        .args(["--ledger", url])
        .output()
        .unwrap()
}

#[test]
fn a_missing_table_is_named_with_the_fix_and_the_commands_rows_wait_for_it() {
    let ch = ClickHouse::start();
    let server =
        crate::common::server::Server::start(crate::common::server::Reply::Text("Pong".into()));
    let dir = workspace("clinic");
    let state = tempfile::tempdir().unwrap();
    let url = format!("{}?exit_wait=2s", ch.url("fleet.calls"));
    let out = probe(dir.path(), state.path(), &server, &url);
    let err = stderr(&out);
    assert!(
        err.contains("2 rows are not in ClickHouse"),
        "the command says its rows did not go: {err}"
    );
    assert!(err.contains("no table fleet.calls"), "{err}");
    assert!(err.contains("brief ledger init"), "{err}");
    assert!(!err.contains(PASSWORD), "{err}");
    assert!(
        stdout(&out).contains("CALL"),
        "the probe's own report is printed first: {}",
        stdout(&out)
    );

    init(&ch, "fleet.calls");
    let flushed = brief()
        .env("XDG_STATE_HOME", state.path())
        .args(["ledger", "flush", &url, "--json"])
        .output()
        .unwrap();
    assert_eq!(flushed.status.code(), Some(0), "{}", stderr(&flushed));
    let report = json(&flushed);
    assert_eq!(report["rows_sent"], 2);
    assert_eq!(report["rows_left"], 0);
    assert_eq!(counts(&ch, "fleet.calls"), (2, 2, 2));
    assert_eq!(
        by(
            &ch,
            "SELECT command, count() FROM fleet.calls GROUP BY command"
        ),
        [("probe".to_string(), 2)]
    );
}

pub(crate) fn spool_files(state: &Path) -> Vec<PathBuf> {
    let root = state.join("briefkit/clickhouse");
    let mut found = Vec::new();
    for dir in std::fs::read_dir(root).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            found.push(file.path());
        }
    }
    found
}

#[test]
fn a_full_spool_warns_loudly_and_its_overflow_is_pushed_later_with_nothing_lost() {
    let mut ch = ClickHouse::start();
    init(&ch, TABLE);
    ch.stop();
    let up = upstream();
    let state = tempfile::tempdir().unwrap();
    // Room for two or three rows.
    let url = format!(
        "{}?batch_interval=100ms&spool_limit=1500&exit_wait=1s",
        ch.url(TABLE)
    );
    let mut p = proxy(&up, &url, state.path(), "machine-a");
    calls(&p, "agent-1", 10);
    // Every row made (digest, then the writer's queue, both empty, all ten counted) before
    // the overflow is read: a snapshot taken while rows still came read it low.
    let stats = wait_stats(&p, Duration::from_secs(10), |s| {
        s["digest_backlog"] == 0
            && s["ledger_backlog"] == 0
            && s["totals"]["calls"] == 10
            && s["sink"]["overflow_rows"].as_u64() > Some(0)
    });
    let sink = &stats["sink"];
    let overflowed = sink["overflow_rows"].as_u64().unwrap();
    assert!((1..=10).contains(&overflowed), "{sink}");
    let overflow = sink["overflow_file"].as_str().unwrap().to_string();
    let (_, err) = p.stop();
    assert!(err.contains("WARNING: the ClickHouse spool"), "{err}");
    assert!(err.contains("is full"), "{err}");
    assert!(
        err.contains(&format!("brief ledger push {overflow}")),
        "{err}"
    );
    assert!(!err.contains(PASSWORD), "{err}");
    assert_eq!(
        std::fs::read_to_string(&overflow).unwrap().lines().count() as u64,
        overflowed
    );
    assert!(
        spool_files(state.path())
            .iter()
            .any(|f| f.ends_with("overflow.jsonl"))
    );

    ch.restart();
    let flushed = brief()
        .env("XDG_STATE_HOME", state.path())
        .args(["ledger", "flush", &url])
        .output()
        .unwrap();
    assert_eq!(flushed.status.code(), Some(0), "{}", stderr(&flushed));
    let pushed = brief()
        .args(["ledger", "push", &overflow, &url, "--json"])
        .output()
        .unwrap();
    assert_eq!(pushed.status.code(), Some(0), "{}", stderr(&pushed));
    assert_eq!(json(&pushed)["rows_sent"], overflowed);
    assert_eq!(
        counts(&ch, TABLE),
        (10, 10, 10),
        "nothing lost, nothing twice"
    );
}
