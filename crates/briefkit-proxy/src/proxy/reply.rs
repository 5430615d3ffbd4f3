//! Answers the proxy writes itself, each in the shape its client expects: errors in the
//! provider's own error format (so an SDK raises its usual exception with our message),
//! and the JSON and text of `/stats` and `/metrics`.

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use serde_json::json;

use super::{BodyError, MAX_BODY_BYTES, ProxyBody};
use crate::wire::Wire;

pub fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<ProxyBody> {
    let mut response = Response::new(
        Full::new(body.into())
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_str(content_type).expect("a valid content type"),
    );
    response
}

/// An error in the wire format of `wire`: OpenAI `{"error": {message, type, param, code}}`,
/// Anthropic `{"type": "error", "error": {type, message}}`, Gemini `{"error": {code,
/// message, status}}`.
pub fn error(
    wire: Wire,
    status: StatusCode,
    kind: &str,
    code: &str,
    message: &str,
) -> Response<ProxyBody> {
    let body = match wire {
        Wire::OpenAi | Wire::Responses => json!({"error": {
            "message": message, "type": kind, "param": null, "code": code
        }}),
        Wire::Anthropic => json!({"type": "error", "error": {"type": kind, "message": message}}),
        Wire::Gemini => json!({"error": {
            "code": status.as_u16(), "message": message, "status": google_status(status)
        }}),
    };
    full(status, "application/json", body.to_string())
}

/// The canonical status name Google's APIs give an HTTP status.
fn google_status(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 413 => "INVALID_ARGUMENT",
        404 => "NOT_FOUND",
        408 | 504 => "DEADLINE_EXCEEDED",
        502 | 503 => "UNAVAILABLE",
        _ => "UNKNOWN",
    }
}

/// The upstream could not be reached, failed before answering, or did not answer in time.
pub fn upstream_failed(wire: Wire, message: &str) -> Response<ProxyBody> {
    let kind = match wire {
        Wire::OpenAi | Wire::Responses | Wire::Gemini => "server_error",
        Wire::Anthropic => "api_error",
    };
    let message = format!("brief proxy: {message}");
    error(
        wire,
        StatusCode::BAD_GATEWAY,
        kind,
        "upstream_unavailable",
        &message,
    )
}

pub fn body_error(wire: Wire, err: &BodyError) -> Response<ProxyBody> {
    match err {
        BodyError::TooLarge => {
            let kind = match wire {
                Wire::Anthropic => "request_too_large",
                _ => "invalid_request_error",
            };
            let message = format!(
                "brief proxy: the request body is over the proxy's limit of {} MiB",
                MAX_BODY_BYTES / 1024 / 1024
            );
            error(
                wire,
                StatusCode::PAYLOAD_TOO_LARGE,
                kind,
                "request_too_large",
                &message,
            )
        }
        BodyError::Stalled(idle) => {
            let message = format!(
                "brief proxy: the request body stopped arriving (nothing for {})",
                crate::clock::format_duration(*idle)
            );
            error(
                wire,
                StatusCode::REQUEST_TIMEOUT,
                "invalid_request_error",
                "request_timeout",
                &message,
            )
        }
        BodyError::Unreadable(why) => {
            let kind = "invalid_request_error";
            let message = format!("brief proxy: the request body could not be read: {why}");
            error(
                wire,
                StatusCode::BAD_REQUEST,
                kind,
                "bad_request_body",
                &message,
            )
        }
    }
}
