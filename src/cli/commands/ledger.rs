//! `brief ledger`: the fleet's side of the ledger — the ClickHouse table rows go to, its
//! creation, and a ledger file's rows pushed into it.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Subcommand;
use serde::Serialize;

use crate::cache::ledger::clickhouse::http::Client;
use crate::cache::ledger::clickhouse::push::{self, Progress};
use crate::cache::ledger::clickhouse::schema::{self, TableOptions};
use crate::cache::ledger::clickhouse::target::Target;
use crate::cli::output::{self, Outcome};
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::numbers::thousands;

/// The ledger in a fleet's ClickHouse: print its table, create it, push a file into it
///
/// Proxies, sessions and commands on many machines write their rows to one ClickHouse
/// table when `--ledger` (or BRIEF_LEDGER) is a clickhouse:// URL; `brief usage --ledger
/// URL` summarises it. These commands set the table up and backfill it from files.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief ledger schema --clickhouse --table fleet.usage\n  brief ledger init clickhouse://brief@127.0.0.1:8123/fleet.usage\n  brief ledger push ~/.local/state/briefkit/usage.jsonl clickhouse://brief@127.0.0.1:8123/fleet.usage"
)]
pub struct Args {
    #[command(subcommand)]
    pub command: LedgerCommand,
}

#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    Schema(SchemaArgs),
    Init(InitArgs),
    Push(PushArgs),
    Flush(FlushArgs),
}

/// Print the CREATE TABLE of the ClickHouse table a fleet's rows go to
///
/// Every ledger field, with types ClickHouse 18.16 to current releases accept; a
/// ReplacingMergeTree ordered by (time, event_id), partitioned by month of a materialised
/// `date`, so that a row sent twice counts once for readers that say FINAL.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The schema for ClickHouse (the only store there is a schema for)
    #[arg(long, required = true)]
    pub clickhouse: bool,
    /// The table to name in the statement
    #[arg(long, value_name = "DATABASE.TABLE", default_value = "briefkit.usage")]
    pub table: String,
    /// Drop rows this many days after their date (TTL; ClickHouse 19.6 and later)
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..=36500))]
    pub ttl_days: Option<u32>,
}

/// Create the ClickHouse table (and its database) a URL names
///
/// Idempotent: a table that exists is left as it is (its missing columns are named). On a
/// server that knows insert deduplication tokens (22.2+) the table remembers the last
/// 1,000 inserts' tokens too.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// clickhouse://[user[:password]@]host[:8123]/database.table (or http(s)://…); the
    /// password may come from BRIEF_CLICKHOUSE_PASSWORD
    #[arg(value_name = "URL")]
    pub url: String,
    /// Drop rows this many days after their date (ClickHouse 19.6 and later)
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..=36500))]
    pub ttl_days: Option<u32>,
    /// Print {"status", "summary", "target", "table", "created", "server_version", "ttl_days",
    /// "missing_columns"}
    #[arg(long)]
    pub json: bool,
}

/// Send a ledger file's rows to a ClickHouse table, once
///
/// Idempotent: each row is known by its line number and content, and rows the table
/// already holds are left out, so pushing a file twice (or again after it grew) adds
/// nothing. Shows a progress bar on a terminal.
#[derive(Debug, clap::Args)]
pub struct PushArgs {
    /// The JSON-lines ledger file
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// clickhouse://[user[:password]@]host[:8123]/database.table (or http(s)://…)
    #[arg(value_name = "URL")]
    pub url: String,
    /// Rows per insert
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch_rows: u32,
    /// Print {"status", "summary", "file", "target", "rows_read", "rows_sent",
    /// "rows_already_there", "batches", "warnings"}
    #[arg(long)]
    pub json: bool,
}

