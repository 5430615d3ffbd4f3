//! Which agent a call belongs to, and whether its prefix drifted since that agent's
//! previous call.
//!
//! A prompt cache is per prefix, and an agent's prefix is only stable relative to its own
//! previous call in the same conversation: two agents behind one proxy, or two
//! conversations of one agent, are not drift. So calls are grouped into sessions — the
//! `X-Brief-Session` header when the agent sends one, else the session id the client sends
//! itself (Claude Code's `x-claude-code-session-id` header; in the body, OpenAI's
//! `prompt_cache_key` or the session in Anthropic's `metadata.user_id`), else a hash of
//! its credential and model — and each call's [`PrefixDigest`] is compared with the
//! previous call of its session to the same model, as the align detector compares wakes:
//! the first call of a conversation has nothing to be compared with. The credential
//! (a header's, or Gemini's `?key=`) enters a hash and the redactor and nothing else: it is
//! never kept in a row, logged or echoed.
//!
//! What a session keeps is a fixed-size digest — one hash per part and the conversation's
//! length and last chain hash ([`SessionState`], 72 bytes) — whatever its requests weigh,
//! and at most [`MAX_SESSIONS`] sessions are kept (the least recently seen is forgotten
//! first): the drift state of the whole proxy stays under
//! [`MAX_SESSIONS`] × (this digest, the session's name of at most 128 bytes twice, and the
//! maps' overhead), about 2 MiB.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bytes::Bytes;
use http::HeaderMap;

use crate::cache::align::Part;
use crate::provider::redact::Redactor;
use crate::wire::canonical::sha256_hex;

use super::detail::{Detail, Kept, KeptUsage, Previous};
use super::digest::{Hash, PrefixDigest};

/// The header an agent names its session with.
pub const SESSION_HEADER: &str = "x-brief-session";

/// Headers in which a client sends its own conversation id.
const CLIENT_SESSION_HEADERS: [&str; 1] = ["x-claude-code-session-id"];

/// The headers a credential travels in, in the order they are looked at.
const CREDENTIAL_HEADERS: [&str; 4] = ["authorization", "x-api-key", "api-key", "x-goog-api-key"];

/// Sessions remembered for drift; the least recently seen is forgotten first.
pub const MAX_SESSIONS: usize = 4096;

/// The longest session header kept as written; a longer one is named by its hash.
const MAX_SESSION_NAME: usize = 128;

/// The headers that say whose a call is, taken when it arrives.
#[derive(Debug, Clone, Default)]
pub struct Who {
    session: Option<Bytes>,
    client_session: Option<Bytes>,
    credential: Option<Bytes>,
}

impl Who {
    /// From a request's headers and query string (Gemini's key may travel in `?key=`).
    pub fn of(headers: &HeaderMap, query: Option<&str>) -> Who {
        let take = |name: &str| {
            headers
                .get(name)
                .map(|v| Bytes::copy_from_slice(v.as_bytes()))
        };
        Who {
            session: take(SESSION_HEADER),
            client_session: CLIENT_SESSION_HEADERS.iter().find_map(|name| take(name)),
            credential: CREDENTIAL_HEADERS
                .iter()
                .find_map(|name| take(name))
                .or_else(|| {
                    super::routes::query_key(query).map(|k| Bytes::copy_from_slice(k.as_bytes()))
                }),
        }
    }

    /// The key itself: the credential header without an auth scheme.
    fn key_text(&self) -> Option<String> {
        let value = std::str::from_utf8(self.credential.as_deref()?)
            .ok()?
            .trim();
        let key = match value.split_once(' ') {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
            _ => value,
        };
        Some(key.to_string())
    }
}

/// The session key of a call: `X-Brief-Session`, else the client's own session id (a
/// header's, else `body_session` from the body), else a hash of the credential and the
/// model. A name that is not printable ASCII, is too long, or holds a key (the call's own,
/// an environment key, or anything shaped like one) is named by its hash: nothing unfit
/// for a file or a metric label, and no key, becomes a name.
pub fn key(who: &Who, body_session: Option<&str>, model: &str, redactor: &Redactor) -> String {
    let named = who
        .session
        .as_deref()
        .or(who.client_session.as_deref())
        .or(body_session.map(str::as_bytes))
        .filter(|b| !b.is_empty());
    if let Some(bytes) = named {
        let printable =
            bytes.len() <= MAX_SESSION_NAME && bytes.iter().all(|b| (0x21..=0x7e).contains(b));
        if printable {
            let name = String::from_utf8_lossy(bytes);
            if redactor.redact(&name) == name {
                return name.into_owned();
            }
        }
        return format!("h-{}", &sha256_hex(bytes)[..16]);
    }
    let mut material = b"brief-proxy-session\0".to_vec();
    material.extend_from_slice(who.credential.as_deref().unwrap_or_default());
    material.push(0);
    material.extend_from_slice(model.as_bytes());
    format!("auto-{}", &sha256_hex(&material)[..16])
}

