//! Model calls in every wire (OpenAI-compatible chat completions, OpenAI Responses,
//! Anthropic messages, Gemini `generateContent`), streamed.
//!
//! `brief compress` needs the text of an answer and must never mistake a cut-off answer
//! for a short proposal; `brief probe` needs each call's usage, including whether the
//! server reported cached tokens at all. Both get one blocking [`call`] that either returns
//! a complete [`Answer`] or fails with exit code 3 and a one-line reason. Retries, backoff
//! and `Retry-After` are handled here; the API key never leaves [`ApiKey`] except as a
//! request header, and every error message is scrubbed of it.
//!
//! The request bodies are `crate::wire`'s renderings plus per-call fields
//! (`Wire::per_call`), and the streams are read by the wire's own reader
//! (`crate::wire::stream`), so what `brief compose --format …` shows is what is sent and
//! nothing here knows a wire by name.

mod length_field;
pub use crate::redact;
mod settings;
pub mod sse;
mod stream;
mod tool_calls;
mod transport;

use std::time::{Duration, Instant};

use serde_json::Value;

pub use crate::wire::Usage;
pub use length_field::TokenField;
pub use settings::{
    ApiKey, DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, Overrides, Settings, TIMEOUT_VAR, choice,
    configured_base_url, parse_base_url,
};
pub use tool_calls::ToolCall;

use crate::clock::format_duration;
use crate::error::{CallStatus, Error, Result, Topic};
use crate::wire::Prompt;
use stream::{Collected, Failure};

/// The largest answer text accepted (the limit lives with every other in the core, where
/// the store checks it too).
pub use crate::files::limits::MAX_ANSWER_BYTES;

/// Per-call choices.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOptions {
    /// The answer's length cap. Anthropic requires one; 1 is the smallest.
    pub max_tokens: u32,
    /// `None` leaves the model's default (some reasoning models accept no other).
    pub temperature: Option<f64>,
    /// OpenAI `prompt_cache_key`, which routes calls with one prefix to one cache.
    pub cache_key: Option<String>,
    /// Refuse an empty answer and one that stopped for any reason but a natural end
    /// (`length`, `max_tokens`, `content_filter`, …): an incomplete text must not become a
    /// proposal. A probe wants usage, not text, and turns this off.
    pub require_complete: bool,
}

impl CallOptions {
    /// For a text the caller will use: complete answers only.
    pub fn text(max_tokens: u32) -> Self {
        CallOptions {
            max_tokens,
            temperature: None,
            cache_key: None,
            require_complete: true,
        }
    }

    /// The smallest call that still reports usage: a one-token answer, whatever it says.
    pub fn probe() -> Self {
        CallOptions {
            max_tokens: 1,
            temperature: None,
            cache_key: None,
            require_complete: false,
        }
    }
}

/// A finished answer, as received (no sanitising: that is the caller's job).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    /// The provider's own word: `stop`, `length`, `end_turn`, `max_tokens`, …
    pub finish_reason: String,
    /// The model ended on its own (`stop`, `end_turn`, `stop_sequence`).
    pub complete: bool,
    /// Normalised usage; `None` when the server reported none (some compatible servers
    /// ignore `stream_options.include_usage`).
    pub usage: Option<Usage>,
    /// The usage object exactly as the server sent it (Anthropic: `message_start`'s with
    /// `message_delta`'s fields on top), for the record and for debugging odd servers.
    pub raw_usage: Option<Value>,
    /// The model as the server reported it (cleaned: keys redacted, escapes and control
    /// characters stripped, one line of at most 200 characters), else as requested.
    pub model: String,
    /// The answer's text or a tool call's arguments hold the API key (or another key from the environment), as sent
    /// or changed (case, percent-encoding, base64): it must not be saved as an ordinary
    /// answer.
    pub contains_key: bool,
    /// The tools the model called, in its order (empty when it only answered in text).
    pub tool_calls: Vec<ToolCall>,
    /// Time of the successful attempt, from sending to the end of the stream.
    pub latency: Duration,
    /// HTTP requests made, the successful one included.
    pub attempts: u32,
}

