//! The background writer of one process for one ClickHouse table: rows are made durable in
//! the spool by whoever records them (a proxy's ledger thread, a command's call) and sent
//! from here, in batches, off every answer's path.
//!
//! The thread sends a batch when [`Options::batch_rows`] rows are waiting or the oldest has
//! waited [`Options::batch_interval`]; files adopted from dead processes first (they hold
//! older rows), then this process's own. A batch is recorded in its file's `.ack` before it
//! is sent, and runs under a query id made of its `batch_id`; a batch sent before (its
//! answer lost, the process killed) is looked for only once no insert of it is running in
//! ClickHouse any more (one still running would land after the look), and only sent again
//! when it is not there. When ClickHouse fails the
//! thread backs off (0.25 s doubling to 5 s) and the rows wait in the spool; every failure
//! is kept, credentials removed, for `/stats` and for the command's closing warning.
//!
//! When the spool's disk refuses rows (full, failing), they are held in memory
//! ([`super::held`], up to its cap) and sent from there; once such a refusal happened, this
//! process's file is removed as soon as it is drained, whatever its size, so the space
//! ClickHouse's acknowledgements free is given back at once.
//!
//! [`Options::batch_rows`]: super::target::Options::batch_rows
//! [`Options::batch_interval`]: super::target::Options::batch_interval

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::held::Held;
use super::http::{Client, Failure, FailureKind, ServerInfo};
use super::schema;
use super::spool::{Cursor, Owned, Spool};
use super::target::Target;
use crate::cache::ledger::{Appender, Entry, SinkState};
use crate::clock;
use crate::error::Result;

const MIN_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How often spool files left by dead processes are looked for (and the spool measured).
const ADOPT_EVERY: Duration = Duration::from_secs(10);

/// The writer of one table in this process.
pub struct Shipper {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    target: Target,
    spool: Spool,
    state: Mutex<State>,
    /// Wakes the thread (rows arrived, a flush is asked for) and the callers waiting on it.
    signal: Condvar,
}

#[derive(Default)]
struct State {
    own: Option<Owned>,
    /// Rows appended since the thread last took stock, and when the first of them came.
    unsent_rows: usize,
    unsent_since: Option<Instant>,
    /// Asked to send what is waiting now, backoff or not (a command ending).
    flush: bool,
    /// Asked to remove this process's spool file once it is drained (the process ends).
    closing: bool,
    stop: bool,
    /// Attempts that failed since the last flush request.
    failures_since_flush: u64,
    /// This process's own rows not yet acknowledged (spooled minus sent).
    own_pending: u64,
    /// Bytes of unacknowledged rows in the whole spool (all processes), an estimate kept
    /// up to date between measurements.
    spool_bytes: u64,
    overflow_warned: bool,
    /// Rows the spool's disk refused, kept in memory until ClickHouse takes them.
    held: Held,
    /// The spool's disk refused a write: drained files are removed at once.
    disk_refused: bool,
    /// The thread has looked for files dead processes left (at least once).
    adopted_once: bool,
    figures: Figures,
}

impl State {
    /// Rows this process holds that ClickHouse has not taken: its own and adopted ones.
    fn pending(&self) -> u64 {
        let f = &self.figures;
        (f.rows_spooled + f.rows_adopted + f.rows_held).saturating_sub(f.rows_sent + f.rows_skipped)
    }
}

impl Default for Held {
    fn default() -> Held {
        Held::new()
    }
}

#[derive(Default, Clone)]
struct Figures {
    rows_spooled: u64,
    rows_adopted: u64,
    rows_sent: u64,
    rows_skipped: u64,
    /// Rows held in memory because the spool's disk refused them (ever).
    rows_held: u64,
    overflow_rows: u64,
    errors: u64,
    last_success_ms: Option<i64>,
    last_error: Option<String>,
    last_error_ms: Option<i64>,
    server: Option<String>,
}

/// What the closing wait of a process left behind.
#[derive(Debug, Clone)]
pub struct Left {
    pub target: String,
    /// This process's rows still in the spool (sent later by whoever writes next).
    pub rows: u64,
    pub spool_dir: String,
    pub last_error: Option<String>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits on `shared.signal` until `done`, an attempt fails since the flush was asked
/// for, or `deadline` passes; gives the lock back.
fn wait_flushed<'a>(
    shared: &'a Shared,
    mut state: MutexGuard<'a, State>,
    deadline: Instant,
    done: impl Fn(&State) -> bool,
) -> MutexGuard<'a, State> {
    loop {
        let now = Instant::now();
        if done(&state) || state.failures_since_flush > 0 || now >= deadline {
            return state;
        }
        state = shared
            .signal
            .wait_timeout(state, deadline - now)
            .map(|(s, _)| s)
            .unwrap_or_else(|p| p.into_inner().0);
    }
}

