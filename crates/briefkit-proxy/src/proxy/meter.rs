//! Reading usage out of an answer while it passes through, without holding it back.
//!
//! The proxy hands every chunk to the client first and to the meter second. The meter
//! undoes a `gzip`/`deflate` content encoding on its own copy (the client still gets the
//! encoded bytes), then either decodes the event stream as it goes (SSE answers: usage
//! frames, the end marker, error events) or keeps a bounded copy of a JSON answer to read
//! its `usage` at the end. Events are read by the wire's own reader and usage normalised
//! by the wire's module ([`Usage`]), so a proxied call is counted exactly like the
//! toolkit's own calls, in every wire.

use std::io::Write;

use flate2::write::{GzDecoder, ZlibDecoder};
use serde_json::Value;

use crate::provider::sse::Decoder;
use crate::wire::stream::{EventError, Flow, Reader};
use crate::wire::{Usage, Wire};

/// A JSON answer longer than this is relayed in full but not read for usage.
const MAX_COPY: usize = 16 * 1024 * 1024;

enum Decode {
    Identity,
    Gzip(Box<GzDecoder<Vec<u8>>>),
    Zlib(Box<ZlibDecoder<Vec<u8>>>),
}

enum Mode {
    Sse(Box<Decoder>),
    Json(Vec<u8>),
    /// Usage cannot be read (an encoding we do not decode, a body too long); says why.
    Blind(String),
}

pub struct Meter {
    wire: Wire,
    /// The answer is an event stream (its content type said so).
    stream: bool,
    decode: Decode,
    mode: Mode,
    /// The wire's own reader of its events (`crate::wire::stream`), as the provider's call
    /// loop reads them.
    reader: Box<dyn Reader>,
    /// A whole JSON answer's usage, read at its end.
    answer_usage: Option<Usage>,
    /// The end marker arrived (SSE) or the JSON answer ended and parsed.
    complete: bool,
    /// An error the answer itself carried (an SSE `error` event, an error object).
    error: Option<String>,
}

impl Meter {
    /// A meter for an answer with these response headers' values.
    pub fn new(wire: Wire, content_type: Option<&str>, content_encoding: Option<&str>) -> Meter {
        let sse = content_type.is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
        });
        let mut mode = if sse {
            Mode::Sse(Box::new(Decoder::new()))
        } else {
            Mode::Json(Vec::new())
        };
        let encoding = content_encoding.map(|e| e.trim().to_ascii_lowercase());
        let decode = match encoding.as_deref() {
            None | Some("" | "identity") => Decode::Identity,
            Some("gzip" | "x-gzip") => Decode::Gzip(Box::new(GzDecoder::new(Vec::new()))),
            Some("deflate") => Decode::Zlib(Box::new(ZlibDecoder::new(Vec::new()))),
            Some(other) => {
                mode = Mode::Blind(format!(
                    "usage not read: the answer is {other}-encoded, which the proxy does not decode"
                ));
                Decode::Identity
            }
        };
        Meter {
            wire,
            stream: sse,
            decode,
            mode,
            reader: crate::wire::stream::reader(wire),
            answer_usage: None,
            complete: false,
            error: None,
        }
    }

    pub fn is_stream(&self) -> bool {
        self.stream
    }

    /// Reads one chunk of the answer as it was sent.
    pub fn feed(&mut self, chunk: &[u8]) {
        if matches!(self.mode, Mode::Blind(_)) || (self.complete && self.is_stream()) {
            return;
        }
        let decoded = match &mut self.decode {
            Decode::Identity => return self.take(chunk),
            Decode::Gzip(d) => d.write_all(chunk).map(|_| std::mem::take(d.get_mut())),
            Decode::Zlib(d) => d.write_all(chunk).map(|_| std::mem::take(d.get_mut())),
        };
        match decoded {
            Ok(bytes) => self.take(&bytes),
            Err(err) => self.mode = Mode::Blind(format!("usage not read: {err}")),
        }
    }

    fn take(&mut self, bytes: &[u8]) {
        match &mut self.mode {
            Mode::Sse(decoder) => match decoder.feed(bytes) {
                Ok(events) => {
                    for event in events {
                        self.event(event.name.as_deref(), &event.data);
                    }
                }
                Err(err) => self.mode = Mode::Blind(format!("usage not read: {err}")),
            },
            Mode::Json(copy) => {
                if copy.len() + bytes.len() > MAX_COPY {
                    self.mode = Mode::Blind(format!(
                        "usage not read: the answer is longer than {} MiB",
                        MAX_COPY / 1024 / 1024
                    ));
                } else {
                    copy.extend_from_slice(bytes);
                }
            }
            Mode::Blind(_) => {}
        }
    }

    fn event(&mut self, name: Option<&str>, data: &str) {
        if self.complete {
            return;
        }
        match self.reader.event(name, data) {
            Ok(Flow::Done) => self.complete = true,
            Ok(Flow::Continue) => {}
            // Not the meter's business: the client judges its answer.
            Err(EventError::Malformed(_)) => {}
            Err(EventError::Carried(carried)) => self.error = Some(carried.message),
        }
    }

    /// The answer's bytes ran out normally. A JSON answer is read now; a stream that never
    /// sent its end marker stays incomplete (a Gemini stream, which has none, is complete
    /// once a candidate said why it finished).
    pub fn end(&mut self) {
        let flushed = match &mut self.decode {
            Decode::Identity => Ok(Vec::new()),
            Decode::Gzip(d) => d.try_finish().map(|_| std::mem::take(d.get_mut())),
            Decode::Zlib(d) => d.try_finish().map(|_| std::mem::take(d.get_mut())),
        };
        match flushed {
            Ok(bytes) if !bytes.is_empty() => self.take(&bytes),
            Ok(_) => {}
            Err(err) => self.mode = Mode::Blind(format!("usage not read: {err}")),
        }
        match &self.mode {
            Mode::Json(copy) => {
                self.complete = true;
                if let Ok(value) = serde_json::from_slice::<Value>(copy) {
                    self.answer_usage = Usage::of_answer(self.wire, &value);
                    self.error = answer_error(&value);
                }
            }
            Mode::Sse(_) => self.complete = self.complete || self.reader.streamed().ended,
            // Framing ended cleanly; without reading it we cannot say more.
            Mode::Blind(_) => self.complete = !self.is_stream(),
        }
    }

    /// The usage read so far (a stream's), or the whole answer's.
    pub fn usage(&self) -> Option<Usage> {
        if self.answer_usage.is_some() {
            return self.answer_usage.clone();
        }
        let raw = self.reader.streamed().usage.as_ref()?;
        Usage::of(self.wire, raw)
    }

    pub fn complete(&self) -> bool {
        self.complete
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Why usage could not be read, when it could not.
    pub fn blind(&self) -> Option<&str> {
        match &self.mode {
            Mode::Blind(why) => Some(why),
            _ => None,
        }
    }
}

/// The error object a whole answer carried (in any element of a JSON-array stream).
fn answer_error(answer: &Value) -> Option<String> {
    let error = |v: &Value| {
        v.get("error")
            .filter(|e| !e.is_null())
            .map(crate::wire::stream::describe_error)
    };
    match answer {
        Value::Array(chunks) => chunks.iter().find_map(error),
        other => error(other),
    }
}

#[cfg(test)]
#[path = "meter_tests.rs"]
mod tests;
