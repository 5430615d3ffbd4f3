//! A fleet's ledger in one ClickHouse table: the same rows every machine would append to
//! its own file, sent over ClickHouse's HTTP interface (`INSERT … FORMAT JSONEachRow`, in
//! batches), never on a call's answer path and never lost.
//!
//! A row is first made durable in a local spool (`spool`, the ledger's own JSON-lines
//! format), then sent by a background thread (`shipper`); what ClickHouse has not
//! acknowledged stays in the spool across restarts and kill -9 and is replayed in order
//! when it is back. `schema` is the table and the rows' encoding, `http` the wire,
//! `usage` the SQL behind `brief usage`, `push` the backfill of a ledger file.
//!
//! One writer per table per process, shared by whatever in the process records rows (the
//! proxy's ledger thread, a command's calls, a session's or sub-agent's calls): [`record`]
//! and [`sink`] find it here; [`settle`] gives it a bounded time to send its rows when the
//! process ends.

pub mod admin;
pub mod http;
pub mod push;
pub mod schema;
pub mod shipper;
pub mod spool;
pub mod target;
pub mod usage;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

pub use shipper::{Left, Shipper};
pub use target::Target;

use crate::cache::ledger::Entry;
use crate::error::{Error, Result};

/// The state directory the spools live in.
pub fn state_dir() -> Result<PathBuf> {
    crate::paths::state_dir().ok_or_else(|| {
        Error::input("no state directory for the ClickHouse spool (neither XDG_STATE_HOME nor a home directory is known)")
            .with_hint("set XDG_STATE_HOME to a directory this user can write")
    })
}

fn writers() -> &'static Mutex<HashMap<String, Arc<Shipper>>> {
    static WRITERS: OnceLock<Mutex<HashMap<String, Arc<Shipper>>>> = OnceLock::new();
    WRITERS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// This process's writer for `target`, started on first use.
pub fn sink(target: &Target) -> Result<Arc<Shipper>> {
    let mut writers = writers().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(writer) = writers.get(&target.identity()) {
        return Ok(Arc::clone(writer));
    }
    let writer = Shipper::start(target, &state_dir()?)?;
    writers.insert(target.identity(), Arc::clone(&writer));
    Ok(writer)
}

/// Before a command's calls: the spool can be made (and the writer starts connecting, and
/// takes over rows dead processes left, while the command works).
pub fn check(target: &Target) -> Result<()> {
    sink(target).map(|_| ())
}

/// Records one row: durable in the spool when this returns, sent in the background.
pub fn record(target: &Target, entry: &Entry) -> Result<()> {
    sink(target)?.append(std::slice::from_ref(entry), true)
}

/// Sends what the spool of `target` holds (rows dead processes left) within `wait`;
/// returns where it stands after.
pub fn flush(
    target: &Target,
    wait: std::time::Duration,
) -> Result<crate::cache::ledger::SinkState> {
    Ok(sink(target)?.drain(wait))
}

/// At the end of a process: each writer gets its target's `exit_wait` to send this
/// process's rows; what is not sent by then stays in the spool for the next process that
/// writes to the table. Returns what was left.
pub fn settle() -> Vec<Left> {
    let writers: Vec<Arc<Shipper>> = {
        let mut writers = writers().lock().unwrap_or_else(|p| p.into_inner());
        writers.drain().map(|(_, w)| w).collect()
    };
    writers
        .iter()
        .filter_map(|w| w.settle(w.target().options.exit_wait))
        .collect()
}
