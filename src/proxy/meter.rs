//! Reading usage out of an answer while it passes through, without holding it back.
//!
//! The proxy hands every chunk to the client first and to the meter second. The meter
//! undoes a `gzip`/`deflate` content encoding on its own copy (the client still gets the
//! encoded bytes), then either decodes the event stream as it goes (SSE answers: usage
//! frames, the end marker, error events) or keeps a bounded copy of a JSON answer to read
//! its `usage` at the end. Normalisation is the provider module's [`Usage`], so a proxied
//! call is counted exactly like the toolkit's own calls.

use std::io::Write;

use flate2::write::{GzDecoder, ZlibDecoder};
use serde_json::{Map, Value};

use crate::provider::sse::Decoder;
use crate::wire::Usage;
use crate::wire::Wire;

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
    /// Anthropic splits usage over `message_start` and `message_delta`; merged here.
    anthropic_usage: Map<String, Value>,
    usage: Option<Usage>,
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
            anthropic_usage: Map::new(),
            usage: None,
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
            Decode::Identity => return self.take(chunk.to_vec()),
            Decode::Gzip(d) => d.write_all(chunk).map(|_| std::mem::take(d.get_mut())),
            Decode::Zlib(d) => d.write_all(chunk).map(|_| std::mem::take(d.get_mut())),
        };
        match decoded {
            Ok(bytes) => self.take(bytes),
            Err(err) => self.mode = Mode::Blind(format!("usage not read: {err}")),
        }
    }

    fn take(&mut self, bytes: Vec<u8>) {
        match &mut self.mode {
            Mode::Sse(decoder) => match decoder.feed(&bytes) {
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
                } else if copy.is_empty() {
                    *copy = bytes;
                } else {
                    copy.extend_from_slice(&bytes);
                }
            }
            Mode::Blind(_) => {}
        }
    }

    fn event(&mut self, name: Option<&str>, data: &str) {
        if self.complete {
            return;
        }
        if data.trim() == "[DONE]" {
            self.complete = true;
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let kind = name
            .or_else(|| value.get("type").and_then(Value::as_str))
            .unwrap_or("");
        match self.wire {
            Wire::OpenAi => {
                if let Some(usage) = value.get("usage").and_then(crate::wire::openai::usage) {
                    self.usage = Some(usage);
                }
                if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
                    self.error = Some(describe(error));
                }
            }
            Wire::Anthropic => match kind {
                "message_start" => {
                    if let Some(Value::Object(usage)) = value.pointer("/message/usage") {
                        self.merge_anthropic(usage);
                    }
                }
                "message_delta" => {
                    if let Some(Value::Object(usage)) = value.get("usage") {
                        self.merge_anthropic(usage);
                    }
                }
                "message_stop" => self.complete = true,
                "error" => {
                    self.error = Some(describe(value.get("error").unwrap_or(&value)));
                }
                _ => {}
            },
        }
    }

    fn merge_anthropic(&mut self, usage: &Map<String, Value>) {
        for (key, value) in usage {
            if !value.is_null() {
                self.anthropic_usage.insert(key.clone(), value.clone());
            }
        }
        self.usage = crate::wire::anthropic::usage(&Value::Object(self.anthropic_usage.clone()));
    }

    /// The answer's bytes ran out normally. A JSON answer is read now; a stream that never
    /// sent its end marker stays incomplete.
    pub fn end(&mut self) {
        let flushed = match &mut self.decode {
            Decode::Identity => Ok(Vec::new()),
            Decode::Gzip(d) => d.try_finish().map(|_| std::mem::take(d.get_mut())),
            Decode::Zlib(d) => d.try_finish().map(|_| std::mem::take(d.get_mut())),
        };
        match flushed {
            Ok(bytes) if !bytes.is_empty() => self.take(bytes),
            Ok(_) => {}
            Err(err) => self.mode = Mode::Blind(format!("usage not read: {err}")),
        }
        if let Mode::Json(copy) = &self.mode {
            self.complete = true;
            if let Ok(value) = serde_json::from_slice::<Value>(copy) {
                let usage = value.get("usage");
                self.usage = usage.and_then(|raw| Usage::of(self.wire, raw));
                if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
                    self.error = Some(describe(error));
                }
            }
        } else if let Mode::Blind(_) = self.mode {
            // Framing ended cleanly; without reading it we cannot say more.
            self.complete = !self.is_stream();
        }
    }

    pub fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
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

/// A provider error object as one line: `type: message`.
fn describe(error: &Value) -> String {
    if let Some(text) = error.as_str() {
        return text.to_string();
    }
    let kind = error.get("type").and_then(Value::as_str);
    let message = error.get("message").and_then(Value::as_str);
    match (kind, message) {
        (Some(kind), Some(message)) => format!("{kind}: {message}"),
        (None, Some(message)) => message.to_string(),
        _ => crate::wire::canonical::to_string(error),
    }
}

#[cfg(test)]
#[path = "meter_tests.rs"]
mod tests;
