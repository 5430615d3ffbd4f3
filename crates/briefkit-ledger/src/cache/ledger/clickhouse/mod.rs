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
//! Rows reach it through the ledger's [`Sink`](super::sink::Sink) trait: one
//! [`ClickHouseSink`](super::sink::ClickHouseSink) per table in the caller's
//! [`Sinks`](super::sink::Sinks) ([`Sinks::clickhouse`](super::sink::Sinks::clickhouse)),
//! settled with every other sink of that set when the command (or server) ends.

pub mod admin;
pub mod held;
pub mod http;
pub mod push;
pub mod schema;
pub mod shipper;
pub mod spool;
pub mod target;
pub mod usage;

use std::path::PathBuf;

pub use shipper::{Left, Shipper};
pub use target::Target;

use crate::error::{Error, Result};

/// The state directory the spools live in.
pub fn state_dir() -> Result<PathBuf> {
    crate::paths::state_dir().ok_or_else(|| {
        Error::input("no state directory for the ClickHouse spool (neither XDG_STATE_HOME nor a home directory is known)")
            .with_hint("set XDG_STATE_HOME to a directory this user can write")
    })
}
