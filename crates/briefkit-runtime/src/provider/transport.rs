//! One HTTP attempt: headers, status handling and `Retry-After`.
//!
//! This is the only code that reads the API key, and it marks the header sensitive so
//! that reqwest's own `Debug` output hides it too. No redirect is ever followed: a provider
//! API never needs one, and following it would carry the key (and, for 307/308, the item's
//! text) to whatever host the `Location` names.

use std::io::Read;
use std::time::{Duration, SystemTime};

use reqwest::blocking::{Client, Response};
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;

use super::Settings;
use super::redact::Redactor;
use super::stream::{self, Collected, Failure, Parser, describe_error, snippet};
use crate::clock::format_duration;
use crate::error::{CallStatus, Error, Result};

pub fn client(settings: &Settings) -> Result<Client> {
    // Chosen here rather than by a reqwest feature: ring builds quickly and needs no cmake.
    // Installing twice is harmless (the second call reports the first is in place).
    let _ = rustls::crypto::ring::default_provider().install_default();
    // reqwest's blocking `timeout` bounds each wait (for the response head, then for each
    // read of the body) rather than the whole request: an idle timeout, which is what a
    // long healthy stream needs.
    let mut builder = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(settings.connect_timeout)
        .timeout(settings.timeout)
        .user_agent(concat!("briefkit/", env!("CARGO_PKG_VERSION")));
    if settings.is_loopback() {
        // A proxy from the environment cannot reach this machine's own servers.
        builder = builder.no_proxy();
    }
    builder.build().map_err(|err| {
        Error::provider(format!("could not set up the HTTP client: {err}")).with_source(err)
    })
}

