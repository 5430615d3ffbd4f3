//! `brief proxy`: a local pass-through between an agent and its model provider that
//! records what the provider did with the agent's prefix.
//!
//! The provider reports cached and cache-written tokens on every answer; most agents drop
//! those figures. An agent that only changes its base URL to this proxy gets them written
//! to the ledger (one row per call, with the session, the prefix hash and which part of the
//! prefix drifted since the session's previous call) and shown on `/stats` and `/metrics`.
//! The proxy never rewrites a request — rewriting the cached zone is what breaks caches —
//! and never holds an answer back: chunks go to the client as they arrive.
//!
//! This module and `mcp` are the only async code in the crate; [`run`] is the synchronous
//! entry point that owns the runtime.

mod body;
mod book;
mod conn;
mod conversation;
mod dashboard;
mod detail;
mod digest;
mod meter;
mod relay;
mod reply;
mod routes;
mod session;
mod stats;
mod upstream;
mod writer;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;

use crate::error::{Error, Result};

use crate::wire::{BaseUrl, Wire};
pub use book::{BUDGET_BYTES, MAX_MODEL_CHARS};
pub use dashboard::{MAX_DRIFT_EVENTS, MAX_RECENT_CALLS};
pub use detail::{BUDGET_BYTES as DRIFT_TEXT_BYTES, PER_SESSION_BYTES as DRIFT_TEXT_PER_SESSION};
pub use digest::MAX_HEAD_MESSAGES;
pub use session::{MAX_SESSIONS, SESSION_HEADER};
pub use stats::MAX_SERIES;
pub use writer::{MAX_BATCH, QUEUE_ROWS};

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ProxyBody = http_body_util::combinators::BoxBody<Bytes, BoxError>;

/// Request bodies over this are refused with 413 before anything goes upstream; it is the
/// largest request the Anthropic Messages API accepts.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// How long the upstream may take to start answering, and to send the next chunk, when
/// `--timeout` does not say: ten minutes, the official SDKs' own default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

/// A client must send a request's headers within this long (and an idle keep-alive
/// connection is closed after it).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest pause while a client sends its request body, or takes its answer.
pub const DEFAULT_CLIENT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Client connections held at once; past it a new one is answered `503`.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4096;

/// After SIGINT/SIGTERM, how long calls in flight may take to finish.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// Base URL of the OpenAI-compatible upstream (`…/v1`).
    pub openai_upstream: BaseUrl,
    /// Base URL of the Anthropic upstream (without `/v1`).
    pub anthropic_upstream: BaseUrl,
    /// Base URL of the Gemini upstream (without `/v1beta`).
    pub gemini_upstream: BaseUrl,
    /// Where the rows go: the ledger file, or a ClickHouse table through its spool.
    pub ledger: crate::cache::ledger::Destination,
    /// The sinks the ledger is opened through; the writer flushes its sink when the proxy
    /// stops, and the caller settles the set after [`run`] returns.
    pub sinks: crate::cache::ledger::Sinks,
    pub allow_remote: bool,
    pub timeout: Duration,
    pub header_timeout: Duration,
    /// The longest pause while a client sends its body or takes its answer.
    pub client_idle_timeout: Duration,
    pub max_connections: usize,
    pub shutdown_timeout: Duration,
    /// Prices for the cost and savings on `/stats` and the dashboard.
    pub prices: PriceFlags,
}

/// Prices per million tokens given on the command line. Each call's row carries them, so
/// `brief usage` prices the ledger as `/stats` and the dashboard do; a missing cached or
/// cache-write price comes from the provider's known multipliers of the input price.
pub use crate::cache::ledger::prices::RowPrices as PriceFlags;