impl Shipper {
    /// Opens the spool of `target` under `state_dir` and starts the thread.
    pub fn start(target: &Target, state_dir: &std::path::Path) -> Result<Arc<Shipper>> {
        let spool = Spool::open(state_dir, target)?;
        let pending = spool.pending_bytes();
        let shared = Arc::new(Shared {
            target: target.clone(),
            spool,
            state: Mutex::new(State {
                spool_bytes: pending,
                ..State::default()
            }),
            signal: Condvar::new(),
        });
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("brief-clickhouse".into())
                .spawn(move || Worker::new(shared).run())
                .map_err(|e| crate::error::Error::internal(format!("cannot start a thread: {e}")))?
        };
        Ok(Arc::new(Shipper {
            shared,
            thread: Mutex::new(Some(thread)),
        }))
    }

    pub fn target(&self) -> &Target {
        &self.shared.target
    }

    /// Makes `rows` durable in the spool (with `sync`, one `fdatasync`) and wakes the
    /// thread when a batch is full. Past the spool's size limit the rows go to the
    /// overflow file instead, with a warning on stderr the first time.
    pub fn append(&self, rows: &[Entry], sync: bool) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::with_capacity(rows.len() * 512);
        for row in rows {
            serde_json::to_writer(&mut lines, row).map_err(|e| {
                crate::error::Error::internal(format!("cannot encode a ledger row: {e}"))
            })?;
            lines.push(b'\n');
        }
        let shared = &self.shared;
        let mut state = lock(&shared.state);
        let limit = shared.target.options.spool_limit;
        let written = if state.spool_bytes.saturating_add(lines.len() as u64) > limit {
            self.overflow(&mut state, rows, limit)
        } else {
            Self::spool(&shared.spool, &mut state, &lines, rows.len(), sync)
        };
        if let Err(err) = written {
            // The disk refused them: held in memory and sent from there, or (past the cap)
            // refused to the caller, who counts them; never taken and then lost.
            if !state.held.hold(rows, lines.len() as u64) {
                return Err(err.with_hint(format!(
                    "the spool's disk refused the rows and {} MiB of rows are already held in memory; they were not recorded",
                    super::held::HOLD_BYTES >> 20
                )));
            }
            state.figures.rows_held += rows.len() as u64;
            if !state.disk_refused {
                state.disk_refused = true;
                eprintln!(
                    "brief: WARNING: the ClickHouse spool in {} refused rows ({}): they are held in memory (at most {} MiB) and sent from there; free space there.",
                    shared.spool.dir().display(),
                    err.message,
                    super::held::HOLD_BYTES >> 20
                );
            }
        }
        state.unsent_rows += rows.len();
        // The first row of a batch sets the thread's deadline; a full batch goes at once.
        let first = state.unsent_since.is_none();
        state.unsent_since.get_or_insert_with(Instant::now);
        if first || state.unsent_rows >= shared.target.options.batch_rows {
            shared.signal.notify_all();
        }
        Ok(())
    }

    /// Appends `lines` to this process's spool file (a new one when there is none).
    fn spool(
        spool: &super::spool::Spool,
        state: &mut State,
        lines: &[u8],
        rows: usize,
        sync: bool,
    ) -> Result<()> {
        if state.own.as_ref().is_none_or(|own| own.broken) {
            state.own = Some(spool.create()?);
        }
        let own = state.own.as_mut().expect("just made");
        own.append(lines, sync)?;
        state.spool_bytes += lines.len() as u64;
        state.own_pending += rows as u64;
        state.figures.rows_spooled += rows as u64;
        Ok(())
    }

    fn overflow(&self, state: &mut State, rows: &[Entry], limit: u64) -> Result<()> {
        let path = self.shared.spool.overflow_path();
        Appender::new(path.clone()).append(rows, true)?;
        state.figures.overflow_rows += rows.len() as u64;
        if !state.overflow_warned {
            state.overflow_warned = true;
            eprintln!(
                "brief: WARNING: the ClickHouse spool for {} is full ({} MiB, the limit; set \
                 ?spool_limit= in the URL to change it): ClickHouse has not taken rows for a \
                 while{}. New rows now go to {} and are NOT sent by themselves: once ClickHouse \
                 takes rows again, run `brief ledger push {} {}`.",
                self.shared.target.display(),
                limit >> 20,
                state
                    .figures
                    .last_error
                    .as_ref()
                    .map(|e| format!(" (last error: {e})"))
                    .unwrap_or_default(),
                path.display(),
                path.display(),
                self.shared.target.display(),
            );
        }
        Ok(())
    }

    /// The sink's figures for `/stats`.
    pub fn state(&self) -> SinkState {
        let state = lock(&self.shared.state);
        let f = &state.figures;
        let pending = state.pending();
        SinkState {
            rows_held: state.held.len(),
            kind: "clickhouse",
            target: self.shared.target.display(),
            rows_pending: pending,
            rows_stored: f.rows_sent,
            rows_skipped: f.rows_skipped,
            spool_dir: Some(self.shared.spool.dir().display().to_string()),
            spool_bytes: Some(state.spool_bytes),
            spool_limit_bytes: Some(self.shared.target.options.spool_limit),
            overflow_rows: f.overflow_rows,
            overflow_file: (f.overflow_rows > 0)
                .then(|| self.shared.spool.overflow_path().display().to_string()),
            errors: f.errors,
            last_success: f.last_success_ms.map(clock::format_rfc3339),
            last_error: f.last_error.clone(),
            last_error_time: f.last_error_ms.map(clock::format_rfc3339),
            server_version: f.server.clone(),
        }
    }

    /// Sends what the spool holds now — every file dead processes left — and waits until
    /// it is all taken, an attempt fails, or `wait` passes (`brief ledger flush`).
    pub fn drain(&self, wait: Duration) -> SinkState {
        let deadline = Instant::now() + wait;
        let shared = &self.shared;
        let mut state = lock(&shared.state);
        state.flush = true;
        state.failures_since_flush = 0;
        shared.signal.notify_all();
        let state = wait_flushed(shared, state, deadline, |state| {
            state.adopted_once && state.pending() == 0
        });
        drop(state);
        self.state()
    }

    /// Asks for everything waiting to be sent now and waits until this process's rows
    /// are taken, an attempt fails, or `wait` passes; then lets the thread go. Returns what
    /// is left in the spool (nothing lost: the next process writing to this table sends it).
    pub fn settle(&self, wait: Duration) -> Option<Left> {
        let deadline = Instant::now() + wait;
        let shared = &self.shared;
        let mut state = lock(&shared.state);
        state.flush = true;
        state.closing = true;
        state.failures_since_flush = 0;
        shared.signal.notify_all();
        let mut state = wait_flushed(shared, state, deadline, |state| {
            state.own.is_none() && state.own_pending == 0 && state.held.is_empty()
        });
        state.stop = true;
        shared.signal.notify_all();
        self.spool_held(&mut state);
        let left = (state.own_pending > 0).then(|| Left {
            target: shared.target.display(),
            rows: state.own_pending,
            spool_dir: shared.spool.dir().display().to_string(),
            last_error: state.figures.last_error.clone(),
        });
        drop(state);
        if left.is_none()
            && let Some(thread) = self.thread.lock().ok().and_then(|mut t| t.take())
        {
            let _ = thread.join();
        }
        left
    }
}

