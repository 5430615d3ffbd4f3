//! The proxy's one ledger writer: a thread that appends the rows the request tasks hand it.
//!
//! One writer means rows never interleave however many calls finish at once, and a slow or
//! failing disk never stalls a request: handing over a row is a channel send. A row that
//! cannot be written is counted and the first failure is said once on stderr; the call it
//! describes has already been served. Dropping every [`Rows`] handle lets the thread drain
//! what is queued and stop; [`Writer::finish`] waits for that.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::cache::ledger::{self, Entry};

use super::stats::Stats;

/// Where rows are handed over; cheap to clone.
#[derive(Clone)]
pub struct Rows {
    sender: Sender<Entry>,
    stats: Arc<Mutex<Stats>>,
}

impl Rows {
    /// Counts the call in the running figures and queues its row.
    pub fn push(&self, entry: Entry) {
        if let Ok(mut stats) = self.stats.lock() {
            stats.record(&entry);
        }
        // The writer only stops once every sender is gone, so this cannot fail while we
        // hold one.
        let _ = self.sender.send(entry);
    }
}

pub struct Writer {
    thread: JoinHandle<u64>,
}

/// Starts the writer thread for `path`.
pub fn start(path: PathBuf, stats: Arc<Mutex<Stats>>) -> (Rows, Writer) {
    let (sender, receiver) = channel();
    let thread_stats = Arc::clone(&stats);
    let thread = std::thread::Builder::new()
        .name("brief-proxy-ledger".into())
        .spawn(move || write_all(&path, &receiver, &thread_stats))
        .expect("a thread can be started");
    (Rows { sender, stats }, Writer { thread })
}

impl Writer {
    /// Waits until every queued row is written (all [`Rows`] handles must be dropped);
    /// returns how many rows were written.
    pub fn finish(self) -> u64 {
        self.thread.join().unwrap_or(0)
    }
}

fn write_all(path: &Path, receiver: &Receiver<Entry>, stats: &Mutex<Stats>) -> u64 {
    let mut written = 0;
    let mut said = false;
    for entry in receiver {
        match ledger::append(path, &entry) {
            Ok(()) => written += 1,
            Err(err) => {
                if let Ok(mut stats) = stats.lock() {
                    stats.ledger_error();
                }
                if !said {
                    said = true;
                    let hint = err.hint.as_deref().unwrap_or("");
                    eprintln!(
                        "brief proxy: warning: cannot write the ledger: {}; calls are still \
                         relayed and counted in /stats (said once). {hint}",
                        err.message
                    );
                }
            }
        }
    }
    written
}