/// What a proxy run did, once it has stopped.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub calls: u64,
    pub rows_written: u64,
    pub ledger_errors: u64,
    /// Client connections the proxy could hold at once (the flag, lowered to what the
    /// file-descriptor limit allows).
    pub max_connections: usize,
    /// Where the rows' store stood at the end (for ClickHouse: rows sent, rows left in
    /// the spool).
    pub sink: crate::cache::ledger::SinkState,
}

/// What the server shares with every request.
struct App {
    openai: upstream::Upstream,
    anthropic: upstream::Upstream,
    gemini: upstream::Upstream,
    /// Paths already warned about as unmetered.
    warned: routes::Warned,
    client: upstream::Client,
    timeout: Duration,
    client_idle_timeout: Duration,
    book: book::Book,
    stats: Arc<Mutex<stats::Stats>>,
    /// The last calls and drift events, for the dashboard.
    recent: Arc<Mutex<dashboard::Recent>>,
    /// What the dashboard says about where it runs.
    page: dashboard::Context,
    /// Set when the shutdown deadline passed: calls still running are being cut.
    cut_off: AtomicBool,
    /// `--price-*`, written into every call's row.
    prices: PriceFlags,
}

impl App {
    /// The upstream of the provider `wire` belongs to (both OpenAI wires share one).
    fn upstream(&self, wire: Wire) -> &upstream::Upstream {
        match wire {
            Wire::OpenAi | Wire::Responses => &self.openai,
            Wire::Anthropic => &self.anthropic,
            Wire::Gemini => &self.gemini,
        }
    }

    fn cut_off(&self) -> bool {
        self.cut_off.load(Ordering::Relaxed)
    }

    fn backlog(&self) -> stats::Backlog {
        let rows = self.book.rows();
        let counters = rows.counters();
        let handed = counters.handed.load(Ordering::Relaxed);
        let done =
            counters.written.load(Ordering::Relaxed) + counters.failed.load(Ordering::Relaxed);
        stats::Backlog {
            ledger: handed.saturating_sub(done),
            spilled: counters.spilled.load(Ordering::Relaxed),
            digest: self.book.in_stage(),
            sink: rows.sink_state(),
        }
    }
}

