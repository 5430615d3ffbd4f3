//! `brief ccr put|get|stats|gc`: the CCR store of originals, by hand. Each subcommand is
//! its arguments, one call into [`crate::ccr`], and a typed report.

mod stats;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ccr::{self, Lookup, Store, Strategy, thousands, ttl};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::ui::{Tone, Ui};
use crate::clock::format_rfc3339;
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

fn time(ms: i64) -> String {
    format_rfc3339(ms)
}

fn put(path: &Path, args: PutArgs, ui: &Ui) -> Result<Outcome> {
    // Everything the user gave is checked before the store is touched.
    let strategy: Strategy = args.strategy.parse()?;
    let (ttl_seconds, _) = ttl::resolve(args.ttl.as_deref())?;
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
    let store = Store::open(path)?.with_ttl(ttl_seconds);
    let stored = store.put(&original, &compressed, strategy, &source, None)?;
    let report = Put {
        refreshed: stored.refreshed,
        hash: stored.hash,
        strategy,
        source,
        created: time(stored.created_ms),
        expires: time(stored.expires_ms),
        ttl_seconds,
        original_bytes: original.len(),
        compressed_bytes: compressed.len(),
        store: path.display().to_string(),
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `ccr put`.
#[derive(Serialize)]
struct Put {
    #[serde(skip)]
    refreshed: bool,
    hash: String,
    strategy: Strategy,
    source: String,
    created: String,
    expires: String,
    ttl_seconds: u64,
    original_bytes: usize,
    compressed_bytes: usize,
    store: String,
}

impl Report for Put {
    fn status(&self) -> &str {
        if self.refreshed {
            "refreshed"
        } else {
            "stored"
        }
    }

    fn summary(&self) -> String {
        format!(
            "{} {} bytes as ccr:{} ({}), expires {}",
            self.status(),
            thousands(self.original_bytes as u64),
            self.hash,
            self.strategy,
            self.expires
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.hash)?;
        ui.info(&self.summary());
        Ok(())
    }
}

const EXPIRED_ADVICE: &str = "regenerate the digest, or re-read the source the entry came from: an expired original is not served";

const UNKNOWN_ADVICE: &str = "check that this is the store the digest was written to (--store, BRIEF_CCR_PATH), and that the hash was copied whole";

fn get(path: &Path, args: &GetArgs, ui: &Ui) -> Result<Outcome> {
    let query = ccr::parse_hash(&args.hash)?;
    let lookup = match Store::open_existing(path)? {
        Some(store) => store.get(&query)?,
        None => Lookup::Unknown,
    };
    let form = Form::json_if(args.json);
    match lookup {
        Lookup::Found(entry) => output::print(ui, form, &Found::of(entry)),
        Lookup::Expired(tomb) => output::print(ui, form, &Expired::of(tomb)),
        Lookup::Unknown => output::print(
            ui,
            form,
            &Unknown {
                hash: query.key,
                store: path.display().to_string(),
                advice: UNKNOWN_ADVICE,
            },
        ),
    }
}

/// `ccr get`, found.
#[derive(Serialize)]
struct Found {
    hash: String,
    strategy: Strategy,
    source: String,
    created: String,
    expires: String,
    original_bytes: u64,
    original_tokens: u64,
    compressed_bytes: u64,
    compressed_tokens: u64,
    original_is_utf8: bool,
    /// The original as text (lossy when it is not UTF-8: `original_is_utf8` says).
    original: String,
    compressed: String,
    /// The original's exact bytes, printed as they are in the human form.
    #[serde(skip)]
    bytes: Vec<u8>,
}

impl Found {
    fn of(entry: ccr::Entry) -> Self {
        let text = String::from_utf8(entry.original.clone());
        Found {
            hash: entry.hash,
            strategy: entry.strategy,
            source: entry.source,
            created: time(entry.created_ms),
            expires: time(entry.expires_ms),
            original_bytes: entry.original_bytes,
            original_tokens: entry.original_tokens,
            compressed_bytes: entry.compressed_bytes,
            compressed_tokens: entry.compressed_tokens,
            original_is_utf8: text.is_ok(),
            original: match text {
                Ok(text) => text,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            },
            compressed: entry.compressed,
            bytes: entry.original,
        }
    }
}

impl Report for Found {
    fn status(&self) -> &str {
        "found"
    }

    fn summary(&self) -> String {
        format!(
            "ccr:{} found: {} bytes ({}), expires {}",
            self.hash,
            thousands(self.original_bytes),
            self.strategy,
            self.expires
        )
    }

    fn human(&self, _ui: &Ui) -> Result<()> {
        std::io::Write::write_all(&mut std::io::stdout().lock(), &self.bytes).map_err(Error::from)
    }
}

/// `ccr get`, expired. Expired and collected are different states: `ccr stats` counts an
/// expired original still in the file as awaiting `gc`, and says so here too.
#[derive(Serialize)]
struct Expired {
    hash: String,
    strategy: Strategy,
    source: String,
    created: String,
    expired_at: String,
    original_bytes: u64,
    collected: bool,
    awaiting_gc: bool,
    advice: &'static str,
}

impl Expired {
    fn of(tomb: ccr::Tombstone) -> Self {
        Expired {
            hash: tomb.hash,
            strategy: tomb.strategy,
            source: tomb.source,
            created: time(tomb.created_ms),
            expired_at: time(tomb.expires_ms),
            original_bytes: tomb.original_bytes,
            collected: tomb.collected,
            awaiting_gc: !tomb.collected,
            advice: EXPIRED_ADVICE,
        }
    }
}

impl Report for Expired {
    fn status(&self) -> &str {
        "expired"
    }

    fn summary(&self) -> String {
        let state = if self.collected {
            "was collected"
        } else {
            "is no longer served; it is still in the file, awaiting `brief ccr gc`"
        };
        format!(
            "ccr:{} expired at {}: its original ({} bytes, {}, from {}) {state}",
            self.hash,
            self.expired_at,
            thousands(self.original_bytes),
            self.strategy,
            self.source
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
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

    fn outcome(&self) -> Outcome {
        Outcome::Failed
    }
}

/// `ccr get`, never stored.
#[derive(Serialize)]
struct Unknown {
    hash: String,
    store: String,
    advice: &'static str,
}

impl Report for Unknown {
    fn status(&self) -> &str {
        "unknown"
    }

    fn summary(&self) -> String {
        format!(
            "ccr:{} is unknown: the store {} never held it",
            self.hash, self.store
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.err_line(&format!(
            "{} {}",
            ui.paint_err("unknown:", Tone::Error),
            self.summary()
        ));
        ui.err_line(&format!(
            "{} {}",
            ui.paint_err("hint:", Tone::Info),
            self.advice
        ));
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        Outcome::Failed
    }
}
