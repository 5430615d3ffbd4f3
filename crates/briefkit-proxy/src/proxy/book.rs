//! Between a call and its ledger row: what the row needs from the request is worked out
//! beside the call, never in front of its answer and never on the ledger thread.
//!
//! When a request arrives it is admitted ([`Book::admit`]): it gets its place in arrival
//! order and its body goes to a small pool of digest threads, which parse it once and
//! reduce it to a [`RequestDigest`] (the model, the prefix hash, a hash per part and a
//! hash chain over the conversation) while the upstream answers. The digests are then
//! taken in arrival order — a session's calls are compared in the order they came, however
//! their digests or answers finish — and each is compared with its session's previous call
//! in constant time. The row is made when both halves are in: the call's ending (status,
//! usage, latency, from `relay`) and its request's meta. Whichever comes second makes the
//! row and hands it to the writer; nobody waits for the other.
//!
//! Memory is bounded by a budget of request bytes in the digest stage ([`BUDGET_BYTES`]):
//! a request waits for room before it goes upstream. That wait only happens when the digest
//! threads are that far behind, and it is what keeps a burst from queueing its bodies
//! without bound; the digest threads run at a lower CPU priority than the relaying ones, so
//! on a busy machine bookkeeping yields to answers until the budget says it may not.

use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use bytes::Bytes;
use http::HeaderMap;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::cache::ledger::Entry;
use crate::provider::redact::Redactor;

use super::dashboard::Recent;
use super::detail;
use super::digest::{HeadCache, RequestDigest, digest_with};
use super::session::{self, Analysis, Redactors, Sessions, Who};
use super::writer::Rows;

/// Request bytes admitted to the digest stage and not yet digested and compared.
pub const BUDGET_BYTES: usize = 64 << 20;

/// The budget's unit: a request takes one permit per KiB (at least one).
const PERMIT_BYTES: usize = 1024;

/// Requests queued for digest before admitting one more wakes a digest thread even though
/// no answer has been written since: under load the threads are kept busy in batches.
const WAKE_AT_JOBS: usize = 32;

/// The longest `model` kept in a row and a metric label; a longer one is cut (`…`).
pub const MAX_MODEL_CHARS: usize = 256;

/// What a call's row needs from its request.
pub struct Meta {
    /// The request's place in arrival order (0 for the proxy's first).
    pub seq: u64,
    pub model: String,
    pub session: String,
    pub analysis: Analysis,
    /// Cleans the call's text (its error messages) of its own key and the environment's.
    pub redactor: Arc<Redactor>,
}

/// A row's figures, made into the row once its request's [`Meta`] is known.
pub type MakeRow = Box<dyn FnOnce(&Meta) -> Entry + Send>;

/// One call's meeting point: its meta from the digest side, its row maker from the relay
/// side; the second to arrive makes the row.
#[derive(Default)]
pub struct Pending {
    slot: Mutex<Slot>,
}

#[derive(Default)]
struct Slot {
    meta: Option<Meta>,
    make: Option<MakeRow>,
}

impl Pending {
    /// The call's ending is known: make the row now if the meta is in, else leave it.
    pub fn ended(&self, make: MakeRow, outlet: &Outlet) {
        let (row, meta) = {
            let Ok(mut slot) = self.slot.lock() else {
                return;
            };
            match slot.meta.take() {
                Some(meta) => (make(&meta), meta),
                None => {
                    slot.make = Some(make);
                    return;
                }
            }
        };
        outlet.deliver(row, &meta);
    }

    fn resolved(&self, meta: Meta, outlet: &Outlet) {
        let row = {
            let Ok(mut slot) = self.slot.lock() else {
                return;
            };
            match slot.make.take() {
                Some(make) => make(&meta),
                None => {
                    slot.meta = Some(meta);
                    return;
                }
            }
        };
        outlet.deliver(row, &meta);
    }
}

/// Where a finished row goes: the dashboard's recent calls, then the ledger writer.
pub struct Outlet {
    rows: Rows,
    recent: Arc<Mutex<Recent>>,
}

impl Outlet {
    fn deliver(&self, row: Entry, meta: &Meta) {
        if let Ok(mut recent) = self.recent.lock() {
            recent.record(meta.seq, &row, meta.analysis.drift.as_ref());
        }
        self.rows.write(row);
    }
}

struct Job {
    seq: u64,
    pending: Arc<Pending>,
    body: Bytes,
    who: Who,
    /// The model the path names (Gemini's), for a body that does not.
    path_model: Option<String>,
    permit: OwnedSemaphorePermit,
}

