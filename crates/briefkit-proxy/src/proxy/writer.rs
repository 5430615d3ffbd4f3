//! The proxy's ledger writer: a background thread that appends rows in batches, fed by a
//! bounded queue.
//!
//! Each time the thread wakes it takes every row waiting (at most [`MAX_BATCH`]), adds
//! them to the running figures, and hands them to its [`Sink`] as one batch: for the
//! ledger file, one `write` of all their lines and one `fdatasync`. A burst therefore costs
//! one write and one sync per batch, not per row, and the rows of a busy second go out in a
//! handful of batches. The thread does nothing per row but count it and encode it: the
//! request's parse, its prefix hashes and its drift check were done before the row was
//! made (`book`), so a row never waits behind another row's request.
//!
//! The queue holds at most [`QUEUE_ROWS`] rows. When it is full — the disk has stalled —
//! a row is not dropped and not held: it is spilled, written at once by the call that made
//! it ([`Sink::spill`]: for the ledger, one line appended directly, made durable by the
//! writer's next sync), and counted in `/stats` as `ledger_spilled`. So memory stays
//! bounded whatever the disk does, and every row reaches the ledger or is counted in
//! `ledger_errors` with the first failure said once on stderr. The ClickHouse sink sits
//! behind the same queue: its batches (and spills) are made durable in its local spool,
//! and its own thread sends them on (`crate::cache::ledger::clickhouse`), so neither a
//! slow disk nor a slow ClickHouse ever reaches a call.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::cache::ledger::{Entry, Sink, SinkState};
use crate::error::Error;

use super::stats::Stats;

/// Rows waiting for the writer before new ones are spilled: about 10 MiB of rows.
pub const QUEUE_ROWS: usize = 16_384;

/// The most rows written in one batch (one write, one sync).
pub const MAX_BATCH: usize = 4096;

/// The writer's counters, shared with `/stats`.
#[derive(Default)]
pub struct Counters {
    /// Rows handed over (queued or spilled).
    pub handed: AtomicU64,
    /// Rows in the ledger (batched or spilled).
    pub written: AtomicU64,
    /// Rows written by their call because the queue was full.
    pub spilled: AtomicU64,
    /// Rows that could not be written.
    pub failed: AtomicU64,
    said: AtomicBool,
}

/// Where rows are handed over; cheap to clone.
#[derive(Clone)]
pub struct Rows {
    sender: SyncSender<Entry>,
    shared: Arc<Shared>,
}

struct Shared {
    sink: Arc<dyn Sink>,
    stats: Arc<Mutex<Stats>>,
    counters: Arc<Counters>,
}

impl Rows {
    /// The sink's state, with the rows still in the queue counted as pending.
    pub fn sink_state(&self) -> SinkState {
        let mut state = self.shared.sink.state();
        let counters = &self.shared.counters;
        let handed = counters.handed.load(Ordering::Relaxed);
        let done =
            counters.written.load(Ordering::Relaxed) + counters.failed.load(Ordering::Relaxed);
        state.rows_pending = state
            .rows_pending
            .saturating_add(handed.saturating_sub(done));
        state
    }

    /// Hands a finished row to the writer, or writes it now when the queue is full.
    pub fn write(&self, row: Entry) {
        self.shared.counters.handed.fetch_add(1, Ordering::Relaxed);
        let row = match self.sender.try_send(row) {
            Ok(()) => return,
            Err(TrySendError::Full(row) | TrySendError::Disconnected(row)) => row,
        };
        let shared = &self.shared;
        if let Ok(mut stats) = shared.stats.lock() {
            stats.record(&row);
        }
        shared.counters.spilled.fetch_add(1, Ordering::Relaxed);
        match shared.sink.spill(&row) {
            Ok(()) => {
                shared.counters.written.fetch_add(1, Ordering::Relaxed);
            }
            Err(err) => shared.failed(1, &err),
        }
    }

    pub fn counters(&self) -> &Counters {
        &self.shared.counters
    }
}

impl Shared {
    fn failed(&self, rows: u64, err: &Error) {
        self.counters.failed.fetch_add(rows, Ordering::Relaxed);
        if let Ok(mut stats) = self.stats.lock() {
            stats.ledger_errors(rows);
        }
        if !self.counters.said.swap(true, Ordering::Relaxed) {
            let hint = err.hint.as_deref().unwrap_or("");
            eprintln!(
                "brief proxy: warning: cannot write the ledger: {}; calls are still relayed \
                 and counted in /stats (said once). {hint}",
                err.message
            );
        }
    }
}

pub struct Writer {
    thread: JoinHandle<()>,
    counters: Arc<Counters>,
    sink: Arc<dyn Sink>,
}

