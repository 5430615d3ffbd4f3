//! Reading usage out of an answer while it passes through, without holding it back.
//!
//! The proxy hands every chunk to the client first and to the meter second. The meter
//! undoes a `gzip`, `deflate`, `br` or `zstd` content encoding on its own copy (the client
//! still gets the encoded bytes), then either decodes the event stream as it goes (SSE answers: usage
//! frames, the end marker, error events) or keeps a bounded copy of a JSON answer to read
//! its `usage` at the end. Events are read by the wire's own reader and usage normalised
//! by the wire's module ([`Usage`]), so a proxied call is counted exactly like the
//! toolkit's own calls, in every wire.

use std::io::{self, Write};

use flate2::write::{GzDecoder, ZlibDecoder};
use serde_json::Value;

use crate::provider::sse::Decoder;
use crate::wire::stream::{EventError, Flow, Reader};
use crate::wire::{Usage, Wire};

/// A JSON answer longer than this is relayed in full but not read for usage.
const MAX_COPY: usize = 16 * 1024 * 1024;

/// The answer's content encoding undone on the meter's copy. Each decoder writes what it
/// decodes straight into the [`Reading`] it wraps, a buffer at a time, so a small
/// compressed chunk that inflates to gigabytes is read as it inflates, never held; and
/// each is flushed after every chunk, so the last event is read as soon as its bytes came
/// (not one chunk late, when a client that hangs up after it has already gone).
enum Decode {
    Identity(Reading),
    Gzip(Box<GzDecoder<Reading>>),
    Zlib(Box<ZlibDecoder<Reading>>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Reading>>),
    Zstd(Box<zstd::stream::write::Decoder<'static, Reading>>),
}

impl Decode {
    /// The decoder for `encoding` around a fresh reading, or a plain reading and why the
    /// encoding cannot be read.
    fn new(encoding: Option<&str>, wire: Wire, sse: bool) -> (Decode, Option<String>) {
        let reading = Reading::new(wire, sse);
        let encoding = encoding.map(|e| e.trim().to_ascii_lowercase());
        let decode = match encoding.as_deref() {
            None | Some("" | "identity") => Decode::Identity(reading),
            Some("gzip" | "x-gzip") => Decode::Gzip(Box::new(GzDecoder::new(reading))),
            Some("deflate") => Decode::Zlib(Box::new(ZlibDecoder::new(reading))),
            Some("br") => Decode::Brotli(Box::new(brotli_decompressor::DecompressorWriter::new(
                reading, 4096,
            ))),
            Some("zstd") => match zstd::stream::write::Decoder::new(reading) {
                Ok(decoder) => Decode::Zstd(Box::new(decoder)),
                Err(err) => {
                    let why = format!("usage not read: no zstd decoder: {err}");
                    return (Decode::Identity(Reading::new(wire, sse)), Some(why));
                }
            },
            Some(other) => {
                let why = format!(
                    "usage not read: the answer is {other}-encoded, which the proxy does not decode"
                );
                return (Decode::Identity(reading), Some(why));
            }
        };
        (decode, None)
    }

    fn reading(&self) -> &Reading {
        match self {
            Decode::Identity(r) => r,
            Decode::Gzip(d) => d.get_ref(),
            Decode::Zlib(d) => d.get_ref(),
            Decode::Brotli(d) => d.get_ref(),
            Decode::Zstd(d) => d.get_ref(),
        }
    }

    fn reading_mut(&mut self) -> &mut Reading {
        match self {
            Decode::Identity(r) => r,
            Decode::Gzip(d) => d.get_mut(),
            Decode::Zlib(d) => d.get_mut(),
            Decode::Brotli(d) => d.get_mut(),
            Decode::Zstd(d) => d.get_mut(),
        }
    }

    /// Decodes one chunk and everything it completes.
    fn feed(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self {
            Decode::Identity(r) => r.write_all(chunk),
            Decode::Gzip(d) => d.write_all(chunk).and_then(|_| d.flush()),
            Decode::Zlib(d) => d.write_all(chunk).and_then(|_| d.flush()),
            Decode::Brotli(d) => d.write_all(chunk).and_then(|_| d.flush()),
            Decode::Zstd(d) => d.write_all(chunk).and_then(|_| d.flush()),
        }
    }