impl Shipper {
    /// At the end: rows still held in memory go to the spool if the disk takes them now
    /// (the next process sends them); else they are lost with the process, said loudly.
    fn spool_held(&self, state: &mut State) {
        if state.held.is_empty() {
            return;
        }
        let rows: Vec<Entry> = state
            .held
            .batch(usize::MAX)
            .into_iter()
            .map(|(_, row)| row)
            .collect();
        let mut lines = Vec::new();
        for row in &rows {
            if serde_json::to_writer(&mut lines, row).is_ok() {
                lines.push(b'\n');
            }
        }
        state.own = None;
        match Self::spool(&self.shared.spool, state, &lines, rows.len(), true) {
            Ok(()) => state.held.taken(rows.len()),
            Err(err) => eprintln!(
                "brief: WARNING: {} held in memory for {} could not be written to the spool ({}) nor sent: they are lost with this process",
                crate::numbers::count(rows.len() as u64, "row", "rows"),
                self.shared.target.display(),
                err.message
            ),
        }
    }
}

/// The thread's own side: the cursors of the files it drains and its connection.
struct Worker {
    shared: Arc<Shared>,
    client: Option<Client>,
    info: Option<ServerInfo>,
    /// Files adopted from processes that are gone (and this process's own, replaced after
    /// a failed write: `true`), oldest first.
    adopted: Vec<(Cursor, bool)>,
    /// This process's own file.
    own: Option<Cursor>,
    backoff: Duration,
    retry_at: Option<Instant>,
    next_adopt: Instant,
    /// The batch of held rows last sent without an answer: looked for before it is sent
    /// again.
    held_tried: Option<String>,
}

