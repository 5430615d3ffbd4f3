//! Reading a streamed answer: bytes to events (`sse`) to an answer (the wire's reader,
//! `crate::wire::stream`), and the one rule every wire shares: only an explicitly finished
//! stream is an answer.

use std::io::Read;
use std::time::Duration;

use serde_json::Value;

use super::sse::{Decoder, Event};
use crate::error::CallStatus;
pub use crate::text::sanitize::one_line;
use crate::wire::Wire;
use crate::wire::stream::{EventError, Reader};
pub use crate::wire::stream::{Flow, StreamedCall as RawToolCall, describe_error, snippet};

/// The most bytes one streamed answer may take, framing included. A compress answer is at
/// most [`super::MAX_ANSWER_BYTES`] of text; streamed one token per event, with each
/// event's JSON around it, that is well under this.
pub const MAX_STREAM_BYTES: usize = 64 * 1024 * 1024;

/// What went wrong with one attempt, and whether another attempt may help.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub reason: String,
    pub retry: bool,
    /// How long the server asked us to wait (`Retry-After`).
    pub wait: Option<Duration>,
    /// The HTTP status, when the server answered with an error status.
    pub status: Option<u16>,
    /// The class of failure the usage ledger records, decided here where it is known.
    pub class: CallStatus,
}

impl Failure {
    pub fn fatal(reason: impl Into<String>) -> Self {
        Failure {
            reason: reason.into(),
            retry: false,
            wait: None,
            status: None,
            class: CallStatus::Error,
        }
    }

    pub fn retry(reason: impl Into<String>, wait: Option<Duration>) -> Self {
        Failure {
            reason: reason.into(),
            retry: true,
            wait,
            status: None,
            class: CallStatus::Error,
        }
    }

    pub fn with_class(mut self, class: CallStatus) -> Self {
        self.class = class;
        self
    }
}

/// What a stream said, before it is judged complete enough to be an answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collected {
    pub text: String,
    pub finish_reason: Option<String>,
    pub raw_usage: Option<Value>,
    pub model: Option<String>,
    /// Tool calls as streamed, their arguments still text (judged in `super::tool_calls`).
    pub tool_calls: Vec<RawToolCall>,
}

/// A wire's reading of its events, judged as a provider call judges them: a malformed
/// event or an error the stream carried fails the attempt, and so does a stream that ran
/// out before the wire's end.
pub struct Parser {
    reader: Box<dyn Reader>,
}

impl Parser {
    pub fn new(wire: Wire) -> Parser {
        Parser {
            reader: crate::wire::stream::reader(wire),
        }
    }

    pub fn event(&mut self, event: &Event) -> Result<Flow, Failure> {
        match self.reader.event(event.name.as_deref(), &event.data) {
            Ok(flow) => Ok(flow),
            Err(EventError::Malformed(reason)) => Err(Failure::fatal(reason)),
            Err(EventError::Carried(carried)) => {
                let reason = format!(
                    "the server reported an error mid-stream: {}",
                    carried.message
                );
                Err(if carried.retry {
                    Failure::retry(reason, None)
                } else {
                    Failure::fatal(reason)
                })
            }
        }
    }

    /// Called once the end marker arrived or the bytes ran out; refuses an unfinished
    /// stream.
    pub fn finish(&mut self) -> Result<Collected, Failure> {
        if let Some(unfinished) = self.reader.unfinished() {
            let failure = Failure::fatal(unfinished.reason);
            return Err(if unfinished.truncated {
                failure.with_class(CallStatus::TruncatedStream)
            } else {
                failure
            });
        }
        let streamed = self.reader.take();
        Ok(Collected {
            text: streamed.text,
            finish_reason: streamed.finish_reason,
            raw_usage: streamed.usage,
            model: streamed.model,
            tool_calls: streamed.tool_calls,
        })
    }
}

/// Reads `body` to its end marker (or its end), feeding every event to `parser`. `idle`
/// is the timeout the transport set for each read, named when it fires.
pub fn read(
    mut body: impl Read,
    parser: &mut Parser,
    idle: Duration,
) -> Result<Collected, Failure> {
    let mut decoder = Decoder::new();
    let mut buffer = vec![0u8; 16 * 1024];
    let mut received = 0usize;
    let mut events = 0usize;
    let mut start = Vec::new();
    loop {
        let n = match body.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) if is_timeout(&err) => {
                return Err(Failure::fatal(format!(
                    "{} after {received} bytes",
                    super::transport::idle_message(idle)
                ))
                .with_class(CallStatus::Timeout));
            }
            Err(err) => {
                return Err(Failure::fatal(format!(
                    "the stream broke after {received} bytes: {}",
                    io_reason(&err)
                ))
                .with_class(CallStatus::TruncatedStream));
            }
        };
        received += n;
        if received > MAX_STREAM_BYTES {
            return Err(Failure::fatal(format!(
                "the answer stream passed {} MiB: refused, nothing kept",
                MAX_STREAM_BYTES / 1024 / 1024
            )));
        }
        if start.len() < 200 {
            start.extend_from_slice(&buffer[..n.min(200 - start.len())]);
        }
        for event in decoder.feed(&buffer[..n]).map_err(Failure::fatal)? {
            events += 1;
            if parser.event(&event)? == Flow::Done {
                return parser.finish();
            }
        }
    }
    if events == 0 && received > 0 {
        return Err(Failure::fatal(format!(
            "the answer is not an event stream: {}",
            snippet(&String::from_utf8_lossy(&start))
        )));
    }
    parser.finish()
}

/// A read that timed out, however deep reqwest wrapped the cause.
fn is_timeout(err: &std::io::Error) -> bool {
    if err.kind() == std::io::ErrorKind::TimedOut {
        return true;
    }
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        if let Some(io) = inner.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return true;
        }
        if let Some(re) = inner.downcast_ref::<reqwest::Error>()
            && re.is_timeout()
        {
            return true;
        }
        source = inner.source();
    }
    io_reason(err).contains("timed out")
}

/// The innermost cause of a read error: reqwest wraps "timed out" or "connection reset"
/// several layers deep.
fn io_reason(err: &std::io::Error) -> String {
    let mut reason = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        reason = inner.to_string();
        source = inner.source();
    }
    reason
}
