//! Where ledger rows are stored, behind one trait: the JSON-lines file of one machine
//! ([`FileSink`]) or a fleet's ClickHouse table ([`ClickHouseSink`], through its local
//! spool). A new store is one more `Sink` and one more [`Destination`] arm; the proxy's
//! writer, a command's calls and the end of a command all speak to the trait.
//!
//! ClickHouse wants one writer per table per process (its spool files are per process, its
//! sender is a thread), shared by whatever records rows — the proxy's writer, a command's
//! calls, a session's sub-agents — which only hold a [`Destination`]. The sinks opened are
//! kept by a [`Sinks`] value the caller owns (the CLI makes one per command, the MCP server
//! and the proxy one for their life), not by a process-wide registry: whoever opened them
//! is the one who gives them their bounded time to send at the end ([`Sinks::settle`]), and
//! a library caller sees in the types that rows bound for ClickHouse want settling.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::clickhouse::{Left, Shipper, Target};
use super::{Appender, Destination, Entry, SinkState};
use crate::clock;
use crate::error::{Error, Result};

/// A store of ledger rows.
pub trait Sink: Send + Sync + 'static {
    /// Stores one row, durably when this returns.
    fn record(&self, row: &Entry) -> Result<()>;
    /// Stores rows in order, durably when this returns (a file: one write, one sync).
    fn batch(&self, rows: &[Entry]) -> Result<()>;
    /// Stores one row now, from a caller whose queue to a batching writer is full: made
    /// durable at the latest by that writer's next [`Sink::batch`].
    fn spill(&self, row: &Entry) -> Result<()> {
        self.record(row)
    }
    /// Gives a store that sends rows on (ClickHouse) its bounded time to send what it
    /// holds; returns what it did not send (kept in its spool for the next process).
    fn flush(&self) -> Option<Left> {
        None
    }
    /// Where the store stands, for `/stats` and `/metrics` (`sink`).
    fn state(&self) -> SinkState;
}

/// The JSON-lines ledger file.
pub struct FileSink {
    appender: Mutex<Appender>,
    path: PathBuf,
    state: Mutex<SinkState>,
}

impl FileSink {
    pub fn new(path: PathBuf) -> FileSink {
        FileSink {
            appender: Mutex::new(Appender::new(path.clone())),
            state: Mutex::new(SinkState {
                kind: "jsonl",
                target: path.display().to_string(),
                ..SinkState::default()
            }),
            path,
        }
    }

    fn note(&self, rows: usize, result: &Result<()>) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        match result {
            Ok(()) => {
                state.rows_stored = state.rows_stored.saturating_add(rows as u64);
                state.last_success = Some(clock::format_rfc3339(clock::now_ms()));
            }
            Err(err) => {
                state.errors = state.errors.saturating_add(1);
                state.last_error = Some(err.message.clone());
                state.last_error_time = Some(clock::format_rfc3339(clock::now_ms()));
            }
        }
    }
}

impl Sink for FileSink {
    fn record(&self, row: &Entry) -> Result<()> {
        let result = super::append(&self.path, row);
        self.note(1, &result);
        result
    }

    fn batch(&self, rows: &[Entry]) -> Result<()> {
        let result = self
            .appender
            .lock()
            .map_err(|_| Error::input("the ledger writer failed earlier"))
            .and_then(|mut appender| appender.append(rows, true));
        self.note(rows.len(), &result);
        result
    }

    fn state(&self) -> SinkState {
        self.state.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// A ClickHouse table, through this process's spool and its background sender.
pub struct ClickHouseSink {
    shipper: Arc<Shipper>,
}

impl Sink for ClickHouseSink {
    fn record(&self, row: &Entry) -> Result<()> {
        self.shipper.append(std::slice::from_ref(row), true)
    }

    fn batch(&self, rows: &[Entry]) -> Result<()> {
        self.shipper.append(rows, true)
    }

    fn spill(&self, row: &Entry) -> Result<()> {
        // Made durable by the writer's next batch, as a spilled file row is.
        self.shipper.append(std::slice::from_ref(row), false)
    }

    fn flush(&self) -> Option<Left> {
        self.shipper.settle(self.shipper.target().options.exit_wait)
    }

    fn state(&self) -> SinkState {
        self.shipper.state()
    }
}

impl ClickHouseSink {
    /// Sends what the spool holds (rows dead processes left too) within `wait`; returns
    /// where it stands after.
    pub fn drain(&self, wait: std::time::Duration) -> SinkState {
        self.shipper.drain(wait)
    }
}

/// The sinks one command (or one server's life) opened: each ClickHouse table's once,
/// shared by every row recorded through this handle, and settled together at the end.
/// Cloning gives another handle to the same set (the proxy's writer, sub-agent threads).
#[derive(Clone, Default)]
pub struct Sinks {
    clickhouse: Arc<Mutex<Vec<Arc<ClickHouseSink>>>>,
    /// Where spools are made: the user's state directory, unless a test says otherwise.
    state_dir: Option<PathBuf>,
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.clickhouse.lock().map(|open| open.len()).unwrap_or(0);
        f.debug_struct("Sinks").field("clickhouse", &open).finish()
    }
}

impl Sinks {
    /// An empty set: nothing is opened until a row needs it.
    pub fn new() -> Sinks {
        Sinks::default()
    }

