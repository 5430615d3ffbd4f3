//! One model call through the proxy: the request goes upstream exactly as it came, the
//! answer comes back chunk by chunk as it arrives, and a ledger row is written when the
//! call ends — however it ends.
//!
//! The row is owned by a guard ([`Call`]) that travels with the answer's body. When the
//! body ends, breaks, times out or is dropped because the client went away, the guard
//! writes the row with the matching status; dropping the body also drops the upstream
//! response, which closes the upstream connection, so a client that leaves cancels the call.
//! Parsing the request for the session and the drift check happens beside the call
//! (`book`), and writing the row on the ledger thread (`writer`), never in front of the
//! answer's bytes.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::time::Sleep;

use crate::cache::ledger::Entry;

use super::book::{MakeRow, Meta, Pending};
use super::conn::AfterWrite;
use super::meter::Meter;
use super::{App, BoxError, ProxyBody, reply};
use crate::call_status::CallStatus;
use crate::wire::Wire;

/// How a call ended.
enum Ending {
    /// The answer's bytes ran out normally.
    Ended,
    /// The upstream connection broke mid-answer.
    Broken(String),
    /// The upstream sent nothing for the idle timeout.
    Idle,
    /// The client went away before the end.
    Dropped,
    /// No answer at all: the upstream could not be reached or failed before its headers.
    Failed { status: CallStatus, message: String },
}

/// The ledger row of one call, written exactly once.
struct Call {
    app: Arc<App>,
    wire: Wire,
    started: Instant,
    pending: Arc<Pending>,
    http_status: Option<StatusCode>,
    done: bool,
    /// The client connection, which hands the row over once the answer's bytes are out.
    after: Arc<AfterWrite>,
}

impl Call {
    /// Notes when the call ended and hands the rest over to run once the connection has
    /// written what it has (the answer's last bytes): reading the answer's usage (a whole
    /// JSON answer is parsed here), settling how the call went, and the row, whose request
    /// half (session, drift) is worked out beside the call. Nothing here waits, and nothing
    /// of it comes before the client's last byte.
    fn end(&mut self, ending: Ending, meter: Option<Meter>) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let latency_ms = self.started.elapsed().as_millis() as u64;
        // The row says when the call finished, not when its request's digest caught up.
        let finished = crate::clock::now_ms();
        let cut_off = self.app.cut_off();
        let timeout = self.app.timeout;
        let http_status = self.http_status;
        let wire = self.wire;
        let prices = self.app.prices;
        let pending = Arc::clone(&self.pending);
        let app = Arc::clone(&self.app);
        self.after.defer(Box::new(move || {
            let mut meter = meter;
            if let (Some(meter), Ending::Ended) = (meter.as_mut(), &ending) {
                meter.end();
            }
            let make = settle(
                ending,
                meter.as_ref(),
                Settled {
                    wire,
                    prices,
                    latency_ms,
                    finished,
                    cut_off,
                    timeout,
                    http_status,
                },
            );
            pending.ended(make, app.book.outlet());
            app.book.kick();
        }));
    }
}

/// What [`settle`] needs to know of a call besides its ending and its meter.
struct Settled {
    wire: Wire,
    prices: super::PriceFlags,
    latency_ms: u64,
    finished: i64,
    /// The proxy's shutdown deadline had passed when the call ended.
    cut_off: bool,
    timeout: Duration,
    http_status: Option<StatusCode>,
}