/// Send the rows this machine's spool holds for a ClickHouse table now
///
/// Rows a command or a proxy could not send (ClickHouse down, a wrong password, a missing
/// table) wait in the spool in the state directory; the next process writing to the same
/// table sends them, or this command does, waiting until they are all taken or an attempt
/// fails. Exit 3 when rows are left.
#[derive(Debug, clap::Args)]
pub struct FlushArgs {
    /// clickhouse://[user[:password]@]host[:8123]/database.table (or http(s)://…)
    #[arg(value_name = "URL")]
    pub url: String,
    /// How long to wait for ClickHouse to take the rows
    #[arg(long, value_name = "DURATION", value_parser = crate::clock::parse_duration, default_value = "60s")]
    pub wait: Duration,
    /// Print {"status", "summary", "target", "rows_sent", "rows_left", "spool_dir",
    /// "last_error"}
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct FlushReport {
    target: String,
    rows_sent: u64,
    rows_left: u64,
    spool_dir: Option<String>,
    last_error: Option<String>,
}

fn flush(args: FlushArgs, ui: &Ui) -> Result<Outcome> {
    let target = target(&args.url)?;
    let state = crate::cache::ledger::clickhouse::flush(&target, args.wait)?;
    let report = FlushReport {
        target: state.target.clone(),
        rows_sent: state.rows_stored,
        rows_left: state.rows_pending,
        spool_dir: state.spool_dir.clone(),
        last_error: state.last_error.clone(),
    };
    let summary = format!(
        "{} row(s) sent to {}, {} left in the spool",
        thousands(report.rows_sent),
        report.target,
        thousands(report.rows_left)
    );
    if report.rows_left > 0 {
        let err = Error::provider(format!(
            "{summary}{}",
            report
                .last_error
                .as_ref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ))
        .with_hint("the rows stay in the spool; run this again once ClickHouse takes rows");
        if args.json {
            output::json(ui, "error", &summary, &report)?;
            return Err(err.reported());
        }
        return Err(err);
    }
    if args.json {
        output::json(ui, "ok", &summary, &report)?;
    } else {
        ui.outln(&summary)?;
    }
    Ok(Outcome::Ok)
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    match args.command {
        LedgerCommand::Schema(args) => schema_cmd(args, ui),
        LedgerCommand::Init(args) => init(args, ui),
        LedgerCommand::Push(args) => push_cmd(args, ui),
        LedgerCommand::Flush(args) => flush(args, ui),
    }
}

fn target(url: &str) -> Result<Target> {
    Target::parse(url, |name| std::env::var(name).ok())
}

fn schema_cmd(args: SchemaArgs, ui: &Ui) -> Result<Outcome> {
    let (database, table) = args
        .table
        .split_once('.')
        .unwrap_or(("default", args.table.as_str()));
    let named = |n: &str| {
        n.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !named(database) || !named(table) {
        return Err(Error::input(format!(
            "--table {}: not DATABASE.TABLE (letters, digits and _)",
            crate::text::sanitize::one_line(&args.table, 80)
        )));
    }
    let sql = schema::create_table(
        &format!("`{database}`.`{table}`"),
        TableOptions {
            ttl_days: args.ttl_days,
            dedup_window: false,
        },
    );
    let mut text = String::from(
        "-- The ledger of a fleet (brief ledger schema --clickhouse). Read it with FINAL: a row\n\
         -- sent twice is one row after a merge, and FINAL counts it once before.\n",
    );
    if args.ttl_days.is_some() {
        text.push_str(
            "-- TTL needs ClickHouse 19.6 or later; on older servers leave --ttl-days out and drop\n\
             -- old months with ALTER TABLE … DROP PARTITION 202611.\n",
        );
    }
    text.push_str(&sql);
    text.push_str(";\n");
    ui.out(&text)?;
    Ok(Outcome::Ok)
}

#[derive(Serialize)]
struct InitReport {
    target: String,
    table: String,
    created: bool,
    server_version: String,
    ttl_days: Option<u32>,
    missing_columns: Vec<String>,
}

fn init(args: InitArgs, ui: &Ui) -> Result<Outcome> {
    let target = target(&args.url)?;
    let client = Client::new(&target).map_err(|f| f.into_error())?;
    let info = client.server_info().map_err(|f| f.into_error())?;
    if args.ttl_days.is_some() && !info.supports_ttl() {
        return Err(Error::input(format!(
            "--ttl-days: ClickHouse {} at {} has no table TTL (19.6 and later do); nothing was created",
            info.version, target.base
        ))
        .with_hint(format!(
            "create the table without --ttl-days and drop old months with `ALTER TABLE {} DROP PARTITION 202611` (partitions are months)",
            target.table_name()
        )));
    }
    let run = |sql: String| client.execute(&sql).map_err(|f| f.into_error());
    let exists =
        |sql: String| -> Result<bool> { Ok(run(sql)?.trim().parse::<u64>().unwrap_or(0) > 0) };
    let quote = crate::cache::ledger::clickhouse::usage::escape;
    let existed = exists(format!(
        "SELECT count() FROM system.tables WHERE database = '{}' AND name = '{}' FORMAT TabSeparated",
        quote(&target.database),
        quote(&target.table)
    ))?;
    if !existed {
        run(format!(
            "CREATE DATABASE IF NOT EXISTS `{}`",
            target.database
        ))?;
        run(schema::create_table(
            &target.table_sql(),
            TableOptions {
                ttl_days: args.ttl_days,
                dedup_window: info.dedup_window,
            },
        ))?;
    }
    let columns = run(format!(
        "SELECT name FROM system.columns WHERE database = '{}' AND table = '{}' FORMAT TabSeparated",
        quote(&target.database),
        quote(&target.table)
    ))?;
    let have: Vec<&str> = columns.lines().map(str::trim).collect();
    let missing: Vec<String> = schema::COLUMNS
        .iter()
        .filter(|(name, _)| !have.contains(name))
        .map(|(name, kind)| format!("{name} {kind}"))
        .collect();
    let report = InitReport {
        target: target.display(),
        table: target.table_name(),
        created: !existed,
        server_version: info.version.clone(),
        ttl_days: args.ttl_days.filter(|_| !existed),
        missing_columns: missing.clone(),
    };
    let summary = if existed {
        format!(
            "{} already exists on ClickHouse {} at {}; nothing changed",
            report.table, report.server_version, target.base
        )
    } else {
        format!(
            "created {} on ClickHouse {} at {} (ReplacingMergeTree ordered by time{})",
            report.table,
            report.server_version,
            target.base,
            args.ttl_days
                .map(|d| format!(", rows kept {d} days"))
                .unwrap_or_default()
        )
    };
    for column in &missing {
        ui.warn(&format!(
            "{} has no column `{column}`: add it with ALTER TABLE {} ADD COLUMN {column}",
            report.table,
            target.table_sql()
        ));
    }
    if args.json {
        let status = if missing.is_empty() { "ok" } else { "warning" };
        output::json(ui, status, &summary, &report)?;
    } else {
        ui.outln(&summary)?;
    }
    Ok(Outcome::Ok)
}

#[derive(Serialize)]
struct PushReport {
    file: String,
    target: String,
    rows_read: u64,
    rows_sent: u64,
    rows_already_there: u64,
    batches: u64,
    warnings: Vec<WarningJson>,
}

#[derive(Serialize)]
struct WarningJson {
    line: usize,
    torn: bool,
    message: String,
}

fn push_cmd(args: PushArgs, ui: &Ui) -> Result<Outcome> {
    let target = target(&args.url)?;
    if !args.file.exists() {
        return Err(Error::io(
            &args.file,
            &std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    crate::cache::ledger::check_path(&args.file)?;
    let client = Client::new(&target).map_err(|f| f.into_error())?;
    let batch_rows = args.batch_rows as usize;
    let mut bar = Bar::new(ui, &args.file.display().to_string());
    let pushed = push::push(&args.file, &client, batch_rows, &mut |p| bar.show(p))?;
    bar.done();
    for warning in &pushed.warnings {
        ui.warn(&format!(
            "{}:{}: {}",
            args.file.display(),
            warning.line,
            warning.message
        ));
    }
    let report = PushReport {
        file: args.file.display().to_string(),
        target: target.display(),
        rows_read: pushed.rows_read,
        rows_sent: pushed.rows_sent,
        rows_already_there: pushed.rows_already_there,
        batches: pushed.batches,
        warnings: pushed
            .warnings
            .iter()
            .map(|w| WarningJson {
                line: w.line,
                torn: w.torn,
                message: w.message.clone(),
            })
            .collect(),
    };
    let summary = format!(
        "pushed {} to {}: {} row(s) read, {} sent, {} already there",
        report.file,
        report.target,
        thousands(report.rows_read),
        thousands(report.rows_sent),
        thousands(report.rows_already_there)
    );
    if args.json {
        let status = if report.warnings.is_empty() {
            "ok"
        } else {
            "warning"
        };
        output::json(ui, status, &summary, &report)?;
    } else {
        ui.outln(&summary)?;
    }
    Ok(Outcome::Ok)
}

/// A progress bar on stderr, drawn only on a terminal (and not under `--quiet`).
struct Bar {
    on: bool,
    label: String,
    last: Option<Instant>,
    drawn: bool,
}

impl Bar {
    fn new(ui: &Ui, label: &str) -> Bar {
        Bar {
            on: ui.stderr_is_terminal() && !ui.quiet(),
            label: crate::text::sanitize::one_line(label, 40),
            last: None,
            drawn: false,
        }
    }

    fn show(&mut self, p: Progress) {
        if !self.on
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(Instant::now());
        let share = if p.bytes_total > 0 {
            (p.bytes_read as f64 / p.bytes_total as f64).min(1.0)
        } else {
            1.0
        };
        let width = 30;
        let filled = (share * width as f64).round() as usize;
        let mut stderr = std::io::stderr().lock();
        let _ = write!(
            stderr,
            "\r\x1b[2Kpushing {} [{}{}] {:>3.0}%  {} rows read, {} sent",
            self.label,
            "#".repeat(filled),
            ".".repeat(width - filled),
            share * 100.0,
            thousands(p.rows_read),
            thousands(p.rows_sent)
        );
        let _ = stderr.flush();
        self.drawn = true;
    }

    fn done(&mut self) {
        if self.drawn {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
