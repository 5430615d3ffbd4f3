//! `brief ledger`: the fleet's side of the ledger — the ClickHouse table rows go to, its
//! creation, and a ledger file's rows pushed into it. Each subcommand is its arguments, one
//! call to `cache::ledger::clickhouse::admin`, and the report's rendering (plus the push's
//! progress bar, which is the terminal's).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Subcommand;

use crate::cache::ledger::clickhouse::admin::{self, FlushReport, InitReport, PushReport};
use crate::cache::ledger::clickhouse::push::Progress;
use crate::cache::ledger::clickhouse::target::Target;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::Ui;
use crate::error::{Error, ErrorKind, Result};
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

fn flush(args: FlushArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let target = target(&args.url)?;
    let report = admin::flush_spool(sinks, &target, args.wait)?;
    let form = Form::json_if(args.json);
    match report.left_error() {
        Some(err) => output::print_then_fail(
            ui,
            form,
            &report,
            err.with_hint("the rows stay in the spool; run this again once ClickHouse takes rows"),
        ),
        None => output::print(ui, form, &report),
    }
}

pub fn run(args: Args, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    match args.command {
        LedgerCommand::Schema(args) => schema_cmd(args, ui),
        LedgerCommand::Init(args) => init(args, ui),
        LedgerCommand::Push(args) => push_cmd(args, ui),
        LedgerCommand::Flush(args) => flush(args, ui, sinks),
    }
}

fn target(url: &str) -> Result<Target> {
    Target::parse(url, |name| std::env::var(name).ok())
}

fn schema_cmd(args: SchemaArgs, ui: &Ui) -> Result<Outcome> {
    let script = admin::schema_script(&args.table, args.ttl_days).ok_or_else(|| {
        Error::input(format!(
            "--table {}: not DATABASE.TABLE (letters, digits and _)",
            crate::text::sanitize::one_line(&args.table, 80)
        ))
    })?;
    ui.out(&script)?;
    Ok(Outcome::Ok)
}

fn init(args: InitArgs, ui: &Ui) -> Result<Outcome> {
    let target = target(&args.url)?;
    let report = admin::init(&target, args.ttl_days).map_err(|err| {
        // With a TTL asked for, the input error `init` raises is the server's lack of one.
        if args.ttl_days.is_some() && err.kind == ErrorKind::Input {
            let hint = format!(
                "create the table without --ttl-days and drop old months with `ALTER TABLE {} DROP PARTITION 202611` (partitions are months)",
                target.table_name()
            );
            Error::input(format!("--ttl-days: {}", err.message)).with_hint(hint)
        } else {
            err
        }
    })?;
    output::print(ui, Form::json_if(args.json), &report)
}

fn push_cmd(args: PushArgs, ui: &Ui) -> Result<Outcome> {
    let target = target(&args.url)?;
    let mut bar = Bar::new(ui, &args.file.display().to_string());
    let pushed = admin::push_file(&args.file, &target, args.batch_rows as usize, &mut |p| {
        bar.show(p)
    });
    bar.done();
    output::print(ui, Form::json_if(args.json), &pushed?)
}

impl Report for InitReport {
    fn status(&self) -> &str {
        InitReport::status(self)
    }

    fn summary(&self) -> String {
        InitReport::summary(self)
    }

    fn notes(&self, ui: &Ui) {
        for advice in self.column_advice() {
            ui.warn(&advice);
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.summary())
    }
}

impl Report for PushReport {
    fn status(&self) -> &str {
        PushReport::status(self)
    }

    fn summary(&self) -> String {
        PushReport::summary(self)
    }

    fn notes(&self, ui: &Ui) {
        for warning in &self.warnings {
            ui.warn(&format!(
                "{}:{}: {}",
                self.file, warning.line, warning.message
            ));
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.summary())
    }
}

impl Report for FlushReport {
    fn status(&self) -> &str {
        FlushReport::status(self)
    }

    fn summary(&self) -> String {
        FlushReport::summary(self)
    }

    /// The summary; with rows left, nothing (the error on stderr says it).
    fn human(&self, ui: &Ui) -> Result<()> {
        if self.rows_left > 0 {
            return Ok(());
        }
        ui.outln(&self.summary())
    }
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