/// A digested request waiting for its turn in arrival order.
struct Digested {
    pending: Arc<Pending>,
    digest: RequestDigest,
    /// The model as sent, for the drift key.
    sent_model: String,
    model: String,
    /// Where its session comes from; placed in arrival order.
    named: session::Named,
    redactor: Arc<Redactor>,
    _permit: OwnedSemaphorePermit,
}

/// The digests in arrival order, and the sessions they are compared against.
#[derive(Default)]
struct Order {
    next: u64,
    waiting: BTreeMap<u64, Digested>,
    sessions: Sessions,
}

struct Shared {
    order: Mutex<Order>,
    heads: Mutex<HeadCache>,
    redactors: Mutex<Redactors>,
    outlet: Outlet,
    /// Requests admitted and not yet compared.
    in_stage: AtomicU64,
}

/// Requests waiting for a digest thread. Admitting a request does not wake one (that
/// would put a thread's wake-up in front of the call): a thread is woken after an answer
/// has been written ([`Book::kick`]), or when the queue or the budget fills.
#[derive(Default)]
struct Jobs {
    queue: Mutex<JobQueue>,
    ready: Condvar,
    /// Jobs in `queue`, read without its lock.
    queued: AtomicU64,
}

#[derive(Default)]
struct JobQueue {
    jobs: VecDeque<Job>,
    /// No more jobs come: the threads empty the queue and stop.
    closed: bool,
}

impl Jobs {
    fn push(&self, job: Job, wake: bool) {
        let len = match self.queue.lock() {
            Ok(mut queue) => {
                queue.jobs.push_back(job);
                queue.jobs.len()
            }
            Err(_) => return,
        };
        self.queued.fetch_add(1, Ordering::Release);
        if wake || len >= WAKE_AT_JOBS {
            self.ready.notify_one();
        }
    }

    fn wake(&self) {
        if self.queued.load(Ordering::Acquire) > 0 {
            self.ready.notify_one();
        }
    }

    /// The next job; `None` once the queue is closed and empty.
    fn next(&self) -> Option<Job> {
        let mut queue = self.queue.lock().ok()?;
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                self.queued.fetch_sub(1, Ordering::Release);
                return Some(job);
            }
            if queue.closed {
                return None;
            }
            queue = self.ready.wait(queue).ok()?;
        }
    }

    fn close(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.closed = true;
        }
        self.ready.notify_all();
    }
}

/// The admission side, held by the server.
pub struct Book {
    jobs: Arc<Jobs>,
    budget: Arc<Semaphore>,
    next_seq: AtomicU64,
    shared: Arc<Shared>,
}

/// The digest threads; [`Digesters::finish`] waits for them once every [`Book`] is gone.
pub struct Digesters {
    threads: Vec<JoinHandle<()>>,
}