impl Worker {
    fn new(shared: Arc<Shared>) -> Worker {
        Worker {
            shared,
            client: None,
            info: None,
            adopted: Vec::new(),
            own: None,
            backoff: Duration::ZERO,
            retry_at: None,
            next_adopt: Instant::now(),
            held_tried: None,
        }
    }

    fn run(mut self) {
        while self.wait() {
            if Instant::now() >= self.next_adopt {
                self.adopt();
            }
            let round = self.send_all();
            let shared = Arc::clone(&self.shared);
            let mut state = lock(&shared.state);
            state.flush = false;
            match round {
                Ok(()) => {
                    self.backoff = Duration::ZERO;
                    self.retry_at = None;
                    self.close_own_if_drained(&mut state);
                }
                Err(failure) => {
                    self.backoff = (self.backoff * 2).clamp(MIN_BACKOFF, MAX_BACKOFF);
                    self.retry_at = Some(Instant::now() + self.backoff);
                    if failure.kind == FailureKind::Unreachable {
                        // A new connection next time (the server may have restarted).
                        self.client = None;
                    }
                    state.figures.errors += 1;
                    state.figures.last_error = Some(match &failure.hint {
                        Some(hint) => format!("{} ({hint})", failure.message),
                        None => failure.message.clone(),
                    });
                    state.figures.last_error_ms = Some(clock::now_ms());
                    state.failures_since_flush += 1;
                }
            }
            shared.signal.notify_all();
        }
    }

