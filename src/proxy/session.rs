//! Which agent a call belongs to, and whether its prefix drifted since that agent's
//! previous call.
//!
//! A prompt cache is per prefix, and an agent's prefix is only stable relative to its own
//! previous call: two agents behind one proxy are not drift. So calls are grouped into
//! sessions — the `X-Brief-Session` header when the agent sends one, else a hash of its
//! credential and model — and each call is compared with the previous call of its session
//! by the align detector. The credential enters a hash and nothing else: it is never kept,
//! logged or echoed.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use bytes::Bytes;
use http::HeaderMap;
use serde_json::Value;

use crate::cache::align::{Aligner, Options, State};
use crate::wire::canonical::sha256_hex;

/// The header an agent names its session with.
pub const SESSION_HEADER: &str = "x-brief-session";

/// Sessions remembered for drift; the least recently seen is forgotten first.
const MAX_SESSIONS: usize = 4096;

/// The session key of a call.
pub fn key(headers: &HeaderMap, model: &str) -> String {
    if let Some(value) = headers.get(SESSION_HEADER) {
        let bytes = value.as_bytes();
        let printable = !bytes.is_empty()
            && bytes.len() <= 128
            && bytes.iter().all(|b| (0x21..=0x7e).contains(b));
        return if printable {
            String::from_utf8_lossy(bytes).into_owned()
        } else {
            // A header we would not want in a file or a metric label: named by its hash.
            format!("h-{}", &sha256_hex(bytes)[..16])
        };
    }
    let credential = ["authorization", "x-api-key", "api-key"]
        .iter()
        .find_map(|name| headers.get(*name))
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    let mut material = b"brief-proxy-session\0".to_vec();
    material.extend_from_slice(credential);
    material.push(0);
    material.extend_from_slice(model.as_bytes());
    format!("auto-{}", &sha256_hex(&material)[..16])
}

/// What the detector said about one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    /// The stable prefix hash (tools + system) of the request; `None` when the body is not
    /// a chat request.
    pub prefix_hash: Option<String>,
    /// `None` when there was nothing to compare with.
    pub drifted_parts: Option<Vec<String>>,
}

/// What a call's ledger row needs from its request: worked out by the ledger thread, in
/// the order the requests arrived (so a session's calls are compared in their own order),
/// never on the path of the answer.
pub struct Pending {
    inputs: Mutex<Option<(Bytes, HeaderMap)>>,
    meta: OnceLock<Meta>,
}

pub struct Meta {
    pub model: String,
    pub session: String,
    pub analysis: Analysis,
}

impl Pending {
    pub fn new(body: Bytes, headers: HeaderMap) -> Pending {
        Pending {
            inputs: Mutex::new(Some((body, headers))),
            meta: OnceLock::new(),
        }
    }

    pub fn is_resolved(&self) -> bool {
        self.meta.get().is_some()
    }

    /// Parses the request once, and compares it with its session's previous one.
    pub fn resolve(&self, sessions: &mut Sessions) -> &Meta {
        self.meta.get_or_init(|| {
            let inputs = self.inputs.lock().ok().and_then(|mut i| i.take());
            let Some((body, headers)) = inputs else {
                return Meta {
                    model: "unknown".into(),
                    session: "unknown".into(),
                    analysis: Analysis::default(),
                };
            };
            let parsed: Option<Value> = serde_json::from_slice(&body).ok();
            let model = parsed
                .as_ref()
                .and_then(|v| v.get("model"))
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string();
            let session = key(&headers, &model);
            let analysis = parsed
                .map(|body| sessions.observe(&session, &body))
                .unwrap_or_default();
            Meta {
                model,
                session,
                analysis,
            }
        })
    }
}

/// The last request of every recent session.
#[derive(Default)]
pub struct Sessions {
    last: HashMap<String, (State, u64)>,
    clock: u64,
}

impl Sessions {
    /// Compares `body` with the session's previous request and remembers it as the new
    /// previous one. A body that is not a chat request is reported as such and leaves the
    /// session's baseline alone.
    pub fn observe(&mut self, session: &str, body: &Value) -> Analysis {
        let previous = self.last.get(session).map(|(state, _)| state.clone());
        let mut aligner = Aligner::new(Options::default(), previous);
        if aligner.push("proxy", body).is_err() {
            return Analysis::default();
        }
        let Some(report) = aligner.finish() else {
            return Analysis::default();
        };
        let wake = &report.wakes[0];
        let analysis = Analysis {
            prefix_hash: Some(wake.stable_prefix_hash.clone()),
            drifted_parts: wake.previous_hash.as_ref().map(|_| {
                wake.drifted_parts
                    .iter()
                    .map(|p| p.as_str().to_string())
                    .collect()
            }),
        };
        self.clock += 1;
        if self.last.len() >= MAX_SESSIONS
            && !self.last.contains_key(session)
            && let Some(oldest) = self
                .last
                .iter()
                .min_by_key(|(_, (_, seen))| *seen)
                .map(|(k, _)| k.clone())
        {
            self.last.remove(&oldest);
        }
        self.last
            .insert(session.to_string(), (report.state, self.clock));
        analysis
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn the_session_header_wins_and_an_odd_one_is_hashed() {
        let h = headers(&[
            ("x-brief-session", "agent-7"),
            ("authorization", "Bearer sk-x"),
        ]);
        assert_eq!(key(&h, "m"), "agent-7");
        let odd = headers(&[("x-brief-session", "has space")]);
        assert!(key(&odd, "m").starts_with("h-"));
    }

    #[test]
    fn without_a_header_the_key_hashes_credential_and_model_and_hides_the_credential() {
        let secret = "Bearer sk-proj-abcdefghijklmnopqrstuvwxyz";
        let a = key(&headers(&[("authorization", secret)]), "gpt-4.1");
        let b = key(&headers(&[("authorization", secret)]), "gpt-4.1-mini");
        let c = key(&headers(&[("x-api-key", "other")]), "gpt-4.1");
        assert!(a.starts_with("auto-") && a.len() == 21);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(!a.contains("sk-"));
    }

    #[test]
    fn drift_is_per_session_and_a_grown_conversation_is_not_drift() {
        let mut sessions = Sessions::default();
        let first = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]});
        let grown = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"}, {"role": "user", "content": "more"}]});
        let changed = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be brief. Today is 2026-11-30."},
            {"role": "user", "content": "hi"}]});
        let a = sessions.observe("a", &first);
        assert_eq!(a.drifted_parts, None);
        assert_eq!(a.prefix_hash.as_ref().map(String::len), Some(64));
        assert_eq!(sessions.observe("a", &grown).drifted_parts, Some(vec![]));
        assert_eq!(sessions.observe("b", &changed).drifted_parts, None);
        assert_eq!(
            sessions.observe("a", &changed).drifted_parts,
            Some(vec!["system".to_string(), "messages".to_string()])
        );
    }

    #[test]
    fn a_body_that_is_not_a_chat_request_has_no_analysis() {
        let mut sessions = Sessions::default();
        assert_eq!(
            sessions.observe("a", &json!({"input": "x"})),
            Analysis::default()
        );
    }
}
