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

mod meter;
mod relay;
mod reply;
mod session;
mod stats;
mod upstream;
mod writer;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;

use crate::error::{Error, Result};

use crate::wire::{BaseUrl, Wire};
pub use session::SESSION_HEADER;
pub use stats::MAX_SERIES;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ProxyBody = http_body_util::combinators::BoxBody<Bytes, BoxError>;

/// Request bodies over this are refused with 413 before anything goes upstream; it is the
/// largest request the Anthropic Messages API accepts.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// How long the upstream may take to start answering, and to send the next chunk, when
/// `--timeout` does not say: ten minutes, the official SDKs' own default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// Base URL of the OpenAI-compatible upstream (`…/v1`).
    pub openai_upstream: BaseUrl,
    /// Base URL of the Anthropic upstream (without `/v1`).
    pub anthropic_upstream: BaseUrl,
    pub ledger: PathBuf,
    pub allow_remote: bool,
    pub timeout: Duration,
}

/// What a proxy run did, once it has stopped.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub calls: u64,
    pub rows_written: u64,
    pub ledger_errors: u64,
}

/// What the server shares with every request.
struct App {
    openai: upstream::Upstream,
    anthropic: upstream::Upstream,
    client: upstream::Client,
    timeout: Duration,
    rows: writer::Rows,
    stats: Arc<Mutex<stats::Stats>>,
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("brief-proxy")
        .build()
        .map_err(|e| {
            Error::input(format!("cannot start the proxy's runtime: {e}")).with_source(e)
        })?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(config.listen))
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
    let stats = Arc::new(Mutex::new(stats::Stats::default()));
    let (rows, writer) = writer::start(config.ledger.clone(), Arc::clone(&stats));
    let app = Arc::new(App {
        openai,
        anthropic,
        client,
        timeout: config.timeout,
        rows,
        stats: Arc::clone(&stats),
    });
    ready(local);
    runtime.block_on(serve(listener, app));
    // Tasks still running after a forced stop are dropped here; their rows are queued
    // as they drop.
    runtime.shutdown_timeout(Duration::from_secs(2));
    let rows_written = writer.finish();
    let report = stats.lock().map(|s| s.report()).ok();
    Ok(Summary {
        calls: report.as_ref().map_or(0, |r| r.totals.calls),
        rows_written,
        ledger_errors: report.map_or(0, |r| r.ledger_errors),
    })
}

async fn serve(listener: tokio::net::TcpListener, app: Arc<App>) {
    let graceful = GracefulShutdown::new();
    let mut signals = Signals::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // Out of file descriptors and the like: wait a moment, keep serving.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let app = Arc::clone(&app);
                let service = service_fn(move |request| {
                    let app = Arc::clone(&app);
                    async move { Ok::<_, Infallible>(route(app, request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .preserve_header_case(true)
                    .serve_connection(TokioIo::new(stream), service);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    let _ = connection.await;
                });
            }
            () = signals.next() => break,
        }
    }
    drop(listener);
    drop(app);
    eprintln!("brief proxy: stopping; letting calls in flight finish (signal again to stop now)");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = signals.next() => eprintln!("brief proxy: stopping now"),
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

async fn route(app: Arc<App>, request: Request<Incoming>) -> Response<ProxyBody> {
    let path = request.uri().path();
    match (request.method(), path) {
        (&Method::GET, "/stats") => {
            let report = app.stats.lock().map(|s| s.report());
            let body = report
                .ok()
                .and_then(|r| serde_json::to_string_pretty(&r).ok())
                .unwrap_or_else(|| "{}".into());
            reply::full(StatusCode::OK, "application/json", body + "\n")
        }
        (&Method::GET, "/metrics") => {
            let text = app.stats.lock().map(|s| s.metrics()).unwrap_or_default();
            reply::full(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                text,
            )
        }
        (&Method::POST, "/v1/chat/completions") => model_call(app, Wire::OpenAi, request).await,
        (&Method::POST, "/v1/messages") => model_call(app, Wire::Anthropic, request).await,
        (_, p) if p.starts_with("/v1/") => {
            // Anthropic clients say which API version they speak; OpenAI clients do not.
            let wire = if request.headers().contains_key("anthropic-version") {
                Wire::Anthropic
            } else {
                Wire::OpenAi
            };
            relay::pass(app, wire, request).await
        }
        _ => reply::not_found(path),
    }
}

async fn model_call(app: Arc<App>, wire: Wire, request: Request<Incoming>) -> Response<ProxyBody> {
    let (parts, body) = request.into_parts();
    let body = match read_body(body, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(err) => return reply::body_error(wire, &err),
    };
    relay::call(app, wire, Request::from_parts(parts, ()), body).await
}

/// Why a request body was not read.
#[derive(Debug)]
enum BodyError {
    TooLarge,
    Unreadable(String),
}

/// Reads a request body of at most `limit` bytes. A longer one is read on and thrown away
/// (up to a bound) before the 413 goes out: a client still writing its body when the
/// connection closes sees a reset, not our answer.
async fn read_body(mut body: Incoming, limit: usize) -> Result<Bytes, BodyError> {
    let mut kept = bytes::BytesMut::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
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