/// Starts the writer thread over `sink`; it adds every row to `stats` as it writes it.
pub fn start(sink: Arc<dyn Sink>, stats: Arc<Mutex<Stats>>) -> (Rows, Writer) {
    start_with(sink, stats, QUEUE_ROWS)
}

fn start_with(sink: Arc<dyn Sink>, stats: Arc<Mutex<Stats>>, queue: usize) -> (Rows, Writer) {
    let (sender, receiver) = sync_channel(queue);
    let counters = Arc::new(Counters::default());
    let shared = Arc::new(Shared {
        sink: Arc::clone(&sink),
        stats,
        counters: Arc::clone(&counters),
    });
    let thread = {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("brief-proxy-ledger".into())
            .spawn(move || write_all(&receiver, &shared))
            .expect("a thread can be started")
    };
    (
        Rows { sender, shared },
        Writer {
            thread,
            counters,
            sink,
        },
    )
}

impl Writer {
    /// Waits until every queued row is written (all [`Rows`] handles must be dropped),
    /// gives the sink its bounded time to hand them on; returns how many rows reached the
    /// ledger (for ClickHouse: its spool) and the sink's final state.
    pub fn finish(self) -> (u64, SinkState) {
        let _ = self.thread.join();
        if let Some(left) = self.sink.flush() {
            eprintln!(
                "brief proxy: {} not yet in ClickHouse ({}) {} in the spool {}; the \
                 next brief process writing to {} sends them{}",
                crate::numbers::count(left.rows, "row", "rows"),
                left.target,
                crate::numbers::noun(left.rows, "stays", "stay"),
                left.spool_dir,
                left.target,
                left.last_error
                    .map(|e| format!(" (last error: {e})"))
                    .unwrap_or_default()
            );
        }
        (
            self.counters.written.load(Ordering::Relaxed),
            self.sink.state(),
        )
    }
}

fn write_all(receiver: &Receiver<Entry>, shared: &Shared) {
    super::book::lower_priority();
    let mut batch: Vec<Entry> = Vec::with_capacity(MAX_BATCH);
    while let Ok(first) = receiver.recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(row) => batch.push(row),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        if let Ok(mut stats) = shared.stats.lock() {
            for row in &batch {
                stats.record(row);
            }
        }
        match shared.sink.batch(&batch) {
            Ok(()) => {
                shared
                    .counters
                    .written
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
            }
            Err(err) => shared.failed(batch.len() as u64, &err),
        }
        batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Condvar;
    use std::time::Duration;

    use super::*;

    /// A sink whose batches wait until the test opens the gate: a stalled disk.
    #[derive(Default)]
    struct Gated {
        open: Mutex<bool>,
        opened: Condvar,
        batches: Mutex<Vec<usize>>,
        spilled: Mutex<Vec<String>>,
    }

    impl Sink for Gated {
        fn record(&self, row: &Entry) -> crate::error::Result<()> {
            self.batch(std::slice::from_ref(row))
        }

        fn batch(&self, rows: &[Entry]) -> crate::error::Result<()> {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
            self.batches.lock().unwrap().push(rows.len());
            Ok(())
        }

        fn spill(&self, row: &Entry) -> crate::error::Result<()> {
            self.spilled.lock().unwrap().push(row.model.clone());
            Ok(())
        }

        fn state(&self) -> SinkState {
            SinkState::default()
        }
    }

    fn row(i: usize) -> Entry {
        Entry::new("proxy", "openai", &format!("m{i}"))
    }

    #[test]
    fn a_ledger_writer_that_keeps_up_spills_rows_past_a_full_queue_and_loses_none() {
        let sink = Arc::new(Gated::default());
        let stats = Arc::new(Mutex::new(Stats::default()));
        let (rows, writer) = start_with(sink.clone(), Arc::clone(&stats), 8);
        // The first row is taken by the writer, which then waits at the gate; 8 more fill
        // the queue; the rest are spilled by the caller, at once.
        rows.write(row(0));
        std::thread::sleep(Duration::from_millis(50));
        for i in 1..30 {
            rows.write(row(i));
        }
        assert_eq!(sink.spilled.lock().unwrap().len(), 21);
        assert_eq!(rows.counters().spilled.load(Ordering::Relaxed), 21);
        *sink.open.lock().unwrap() = true;
        sink.opened.notify_all();
        drop(rows);
        assert_eq!(writer.finish().0, 30);
        let batches = sink.batches.lock().unwrap().clone();
        assert_eq!(batches.iter().sum::<usize>(), 9);
        assert_eq!(batches, [1, 8], "the queued rows went out as one batch");
        assert_eq!(stats.lock().unwrap().report().totals.calls, 30);
    }
}
