//! Which provider a request belongs to, and whether it is a model call the proxy meters.
//!
//! Every request goes to the upstream of the provider it belongs to, and only there: a
//! credential must never reach another provider's server. The path decides where it can
//! (`/v1/messages…` is Anthropic's, `/v1/responses…` and `/v1/chat/completions` OpenAI's,
//! `/v1beta/…` and `…/models/{model}:{method}` Gemini's); a path several providers share
//! (`GET /v1/models`, a path the proxy does not know) goes by the credential it carries:
//! `x-goog-api-key` or `?key=` is Gemini's, `x-api-key` or `anthropic-version`
//! Anthropic's, anything else OpenAI's (whose SDKs send `Authorization: Bearer`).
//!
//! Model calls are metered; everything else is relayed as it is and counted as unmetered,
//! with a warning the first time a path that could be a model call passes unmetered.

use std::collections::HashSet;
use std::sync::Mutex;

use http::{HeaderMap, Method};

use crate::wire::Wire;

/// What the proxy does with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// A model call in `wire`; `model` when the path names it (Gemini).
    Call { wire: Wire, model: Option<String> },
    /// Relayed to `wire`'s provider without a ledger row. `quiet` for what is known not
    /// to be a model call (model lists, token counts, reads); the rest is warned about
    /// once.
    Relay { wire: Wire, quiet: bool },
}

/// The route of a request the dashboard did not take (`GET /`, `/stats`, `/metrics` are
/// its, see `super::dashboard`).
pub fn route(method: &Method, path: &str, query: Option<&str>, headers: &HeaderMap) -> Route {
    let post = method == Method::POST;
    if let Some((model, action)) = gemini_call(path) {
        let metered = matches!(action, "generateContent" | "streamGenerateContent");
        return if post && metered {
            Route::Call {
                wire: Wire::Gemini,
                model: Some(model.to_string()),
            }
        } else {
            Route::Relay {
                wire: Wire::Gemini,
                quiet: !post || action == "countTokens",
            }
        };
    }
    let quiet = !post;
    match path {
        "/v1/chat/completions" if post => Route::Call {
            wire: Wire::OpenAi,
            model: None,
        },
        "/v1/responses" | "/v1/responses/compact" if post => Route::Call {
            wire: Wire::Responses,
            model: None,
        },
        "/v1/messages" if post => Route::Call {
            wire: Wire::Anthropic,
            model: None,
        },
        "/v1/messages/count_tokens" => Route::Relay {
            wire: Wire::Anthropic,
            quiet: true,
        },
        p if p.starts_with("/v1/messages/") => Route::Relay {
            wire: Wire::Anthropic,
            quiet,
        },
        p if p.starts_with("/v1/responses/") || p.starts_with("/v1/chat/completions/") => {
            Route::Relay {
                wire: Wire::Responses,
                quiet,
            }
        }
        p if p.starts_with("/v1beta/") || p.starts_with("/upload/v1beta/") => Route::Relay {
            wire: Wire::Gemini,
            quiet,
        },
        _ => Route::Relay {
            wire: by_credential(query, headers),
            quiet,
        },
    }
}

/// The most distinct paths warned about as unmetered; past it no more warnings.
const MAX_WARNED_PATHS: usize = 64;

/// The paths already warned about as relayed unmetered (bounded).
#[derive(Debug, Default)]
pub struct Warned(Mutex<HashSet<String>>);

impl Warned {
    /// Says once per path that a request which may be a model call was relayed unmetered.
    /// The path only: a query string can hold a key (Gemini's `?key=`).
    pub fn once(&self, wire: Wire, method: &Method, path: &str) {
        let path = crate::text::sanitize::one_line(path, 200);
        let Ok(mut warned) = self.0.lock() else {
            return;
        };
        if warned.len() >= MAX_WARNED_PATHS || !warned.insert(format!("{method} {path}")) {
            return;
        }
        eprintln!(
            "brief proxy: {method} {path} is relayed to the {} upstream unmetered (no ledger \
             row; counted as `unmetered` in /stats and /metrics)",
            wire.vendor()
        );
    }
}

/// `(model, method)` of a Gemini call path: `/v1beta/models/{model}:{method}` (also
/// `/v1/…`, `/v1alpha/…` and `tunedModels/…`).
fn gemini_call(path: &str) -> Option<(&str, &str)> {
    let rest = ["/v1beta/", "/v1/", "/v1alpha/"]
        .iter()
        .find_map(|version| path.strip_prefix(version))?;
    let named = rest
        .strip_prefix("models/")
        .or_else(|| rest.strip_prefix("tunedModels/"))?;
    let (model, method) = named.split_once(':')?;
    (!model.is_empty() && !model.contains('/') && !method.is_empty()).then_some((model, method))
}

