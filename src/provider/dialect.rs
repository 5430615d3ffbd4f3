//! What a model call needs of its wire beyond the request body (which `crate::wire`
//! writes): the per-call fields, the headers, the stream parser and which stop is a
//! natural end. One implementation per wire, in that wire's module ([`super::openai`],
//! [`super::anthropic`]); [`of`] is the one place that picks it, so the call loop knows no
//! wire by name.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::openai::TokenField;
use super::stream::Parser;
use super::{CallOptions, Settings};
use crate::wire::Wire;

pub trait Dialect: Sync {
    /// `body` with the per-call fields set: the model, the length cap (in `field` where the
    /// wire has a choice), the temperature, streaming with usage.
    fn per_call(
        &self,
        settings: &Settings,
        body: Value,
        options: &CallOptions,
        field: TokenField,
    ) -> Value;

    /// Headers every request of this wire carries besides the key's (e.g. an API
    /// version).
    fn headers(&self, _headers: &mut HeaderMap) {}

    /// A fresh parser for one streamed answer.
    fn parser(&self) -> Box<dyn Parser>;

    /// Whether `finish_reason` is the model ending on its own (not cut by a length cap or
    /// a filter). Tool-call stops are judged apart, for every wire.
    fn natural_stop(&self, finish_reason: &str) -> bool;

    /// Whether a 400 naming the length field is worth one retry with the other field
    /// (OpenAI-compatible servers disagree on `max_tokens` and `max_completion_tokens`).
    fn has_length_field_choice(&self) -> bool {
        false
    }
}

/// The dialect of `wire`.
pub fn of(wire: Wire) -> &'static dyn Dialect {
    match wire {
        Wire::OpenAi => &super::openai::OpenAi,
        Wire::Anthropic => &super::anthropic::Anthropic,
    }
}