impl crate::cache::ledger::Answered for Answer {
    fn attempts(&self) -> u32 {
        self.attempts
    }
    fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }
}

/// A provider with its HTTP client, for several calls in a row (a probe's N calls reuse
/// one connection pool).
pub struct Provider {
    settings: Settings,
    client: reqwest::blocking::Client,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// One call with fresh settings; see [`Provider::call`].
pub fn call(settings: &Settings, prompt: &Prompt, options: &CallOptions) -> Result<Answer> {
    Provider::new(settings.clone())?.call(prompt, options)
}

impl Provider {
    pub fn new(settings: Settings) -> Result<Provider> {
        let client = transport::client(&settings)?;
        Ok(Provider { settings, client })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Sends `prompt` and waits for the whole streamed answer.
    ///
    /// Connection errors, 429 and 5xx are retried up to `max_attempts` requests in all,
    /// waiting `retry_base` doubled each time or what `Retry-After` asks (at most
    /// `max_retry_wait`; a server asking for longer ends the call). Anything else that goes
    /// wrong (another status, a body that is not the expected stream, a stream cut off
    /// before its end marker, an empty or incomplete answer when `require_complete`) fails
    /// at once. Errors are `ErrorKind::Provider` (exit 3).
    pub fn call(&self, prompt: &Prompt, options: &CallOptions) -> Result<Answer> {
        if prompt.messages.is_empty() {
            return Err(Error::input("a model call needs at least one message"));
        }
        let body = crate::wire::body(
            prompt,
            self.settings.wire,
            Some(&self.settings.model),
            options.cache_key.as_deref(),
        );
        self.call_body(&body, options)
    }

    /// Sends a request body made elsewhere (a session's render, in this provider's wire
    /// format, tools and tool calls included) with the per-call fields set; retries and
    /// failures as [`Provider::call`].
    pub fn call_body(&self, body: &Value, options: &CallOptions) -> Result<Answer> {
        let settings = &self.settings;
        let wire = settings.wire;
        let mut field = TokenField::for_settings(settings);
        let mut switched_field = false;
        let mut counted = 0u32;
        let mut requests = 0u32;
        let mut log = Vec::new();
        loop {
            counted += 1;
            requests += 1;
            let fields = crate::wire::CallFields {
                model: &settings.model,
                max_tokens: options.max_tokens,
                temperature: options.temperature,
                cache_key: options.cache_key.as_deref(),
                length_field: field.name(),
            };
            let body = wire.per_call(body.clone(), &fields);
            let mut parser = stream::Parser::new(wire);
            let started = Instant::now();
            let failure = match transport::attempt(&self.client, settings, &body, &mut parser) {
                Ok(collected) => {
                    match self.answer(collected, started.elapsed(), requests, options) {
                        Ok(answer) => return Ok(answer),
                        Err(failure) => failure,
                    }
                }
                Err(failure) => failure,
            };
            log.push(format!("attempt {requests}: {}", failure.reason));
            if wire.has_length_field_choice()
                && !switched_field
                && failure.status == Some(400)
                && TokenField::mentioned_in(&failure.reason)
            {
                field = field.other();
                switched_field = true;
                counted -= 1;
                continue;
            }
            if !failure.retry || counted >= settings.max_attempts {
                return Err(self.error(&failure, requests, log));
            }
            let wait = match failure.wait {
                Some(asked) if asked > settings.max_retry_wait => {
                    let mut failure = failure.clone();
                    failure.reason = format!(
                        "{} (the server asked to wait {} (Retry-After); brief waits at most {}, so it stopped instead of retrying)",
                        failure.reason,
                        format_duration(asked),
                        format_duration(settings.max_retry_wait)
                    );
                    return Err(self.error(&failure, requests, log));
                }
                Some(asked) => {
                    if let Some(last) = log.last_mut() {
                        last.push_str(&format!(
                            "; waited {} as the server asked (Retry-After)",
                            format_duration(asked)
                        ));
                    }
                    asked
                }
                None => {
                    let wait = backoff(settings, counted);
                    if let Some(last) = log.last_mut() {
                        last.push_str(&format!("; waited {} (backoff)", format_duration(wait)));
                    }
                    wait
                }
            };
            std::thread::sleep(wait);
        }
    }

    fn answer(
        &self,
        collected: Collected,
        latency: Duration,
        attempts: u32,
        options: &CallOptions,
    ) -> Result<Answer, Failure> {
        let kind = self.settings.wire;
        let finish_reason = collected.finish_reason.unwrap_or_default();
        let complete =
            tool_calls::is_tool_stop(&finish_reason) || kind.natural_stop(&finish_reason);
        let tool_calls = tool_calls::judge(collected.tool_calls)?;
        if options.require_complete {
            if collected.text.trim().is_empty() && tool_calls.is_empty() {
                return Err(Failure::fatal("the model's answer is empty"));
            }
            if !complete {
                return Err(Failure::fatal(format!(
                    "the model stopped early ({finish_reason}): the answer is incomplete"
                )));
            }
        }
        if collected.text.len() > MAX_ANSWER_BYTES {
            return Err(Failure::fatal(format!(
                "the answer is {} bytes; the limit is {} KiB: refused, nothing written",
                collected.text.len(),
                MAX_ANSWER_BYTES / 1024
            )));
        }
        let usage = collected
            .raw_usage
            .as_ref()
            .and_then(|raw| Usage::of(kind, raw));
        let model = match collected.model {
            Some(model) => transport::clean(&model, 200, &self.settings),
            None => self.settings.model.clone(),
        };
        let redactor = transport::redactor(&self.settings);
        let contains_key = redactor.finds_key(&collected.text)
            || tool_calls
                .iter()
                .any(|c| redactor.finds_key(&c.arguments.to_string()));
        Ok(Answer {
            contains_key,
            text: collected.text,
            finish_reason,
            complete,
            usage,
            raw_usage: collected.raw_usage,
            model,
            tool_calls,
            latency,
            attempts,
        })
    }

    fn error(&self, failure: &Failure, requests: u32, log: Vec<String>) -> Error {
        let settings = &self.settings;
        let mut message = format!(
            "{} call to {} failed: {}",
            settings.wire, settings.model, failure.reason
        );
        if requests > 1 {
            message.push_str(&format!(" (after {requests} attempts)"));
        }
        let details = if requests > 1 {
            log.iter()
                .map(|line| transport::scrub(line, settings))
                .collect()
        } else {
            Vec::new()
        };
        let mut error = Error::provider(transport::scrub(&message, settings))
            .with_call_status(failure.class.clone())
            .with_details(details)
            .with_hint(transport::scrub(
                &transport::hint(settings, failure),
                settings,
            ));
        error = error.with_attempts(u16::try_from(requests).unwrap_or(u16::MAX));
        match failure.class {
            CallStatus::Connect => {
                error = error.with_topic(Topic::Unreachable {
                    wire: settings.wire,
                });
            }
            CallStatus::Timeout => {
                error = error.with_topic(Topic::IdleTimeout {
                    after: settings.timeout,
                });
            }
            _ => {}
        }
        error
    }
}

/// `retry_base` doubled per retry, capped at `max_retry_wait`.
fn backoff(settings: &Settings, retry: u32) -> Duration {
    let factor = 2u32.saturating_pow(retry.saturating_sub(1).min(16));
    settings
        .retry_base
        .saturating_mul(factor)
        .min(settings.max_retry_wait)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Wire;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let mut settings = Settings::new(Wire::OpenAi, "m", "http://x");
        settings.retry_base = Duration::from_millis(100);
        settings.max_retry_wait = Duration::from_millis(350);
        assert_eq!(backoff(&settings, 1), Duration::from_millis(100));
        assert_eq!(backoff(&settings, 2), Duration::from_millis(200));
        assert_eq!(backoff(&settings, 3), Duration::from_millis(350));
        assert_eq!(backoff(&settings, 40), Duration::from_millis(350));
    }
}
