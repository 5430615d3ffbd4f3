//! One file per subcommand: its clap arguments, a `run` that makes one library call, and
//! the rendering of the typed report that call returns (through `cli::output`).

use std::path::Path;

use clap::Subcommand;

use crate::brief::{Brief, Problem};
use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::Result;

pub mod accept;
pub mod align;
pub mod ccr;
pub mod check;
pub mod compact;
pub mod compose;
pub mod compress;
pub mod count;
pub mod diff;
pub mod digest;
pub mod discard;
pub mod envelope;
pub mod generate;
pub mod guard;
pub mod history;
pub mod import;
pub mod init;
pub mod ledger;
pub mod lock;
pub mod mcp;
pub mod probe;
pub mod proposals;
pub mod proxy;
pub mod record;
pub mod restore;
pub mod retype;
pub mod review;
pub mod session;
pub mod show;
pub mod stats;
pub mod usage;

#[derive(Debug, Subcommand)]
pub enum Command {
    Init(init::Args),
    Import(import::Args),
    Compose(compose::Args),
    Compact(compact::Args),
    Stats(stats::Args),
    Count(count::Args),
    Lock(lock::Args),
    Check(check::Args),
    Guard(guard::Args),
    Compress(compress::Args),
    Proposals(proposals::Args),
    Review(review::Args),
    Accept(accept::Args),
    Discard(discard::Args),
    History(history::Args),
    Show(show::Args),
    Diff(diff::Args),
    Restore(restore::Args),
    Record(record::Args),
    Retype(retype::Args),
    Align(align::Args),
    Probe(probe::Args),
    Usage(usage::Args),
    Ledger(ledger::Args),
    Proxy(proxy::Args),
    Mcp(mcp::Args),
    Session(session::Args),
    Envelope(envelope::Args),
    Ccr(ccr::Args),
    Digest(digest::Args),
    Generate(generate::Args),
}

/// Runs one subcommand. `root` builds the whole command line's definition (for `generate`).
/// `sinks` is where the command's ledger rows are opened; the caller settles it after.
pub fn run(
    command: Command,
    ui: &Ui,
    root: fn() -> clap::Command,
    sinks: &crate::cache::ledger::Sinks,
) -> Result<Outcome> {
    match command {
        Command::Init(args) => init::run(args, ui),
        Command::Import(args) => import::run(args, ui),
        Command::Compose(args) => compose::run(args, ui),
        Command::Compact(args) => compact::run(args, ui),
        Command::Lock(args) => lock::run(args, ui),
        Command::Check(args) => check::run(args, ui),
        Command::Stats(args) => stats::run(args, ui),
        Command::Count(args) => count::run(args, ui),
        Command::Align(args) => align::run(args, ui),
        Command::Usage(args) => usage::run(args, ui),
        Command::Ledger(args) => ledger::run(args, ui, sinks),
        Command::Proxy(args) => proxy::run(args, ui, sinks),
        Command::Mcp(args) => mcp::run(args, ui, sinks),
        Command::Ccr(args) => ccr::run(args, ui),
        Command::Digest(args) => digest::run(args, ui),
        Command::Probe(args) => probe::run(args, ui, sinks),
        Command::Proposals(args) => proposals::run(args, ui),
        Command::Review(args) => review::run(args, ui),
        Command::Accept(args) => accept::run(args, ui),
        Command::Discard(args) => discard::run(args, ui),
        Command::History(args) => history::run(args, ui),
        Command::Show(args) => show::run(args, ui),
        Command::Diff(args) => diff::run(args, ui),
        Command::Restore(args) => restore::run(args, ui),
        Command::Record(args) => record::run(args, ui),
        Command::Retype(args) => retype::run(args, ui),
        Command::Compress(args) => compress::run(args, ui, sinks),
        Command::Generate(args) => generate::run(args, root(), ui),
        Command::Guard(args) => guard::run(args, ui),
        Command::Session(args) => session::run(args, ui, sinks),
        Command::Envelope(args) => envelope::run(args, ui),
    }
}

/// Where a library operation's load warnings go: stderr, as they are found (before an
/// error that follows them).
pub fn warn_on(ui: &Ui) -> impl FnMut(&Problem) + '_ {
    move |warning| ui.warn(&warning.to_string())
}

/// Loads a brief and shows its warnings (e.g. item files the manifest does not name).
pub fn load_brief(path: &Path, ui: &Ui) -> Result<Brief> {
    let brief = Brief::load(path)?;
    for warning in &brief.warnings {
        ui.warn(&warning.to_string());
    }
    Ok(brief)
}