/// One redactor per credential, built once: a call's model, session and error text are
/// cleaned of its own key (and the environment's keys) without building an Aho-Corasick
/// automaton per row.
#[derive(Default)]
pub struct Redactors {
    by_credential: HashMap<Option<[u8; 32]>, Arc<Redactor>>,
}

/// Credentials remembered; past this the cache starts again (a proxy serves a handful).
const MAX_REDACTORS: usize = 256;

impl Redactors {
    pub fn for_call(&mut self, who: &Who) -> Arc<Redactor> {
        use sha2::{Digest as _, Sha256};
        let id = who.credential.as_deref().map(|c| Sha256::digest(c).into());
        if let Some(found) = self.by_credential.get(&id) {
            return Arc::clone(found);
        }
        if self.by_credential.len() >= MAX_REDACTORS {
            self.by_credential.clear();
        }
        let redactor = Arc::new(Redactor::new(who.key_text().as_deref()));
        self.by_credential.insert(id, Arc::clone(&redactor));
        redactor
    }
}

/// What the detector said about one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    /// The stable prefix hash (tools + system) of the request; `None` when the body is not
    /// a chat request.
    pub prefix_hash: Option<String>,
    /// `None` when there was nothing to compare with.
    pub drifted_parts: Option<Vec<String>>,
    /// Where the first drifted part differs (`detail`), when one did.
    pub drift: Option<Detail>,
}

/// A session's previous call, by hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionState {
    tools: Hash,
    system: Hash,
    examples: Option<Hash>,
    /// How many conversation messages, and the chain hash of the last.
    messages: usize,
    last: Option<Hash>,
}

/// The previous call of every recent session.
#[derive(Default)]
pub struct Sessions {
    last: HashMap<String, (SessionState, u64)>,
    /// Sessions by when they were last seen, for forgetting the oldest.
    seen: BTreeMap<u64, String>,
    clock: u64,
    /// Their texts, for where a drift is (`detail`), within a budget of their own.
    kept: Kept,
}

impl Sessions {
    /// Compares a call with its session's previous one and remembers it in its place;
    /// constant time, whatever the request's size. When a part drifted, also returns the
    /// texts to find where (compared by [`super::detail::describe`], outside any lock).
    pub fn observe(&mut self, session: &str, now: &PrefixDigest) -> (Analysis, Option<Previous>) {
        let analysis = self.compare(session, now);
        let first = analysis
            .drifted_parts
            .as_ref()
            .and_then(|parts| parts.first())
            .and_then(|name| PARTS.iter().find(|p| p.as_str() == name).copied());
        let previous = self.kept.swap(session, now.texts.as_ref(), first);
        (analysis, previous)
    }

    pub fn kept(&self) -> KeptUsage {
        self.kept.usage()
    }