    /// The encoded bytes ran out: whatever the decoder still holds.
    fn finish(&mut self) -> io::Result<()> {
        match self {
            Decode::Identity(_) => Ok(()),
            Decode::Gzip(d) => d.try_finish(),
            Decode::Zlib(d) => d.try_finish(),
            Decode::Brotli(d) => d.flush(),
            Decode::Zstd(d) => d.flush(),
        }
    }
}

enum Mode {
    Sse(Box<Decoder>),
    Json(Vec<u8>),
    /// Usage cannot be read (an encoding we do not decode, a body too long); says why.
    Blind(String),
}

/// What the meter makes of the decoded answer: an event stream read as it passes, keeping
/// only what usage needs (never the answer's text), or a bounded copy of a JSON answer.
struct Reading {
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

impl Reading {
    fn new(wire: Wire, sse: bool) -> Reading {
        Reading {
            mode: if sse {
                Mode::Sse(Box::new(Decoder::new()))
            } else {
                Mode::Json(Vec::new())
            },
            reader: crate::wire::stream::reader(wire),
            answer_usage: None,
            complete: false,
            error: None,
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
        // The reader assembles the answer for the provider's call loop; the meter needs
        // only usage, the end marker and carried errors, so the text read so far is let go
        // at every event: memory stays flat whatever the answer's length.
        let streamed = self.reader.streamed_mut();
        streamed.text = String::new();
        for call in &mut streamed.tool_calls {
            call.arguments = String::new();
        }
    }
}

impl Write for Reading {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.take(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

pub struct Meter {
    wire: Wire,
    /// The answer is an event stream (its content type said so).
    stream: bool,
    decode: Decode,
    /// The content encoding could not be decoded: why.
    undecoded: Option<String>,
}

impl Meter {
    /// A meter for an answer with these response headers' values.
    pub fn new(wire: Wire, content_type: Option<&str>, content_encoding: Option<&str>) -> Meter {
        let sse = content_type.is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
        });
        let (decode, undecoded) = Decode::new(content_encoding, wire, sse);
        Meter {
            wire,
            stream: sse,
            decode,
            undecoded,
        }
    }

    pub fn is_stream(&self) -> bool {
        self.stream
    }

    fn reading(&self) -> &Reading {
        self.decode.reading()
    }

    /// Reads one chunk of the answer as it was sent.
    pub fn feed(&mut self, chunk: &[u8]) {
        let reading = self.reading();
        if self.undecoded.is_some()
            || matches!(reading.mode, Mode::Blind(_))
            || (reading.complete && self.is_stream())
        {
            return;
        }
        if let Err(err) = self.decode.feed(chunk) {
            self.undecoded = Some(format!("usage not read: {err}"));
        }
    }

    /// The answer's bytes ran out normally. A JSON answer is read now; a stream that never
    /// sent its end marker stays incomplete (a Gemini stream, which has none, is complete
    /// once a candidate said why it finished).
    pub fn end(&mut self) {
        if self.undecoded.is_none()
            && !self.reading().complete
            && let Err(err) = self.decode.finish()
        {
            self.undecoded = Some(format!("usage not read: {err}"));
        }
        let wire = self.wire;
        let readable = self.undecoded.is_none();
        let reading = self.decode.reading_mut();
        match &reading.mode {
            Mode::Json(copy) if readable => {
                reading.complete = true;
                if let Ok(value) = serde_json::from_slice::<Value>(copy) {
                    reading.answer_usage = Usage::of_answer(wire, &value);
                    reading.error = answer_error(&value);
                }
            }
            Mode::Sse(_) if readable => {
                reading.complete = reading.complete || reading.reader.streamed().ended;
            }
            // Framing ended cleanly; without reading it we cannot say more.
            _ => {}
        }
    }

    /// The usage read so far (a stream's), or the whole answer's.
    pub fn usage(&self) -> Option<Usage> {
        let reading = self.reading();
        if reading.answer_usage.is_some() {
            return reading.answer_usage.clone();
        }
        let raw = reading.reader.streamed().usage.as_ref()?;
        Usage::of(self.wire, raw)
    }

    /// The answer ended as its wire ends a finished answer (its end marker came; a JSON
    /// answer ended and parsed).
    pub fn complete(&self) -> bool {
        let reading = self.reading();
        // A Gemini stream has no end marker: a candidate that said why it finished ends
        // it, as soon as it is read (the client may hang up right after).
        reading.complete || (self.stream && reading.reader.streamed().ended)
    }

    pub fn error(&self) -> Option<&str> {
        self.reading().error.as_deref()
    }

    /// Why usage could not be read, when it could not (an encoding the proxy does not
    /// decode, a body too long): such an answer is not judged, and never counted a failure.
    pub fn blind(&self) -> Option<&str> {
        if let Some(why) = &self.undecoded {
            return Some(why);
        }
        match &self.reading().mode {
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
