//! `brief usage` over a ClickHouse table gives the report it gives over a file with the
//! same rows (issue 26), every grouping, `--since` and prices included; `brief ledger push`
//! is idempotent; the schema and the URL mistakes say what they are.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::clickhouse::{ClickHouse, PASSWORD};
use crate::common::{brief, json, stderr, stdout, workspace};
use crate::harness::argv;

const TABLE: &str = "fleet.usage";

/// A varied ledger: both providers, several models, briefs (one with its own pricing),
/// sessions, machines (and rows from before `host` was written), drift of every kind,
/// failed calls without usage, calls without a cached field, three UTC days.
pub(crate) fn ledger_rows(priced_brief: &Path) -> Vec<Value> {
    let start = briefkit::clock::parse("2026-11-29T22:10:00.000Z").unwrap();
    let mut rows = Vec::new();
    for i in 0..240i64 {
        let time = briefkit::clock::format_rfc3339(start + i * 731_117 + (i * 37) % 1000);
        let provider = ["openai", "anthropic"][(i % 2) as usize];
        let model = ["gpt-4.1-mini", "claude-sonnet-4-5", "demo"][(i % 3) as usize];
        let (brief, dir) = match i % 4 {
            0 => (json!("clinic"), json!(priced_brief.display().to_string())),
            1 => (json!("front-desk"), Value::Null),
            2 => (json!("clinic"), Value::Null),
            _ => (Value::Null, Value::Null),
        };
        let failed = i % 11 == 0;
        let input = 1000 + i * 13;
        let command = ["proxy", "probe", "compress", "session"][(i % 4) as usize];
        let cached = if failed || i % 5 == 0 {
            Value::Null
        } else {
            json!(input / 2 + i % 7)
        };
        let session = match i % 3 {
            0 => json!("agent-a"),
            1 => json!(format!("agent-{}", i % 5)),
            _ => Value::Null,
        };
        let drifted = match i % 6 {
            0 => Value::Null,
            1 | 2 => json!([]),
            3 => json!(["system"]),
            4 => json!(["tools", "messages"]),
            _ => json!(["system", "tools"]),
        };
        let mut row = json!({
            "time": time,
            "command": command,
            "provider": provider,
            "model": model,
            "brief": brief,
            "brief_dir": dir,
            "item": if i % 4 == 2 { json!("booking") } else { Value::Null },
            "prefix_hash": format!("{:064x}", (i % 5) * 0x1111_1111),
            "input_tokens": if failed { Value::Null } else { json!(input) },
            "cached_input_tokens": cached,
            "cache_write_tokens": if failed { Value::Null } else if i % 7 == 0 { json!(120) } else { json!(0) },
            // Some writes are for an hour (Anthropic's `ephemeral_1h_input_tokens`), priced apart.
            "cache_write_1h_tokens": if !failed && i % 14 == 0 { json!(80) } else { Value::Null },
            "output_tokens": if failed { Value::Null } else { json!(3 + i % 9) },
            "latency_ms": 100 + i,
            "attempts": 1 + i % 2,
            "status": if failed { "http_500" } else { "ok" },
            "error": if failed { json!("server error") } else { Value::Null },
            "session": session,
            "drifted_parts": drifted,
            "target_brief": if i % 4 == 2 { json!("clinic") } else { Value::Null },
            "target_brief_dir": if i % 8 == 2 { json!(priced_brief.display().to_string()) } else { Value::Null },
        });
        // Some rows carry the prices a proxy was given (`--price-*`), one of them only
        // an input price: the rest of its prices come from elsewhere, in both readers.
        match i % 10 {
            1 | 4 => {
                row["price_input_per_mtok"] = json!(2.5);
                row["price_cached_per_mtok"] = json!(0.25);
                row["price_output_per_mtok"] = json!(10.0);
            }
            7 => row["price_input_per_mtok"] = json!(0.7),
            _ => {} // none given, or a row from before prices were recorded
        }
        match i % 3 {
            0 => row["host"] = json!("machine-a"),
            1 => row["host"] = json!("machine-b"),
            _ => {} // a row from before hosts were recorded
        }
        rows.push(row);
    }
    rows
}