    /// The sink rows for `destination` go to: a file's, new each time (it holds nothing
    /// between rows); a ClickHouse table's, one per table in this set.
    pub fn open(&self, destination: &Destination) -> Result<Arc<dyn Sink>> {
        Ok(match destination {
            Destination::File(path) => Arc::new(FileSink::new(path.clone())),
            Destination::ClickHouse(target) => self.clickhouse(target)?,
        })
    }

    /// This set's sink for the ClickHouse table `target`, started on first use (the spool
    /// is made, and its sender starts connecting and takes over rows dead processes left).
    /// Tables are told apart by their identity (URL, database, table, user), so two
    /// spellings of one table share one spool file and one sender.
    pub fn clickhouse(&self, target: &Target) -> Result<Arc<ClickHouseSink>> {
        let identity = target.identity();
        let mut open = self.clickhouse.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sink) = open
            .iter()
            .find(|sink| sink.shipper.target().identity() == identity)
        {
            return Ok(Arc::clone(sink));
        }
        let state_dir = match &self.state_dir {
            Some(dir) => dir.clone(),
            None => super::clickhouse::state_dir()?,
        };
        let shipper = Shipper::start(target, &state_dir)?;
        let sink = Arc::new(ClickHouseSink { shipper });
        open.push(Arc::clone(&sink));
        Ok(sink)
    }

    /// At the end of a command (or of a server): every sink this set opened gets its
    /// bounded time to send its rows ([`Sink::flush`]); what is not sent stays in its
    /// spool for the next process that writes there. Returns what was left. The set is
    /// empty afterwards: a later row opens its table again.
    pub fn settle(&self) -> Vec<Left> {
        let open: Vec<Arc<dyn Sink>> = {
            let mut open = self.clickhouse.lock().unwrap_or_else(|p| p.into_inner());
            open.drain(..).map(|sink| sink as Arc<dyn Sink>).collect()
        };
        open.iter().filter_map(|sink| sink.flush()).collect()
    }
}

impl Destination {
    /// The sink rows for this destination go to, from `sinks` ([`Sinks::open`]).
    pub fn open(&self, sinks: &Sinks) -> Result<Arc<dyn Sink>> {
        sinks.open(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::ledger::clickhouse::Target;

    fn sinks_in(dir: &std::path::Path) -> Sinks {
        Sinks {
            state_dir: Some(dir.to_path_buf()),
            ..Sinks::default()
        }
    }

    /// With the process-wide registry gone, one set must still give every row of a table
    /// one sender and one spool file: opened once per table, shared after; another set is
    /// another writer; settling lets the senders go and empties the set.
    #[test]
    fn a_set_opens_each_table_once_and_settling_empties_it() {
        let state = tempfile::tempdir().unwrap();
        let target = |url: &str| Target::parse(url, |_| None).unwrap();
        let (t, u) = (
            target("clickhouse://127.0.0.1:9/fleet.usage"),
            target("clickhouse://127.0.0.1:9/fleet.other"),
        );
        let sinks = sinks_in(state.path());
        let first = sinks.clickhouse(&t).unwrap();
        let shared = sinks.clone().clickhouse(&t).unwrap();
        assert!(Arc::ptr_eq(&first, &shared), "one table, one sink per set");
        let other = sinks.clickhouse(&u).unwrap();
        assert!(!Arc::ptr_eq(&first, &other), "another table, another sink");
        let elsewhere = sinks_in(state.path());
        let second = elsewhere.clickhouse(&t).unwrap();
        assert!(!Arc::ptr_eq(&first, &second), "another set, another writer");
        assert!(
            sinks.settle().is_empty(),
            "no rows were recorded, none are left"
        );
        assert!(elsewhere.settle().is_empty());
        let reopened = sinks.clickhouse(&t).unwrap();
        assert!(
            !Arc::ptr_eq(&first, &reopened),
            "a settled set opens afresh"
        );
        assert!(sinks.settle().is_empty());
    }
}
