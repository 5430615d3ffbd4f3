//! Reading a streamed answer, one event at a time, into one shape whatever the wire: its
//! text, tool calls, usage, stop reason and whether the wire's end marker arrived.
//!
//! Every consumer of a stream — the provider's call loop, which wants a complete answer,
//! and the proxy's meter, which only wants usage and must never hold an answer back —
//! reads it through the same per-wire [`Reader`] (one per wire module), so a wire is read
//! the same way everywhere. What a consumer does with a malformed event is its own
//! choice: the provider refuses the answer, the meter skips the event.

use serde_json::Value;

use super::Wire;
pub use crate::text::sanitize::one_line;

/// One tool call assembled from its stream fragments, its arguments still JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamedCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// What a stream said so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Streamed {
    pub text: String,
    /// The wire's own word for why the model stopped (`stop`, `end_turn`, `completed`,
    /// `STOP`, `max_output_tokens`, …).
    pub finish_reason: Option<String>,
    /// The usage object as the wire reports it (Anthropic: `message_start`'s with
    /// `message_delta`'s fields on top), for [`super::Usage::of`].
    pub usage: Option<Value>,
    /// The model as the server reported it.
    pub model: Option<String>,
    pub tool_calls: Vec<StreamedCall>,
    /// The wire's end marker arrived (`[DONE]`, `message_stop`, `response.completed`, …;
    /// Gemini, which has none: a candidate's finish reason).
    pub ended: bool,
}

/// Why an event could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum EventError {
    /// Not what the wire sends: not JSON, no type, an unknown shape. The text says what.
    Malformed(String),
    /// The stream carried an error (an `error` event, an error object, a failed
    /// response).
    Carried(Carried),
}

/// An error a stream carried, as one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// `type: message`.
    pub message: String,
    /// Whether the same request may succeed later (an overload, a server error), as a 5xx
    /// before the headers would have been.
    pub retry: bool,
}

/// The stream's end marker arrived, or more may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Nothing after it is read.
    Done,
}

/// Why a stream that ran out is not a finished answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Unfinished {
    pub reason: String,
    /// The stream was cut short (as opposed to finished without a stop reason).
    pub truncated: bool,
}

/// One wire's reading of its events.
pub trait Reader: Send + Sync {
    /// Reads one event: its SSE `event:` name, if any, and its data.
    fn event(&mut self, name: Option<&str>, data: &str) -> Result<Flow, EventError>;
    /// What was read so far.
    fn streamed(&self) -> &Streamed;
    /// What was read so far, to add to.
    fn streamed_mut(&mut self) -> &mut Streamed;
    /// Takes what was read.
    fn take(&mut self) -> Streamed {
        std::mem::take(self.streamed_mut())
    }
    /// Once the bytes ran out (or the end marker came): why this is not a finished answer,
    /// or `None` when it is one.
    fn unfinished(&self) -> Option<Unfinished>;
}

/// The [`Reader::streamed`] and [`Reader::streamed_mut`] of a reader that keeps what it
/// read in a field named `streamed`.
macro_rules! streamed_field {
    () => {
        fn streamed(&self) -> &Streamed {
            &self.streamed
        }

        fn streamed_mut(&mut self) -> &mut Streamed {
            &mut self.streamed
        }
    };
}
pub(crate) use streamed_field;

/// A stream cut off before `marker` (the event that ends a finished answer on this wire),
/// with how much of it had come.
pub fn cut_off(marker: &str, events: usize, streamed: &Streamed) -> Unfinished {
    Unfinished {
        reason: format!(
            "the stream was cut off before {marker} ({events} events, {} characters received)",
            streamed.text.chars().count()
        ),
        truncated: true,
    }
}

/// `None` once `streamed` ended, else [`cut_off`] before `marker`: for a wire whose end
/// marker is all a finished answer needs.
pub(crate) fn unless_ended(marker: &str, events: usize, streamed: &Streamed) -> Option<Unfinished> {
    (!streamed.ended).then(|| cut_off(marker, events, streamed))
}

/// An event's type: its `type` field, else its SSE `event:` name.
pub(crate) fn kind<'a>(
    value: &'a Value,
    name: Option<&'a str>,
    data: &str,
) -> Result<&'a str, EventError> {
    value
        .get("type")
        .and_then(Value::as_str)
        .or(name)
        .ok_or_else(|| {
            EventError::Malformed(format!(
                "the server sent an event without a type: {}",
                snippet(data)
            ))
        })
}

/// A fresh reader of `wire`'s streamed answers.
pub fn reader(wire: Wire) -> Box<dyn Reader> {
    match wire {
        Wire::OpenAi => Box::<super::openai::Stream>::default(),
        Wire::Responses => Box::<super::responses::Stream>::default(),
        Wire::Anthropic => Box::<super::anthropic::Stream>::default(),
        Wire::Gemini => Box::<super::gemini::Stream>::default(),
    }
}

/// A provider's error object as one line: `type: message` (OpenAI `{message, type, code}`,
/// Anthropic `{type, message}`, Gemini `{code, message, status}`, or a bare string).
pub fn describe_error(error: &Value) -> String {
    if let Some(text) = error.as_str() {
        return one_line(text, 300);
    }
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(|m| one_line(m, 300))
        .unwrap_or_else(|| snippet(&error.to_string()));
    let kind = ["type", "code", "status"]
        .iter()
        .find_map(|key| error.get(key).and_then(Value::as_str));
    match kind {
        Some(kind) if !message.contains(kind) => format!("{kind}: {message}"),
        _ => message,
    }
}

/// The start of some text the server sent, on one line.
pub fn snippet(text: &str) -> String {
    one_line(text, 120)
}

/// Parses an event's data as JSON, or says it is not.
pub(crate) fn json(data: &str) -> Result<Value, EventError> {
    serde_json::from_str(data).map_err(|_| {
        EventError::Malformed(format!(
            "the server sent an event that is not JSON: {}",
            snippet(data)
        ))
    })
}

/// A carried error that may not be retried.
pub(crate) fn carried(error: &Value) -> EventError {
    EventError::Carried(Carried {
        message: describe_error(error),
        retry: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provider_errors_read_as_one_line() {
        assert_eq!(
            describe_error(&json!({"type": "overloaded_error", "message": "Overloaded"})),
            "overloaded_error: Overloaded"
        );
        assert_eq!(
            describe_error(&json!({"message": "bad\n  model", "type": null, "code": "x"})),
            "x: bad model"
        );
        assert_eq!(describe_error(&json!("plain")), "plain");
        assert_eq!(
            describe_error(&json!({"code": 400, "message": "no", "status": "INVALID_ARGUMENT"})),
            "INVALID_ARGUMENT: no"
        );
    }
}