/// [`ledger_rows`] and one row a reader must skip (cached tokens above all input).
fn ledger_rows_with_an_implausible_one(priced_brief: &Path) -> Vec<Value> {
    let mut rows = ledger_rows(priced_brief);
    let mut odd = rows[5].clone();
    odd["cached_input_tokens"] = json!(5_000_000);
    rows.insert(100, odd);
    rows
}

fn write_ledger(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap();
}

fn init(ch: &ClickHouse) {
    let out = brief()
        .args(["ledger", "init", &ch.url(TABLE)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn push(file: &Path, url: &str) -> Value {
    let out = brief()
        .args(["ledger", "push"])
        .arg(file)
        .args([url, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    json(&out)
}

fn usage(ledger: &str, extra: &[&str]) -> std::process::Output {
    let out = brief()
        .args(["usage", "--ledger", ledger])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

#[test]
fn usage_over_clickhouse_equals_usage_over_the_same_rows_in_a_file() {
    let ch = ClickHouse::start();
    init(&ch);
    let briefs = workspace("clinic");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("usage.jsonl");
    write_ledger(&file, &ledger_rows(&briefs.path().join("clinic")));
    let pushed = push(&file, &ch.url(TABLE));
    assert_eq!(pushed["rows_sent"], 240);

    let file_arg = file.display().to_string();
    let url = ch.url(TABLE);
    let prices = [
        "--price-input",
        "3",
        "--price-cached",
        "0.3",
        "--price-output",
        "15",
    ];
    for by in ["prefix", "brief", "model", "session", "day", "machine"] {
        for extra in [&[][..], &["--since", "2026-11-30T12:00:00Z"], &prices] {
            let args: Vec<&str> = ["--by", by]
                .into_iter()
                .chain(extra.iter().copied())
                .collect();
            let mut json_args = args.clone();
            json_args.push("--json");
            let mut from_file = json(&usage(&file_arg, &json_args));
            let mut from_ch = json(&usage(&url, &json_args));
            for report in [&mut from_file, &mut from_ch] {
                report.as_object_mut().unwrap().remove("ledger");
            }
            assert_eq!(from_file, from_ch, "--by {by} {extra:?}");
            assert!(from_file["groups"].as_array().unwrap().len() > 1);
            // The human report too, past its first line (which names the ledger).
            let text = |out: std::process::Output| {
                stdout(&out).lines().skip(1).collect::<Vec<_>>().join("\n")
            };
            assert_eq!(
                text(usage(&file_arg, &args)),
                text(usage(&url, &args)),
                "--by {by} {extra:?}"
            );
        }
    }
    // The brief's own pricing was found for its calls in both.
    let priced = json(&usage(&url, &["--by", "brief", "--json"]));
    assert!(
        priced["total"]["priced_calls"].as_u64().unwrap() > 0,
        "{priced}"
    );
    let shown = stdout(&usage(&url, &[]));
    assert!(
        shown.starts_with(&format!(
            "Ledger clickhouse://fleet@127.0.0.1:{}/fleet.usage:",
            ch.port
        )),
        "{shown}"
    );
    assert!(!shown.contains(PASSWORD));
}

#[test]
fn pushing_the_same_file_twice_adds_nothing_and_a_grown_file_adds_its_new_rows() {
    let ch = ClickHouse::start();
    init(&ch);
    let briefs = workspace("clinic");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("usage.jsonl");
    let rows = ledger_rows_with_an_implausible_one(&briefs.path().join("clinic"));
    write_ledger(&file, &rows[..150]);
    let url = format!("{}?batch_rows=40", ch.url(TABLE));
    let first = push(&file, &url);
    assert_eq!(
        (
            first["rows_sent"].as_u64(),
            first["rows_already_there"].as_u64()
        ),
        (Some(149), Some(0))
    );
    let again = push(&file, &url);
    assert_eq!(
        (
            again["rows_sent"].as_u64(),
            again["rows_already_there"].as_u64()
        ),
        (Some(0), Some(149))
    );
    assert_eq!(
        again["status"], "warning",
        "the implausible line is named again"
    );
    let count = |sql: &str| ch.count(sql);
    assert_eq!(count("SELECT count() FROM fleet.usage"), 149);
    // Smaller batches this time: what is there is found row by row.
    write_ledger(&file, &rows);
    let grown = brief()
        .args(["ledger", "push"])
        .arg(&file)
        .args([&ch.url(TABLE), "--batch-rows", "33", "--json"])
        .output()
        .unwrap();
    let grown = json(&grown);
    assert_eq!(
        (
            grown["rows_sent"].as_u64(),
            grown["rows_already_there"].as_u64()
        ),
        (Some(91), Some(149))
    );
    assert_eq!(count("SELECT count() FROM fleet.usage"), 240);
    assert_eq!(count("SELECT uniqExact(event_id) FROM fleet.usage"), 240);
    // Identical calls on different lines are two rows, not one.
    let mut call = rows[1].clone();
    call["latency_ms"] = json!(4242);
    let twin = dir.path().join("twins.jsonl");
    write_ledger(&twin, &[call.clone(), call]);
    let twins = push(&twin, &ch.url("fleet.usage"));
    assert_eq!(twins["rows_sent"], 2);
}

#[test]
fn ledger_schema_prints_a_table_every_clickhouse_accepts() {
    let out = brief()
        .args(["ledger", "schema", "--clickhouse", "--table", "fleet.usage"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
    // The statement creates the table on a real server (18.16 here), as printed.
    let ch = ClickHouse::start();
    ch.query("CREATE DATABASE fleet");
    ch.query(&stdout(&out));
    let columns = ch.query(
        "SELECT name FROM system.columns WHERE database = 'fleet' AND table = 'usage' FORMAT TabSeparated",
    );
    for field in [
        "time",
        "cached_input_tokens",
        "drifted_parts",
        "host",
        "event_id",
        "date",
    ] {
        assert!(columns.lines().any(|c| c == field), "{field}: {columns}");
    }
    let ttl = brief()
        .args(["ledger", "schema", "--clickhouse", "--ttl-days", "90"])
        .output()
        .unwrap();
    assert!(
        stdout(&ttl).contains("TTL date + INTERVAL 90 DAY"),
        "{}",
        stdout(&ttl)
    );
}

#[test]
fn ledger_mistakes_exit_2_and_server_refusals_exit_3_without_the_password() {
    let ch = ClickHouse::start();
    let code = |args: &[&str]| {
        let out = brief().args(args).output().unwrap();
        (out.status.code(), stderr(&out))
    };
    let (exit, err) = code(&[
        "usage",
        "--ledger",
        "http://u:pw-in-url-123@127.0.0.1:8123/db.t",
    ]);
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("--ledger-format clickhouse"), "{err}");
    assert!(!err.contains("pw-in-url-123"), "{err}");
    let (exit, err) = code(&argv(
        "usage --ledger usage.jsonl --ledger-format clickhouse",
    ));
    assert_eq!(exit, Some(2), "{err}");
    let (exit, err) = code(&["usage", "--ledger", "clickhouse://h/db.t?batch_rows=lots"]);
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("batch_rows"), "{err}");
    // The HTML report draws a file call by call: refused for a table, nothing written.
    let page = tempfile::tempdir().unwrap();
    let html = page.path().join("report.html");
    let (exit, err) = code(&[
        "usage",
        "--ledger",
        "clickhouse://h/db.t",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("--html"), "{err}");
    assert!(!html.exists());
    // http:// with the format is the same table as clickhouse://.
    let http = format!("http://fleet:{PASSWORD}@127.0.0.1:{}/fleet.usage", ch.port);
    let (exit, err) = code(&["ledger", "init", &ch.url(TABLE)]);
    assert_eq!(exit, Some(0), "{err}");
    let (exit, err) = code(&["usage", "--ledger", &http, "--ledger-format", "clickhouse"]);
    assert_eq!(exit, Some(0), "{err}");
    // On 18.16 a TTL cannot be made: said before anything is created.
    let (exit, err) = code(&["ledger", "init", &ch.url("fleet.other"), "--ttl-days", "30"]);
    assert_eq!(exit, Some(2), "{err}");
    assert!(err.contains("has no table TTL"), "{err}");
    assert!(err.contains("DROP PARTITION"), "{err}");
    assert_eq!(
        ch.count("SELECT count() FROM system.tables WHERE database = 'fleet' AND name = 'other'"),
        0
    );
    // A wrong password and a missing table: exit 3, named, the password never shown.
    let wrong = format!(
        "clickhouse://fleet:wrong-pw-42@127.0.0.1:{}/fleet.usage",
        ch.port
    );
    let (exit, err) = code(&["usage", "--ledger", &wrong]);
    assert_eq!(exit, Some(3), "{err}");
    assert!(err.contains("refused user `fleet`"), "{err}");
    assert!(!err.contains("wrong-pw-42"), "{err}");
    let (exit, err) = code(&["usage", "--ledger", &ch.url("fleet.nothing")]);
    assert_eq!(exit, Some(3), "{err}");
    assert!(err.contains("no table fleet.nothing"), "{err}");
    assert!(err.contains("brief ledger init"), "{err}");
}

#[test]
#[should_panic(expected = "apt-get install -y clickhouse-server")]
fn a_missing_clickhouse_server_fails_the_tests_with_how_to_install_it() {
    crate::common::clickhouse::find_binary(None, &["/nonexistent/sbin/clickhouse-server"]);
}

#[test]
#[should_panic(expected = "clickhouse-server is not installed")]
fn a_clickhouse_server_named_but_missing_fails_the_same_way() {
    crate::common::clickhouse::find_binary(
        Some("/nonexistent/clickhouse-server".into()),
        &["/usr/sbin/clickhouse-server"],
    );
}

#[test]
fn usage_over_a_table_from_before_rows_carried_prices_reads_them_as_unpriced() {
    // A table `ledger init` made before the price columns: inserts skip the fields it has
    // no column for, and `usage` reads it as rows that carry no prices.
    let ch = ClickHouse::start();
    init(&ch);
    for column in [
        "price_input_per_mtok",
        "price_cached_per_mtok",
        "price_output_per_mtok",
    ] {
        ch.query(&format!("ALTER TABLE {TABLE} DROP COLUMN {column}"));
    }
    let briefs = workspace("clinic");
    let dir = tempfile::tempdir().unwrap();
    let rows = ledger_rows(&briefs.path().join("clinic"));
    let with_prices = dir.path().join("with-prices.jsonl");
    write_ledger(&with_prices, &rows);
    assert_eq!(push(&with_prices, &ch.url(TABLE))["rows_sent"], 240);
    let bare: Vec<Value> = rows
        .into_iter()
        .map(|mut row| {
            let fields = row.as_object_mut().unwrap();
            fields.retain(|key, _| !key.starts_with("price_"));
            row
        })
        .collect();
    let without_prices = dir.path().join("without-prices.jsonl");
    write_ledger(&without_prices, &bare);
    let mut from_file = json(&usage(
        &without_prices.display().to_string(),
        &["--by", "model", "--json"],
    ));
    let mut from_ch = json(&usage(&ch.url(TABLE), &["--by", "model", "--json"]));
    for report in [&mut from_file, &mut from_ch] {
        report.as_object_mut().unwrap().remove("ledger");
    }
    assert_eq!(from_file, from_ch);
}