impl Digesters {
    pub fn finish(self) {
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

/// Starts the digest threads (one per core, at most four) in front of `rows`; every row
/// is shown in `recent` as it is handed over.
pub fn start(rows: Rows, recent: Arc<Mutex<Recent>>) -> (Book, Digesters) {
    let threads = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .clamp(1, 4);
    let jobs = Arc::new(Jobs::default());
    let shared = Arc::new(Shared {
        order: Mutex::new(Order::default()),
        heads: Mutex::new(HeadCache::default()),
        redactors: Mutex::new(Redactors::default()),
        outlet: Outlet { rows, recent },
        in_stage: AtomicU64::new(0),
    });
    let threads = (0..threads)
        .map(|i| {
            let (jobs, shared) = (Arc::clone(&jobs), Arc::clone(&shared));
            std::thread::Builder::new()
                .name(format!("brief-proxy-digest-{i}"))
                .spawn(move || digest_all(&jobs, &shared))
                .expect("a thread can be started")
        })
        .collect();
    let book = Book {
        jobs,
        budget: Arc::new(Semaphore::new(BUDGET_BYTES / PERMIT_BYTES)),
        next_seq: AtomicU64::new(0),
        shared,
    };
    (book, Digesters { threads })
}

impl Book {
    /// Admits a request that just arrived: waits for room in the budget (only when the
    /// digest threads are [`BUDGET_BYTES`] behind), then queues its digest. The returned
    /// meeting point takes the call's row when its answer ends.
    pub async fn admit(
        &self,
        body: Bytes,
        headers: &HeaderMap,
        query: Option<&str>,
        path_model: Option<String>,
    ) -> Arc<Pending> {
        let units = (body.len() / PERMIT_BYTES + 1).min(BUDGET_BYTES / PERMIT_BYTES) as u32;
        let permit = Arc::clone(&self.budget)
            .acquire_many_owned(units)
            .await
            .expect("the budget is never closed");
        let pending = Arc::new(Pending::default());
        let job = Job {
            seq: self.next_seq.fetch_add(1, Ordering::SeqCst),
            pending: Arc::clone(&pending),
            body,
            who: Who::of(headers, query),
            path_model,
            permit,
        };
        self.shared.in_stage.fetch_add(1, Ordering::Relaxed);
        // Half the budget taken: the threads are behind, wake one now.
        let behind = self.budget.available_permits() < BUDGET_BYTES / PERMIT_BYTES / 2;
        self.jobs.push(job, behind);
        pending
    }

    /// Wakes a digest thread if requests are waiting: called once a call's answer has been
    /// written, so the thread runs beside the next call, not in front of this one.
    pub fn kick(&self) {
        self.jobs.wake();
    }

    pub fn rows(&self) -> &Rows {
        &self.shared.outlet.rows
    }

    pub fn outlet(&self) -> &Outlet {
        &self.shared.outlet
    }

    /// How much text the sessions keep for drift offsets.
    pub fn kept(&self) -> detail::KeptUsage {
        self.shared
            .order
            .lock()
            .map(|o| o.sessions.kept())
            .unwrap_or_default()
    }

    /// Requests admitted whose digest and drift check are not done yet.
    pub fn in_stage(&self) -> u64 {
        self.shared.in_stage.load(Ordering::Relaxed)
    }
}

impl Drop for Book {
    fn drop(&mut self) {
        self.jobs.close();
    }
}

fn digest_all(jobs: &Jobs, shared: &Shared) {
    lower_priority();
    while let Some(job) = jobs.next() {
        let Job {
            seq,
            pending,
            body,
            who,
            path_model,
            permit,
        } = job;
        let digested = shared.digest(&body, &who, path_model, pending, permit);
        drop(body);
        shared.arrived(seq, digested);
    }
}

impl Shared {
    /// The order-free part, on any digest thread: the parse, the hashes, the names.
    fn digest(
        &self,
        body: &[u8],
        who: &Who,
        path_model: Option<String>,
        pending: Arc<Pending>,
        permit: OwnedSemaphorePermit,
    ) -> Digested {
        // A body that trips a bug in the digest is recorded without one, not lost.
        let digest =
            std::panic::catch_unwind(AssertUnwindSafe(|| digest_with(body, Some(&self.heads))))
                .unwrap_or_default();
        let redactor = self
            .redactors
            .lock()
            .map(|mut r| r.for_call(who))
            .unwrap_or_else(|_| Arc::new(Redactor::with_keys([])));
        let sent_model = digest
            .model
            .clone()
            .or(path_model)
            .unwrap_or_else(|| "unknown".into());
        let named = session::key(who, digest.client_session.as_deref(), &redactor);
        let model = cut(&redactor.redact(&sent_model), MAX_MODEL_CHARS);
        Digested {
            pending,
            digest,
            sent_model,
            model,
            named,
            redactor,
            _permit: permit,
        }
    }

    /// Takes digests in arrival order: compares every one whose turn has come.
    fn arrived(&self, seq: u64, digested: Digested) {
        let mut ready = Vec::new();
        if let Ok(mut order) = self.order.lock() {
            order.waiting.insert(seq, digested);
            loop {
                let next = order.next;
                let Some(d) = order.waiting.remove(&next) else {
                    break;
                };
                order.next += 1;
                let session =
                    order
                        .sessions
                        .place(&d.named, d.digest.prefix.as_ref(), &d.sent_model);
                // A conversation's calls to one model are compared with each other: a
                // side call to another model in the same session is not drift.
                let (analysis, previous) = match &d.digest.prefix {
                    Some(prefix) => {
                        let conversation = format!("{session}\0{}", d.sent_model);
                        order.sessions.observe(&conversation, prefix)
                    }
                    None => (Analysis::default(), None),
                };
                ready.push((next, d, session, analysis, previous));
            }
        }
        for (seq, d, session, mut analysis, previous) in ready {
            // Where the drift is, outside the lock: it reads and redacts the texts.
            analysis.drift = previous.map(|p| detail::describe(&p, &d.redactor));
            self.in_stage.fetch_sub(1, Ordering::Relaxed);
            let meta = Meta {
                seq,
                model: d.model,
                session,
                analysis,
                redactor: d.redactor,
            };
            d.pending.resolved(meta, &self.outlet);
        }
    }
}

/// `text` cut to `max` characters, `…` marking the cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

/// Asks the scheduler to run this thread after the relaying ones when the CPU is contended.
pub fn lower_priority() {
    crate::sys::lower_this_thread_priority();
}
