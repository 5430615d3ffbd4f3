//! `brief ccr put|get|stats|gc`: the CCR store of originals, by hand.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::ccr::{self, Lookup, Store, Strategy, thousands, ttl};
use crate::cli::output::Outcome;
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
        Sub::Stats(stats_args) => stats(&path, stats_args.json, ui),
        Sub::Gc(gc_args) => gc(&path, gc_args.json, ui),
    }
}

fn time(ms: i64) -> String {
    format_rfc3339(ms)
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
    // Nothing here reports tokens: the first reader that needs them counts them.
    let store = Store::open(path)?
        .with_ttl(ttl_seconds)
        .without_token_counts();
    let stored = store.put(&original, &compressed, strategy, &source, None)?;
    let verb = if stored.refreshed {
        "refreshed"
    } else {
        "stored"
    };
    let summary = format!(
        "{verb} {} bytes as ccr:{} ({strategy}), expires {}",
        thousands(original.len() as u64),
        stored.hash,
        time(stored.expires_ms)
    );
    if args.json {
        ui.json(&json!({
            "status": verb,
            "summary": summary,
            "hash": stored.hash,
            "strategy": strategy,
            "source": source,
            "created": time(stored.created_ms),
            "expires": time(stored.expires_ms),
            "ttl_seconds": ttl_seconds,
            "original_bytes": original.len(),
            "compressed_bytes": compressed.len(),
            "store": path.display().to_string(),
        }))?;
    } else {
        ui.outln(&stored.hash)?;
        ui.info(&summary);
    }
    Ok(Outcome::Ok)
}

const EXPIRED_ADVICE: &str = "regenerate the digest, or re-read the source the entry came from: an expired original is not served";

fn get(path: &Path, args: &GetArgs, ui: &Ui) -> Result<Outcome> {
    let query = ccr::parse_hash(&args.hash)?;
    let lookup = match Store::open_existing(path)? {
        Some(store) => store.get(&query)?,
        None => Lookup::Unknown,
    };
    match lookup {
        Lookup::Found(entry) => {
            if args.json {
                let text = String::from_utf8(entry.original.clone());
                ui.json(&json!({
                    "status": "found",
                    "summary": format!(
                        "ccr:{} found: {} bytes ({}), expires {}",
                        entry.hash,
                        thousands(entry.original_bytes),
                        entry.strategy,
                        time(entry.expires_ms)
                    ),
                    "hash": entry.hash,
                    "strategy": entry.strategy,
                    "source": entry.source,
                    "created": time(entry.created_ms),
                    "expires": time(entry.expires_ms),
                    "original_bytes": entry.original_bytes,
                    "original_tokens": entry.original_tokens,
                    "compressed_bytes": entry.compressed_bytes,
                    "compressed_tokens": entry.compressed_tokens,
                    "original_is_utf8": text.is_ok(),
                    "original": match text {
                        Ok(text) => text,
                        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    },
                    "compressed": entry.compressed,
                    "records": crate::ccr::records_json(&entry.records),
                }))?;
            } else {
                std::io::Write::write_all(&mut std::io::stdout().lock(), &entry.original)
                    .map_err(Error::from)?;
            }
            Ok(Outcome::Ok)
        }
        Lookup::Expired(tomb) => {
            // Expired and collected are different states: `ccr stats` counts an expired
            // original still in the file as awaiting `gc`, and says so here too.
            let state = if tomb.collected {
                "was collected"
            } else {
                "is no longer served; it is still in the file, awaiting `brief ccr gc`"
            };
            let summary = format!(
                "ccr:{} expired at {}: its original ({} bytes, {}, from {}) {state}",
                tomb.hash,
                time(tomb.expires_ms),
                thousands(tomb.original_bytes),
                tomb.strategy,
                tomb.source
            );
            if args.json {
                ui.json(&json!({
                    "status": "expired",
                    "summary": summary,
                    "hash": tomb.hash,
                    "strategy": tomb.strategy,
                    "source": tomb.source,
                    "created": time(tomb.created_ms),
                    "expired_at": time(tomb.expires_ms),
                    "original_bytes": tomb.original_bytes,
                    "collected": tomb.collected,
                    "awaiting_gc": !tomb.collected,
                    "advice": EXPIRED_ADVICE,
                }))?;
            } else {
                // The source label is whatever the putter said.
                ui.err_line(&format!(
                    "{} {}",
                    ui.paint_err("expired:", Tone::Warning),
                    crate::text::sanitize::terminal_line(&summary)
                ));
                ui.err_line(&format!(
                    "{} {EXPIRED_ADVICE}",
                    ui.paint_err("hint:", Tone::Info)
                ));
            }
            Ok(Outcome::Failed)
        }
        Lookup::Unknown => {
            let summary = format!(
                "ccr:{} is unknown: the store {} never held it",
                query.key,
                path.display()
            );
            let advice = "check that this is the store the digest was written to (--store, BRIEF_CCR_PATH), and that the hash was copied whole";
            if args.json {
                ui.json(&json!({
                    "status": "unknown",
                    "summary": summary,
                    "hash": query.key,
                    "store": path.display().to_string(),
                    "advice": advice,
                }))?;
            } else {
                ui.err_line(&format!(
                    "{} {summary}",
                    ui.paint_err("unknown:", Tone::Error)
                ));
                ui.err_line(&format!("{} {advice}", ui.paint_err("hint:", Tone::Info)));
            }
            Ok(Outcome::Failed)
        }
    }
}