/// Checks the configuration, binds, calls `ready` with the bound address, and serves until
/// SIGINT or SIGTERM; then lets in-flight calls finish (a second signal stops at once),
/// writes every pending ledger row and returns.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<Summary> {
    if !config.listen.ip().is_loopback() && !config.allow_remote {
        return Err(Error::input(format!(
            "--listen {}: not a loopback address; the proxy forwards your credentials, so it \
             listens on this machine only unless told otherwise",
            config.listen
        ))
        .with_hint("use 127.0.0.1:PORT, or add --allow-remote if other machines must reach it"));
    }
    let openai = upstream::Upstream::new(config.openai_upstream, Wire::OpenAi);
    let anthropic = upstream::Upstream::new(config.anthropic_upstream, Wire::Anthropic);
    let gemini = upstream::Upstream::new(config.gemini_upstream, Wire::Gemini);
    // One thread relays every connection: relaying is cheap next to a model's answer, and
    // with two runtime workers each call woke both (a paced call cost twice the switches
    // and more CPU; BENCHMARKS.md, "Proxy: per wire, paced"). The digest threads and the
    // ledger writer keep the bookkeeping off it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("brief-proxy")
        .build()
        .map_err(|e| {
            Error::input(format!("cannot start the proxy's runtime: {e}")).with_source(e)
        })?;
    let listener = {
        let _guard = runtime.enter();
        conn::listen(config.listen, config.max_connections)
    }
    .map_err(|e| {
        Error::input(format!("cannot listen on {}: {e}", config.listen))
            .with_source(e)
            .with_hint("pick another address with --listen, e.g. 127.0.0.1:0 for any free port")
    })?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::input(format!("cannot read the bound address: {e}")).with_source(e))?;
    for (upstream, flag, var) in [
        (&openai, "--openai-upstream", "OPENAI_BASE_URL"),
        (&anthropic, "--anthropic-upstream", "ANTHROPIC_BASE_URL"),
        (&gemini, "--gemini-upstream", "GOOGLE_GEMINI_BASE_URL"),
    ] {
        if upstream.points_at(local) {
            return Err(Error::input(format!(
                "the upstream {} is this proxy itself; calls would go round in a circle",
                upstream.as_str()
            ))
            .with_hint(format!(
                "{var} in this shell points at the proxy (meant for the agent); pass the real \
                 provider with {flag}"
            )));
        }
    }
    let client = {
        let _guard = runtime.enter();
        upstream::client()?
    };
    let fd_limit = conn::raise_fd_limit();
    let max_connections = conn::cap_for(config.max_connections, fd_limit);
    if max_connections < config.max_connections {
        eprintln!(
            "brief proxy: at most {max_connections} connections at once: the open-file limit \
             is {fd_limit} and each call holds two (raise it with `ulimit -n`)"
        );
    }
    // Rows carry the prices (`relay` stamps them), and the figures price rows as
    // `brief usage` does: through the one resolver, from what each row says.
    let stats = Arc::new(Mutex::new(stats::Stats::default()));
    let sink = config.ledger.open(&config.sinks)?;
    let (rows, writer) = writer::start(sink, Arc::clone(&stats));
    let recent = dashboard::recent();
    let (book, digesters) = book::start(rows, Arc::clone(&recent));
    let app = Arc::new(App {
        openai,
        anthropic,
        gemini,
        warned: routes::Warned::default(),
        client,
        timeout: config.timeout,
        client_idle_timeout: config.client_idle_timeout,
        book,
        stats: Arc::clone(&stats),
        recent,
        page: dashboard::Context {
            address: format!("http://{local}"),
            ledger: config.ledger.display().to_string(),
            started: crate::clock::format_rfc3339(crate::clock::now_ms()),
            allow_remote: config.allow_remote,
        },
        cut_off: AtomicBool::new(false),
        prices: config.prices,
    });
    let limits = Limits {
        gate: conn::Gate::new(max_connections),
        header_timeout: config.header_timeout,
        shutdown_timeout: config.shutdown_timeout,
    };
    ready(local);
    runtime.block_on(serve(listener, app, limits));
    // Tasks still running after the deadline are dropped here; their rows are made as
    // they drop (`cancelled`).
    runtime.shutdown_timeout(Duration::from_millis(500));
    // The requests still being digested are finished, then every row is written.
    digesters.finish();
    let (rows_written, sink) = writer.finish();
    let report = stats.lock().map(|s| s.report()).ok();
    Ok(Summary {
        calls: report.as_ref().map_or(0, |r| r.totals.calls),
        rows_written,
        ledger_errors: report.map_or(0, |r| r.ledger_errors),
        max_connections,
        sink,
    })
}

/// What bounds a connection.
struct Limits {
    gate: conn::Gate,
    header_timeout: Duration,
    shutdown_timeout: Duration,
}

async fn serve(listener: tokio::net::TcpListener, app: Arc<App>, limits: Limits) {
    let graceful = GracefulShutdown::new();
    let mut signals = Signals::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.preserve_header_case(true)
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    {
        let stop = signals.next();
        tokio::pin!(stop);
        loop {
            let accepted = tokio::select! {
                biased;
                () = &mut stop => break,
                accepted = listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                // Out of file descriptors and the like: wait a moment, keep serving.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            let Some((stream, slot)) = limits.gate.admit(stream) else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let app = Arc::clone(&app);
            let idle = app.client_idle_timeout;
            let after = Arc::new(conn::AfterWrite::default());
            let io = TokioIo::new(conn::Stalls::new(stream, idle, Arc::clone(&after)));
            let service = service_fn(move |request| {
                let app = Arc::clone(&app);
                let after = Arc::clone(&after);
                async move { Ok::<_, Infallible>(route(app, request, after).await) }
            });
            let connection = graceful.watch(http.serve_connection(io, service));
            tokio::spawn(async move {
                let _ = connection.await;
                drop(slot);
            });
        }
    }
    drop(listener);
    eprintln!(
        "brief proxy: stopping; calls in flight have {} to finish (signal again to stop now)",
        crate::clock::format_duration(limits.shutdown_timeout)
    );
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.shutdown_timeout) => {
            eprintln!("brief proxy: the shutdown deadline passed; cutting the calls still running");
            app.cut_off.store(true, Ordering::Relaxed);
        }
        () = signals.next() => {
            eprintln!("brief proxy: stopping now");
            app.cut_off.store(true, Ordering::Relaxed);
        }
    }
}

