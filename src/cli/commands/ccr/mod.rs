//! `brief ccr put|get|stats|gc`: the CCR store of originals, by hand. Each subcommand is
//! its arguments, one call into [`crate::ccr`], and a typed report.

mod stats;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ccr::{self, EXPIRED_ADVICE, Original, Put, Retrieved, Strategy, ttl};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui};
use crate::document::Document;
use crate::error::{Error, Result};
use crate::files::input;
use crate::files::limits::CCR_ORIGINAL;

/// Keep originals recoverable by hash: put, get, stats and gc of the CCR store
///
/// The store is one SQLite file: --store, else BRIEF_CCR_PATH, else
/// $XDG_STATE_HOME/briefkit/ccr.sqlite, else ~/.local/state/briefkit/ccr.sqlite. Entries live
/// for BRIEF_CCR_TTL_SECONDS (default 7 days); an expired entry keeps a tombstone, so `get`
/// tells expired from unknown.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cargo test 2>&1 | brief ccr put --strategy tool_output_head_tail --source 'cargo test'\n  brief ccr get 3f9a0c1d2e4b5a6978877665\n  brief ccr stats --json"
)]
pub struct Args {
    /// The store file [default: $BRIEF_CCR_PATH, else the user's state directory]
    #[arg(long, global = true, value_name = "PATH")]
    pub store: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    Put(PutArgs),
    Get(GetArgs),
    Stats(StatsArgs),
    Gc(GcArgs),
}

/// Store an original and print its hash (the same original gives the same hash and
/// refreshes its expiry)
#[derive(Debug, clap::Args)]
pub struct PutArgs {
    /// The original: a file, or `-` for stdin (the default)
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub file: String,
    /// How the entry was produced: manual, tool_output_head_tail, json_crush,
    /// summary_backing, verbatim_backing, session_purge or session_compact
    #[arg(long, value_name = "S", default_value = "manual")]
    pub strategy: String,
    /// The compressed text that stands in the original's place
    #[arg(long, value_name = "FILE")]
    pub compressed: Option<PathBuf>,
    /// A label saying where the original came from [default: the file name, or `stdin`]
    #[arg(long, value_name = "LABEL")]
    pub source: Option<String>,
    /// Lifetime: seconds, or a number with s, m, h or d [default: $BRIEF_CCR_TTL_SECONDS, else 7d]
    #[arg(long, value_name = "N")]
    pub ttl: Option<String>,
    /// Print one JSON object instead of the hash
    #[arg(long)]
    pub json: bool,
}

/// Print an original by its hash; exit 1 when it expired or is unknown
#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// 24 hex characters (any case), the full 64, or `ccr:HASH`
    pub hash: String,
    /// Print one JSON object (with `status`: found, expired or unknown)
    #[arg(long)]
    pub json: bool,
}

/// Count live and expired entries, bytes and tokens, per strategy; show the TTL and path
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

/// Collect the originals of expired entries (their tombstones stay) and give space back
#[derive(Debug, clap::Args)]
pub struct GcArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let path = ccr::path::resolve(args.store.as_deref())?;
    match args.command {
        Sub::Put(put_args) => put(&path, put_args, ui),
        Sub::Get(get_args) => get(&path, &get_args, ui),
        Sub::Stats(stats_args) => stats::stats(&path, stats_args.json, ui),
        Sub::Gc(gc_args) => stats::gc(&path, gc_args.json, ui),
    }
}

fn put(path: &Path, args: PutArgs, ui: &Ui) -> Result<Outcome> {
    // Everything the user gave is checked before the store is touched.
    let strategy: Strategy = args.strategy.parse()?;
    let (ttl_seconds, ttl_source) = ttl::resolve(args.ttl.as_deref())?;
    if let Some(note) = ttl_source.note(ttl_seconds) {
        ui.info(&note);
    }
    let original = input::read_bytes(Path::new(&args.file), CCR_ORIGINAL)?;
    let compressed = match &args.compressed {
        // Text: it stands in a prompt.
        Some(file) => input::read_text(file, CCR_ORIGINAL)?,
        None => String::new(),
    };
    let source = args.source.unwrap_or_else(|| {
        if args.file == "-" {
            "stdin".to_string()
        } else {
            args.file.clone()
        }
    });
    let report = ccr::put(
        path,
        Original {
            bytes: &original,
            compressed: &compressed,
            strategy,
            source: &source,
            ttl_seconds,
        },
    )?;
    output::print(ui, Form::json_if(args.json), &Shown(report))
}

fn get(path: &Path, args: &GetArgs, ui: &Ui) -> Result<Outcome> {
    let report = ccr::retrieve(path, &args.hash)?;
    output::print(ui, Form::json_if(args.json), &Shown(report))
}

/// A CCR report with its human form: `put` prints the hash, `get` the original's exact
/// bytes (or, on stderr, why there is none: exit 1).
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<T>(T);

impl Report for Shown<Put> {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.0.hash)?;
        ui.info(&self.0.summary());
        Ok(())
    }
}

impl Report for Shown<Retrieved> {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        match &self.0 {
            Retrieved::Found(found) => {
                std::io::Write::write_all(&mut std::io::stdout().lock(), &found.bytes)
                    .map_err(Error::from)
            }
            Retrieved::Expired(_) => {
                // The source label is whatever the putter said.
                ui.err_line(&format!(
                    "{} {}",
                    ui.paint_err("expired:", Tone::Warning),
                    crate::text::sanitize::terminal_line(&self.summary())
                ));
                ui.err_line(&format!(
                    "{} {EXPIRED_ADVICE}",
                    ui.paint_err("hint:", Tone::Info)
                ));
                Ok(())
            }
            Retrieved::Unknown(unknown) => {
                ui.err_line(&format!(
                    "{} {}",
                    ui.paint_err("unknown:", Tone::Error),
                    self.summary()
                ));
                ui.err_line(&format!(
                    "{} {}",
                    ui.paint_err("hint:", Tone::Info),
                    unknown.advice
                ));
                Ok(())
            }
        }
    }

    fn outcome(&self) -> Outcome {
        match self.0 {
            Retrieved::Found(_) => Outcome::Ok,
            _ => Outcome::Failed,
        }
    }
}