fn stats(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    let (ttl_seconds, ttl_source) = ttl::resolve(None)?;
    if let Some(note) = ttl_source.note(ttl_seconds).filter(|_| !as_json) {
        ui.info(&note);
    }
    let stats = match Store::open_existing(path)? {
        Some(store) => Some(store.with_ttl(ttl_seconds).stats()?),
        None => None,
    };
    let total = stats.as_ref().map(|s| s.total.clone()).unwrap_or_default();
    let awaiting_gc = stats.as_ref().map_or(0, |s| s.awaiting_gc);
    let summary = match &stats {
        None => format!("no CCR store yet at {}", path.display()),
        Some(_) => format!(
            "{} live, {} expired; {} bytes of originals kept",
            thousands(total.live),
            thousands(total.expired),
            thousands(total.original_bytes)
        ),
    };
    let per = |strategy: Strategy| {
        stats
            .as_ref()
            .and_then(|s| s.by_strategy.iter().find(|(k, _)| *k == strategy))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    if as_json {
        let strategies: serde_json::Map<String, Value> = Strategy::ALL
            .iter()
            .map(|s| (s.name().to_string(), json!(per(*s))))
            .collect();
        ui.json(&json!({
            "status": "ok",
            "summary": summary,
            "path": path.display().to_string(),
            "exists": stats.is_some(),
            "file_bytes": stats.as_ref().map_or(0, |s| s.file_bytes),
            "ttl_seconds": ttl_seconds,
            "ttl_source": ttl_source,
            "live": total.live,
            "expired": total.expired,
            "awaiting_gc": awaiting_gc,
            "original_bytes": total.original_bytes,
            "compressed_bytes": total.compressed_bytes,
            "original_tokens": total.original_tokens,
            "compressed_tokens": total.compressed_tokens,
            "strategies": strategies,
        }))?;
        return Ok(Outcome::Ok);
    }
    let ttl_from = match ttl_source {
        ttl::Source::Flag | ttl::Source::Env => ttl::ENV_TTL,
        ttl::Source::HeadroomEnv => ttl::HEADROOM_ENV_TTL,
        ttl::Source::Default => "default",
    };
    let mut out = format!(
        "{}\n",
        ui.paint(
            &format!(
                "CCR store {} ({} bytes): {summary}",
                path.display(),
                thousands(stats.as_ref().map_or(0, |s| s.file_bytes))
            ),
            Tone::Strong
        )
    );
    out.push_str(&format!(
        "TTL {} ({ttl_from}); {} expired original(s) awaiting `brief ccr gc`\n",
        ttl::human(ttl_seconds),
        thousands(awaiting_gc)
    ));
    if stats.is_some() {
        out.push('\n');
        let header = format!(
            "{:<22} {:>8} {:>8} {:>14} {:>14} {:>12} {:>12}",
            "STRATEGY", "LIVE", "EXPIRED", "ORIG BYTES", "COMPR BYTES", "ORIG TOK", "COMPR TOK"
        );
        out.push_str(&ui.paint(&header, Tone::Dim));
        out.push('\n');
        for strategy in Strategy::ALL {
            let s = per(strategy);
            out.push_str(&format!(
                "{:<22} {:>8} {:>8} {:>14} {:>14} {:>12} {:>12}\n",
                strategy.name(),
                thousands(s.live),
                thousands(s.expired),
                thousands(s.original_bytes),
                thousands(s.compressed_bytes),
                thousands(s.original_tokens),
                thousands(s.compressed_tokens)
            ));
        }
    }
    ui.out(&out)?;
    Ok(Outcome::Ok)
}

fn gc(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    let swept = match Store::open_existing(path)? {
        Some(store) => store.gc()?,
        None => ccr::Swept {
            collected: 0,
            bytes_freed: 0,
            tombstones: 0,
        },
    };
    let summary = format!(
        "collected {} expired original(s), {} bytes; {} tombstone(s) kept",
        thousands(swept.collected),
        thousands(swept.bytes_freed),
        thousands(swept.tombstones)
    );
    if as_json {
        ui.json(&json!({
            "status": "ok",
            "summary": summary,
            "path": path.display().to_string(),
            "collected": swept.collected,
            "bytes_freed": swept.bytes_freed,
            "tombstones": swept.tombstones,
        }))?;
    } else {
        ui.confirm(&summary)?;
    }
    Ok(Outcome::Ok)
}
