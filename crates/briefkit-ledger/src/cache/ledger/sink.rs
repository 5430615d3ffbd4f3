//! Where ledger rows are stored, behind one trait: the JSON-lines file of one machine
//! ([`FileSink`]) or a fleet's ClickHouse table ([`ClickHouseSink`], through its local
//! spool). A new store is one more `Sink` and one more [`Destination`] arm; the proxy's
//! writer, a command's calls and the end of a process all speak to the trait.
//!
//! ClickHouse wants one writer per table per process (its spool files are per process, its
//! sender is a thread), shared by whatever records rows — the proxy's writer, a command's
//! calls, a session's sub-agents — which only hold a [`Destination`]. So
//! [`Destination::open`] keeps the ClickHouse sinks it opened in the process's list of
//! open sinks, and [`settle`] gives each its bounded time when the process ends.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

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

/// The ClickHouse sinks this process opened.
fn open_sinks() -> &'static Mutex<Vec<Arc<ClickHouseSink>>> {
    static OPEN: OnceLock<Mutex<Vec<Arc<ClickHouseSink>>>> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(Vec::new()))
}

/// This process's sink for the ClickHouse table `target`, started on first use (the
/// spool is made, and its sender starts connecting and takes over rows dead processes
/// left).
pub fn clickhouse(target: &Target) -> Result<Arc<ClickHouseSink>> {
    let identity = target.identity();
    let mut open = open_sinks().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(sink) = open
        .iter()
        .find(|sink| sink.shipper.target().identity() == identity)
    {
        return Ok(Arc::clone(sink));
    }
    let shipper = Shipper::start(target, &super::clickhouse::state_dir()?)?;
    let sink = Arc::new(ClickHouseSink { shipper });
    open.push(Arc::clone(&sink));
    Ok(sink)
}

impl Destination {
    /// The sink rows for this destination go to: a file's, new each time (it holds
    /// nothing between rows); a ClickHouse table's, one per table per process.
    pub fn open(&self) -> Result<Arc<dyn Sink>> {
        Ok(match self {
            Destination::File(path) => Arc::new(FileSink::new(path.clone())),
            Destination::ClickHouse(target) => clickhouse(target)?,
        })
    }
}

/// At the end of a process: every sink it opened gets its bounded time to send its rows
/// ([`Sink::flush`]); what is not sent stays in its spool for the next process that writes
/// there. Returns what was left.
pub fn settle() -> Vec<Left> {
    let open: Vec<Arc<dyn Sink>> = {
        let mut open = open_sinks().lock().unwrap_or_else(|p| p.into_inner());
        open.drain(..).map(|sink| sink as Arc<dyn Sink>).collect()
    };
    open.iter().filter_map(|sink| sink.flush()).collect()
}