    fn compare(&mut self, session: &str, now: &PrefixDigest) -> Analysis {
        let state = SessionState {
            tools: now.tools,
            system: now.system,
            examples: now.examples,
            messages: now.chain.len(),
            last: now.chain.last().copied(),
        };
        self.clock += 1;
        let previous = match self.last.get_mut(session) {
            Some((previous, seen)) => {
                self.seen.remove(seen);
                *seen = self.clock;
                Some(std::mem::replace(previous, state))
            }
            None => {
                if self.last.len() >= MAX_SESSIONS
                    && let Some((_, oldest)) = self.seen.pop_first()
                {
                    self.last.remove(&oldest);
                    self.kept.forget(&oldest);
                }
                self.last.insert(session.to_string(), (state, self.clock));
                None
            }
        };
        self.seen.insert(self.clock, session.to_string());
        Analysis {
            prefix_hash: Some(now.hash.clone()),
            drifted_parts: previous.map(|before| drifted(&before, now)),
            drift: None,
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.last.len()
    }
}

/// Every part a drift can be in, in the order a prompt cache reads them.
const PARTS: [Part; 4] = [Part::Tools, Part::System, Part::Examples, Part::Messages];

/// The parts that differ, in the order a prompt cache reads them (as `align` names them).
fn drifted(before: &SessionState, now: &PrefixDigest) -> Vec<String> {
    let mut parts = Vec::new();
    if before.tools != now.tools {
        parts.push(Part::Tools);
    }
    if before.system != now.system {
        parts.push(Part::System);
    }
    if before.examples != now.examples {
        parts.push(Part::Examples);
    }
    // Append-only: the previous conversation is still the start of this one.
    let kept = match before.last {
        None => true,
        Some(last) => now.chain.get(before.messages - 1) == Some(&last),
    };
    if !kept {
        parts.push(Part::Messages);
    }
    parts.iter().map(|p| p.as_str().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::{Value, json};

    use super::*;

    fn who(pairs: &[(&'static str, &str)]) -> Who {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        Who::of(&map, None)
    }

    fn plain() -> Redactor {
        Redactor::with_keys([])
    }

    fn digest(body: &Value) -> PrefixDigest {
        super::super::digest::digest(&serde_json::to_vec(body).unwrap())
            .prefix
            .unwrap()
    }

    #[test]
    fn the_session_header_wins_and_an_odd_one_is_hashed() {
        let h = who(&[
            ("x-brief-session", "agent-7"),
            ("authorization", "Bearer sk-x"),
        ]);
        assert_eq!(key(&h, None, "m", &plain()), "agent-7");
        let odd = who(&[("x-brief-session", "has space")]);
        assert!(key(&odd, None, "m", &plain()).starts_with("h-"));
    }

    #[test]
    fn a_session_header_holding_a_key_is_named_by_its_hash() {
        let secret = "sk-proj-sessionKEYabcdefghijklmnop";
        let own = who(&[
            ("x-brief-session", &format!("agent-{secret}")),
            ("authorization", &format!("Bearer {secret}")),
        ]);
        let mut redactors = Redactors::default();
        let name = key(&own, None, "m", &redactors.for_call(&own));
        assert!(name.starts_with("h-") && !name.contains("sk-"), "{name}");
        // The call's own key, even when it is not shaped like a provider key.
        let plain_key = "0123456789abcdefXYZ";
        let other = who(&[
            ("x-brief-session", &format!("a-{plain_key}")),
            ("x-api-key", plain_key),
        ]);
        let name = key(&other, None, "m", &redactors.for_call(&other));
        assert!(name.starts_with("h-"), "{name}");
    }

    #[test]
    fn without_a_header_the_key_hashes_credential_and_model_and_hides_the_credential() {
        let secret = "Bearer sk-proj-abcdefghijklmnopqrstuvwxyz";
        let a = key(
            &who(&[("authorization", secret)]),
            None,
            "gpt-4.1",
            &plain(),
        );
        let b = key(
            &who(&[("authorization", secret)]),
            None,
            "gpt-4.1-mini",
            &plain(),
        );
        let c = key(&who(&[("x-api-key", "other")]), None, "gpt-4.1", &plain());
        assert!(a.starts_with("auto-") && a.len() == 21);
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(!a.contains("sk-"));
    }

    #[test]
    fn a_client_session_id_names_the_session_after_the_brief_header() {
        let claude = who(&[
            ("x-claude-code-session-id", "6f1c-aa"),
            ("x-api-key", "sk-ant-api03-abcdefghijklmnopqrstuv"),
        ]);
        assert_eq!(key(&claude, Some("body-id"), "m", &plain()), "6f1c-aa");
        let named = who(&[
            ("x-brief-session", "alpha"),
            ("x-claude-code-session-id", "x"),
        ]);
        assert_eq!(key(&named, None, "m", &plain()), "alpha");
        let codex = who(&[("authorization", "Bearer k")]);
        assert_eq!(key(&codex, Some("thread-9"), "m", &plain()), "thread-9");
        assert!(key(&codex, Some(""), "m", &plain()).starts_with("auto-"));
        // A key in Gemini's query string is a credential like any other.
        let gemini = Who::of(
            &HeaderMap::new(),
            Some("alt=sse&key=AIzaSyDsecretsecretsecret"),
        );
        let named = key(&gemini, None, "g", &plain());
        assert!(named.starts_with("auto-"), "{named}");
        let redactor = Redactors::default().for_call(&gemini);
        assert_eq!(
            redactor.redact("error: AIzaSyDsecretsecretsecret"),
            "error: [redacted]"
        );
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
        let a = sessions.observe("a", &digest(&first)).0;
        assert_eq!(a.drifted_parts, None);
        assert_eq!(a.prefix_hash.as_ref().map(String::len), Some(64));
        assert_eq!(
            sessions.observe("a", &digest(&grown)).0.drifted_parts,
            Some(vec![])
        );
        assert_eq!(
            sessions.observe("b", &digest(&changed)).0.drifted_parts,
            None
        );
        assert_eq!(
            sessions.observe("a", &digest(&changed)).0.drifted_parts,
            Some(vec!["system".to_string(), "messages".to_string()])
        );
    }

    #[test]
    fn drift_agrees_with_align_on_every_part() {
        // The same sequence of wakes through `align` and through the session digest.
        let wakes = [
            json!({"model": "m", "tools": [{"name": "t", "input_schema": {}}],
                   "system": "S", "messages": [{"role": "user", "content": "a"}]}),
            json!({"model": "m", "tools": [{"name": "t", "input_schema": {}}],
                   "system": "S", "messages": [{"role": "user", "content": "a"},
                   {"role": "assistant", "content": [{"type": "text", "text": "b",
                    "cache_control": {"type": "ephemeral"}}]}]}),
            json!({"model": "m", "tools": [{"name": "u", "input_schema": {}}],
                   "system": "S", "messages": [{"role": "user", "content": "a"},
                   {"role": "assistant", "content": [{"type": "text", "text": "b"}]}]}),
            json!({"model": "m", "tools": [{"name": "u", "input_schema": {}}],
                   "system": "S", "messages": [{"role": "user", "content": "a"},
                   {"role": "assistant", "content": [{"type": "text", "text": "B!"}]}]}),
            json!({"model": "m", "tools": [{"name": "u", "input_schema": {}}],
                   "system": "S2", "messages": [{"role": "user", "content": "z"}]}),
            // Emptied (an empty `system` keeps it an Anthropic body: align compares each
            // wake with the previous one of its own wire).
            json!({"model": "m", "system": [], "messages": []}),
        ];
        let report = crate::cache::align::analyse(
            wakes.iter().map(|w| ("w", w)),
            None,
            crate::cache::align::Options::default(),
        )
        .unwrap()
        .unwrap();
        let mut sessions = Sessions::default();
        let redactor = plain();
        for (wake, body) in report.wakes.iter().zip(&wakes) {
            let (ours, previous) = sessions.observe("s", &digest(body));
            // Where the first drifted part differs, and what is shown of it, as align says.
            let detail = previous.map(|p| super::super::detail::describe(&p, &redactor));
            let theirs = wake.first_difference.as_ref();
            assert_eq!(
                detail.as_ref().map(|d| d.part.as_str()),
                theirs.map(|d| d.part.as_str()),
                "{body}"
            );
            if let (Some(detail), Some(theirs)) = (&detail, theirs) {
                assert_eq!(detail.offset, theirs.offset.map(|o| o as u64), "{body}");
                assert_eq!(detail.previous, theirs.previous, "{body}");
                assert_eq!(detail.current, theirs.current, "{body}");
            }
            assert_eq!(ours.prefix_hash.as_deref(), Some(&*wake.stable_prefix_hash));
            let theirs: Vec<String> = wake
                .drifted_parts
                .iter()
                .map(|p| p.as_str().to_string())
                .collect();
            let ours = ours.drifted_parts.unwrap_or_default();
            assert_eq!(ours, theirs, "{body}");
        }
    }

    #[test]
    fn the_oldest_session_is_forgotten_past_the_cap() {
        let mut sessions = Sessions::default();
        let body = digest(&json!({"model": "m", "messages": []}));
        for i in 0..MAX_SESSIONS + 10 {
            sessions.observe(&format!("s{i}"), &body);
        }
        assert_eq!(sessions.len(), MAX_SESSIONS);
        // s0 was forgotten: its next call has nothing to compare with.
        assert_eq!(sessions.observe("s0", &body).0.drifted_parts, None);
        let last = format!("s{}", MAX_SESSIONS + 9);
        assert_eq!(sessions.observe(&last, &body).0.drifted_parts, Some(vec![]));
    }
}