/// Sends `body` and reads the streamed answer through `parser`.
pub fn attempt(
    client: &Client,
    settings: &Settings,
    body: &Value,
    parser: &mut Parser,
) -> Result<Collected, Failure> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("text/event-stream"),
    );
    if let Some(key) = &settings.api_key {
        let (name, bearer) = settings.wire.key_header();
        let name = header::HeaderName::from_static(name);
        let value = if bearer {
            format!("Bearer {}", key.expose())
        } else {
            key.expose().to_string()
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            Failure::fatal(format!(
                "the API key in {} has characters a header cannot carry",
                settings.wire.key_var()
            ))
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    for (name, value) in settings.wire.headers() {
        headers.insert(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    let response = client
        .post(settings.endpoint())
        .headers(headers)
        .json(body)
        .send()
        .map_err(|err| send_failure(&err, settings))?;
    let status = response.status();
    if status.is_redirection() {
        return Err(redirect_failure(&response, settings));
    }
    if !status.is_success() {
        return Err(status_failure(response));
    }
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("application/json") || content_type.starts_with("text/html") {
        let text = read_capped(response);
        let reason = match serde_json::from_str::<Value>(&text) {
            Ok(json) if json.get("error").is_some_and(|e| !e.is_null()) => {
                format!(
                    "the server answered with an error: {}",
                    describe_error(&json["error"])
                )
            }
            _ => format!(
                "expected an event stream, got {content_type}: {}",
                snippet(&text)
            ),
        };
        return Err(Failure::fatal(reason));
    }
    stream::read(response, parser, settings.timeout)
}

/// A 3xx: never followed. The `Location` is named (cleaned: it is the server's text) so
/// the user can fix the base URL if the move is genuine.
fn redirect_failure(response: &Response, settings: &Settings) -> Failure {
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let location = match location {
        Some(l) => format!("to {}", clean(&l, 300, settings)),
        None => "without a Location".to_string(),
    };
    let mut failure = Failure::fatal(format!(
        "HTTP {status}: the server redirected {location}; brief follows no redirects, so the key and the request stayed with {}",
        settings.endpoint()
    ));
    failure.status = Some(status);
    failure.class = CallStatus::Http(status);
    failure
}

fn send_failure(err: &reqwest::Error, settings: &Settings) -> Failure {
    let cause = innermost(err);
    if err.is_timeout() && err.is_connect() {
        return Failure::retry(
            format!(
                "could not connect to {} within {} (connect timeout)",
                settings.endpoint(),
                format_duration(settings.connect_timeout)
            ),
            None,
        )
        .with_class(CallStatus::Connect);
    }
    if err.is_timeout() {
        return Failure::fatal(idle_message(settings.timeout)).with_class(CallStatus::Timeout);
    }
    if err.is_connect() {
        return Failure::retry(
            format!("could not connect to {}: {cause}", settings.endpoint()),
            None,
        )
        .with_class(CallStatus::Connect);
    }
    Failure::retry(format!("the request failed: {cause}"), None)
}

/// What an idle timeout says, wherever it fired.
pub fn idle_message(idle: Duration) -> String {
    format!(
        "no data from the server for {} (idle timeout)",
        format_duration(idle)
    )
}

fn innermost(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(inner) = current.source() {
        current = inner;
    }
    current.to_string()
}

fn status_failure(response: Response) -> Failure {
    let status = response.status();
    let wait = retry_after(response.headers(), SystemTime::now());
    let text = read_capped(response);
    let message = match serde_json::from_str::<Value>(&text) {
        Ok(json) => ["error", "detail", "message"]
            .iter()
            .find_map(|key| json.get(key).filter(|v| !v.is_null()))
            .map(describe_error)
            .unwrap_or_else(|| snippet(&text)),
        Err(_) => snippet(&text),
    };
    let mut reason = format!("HTTP {}", status.as_u16());
    if let Some(phrase) = status.canonical_reason() {
        reason.push(' ');
        reason.push_str(phrase);
    }
    if !message.is_empty() {
        reason.push_str(": ");
        reason.push_str(&message);
    }
    let mut failure = if status.as_u16() == 429 || status.is_server_error() {
        Failure::retry(reason, wait)
    } else {
        Failure::fatal(reason)
    };
    failure.status = Some(status.as_u16());
    failure.class = CallStatus::Http(status.as_u16());
    failure
}

/// At most 64 KiB of an error body: enough for any message, bounded for a broken server.
fn read_capped(response: Response) -> String {
    let mut bytes = Vec::new();
    let _ = response.take(64 * 1024).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The wait a server asked for: OpenAI's `retry-after-ms`, else `Retry-After` as seconds
/// or as an HTTP date.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// What the server asked, as asked: a wait too long to honour is reported with its real
/// length, not a capped one.
fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

/// An HTTP date in any of RFC 9110's three forms (`Sun, 06 Nov 1994 08:49:37 GMT` and the
/// two obsolete ones). A date the parser cannot hold (a year past 9999) is no date: the
/// call backs off as if none had been sent, rather than overflow calendar arithmetic.
fn http_date(text: &str) -> Option<SystemTime> {
    httpdate::parse_http_date(text).ok()
}

/// What to tell the user to do about a failure.
pub fn hint(settings: &Settings, failure: &Failure) -> String {
    match failure.status {
        Some(401 | 403) => format!(
            "check {} (keys are read only from the environment)",
            settings.wire.key_var()
        ),
        Some(404) => format!(
            "check the model name and the base URL (requests go to {})",
            settings.endpoint()
        ),
        Some(429) => "the provider is rate-limiting this key; wait and try again".into(),
        _ if failure.class == CallStatus::Connect => format!(
            "check the base URL ({}, or the brief's `model.base_url`) and the network",
            settings.wire.base_url_var()
        ),
        _ => "nothing was written; try again, or another model".into(),
    }
}

/// The redactor for this call's key and the environment's.
pub fn redactor(settings: &Settings) -> Redactor {
    Redactor::new(settings.api_key.as_ref().map(|k| k.expose()))
}

/// Removes every form of the key (see [`Redactor`]) and folds the text onto one line with
/// the one sanitiser.
pub fn scrub(text: &str, settings: &Settings) -> String {
    crate::text::sanitize::one_line(&redactor(settings).redact(text), 600)
}

/// A short server-provided string (a `Location`, a model name) made safe to print and to
/// store: keys in any form removed, escapes and control characters stripped, one line.
pub fn clean(text: &str, max: usize, settings: &Settings) -> String {
    crate::text::sanitize::one_line(&redactor(settings).redact(text), max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Wire;
    use std::time::UNIX_EPOCH;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_reads_seconds_milliseconds_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_767); // Sun, 06 Nov 1994 08:49:27
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")]), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
                now
            ),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")]), now), None);
        assert_eq!(retry_after(&headers(&[]), now), None);
    }

    /// Regression (issue 23): a `Retry-After` date with a huge year overflowed the
    /// calendar arithmetic and panicked. Such a date is ignored now; the latest date HTTP
    /// can carry is a wait too long to honour, reported as asked.
    #[test]
    fn a_retry_after_date_with_a_huge_year_does_not_panic() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_767);
        for year in ["99999", "9223372036854775807", "-1", "18446744073709551616"] {
            let value = format!("Sun, 06 Nov {year} 08:49:37 GMT");
            assert_eq!(retry_after(&headers(&[("retry-after", &value)]), now), None);
        }
        let far = retry_after(
            &headers(&[("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT")]),
            now,
        )
        .unwrap();
        assert!(far > Duration::from_secs(250_000_000_000), "{far:?}");
        assert_eq!(
            retry_after(
                &headers(&[("retry-after", "Sunday, 06-Nov-94 08:49:37 GMT")]),
                now
            ),
            Some(Duration::from_secs(10)),
            "the obsolete RFC 850 form"
        );
    }

    #[test]
    fn scrub_removes_the_key_and_keeps_one_line() {
        let mut settings = Settings::new(Wire::OpenAi, "m", "http://x");
        settings.api_key = Some(super::super::ApiKey::new("sk-test-SECRET123"));
        assert_eq!(
            scrub("bad key sk-test-SECRET123\nbye", &settings),
            "bad key [redacted] bye"
        );
    }
}