    /// Sleeps until there is something to send and no backoff holds it; `false` to stop.
    fn wait(&mut self) -> bool {
        let shared = Arc::clone(&self.shared);
        let options = &shared.target.options;
        let mut state = lock(&shared.state);
        loop {
            if state.stop {
                return false;
            }
            let now = Instant::now();
            let backing_off = !state.flush && self.retry_at.is_some_and(|t| now < t);
            let due_at = state
                .unsent_since
                .map(|since| since + options.batch_interval);
            let due = state.flush
                || state.unsent_rows >= options.batch_rows
                || due_at.is_some_and(|t| now >= t)
                || !self.adopted.is_empty()
                || (self.retry_at.is_some() && (self.own_behind(&state) || !state.held.is_empty()))
                || now >= self.next_adopt;
            if due && !backing_off {
                state.unsent_rows = 0;
                state.unsent_since = None;
                return true;
            }
            let until = match self.retry_at.filter(|_| backing_off) {
                Some(retry) => retry,
                None => due_at.map_or(self.next_adopt, |t| t.min(self.next_adopt)),
            };
            let nap = until
                .saturating_duration_since(now)
                .max(Duration::from_millis(1));
            state = shared
                .signal
                .wait_timeout(state, nap)
                .map(|(s, _)| s)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// This process's file has rows the cursor has not acknowledged.
    fn own_behind(&self, state: &State) -> bool {
        match (&state.own, &self.own) {
            (Some(own), Some(cursor)) => cursor.name != own.name || cursor.acked < own.len,
            (Some(own), None) => own.len > 0,
            (None, _) => false,
        }
    }

    fn adopt(&mut self) {
        let shared = Arc::clone(&self.shared);
        let mut skip: HashSet<String> = self.adopted.iter().map(|(c, _)| c.name.clone()).collect();
        if let Some(own) = &lock(&shared.state).own {
            skip.insert(own.name.clone());
        }
        if let Some(cursor) = &self.own {
            skip.insert(cursor.name.clone());
        }
        let found = shared.spool.adopt(&skip);
        let rows: u64 = found.iter().map(|c| c.count_rows(c.len)).sum();
        self.adopted.extend(found.into_iter().map(|c| (c, false)));
        let bytes = shared.spool.pending_bytes();
        let mut state = lock(&shared.state);
        state.figures.rows_adopted += rows;
        state.adopted_once = true;
        state.spool_bytes = bytes;
        if bytes < shared.target.options.spool_limit / 2 {
            state.overflow_warned = false;
        }
        self.next_adopt = Instant::now() + ADOPT_EVERY;
    }

    fn connect(&mut self) -> Result<(), Failure> {
        if self.client.is_none() {
            self.client = Some(Client::new(&self.shared.target)?);
            self.info = None;
        }
        if self.info.is_none() {
            let info = self.client.as_ref().expect("connected").server_info()?;
            lock(&self.shared.state).figures.server = Some(info.version.clone());
            self.info = Some(info);
        }
        Ok(())
    }

    /// Sends the adopted files, then this process's own (its own first when the process
    /// is ending, so that its rows go before its wait runs out).
    fn send_all(&mut self) -> Result<(), Failure> {
        if lock(&self.shared.state).closing {
            self.send_own()?;
        }
        while !self.adopted.is_empty() {
            let (mut cursor, own) = self.adopted.remove(0);
            let len = cursor.len;
            if let Err(failure) = self.send_file(&mut cursor, len, true, own) {
                self.adopted.insert(0, (cursor, own));
                return Err(failure);
            }
            cursor.remove();
        }
        self.send_own()?;
        self.send_held()
    }

    /// Sends the rows held in memory, a batch at a time, each under an id made of the
    /// held rows' name and their sequence numbers.
    fn send_held(&mut self) -> Result<(), Failure> {
        let shared = Arc::clone(&self.shared);
        let batch_rows = shared.target.options.batch_rows;
        loop {
            let (name, batch) = {
                let state = lock(&shared.state);
                (state.held.name.clone(), state.held.batch(batch_rows))
            };
            let (Some((first, _)), Some((last, _))) = (batch.first(), batch.last()) else {
                return Ok(());
            };
            let batch_id = format!("{name}:{first}-{}", last + 1);
            self.connect()?;
            let client = self.client.as_ref().expect("connected");
            let retry = self.held_tried.as_deref() == Some(batch_id.as_str());
            if retry && client.still_running(&batch_id)? {
                return Err(Failure {
                    kind: FailureKind::Server,
                    code: None,
                    message: format!(
                        "ClickHouse is still running the earlier insert of batch {batch_id}"
                    ),
                    hint: None,
                });
            }
            let landed = retry && already_there(client, &batch_id, &batch)?;
            if !landed {
                self.held_tried = Some(batch_id.clone());
                let mut body = Vec::with_capacity(batch.len() * 600);
                for (seq, entry) in &batch {
                    let id = schema::spool_event_id(&name, *seq);
                    schema::encode(entry, &id, &batch_id, &mut body);
                }
                let token = self.info.as_ref().is_some_and(|i| i.dedup_token);
                client.insert(body, &batch_id, token)?;
            }
            self.held_tried = None;
            let mut state = lock(&shared.state);
            state.held.taken(batch.len());
            state.figures.rows_sent += batch.len() as u64;
            state.figures.last_success_ms = Some(clock::now_ms());
            drop(state);
            shared.signal.notify_all();
        }
    }

    fn send_own(&mut self) -> Result<(), Failure> {
        let shared = Arc::clone(&self.shared);
        let len = {
            let state = lock(&shared.state);
            let Some(own) = &state.own else {
                return Ok(());
            };
            if self.own.as_ref().is_none_or(|c| c.name != own.name) {
                let cursor = own.cursor(shared.spool.dir()).map_err(local)?;
                // The previous own file (replaced after a failed write) is drained like an
                // adopted one.
                if let Some(old) = self.own.replace(cursor) {
                    let len = old.file_len();
                    let mut old = old;
                    old.len = len;
                    self.adopted.push((old, true));
                }
            }
            own.len
        };
        let mut cursor = self.own.take().expect("set above");
        let result = self.send_file(&mut cursor, len, false, true);
        self.own = Some(cursor);
        result
    }

    /// Sends one file's rows up to `len`, batch by batch. `finished`: its writer is gone
    /// (a torn tail is skipped); `own`: its rows are this process's.
    fn send_file(
        &mut self,
        cursor: &mut Cursor,
        len: u64,
        finished: bool,
        own: bool,
    ) -> Result<(), Failure> {
        let batch_rows = self.shared.target.options.batch_rows;
        while cursor.acked < len {
            let batch = cursor.read(len, batch_rows, finished).map_err(local)?;
            if batch.end == cursor.acked {
                // Only part of a line so far (a writer mid-write): wait for the rest.
                return Ok(());
            }
            let sent_rows = batch.rows.len() as u64;
            if !batch.rows.is_empty() {
                self.connect()?;
                let retry = cursor.inflight.is_some();
                let batch_id = match &cursor.inflight {
                    Some(inflight) => inflight.batch_id.clone(),
                    None => format!("{}:{}-{}", cursor.name, cursor.acked, batch.end),
                };
                if !retry && cursor.begin(batch.end, &batch_id).is_err() {
                    // No room even to rewrite the ack: sent anyway. Rows keep their
                    // identity (file and offset), so a resend after a crash is stored once.
                    lock(&self.shared.state).disk_refused = true;
                }
                let client = self.client.as_ref().expect("connected");
                if retry && client.still_running(&batch_id)? {
                    // Its rows may land any moment: look again after the back-off.
                    return Err(Failure {
                        kind: FailureKind::Server,
                        code: None,
                        message: format!(
                            "ClickHouse is still running the earlier insert of batch {batch_id}; \
                             its rows are sent again only if it did not land"
                        ),
                        hint: None,
                    });
                }
                let landed = retry && already_there(client, &batch_id, &batch.rows)?;
                if !landed {
                    let mut body = Vec::with_capacity(batch.rows.len() * 600);
                    for (offset, entry) in &batch.rows {
                        let id = schema::spool_event_id(&cursor.name, *offset);
                        schema::encode(entry, &id, &batch_id, &mut body);
                    }
                    let token = self.info.as_ref().is_some_and(|i| i.dedup_token);
                    client.insert(body, &batch_id, token)?;
                }
            }
            let bytes = batch.end - cursor.acked;
            // Not saved (a full disk): the batch in flight is looked for again and found.
            let _ = cursor.acknowledge(batch.end);
            let mut state = lock(&self.shared.state);
            state.figures.rows_sent += sent_rows;
            state.figures.rows_skipped += batch.skipped;
            state.figures.last_success_ms = Some(clock::now_ms());
            state.spool_bytes = state.spool_bytes.saturating_sub(bytes);
            if own {
                state.own_pending = state.own_pending.saturating_sub(sent_rows + batch.skipped);
            }
            drop(state);
            self.shared.signal.notify_all();
        }
        Ok(())
    }

    /// Once this process's file is drained: when the process is ending, or the file has
    /// grown big, it is removed (a new one is started by the next row).
    fn close_own_if_drained(&mut self, state: &mut State) {
        let Some(own) = &state.own else { return };
        let drained = own.len == 0
            || self
                .own
                .as_ref()
                .is_some_and(|c| c.name == own.name && c.acked >= own.len);
        if drained && (state.closing || state.disk_refused || own.len >= super::spool::ROTATE_BYTES)
        {
            let own = state.own.take().expect("checked");
            self.own = None;
            own.remove(self.shared.spool.dir());
            state.own_pending = 0;
        }
    }
}

fn local(err: crate::error::Error) -> Failure {
    Failure {
        kind: FailureKind::Server,
        code: None,
        message: format!("the spool: {}", err.message),
        hint: err.hint.map(String::from),
    }
}

/// Whether a batch sent before landed: its rows carry its id (looked for within the
/// batch's time span, which the table is ordered by).
fn already_there(client: &Client, batch_id: &str, rows: &[(u64, Entry)]) -> Result<bool, Failure> {
    let times = rows.iter().filter_map(|(_, e)| e.time_ms());
    let (low, high) = times.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let span = if low <= high {
        format!(
            " AND time >= toDateTime({}) AND time <= toDateTime({})",
            (low / 1000).max(0),
            (high / 1000).max(0)
        )
    } else {
        String::new()
    };
    let sql = format!(
        "SELECT count() FROM {} WHERE batch_id = '{}'{span} FORMAT TabSeparated",
        client.target().table_sql(),
        super::usage::escape(batch_id)
    );
    let text = client.select(&sql)?;
    Ok(text.trim().parse::<u64>().unwrap_or(0) > 0)
}