/// How the call went, from its ending and what the meter read; the row maker.
fn settle(ending: Ending, meter: Option<&Meter>, call: Settled) -> MakeRow {
    let usage = meter.and_then(Meter::usage);
    let complete = meter.is_some_and(Meter::complete);
    // An error the answer itself carried explains how it ended (an SDK that reads an
    // error event closes the connection, so a dropped or broken stream often follows).
    let carried_error = meter.and_then(Meter::error).is_some();
    // An answer the meter could not read (an encoding it does not decode, an event
    // past its bound) cannot be judged: it is recorded `ok` with why usage is missing,
    // never a failure, unless the upstream itself broke or went silent.
    let unread = meter.and_then(Meter::blind).is_some();
    let failure: Option<(CallStatus, String)> = match ending {
        Ending::Failed { status, message } => Some((status, message)),
        _ if complete || carried_error => None,
        Ending::Ended | Ending::Dropped if unread && !call.cut_off => None,
        Ending::Ended => Some((
            CallStatus::TruncatedStream,
            "the stream ended before its end marker".into(),
        )),
        Ending::Broken(why) => Some((
            CallStatus::TruncatedStream,
            format!("the upstream connection broke mid-answer: {why}"),
        )),
        Ending::Idle => Some((
            CallStatus::Timeout,
            format!(
                "the upstream sent nothing for {}",
                crate::clock::format_duration(call.timeout)
            ),
        )),
        Ending::Dropped if call.cut_off => Some((
            CallStatus::Cancelled,
            "the proxy stopped (its shutdown deadline passed) before the answer ended".into(),
        )),
        Ending::Dropped => Some((
            CallStatus::ClientDisconnected,
            "the client closed the connection before the answer ended".into(),
        )),
    };
    let failure = failure.or_else(|| {
        let status = call.http_status.filter(|s| !s.is_success())?;
        let message = meter
            .and_then(Meter::error)
            .map(str::to_string)
            .unwrap_or_else(|| format!("HTTP {}", status.as_u16()));
        Some((CallStatus::Http(status.as_u16()), message))
    });
    let failure = failure.or_else(|| {
        let error = meter.and_then(Meter::error)?;
        Some((CallStatus::StreamError, error.to_string()))
    });
    let blind = meter.and_then(Meter::blind).map(str::to_string);
    Box::new(move |meta: &Meta| {
        let mut entry = Entry::new("proxy", call.wire.as_str(), &meta.model);
        call.prices.stamp(&mut entry);
        entry.time = crate::clock::format_rfc3339(call.finished);
        entry.session = Some(meta.session.clone());
        entry.prefix_hash = meta.analysis.prefix_hash.clone();
        entry.drifted_parts = meta.analysis.drifted_parts.clone();
        entry.drift_offset = meta.analysis.drift.as_ref().and_then(|d| d.offset);
        entry.latency_ms = call.latency_ms;
        if let Some(usage) = &usage {
            entry.set_usage(usage);
        }
        if let Some((status, message)) = failure {
            entry.status = status;
            entry.error = Some(meta.redactor.redact(&message));
        } else if let Some(why) = blind {
            entry.error = Some(meta.redactor.redact(&why));
        }
        entry
    })
}

impl Drop for Call {
    fn drop(&mut self) {
        // Still pending here means the client left while we waited for the upstream.
        self.end(Ending::Dropped, None);
    }
}

/// Relays one model call. `request`'s body has been read (`body`).
pub async fn call(
    app: Arc<App>,
    wire: Wire,
    path_model: Option<String>,
    request: Request<()>,
    body: Bytes,
    after: Arc<AfterWrite>,
) -> Response<ProxyBody> {
    let started = Instant::now();
    let (mut parts, _) = request.into_parts();
    let pending = app
        .book
        .admit(body.clone(), &parts.headers, parts.uri.query(), path_model)
        .await;
    let mut call = Call {
        app: Arc::clone(&app),
        wire,
        started,
        pending,
        http_status: None,
        done: false,
        after,
    };
    let upstream = app.upstream(wire);
    parts.uri = match upstream.target(&path_and_query(&parts.uri)) {
        Ok(uri) => uri,
        Err(message) => {
            call.end(
                Ending::Failed {
                    status: CallStatus::Error,
                    message: message.clone(),
                },
                None,
            );
            return reply::upstream_failed(wire, &message);
        }
    };
    super::upstream::strip_hop_by_hop(&mut parts.headers);
    super::upstream::strip_foreign_keys(wire, &mut parts.headers);
    parts.headers.remove(header::HOST);
    let outgoing = Request::from_parts(parts, http_body_util::Full::new(body));
    let answer = tokio::time::timeout(app.timeout, app.client.request(outgoing)).await;
    let response = match answer {
        Ok(Ok(response)) => response,
        Ok(Err(err)) => {
            let (status, message) = describe(&err, upstream.as_str());
            call.end(
                Ending::Failed {
                    status,
                    message: message.clone(),
                },
                None,
            );
            return reply::upstream_failed(wire, &message);
        }
        Err(_) => {
            let message = format!(
                "{} sent no answer within {}",
                upstream.as_str(),
                crate::clock::format_duration(app.timeout)
            );
            call.end(
                Ending::Failed {
                    status: CallStatus::Timeout,
                    message: message.clone(),
                },
                None,
            );
            return reply::upstream_failed(wire, &message);
        }
    };
    let (mut parts, incoming) = response.into_parts();
    call.http_status = Some(parts.status);
    let header_text = |name| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let meter = Meter::new(
        wire,
        header_text(header::CONTENT_TYPE),
        header_text(header::CONTENT_ENCODING),
    );
    super::upstream::strip_hop_by_hop(&mut parts.headers);
    let idle = app.timeout;
    let relay = Relay {
        inner: incoming,
        meter: Some(meter),
        call: Some(call),
        idle,
        sleep: Box::pin(tokio::time::sleep(idle)),
    };
    Response::from_parts(parts, relay.boxed())
}