/// The provider whose credential a request carries.
fn by_credential(query: Option<&str>, headers: &HeaderMap) -> Wire {
    if headers.contains_key("x-goog-api-key") || query_key(query).is_some() {
        Wire::Gemini
    } else if headers.contains_key("x-api-key") || headers.contains_key("anthropic-version") {
        Wire::Anthropic
    } else {
        Wire::OpenAi
    }
}

/// The value of `key=` in a query string (Gemini's key parameter), as sent.
pub fn query_key(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("key="))
        .filter(|key| !key.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(names: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for name in names {
            map.insert(*name, HeaderValue::from_static("x"));
        }
        map
    }

    fn at(method: Method, path: &str, query: Option<&str>, names: &[&'static str]) -> Route {
        route(&method, path, query, &headers(names))
    }

    fn call(wire: Wire) -> Route {
        Route::Call { wire, model: None }
    }

    #[test]
    fn model_calls_are_routed_by_their_path() {
        assert_eq!(
            at(Method::POST, "/v1/chat/completions", None, &[]),
            call(Wire::OpenAi)
        );
        assert_eq!(
            at(Method::POST, "/v1/responses", None, &[]),
            call(Wire::Responses)
        );
        assert_eq!(
            at(Method::POST, "/v1/responses/compact", None, &[]),
            call(Wire::Responses)
        );
        // The path wins over the credential: Claude Code may send a bearer token.
        assert_eq!(
            at(Method::POST, "/v1/messages", None, &["authorization"]),
            call(Wire::Anthropic)
        );
        assert_eq!(
            at(
                Method::POST,
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                Some("alt=sse"),
                &[]
            ),
            Route::Call {
                wire: Wire::Gemini,
                model: Some("gemini-2.5-flash".into())
            }
        );
        assert_eq!(
            at(
                Method::POST,
                "/v1/models/gemini-pro:generateContent",
                None,
                &[]
            ),
            Route::Call {
                wire: Wire::Gemini,
                model: Some("gemini-pro".into())
            }
        );
    }

    #[test]
    fn a_shared_path_goes_by_the_credential_it_carries() {
        // Regression: a model list with only `x-api-key` went to the OpenAI upstream.
        assert_eq!(
            at(Method::GET, "/v1/models", None, &["x-api-key"]),
            Route::Relay {
                wire: Wire::Anthropic,
                quiet: true
            }
        );
        assert_eq!(
            at(Method::GET, "/v1/models", None, &["authorization"]),
            Route::Relay {
                wire: Wire::OpenAi,
                quiet: true
            }
        );
        assert_eq!(
            at(Method::GET, "/v1/models", Some("key=AIza123"), &[]),
            Route::Relay {
                wire: Wire::Gemini,
                quiet: true
            }
        );
        assert_eq!(
            at(
                Method::GET,
                "/v1/models",
                None,
                &["x-goog-api-key", "x-api-key"]
            ),
            Route::Relay {
                wire: Wire::Gemini,
                quiet: true
            }
        );
    }

    #[test]
    fn other_requests_are_relayed_and_unknown_posts_are_not_quiet() {
        assert_eq!(
            at(Method::POST, "/v1/messages/count_tokens", None, &[]),
            Route::Relay {
                wire: Wire::Anthropic,
                quiet: true
            }
        );
        assert_eq!(
            at(Method::POST, "/v1beta/models/g:countTokens", None, &[]),
            Route::Relay {
                wire: Wire::Gemini,
                quiet: true
            }
        );
        assert_eq!(
            at(Method::POST, "/v1/embeddings", None, &["authorization"]),
            Route::Relay {
                wire: Wire::OpenAi,
                quiet: false
            }
        );
        assert_eq!(
            at(Method::HEAD, "/api/hello", None, &["x-api-key"]),
            Route::Relay {
                wire: Wire::Anthropic,
                quiet: true
            }
        );
        assert_eq!(
            at(Method::POST, "/stats", None, &[]),
            Route::Relay {
                wire: Wire::OpenAi,
                quiet: false
            }
        );
    }

    #[test]
    fn the_query_key_is_found_wherever_it_is() {
        assert_eq!(query_key(Some("alt=sse&key=abc")), Some("abc"));
        assert_eq!(query_key(Some("key=")), None);
        assert_eq!(query_key(Some("monkey=1")), None);
        assert_eq!(query_key(None), None);
    }
}
