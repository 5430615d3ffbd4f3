//! The proxy's one ledger thread: it works out what each call's row needs from its
//! request (the session and the drift check) and appends the rows.
//!
//! Nothing of this is on the path of an answer: a request task hands its request over when
//! it arrives and its row's figures when the answer has ended, each a channel send, and the
//! client has its last byte without waiting for a parse, a drift check or a disk. Requests
//! are only queued on arrival and worked out when a row needs them — after its answer, not
//! while the upstream is answering — but always in arrival order, so each is compared with
//! its session's previous one. The thread runs at a lower CPU priority than the relaying
//! ones: on a busy machine bookkeeping waits, answers do not. One thread means rows never
//! interleave however many calls finish at once. A row that cannot
//! be written is counted and the first failure is said once on stderr; the call it
//! describes has already been served. Dropping every [`Rows`] handle lets the thread drain
//! what is queued and stop; [`Writer::finish`] waits for that.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::cache::ledger::{self, Entry};

use super::session::{Meta, Pending, Sessions};
use super::stats::Stats;

/// A row's figures, made into the row once its request's [`Meta`] is known.
type MakeRow = Box<dyn FnOnce(&Meta) -> Entry + Send>;

enum Work {
    /// A request arrived: compare it with its session's previous one.
    Observe(Arc<Pending>),
    /// Its answer ended: write its row.
    Row(Arc<Pending>, MakeRow),
}

/// Where requests and rows are handed over; cheap to clone.
#[derive(Clone)]
pub struct Rows {
    sender: Sender<Work>,
}

impl Rows {
    /// Queues a request that just arrived for the session and drift check.
    pub fn observe(&self, pending: Arc<Pending>) {
        // The thread only stops once every sender is gone, so this cannot fail while we
        // hold one.
        let _ = self.sender.send(Work::Observe(pending));
    }

    /// Queues the row of a call whose answer has ended.
    pub fn push(&self, pending: Arc<Pending>, make: impl FnOnce(&Meta) -> Entry + Send + 'static) {
        let _ = self.sender.send(Work::Row(pending, Box::new(make)));
    }
}

pub struct Writer {
    thread: JoinHandle<u64>,
}

/// Starts the ledger thread for `path`; it adds every row to `stats` as it writes it.
pub fn start(path: PathBuf, stats: Arc<Mutex<Stats>>) -> (Rows, Writer) {
    let (sender, receiver) = channel();
    let thread = std::thread::Builder::new()
        .name("brief-proxy-ledger".into())
        .spawn(move || write_all(&path, &receiver, &stats))
        .expect("a thread can be started");
    (Rows { sender }, Writer { thread })
}

impl Writer {
    /// Waits until every queued row is written (all [`Rows`] handles must be dropped);
    /// returns how many rows were written.
    pub fn finish(self) -> u64 {
        self.thread.join().unwrap_or(0)
    }
}

fn write_all(path: &Path, receiver: &Receiver<Work>, stats: &Mutex<Stats>) -> u64 {
    lower_priority();
    let mut sessions = Sessions::default();
    // Requests that arrived, in order, not yet worked out.
    let mut arrived: VecDeque<Arc<Pending>> = VecDeque::new();
    let mut written = 0;
    let mut said = false;
    for work in receiver {
        let entry = match work {
            Work::Observe(pending) => {
                arrived.push_back(pending);
                continue;
            }
            Work::Row(pending, make) => {
                // Every request before this one is compared first, so a session's calls
                // are compared in the order they came, however their answers finished.
                while !pending.is_resolved() {
                    match arrived.pop_front() {
                        Some(earlier) => {
                            earlier.resolve(&mut sessions);
                        }
                        None => break,
                    }
                }
                make(pending.resolve(&mut sessions))
            }
        };
        if let Ok(mut stats) = stats.lock() {
            stats.record(&entry);
        }
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

/// Asks the scheduler to run this thread after the relaying ones when the CPU is contended.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread's own id; no memory is shared.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let _ = libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}