/// SIGINT and SIGTERM, as one stream of "stop" requests.
struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Signals {
        Signals {
            #[cfg(unix)]
            term: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok(),
        }
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        if let Some(term) = self.term.as_mut() {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn route(
    app: Arc<App>,
    request: Request<Incoming>,
    after: Arc<conn::AfterWrite>,
) -> Response<ProxyBody> {
    // The dashboard and the figures first (GET /, /stats, /metrics, under its Host rule).
    if let Some(page) = dashboard::route(&app, &request) {
        return page;
    }
    let uri = request.uri();
    let route = routes::route(request.method(), uri.path(), uri.query(), request.headers());
    if let Some(why) = routes::cross_site(request.headers()) {
        let (routes::Route::Call { wire, .. } | routes::Route::Relay { wire, .. }) = route;
        let mut refused = reply::error(
            wire,
            http::StatusCode::FORBIDDEN,
            "permission_error",
            "cross_site_request",
            &why,
        );
        refused.headers_mut().insert(
            http::header::X_CONTENT_TYPE_OPTIONS,
            http::HeaderValue::from_static("nosniff"),
        );
        return refused;
    }
    match route {
        routes::Route::Call { wire, model } => model_call(app, wire, model, request, after).await,
        routes::Route::Relay { wire, quiet } => {
            if !quiet {
                app.warned
                    .once(wire, request.method(), request.uri().path());
            }
            relay::pass(app, wire, request).await
        }
    }
}

async fn model_call(
    app: Arc<App>,
    wire: Wire,
    path_model: Option<String>,
    request: Request<Incoming>,
    after: Arc<conn::AfterWrite>,
) -> Response<ProxyBody> {
    let (parts, body) = request.into_parts();
    let body = match read_body(body, MAX_BODY_BYTES, app.client_idle_timeout).await {
        Ok(body) => body,
        Err(err) => return reply::body_error(wire, &err),
    };
    relay::call(
        app,
        wire,
        path_model,
        Request::from_parts(parts, ()),
        body,
        after,
    )
    .await
}

/// Why a request body was not read.
#[derive(Debug)]
enum BodyError {
    TooLarge,
    /// Nothing arrived for the idle timeout.
    Stalled(Duration),
    Unreadable(String),
}

/// Reads a request body of at most `limit` bytes, giving up when nothing arrives for
/// `idle`. A longer one is read on and thrown away (up to a bound) before the 413 goes out:
/// a client still writing its body when the connection closes sees a reset, not our answer.
async fn read_body(mut body: Incoming, limit: usize, idle: Duration) -> Result<Bytes, BodyError> {
    let mut kept = bytes::BytesMut::new();
    let mut seen = 0usize;
    loop {
        let Ok(frame) = tokio::time::timeout(idle, body.frame()).await else {
            return Err(BodyError::Stalled(idle));
        };
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|e| BodyError::Unreadable(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen += data.len();
        if seen <= limit {
            kept.extend_from_slice(&data);
        } else if seen > limit.saturating_mul(4) {
            break;
        }
    }
    if seen > limit {
        return Err(BodyError::TooLarge);
    }
    Ok(kept.freeze())
}