/// A relay without a row: every other request (model lists, token counts, paths the proxy
/// does not know) goes to the upstream of the provider it belongs to, so pointing an agent
/// at the proxy breaks nothing; it is counted as unmetered.
pub async fn pass(app: Arc<App>, wire: Wire, request: Request<Incoming>) -> Response<ProxyBody> {
    if let Ok(mut stats) = app.stats.lock() {
        stats.unmetered(wire.vendor());
    }
    let upstream = app.upstream(wire);
    let (mut parts, body) = request.into_parts();
    let body = match super::read_body(body, super::MAX_BODY_BYTES, app.client_idle_timeout).await {
        Ok(body) => body,
        Err(err) => return reply::body_error(wire, &err),
    };
    parts.uri = match upstream.target(&path_and_query(&parts.uri)) {
        Ok(uri) => uri,
        Err(message) => return reply::upstream_failed(wire, &message),
    };
    super::upstream::strip_hop_by_hop(&mut parts.headers);
    super::upstream::strip_foreign_keys(wire, &mut parts.headers);
    parts.headers.remove(header::HOST);
    let outgoing = Request::from_parts(parts, http_body_util::Full::new(body));
    match tokio::time::timeout(app.timeout, app.client.request(outgoing)).await {
        Ok(Ok(response)) => {
            let (mut parts, incoming) = response.into_parts();
            super::upstream::strip_hop_by_hop(&mut parts.headers);
            confine(&mut parts.headers);
            Response::from_parts(parts, incoming.map_err(BoxError::from).boxed())
        }
        Ok(Err(err)) => reply::upstream_failed(wire, &describe(&err, upstream.as_str()).1),
        Err(_) => reply::upstream_failed(
            wire,
            &format!(
                "{} sent no answer within {}",
                upstream.as_str(),
                crate::clock::format_duration(app.timeout)
            ),
        ),
    }
}

/// A relayed answer is served on the dashboard's origin: whatever the upstream sent, a
/// browser must not sniff it into a page nor run a script of it there (API clients ignore
/// both headers).
fn confine(headers: &mut http::HeaderMap) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        http::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        http::HeaderValue::from_static("sandbox; default-src 'none'"),
    );
}

fn describe(err: &hyper_util::client::legacy::Error, upstream: &str) -> (CallStatus, String) {
    let mut reason = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        reason = inner.to_string();
        source = inner.source();
    }
    if err.is_connect() {
        (
            CallStatus::Connect,
            format!("could not connect to {upstream}: {reason}"),
        )
    } else {
        (
            CallStatus::Error,
            format!("{upstream} failed before answering: {reason}"),
        )
    }
}

/// The answer's body on its way to the client, read by the meter as it passes.
struct Relay {
    inner: Incoming,
    /// Taken by the call when it ends.
    meter: Option<Meter>,
    call: Option<Call>,
    idle: Duration,
    sleep: Pin<Box<Sleep>>,
}

impl Relay {
    fn end(&mut self, ending: Ending) {
        if let Some(mut call) = self.call.take() {
            call.end(ending, self.meter.take());
        }
    }
}

impl Body for Relay {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(data), Some(meter)) = (frame.data_ref(), this.meter.as_mut()) {
                    meter.feed(data);
                }
                let deadline = tokio::time::Instant::now() + this.idle;
                this.sleep.as_mut().reset(deadline);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(err))) => {
                this.end(Ending::Broken(err.to_string()));
                Poll::Ready(Some(Err(err.into())))
            }
            Poll::Ready(None) => {
                // The meter reads the answer's end once the last bytes are out (`Call::end`).
                this.end(Ending::Ended);
                Poll::Ready(None)
            }
            Poll::Pending => {
                if this.sleep.as_mut().poll(cx).is_ready() {
                    this.end(Ending::Idle);
                    return Poll::Ready(Some(Err("the upstream stopped sending".into())));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if self.call.is_some() {
            if self.inner.is_end_stream() {
                // An empty body hyper never needed to poll, or one hyper saw end with its
                // last frame.
                self.end(Ending::Ended);
            } else {
                self.end(Ending::Dropped);
            }
        }
    }
}

/// The request's path and query, `/` when it has none.
fn path_and_query(uri: &http::Uri) -> http::uri::PathAndQuery {
    uri.path_and_query()
        .cloned()
        .unwrap_or_else(|| http::uri::PathAndQuery::from_static("/"))
}
