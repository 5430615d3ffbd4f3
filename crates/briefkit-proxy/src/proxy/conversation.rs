//! Conversations told apart without a session header (issue 33).
//!
//! A client that sends no `X-Brief-Session` and no session id of its own (Gemini CLI, a
//! plain SDK script) used to fall into one session per credential and model: every new
//! conversation read as drift of the previous one. Nor is OpenAI's `prompt_cache_key` a
//! conversation id: it routes calls that share a prefix to one cache (`brief compose
//! --cache-key` derives it from the brief's prefix hash, so every conversation of a brief
//! carries the same one); Codex happens to send its thread id there.
//!
//! So calls of one *family* — one credential, or one body-named key — are placed in
//! conversations by what the conversation itself carries: a call whose messages continue
//! (or repeat) a known conversation's messages, to whichever model, belongs to it (so a
//! conversation's routing or summary call to a second model that sends its history is its
//! own); any other call starts a new conversation, named by its fingerprint — the hashes of
//! its tools, its system text and its messages as they were at its first call. Within a
//! conversation drift is checked as before, per model. A client that sends a header keeps
//! the session it names, and the proxy never splits it.
//!
//! What is kept per conversation is its name and, per model, the length and last chain
//! hash of its latest call: at most [`MAX_PER_FAMILY`] conversations per family (the least
//! recently seen is forgotten) and [`MAX_FAMILIES`] families.

use std::collections::HashMap;

use sha2::{Digest as _, Sha256};

use super::digest::{Hash, PrefixDigest};

/// Conversations remembered per family; past it the least recently seen is forgotten.
pub const MAX_PER_FAMILY: usize = 64;

/// Families remembered; past it one is forgotten (its next call starts a conversation).
pub const MAX_FAMILIES: usize = super::session::MAX_SESSIONS;

/// Where a call's session comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// Named by the agent (`X-Brief-Session`) or by the client's own session header: one
    /// session, whatever its calls send.
    Fixed(String),
    /// Placed among the conversations of `family` (a credential's hash, or a body-named
    /// key); `base` names the first conversation of a body-named family.
    Family {
        family: String,
        base: Option<String>,
    },
}

/// The latest call of a conversation to one model.
#[derive(Debug, Clone)]
struct Tip {
    model: Hash,
    messages: usize,
    last: Hash,
}

#[derive(Debug)]
struct Conversation {
    session: String,
    tips: Vec<Tip>,
    seen: u64,
}

/// The longest conversation tip `chain` continues (or repeats), as its message count.
fn continued(conversation: &Conversation, chain: &[Hash]) -> Option<usize> {
    conversation
        .tips
        .iter()
        .filter(|t| t.messages > 0 && chain.get(t.messages - 1) == Some(&t.last))
        .map(|t| t.messages)
        .max()
}

/// Where the conversations of every family are.
#[derive(Default)]
pub struct Conversations {
    families: HashMap<String, Vec<Conversation>>,
    clock: u64,
}

/// A session, and whether it was just started (its name may have been used before, by a
/// conversation forgotten since: its drift state is not this conversation's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub session: String,
    pub fresh: bool,
}

impl Conversations {
    /// The session of a call of `named`, sent to `model` with the conversation `prefix`.
    pub fn place(&mut self, named: &Named, prefix: Option<&PrefixDigest>, model: &str) -> Placed {
        let (family, base) = match named {
            Named::Fixed(name) => {
                return Placed {
                    session: name.clone(),
                    fresh: false,
                };
            }
            Named::Family { family, base } => (family, base.as_deref()),
        };
        let fingerprint = fingerprint(family, prefix);
        let chain = match prefix {
            Some(prefix) if !prefix.chain.is_empty() => &prefix.chain,
            // Nothing to tell conversations apart by: one session per fingerprint.
            _ => {
                let session =
                    base.map_or_else(|| format!("auto-{}", &fingerprint[..16]), str::to_string);
                return Placed {
                    session,
                    fresh: false,
                };
            }
        };
        self.clock += 1;
        let clock = self.clock;
        if !self.families.contains_key(family)
            && self.families.len() >= MAX_FAMILIES
            && let Some(any) = self.families.keys().next().cloned()
        {
            self.families.remove(&any);
        }
        let list = self.families.entry(family.clone()).or_default();
        let tip = Tip {
            model: model_hash(model),
            messages: chain.len(),
            last: *chain.last().expect("not empty"),
        };
        let found = list
            .iter()
            .enumerate()
            .filter_map(|(i, c)| continued(c, chain).map(|n| (n, c.seen, i)))
            .max();
        if let Some((_, _, at)) = found {
            let conversation = &mut list[at];
            conversation.seen = clock;
            conversation.tips.retain(|t| t.model != tip.model);
            conversation.tips.push(tip);
            return Placed {
                session: conversation.session.clone(),
                fresh: false,
            };
        }
        let taken = |name: &str| list.iter().any(|c| c.session == name);
        let first = match base {
            Some(base) if !taken(base) => base.to_string(),
            Some(base) => format!("{base}~{}", &fingerprint[..8]),
            None => format!("auto-{}", &fingerprint[..16]),
        };
        // The same start again (a script run twice): a conversation of its own all the same.
        let mut session = first.clone();
        let mut n = 2;
        while taken(&session) {
            session = format!("{first}~{n}");
            n += 1;
        }
        if list.len() >= MAX_PER_FAMILY
            && let Some(oldest) = list.iter().enumerate().min_by_key(|(_, c)| c.seen)
        {
            let oldest = oldest.0;
            list.swap_remove(oldest);
        }
        list.push(Conversation {
            session: session.clone(),
            tips: vec![tip],
            seen: clock,
        });
        Placed {
            session,
            fresh: true,
        }
    }
}

/// A conversation's fingerprint: its family, tools, system text and messages as they are
/// at its first call (sha256 hex).
fn fingerprint(family: &str, prefix: Option<&PrefixDigest>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"brief-proxy-conversation\0");
    hasher.update(family.as_bytes());
    hasher.update([0]);
    if let Some(prefix) = prefix {
        hasher.update(prefix.tools);
        hasher.update(prefix.system);
        if let Some(last) = prefix.chain.last() {
            hasher.update(last);
        }
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn model_hash(model: &str) -> Hash {
    let digest = Sha256::digest(model.as_bytes());
    let mut hash = [0u8; 16];
    hash.copy_from_slice(&digest[..16]);
    hash
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn prefix(body: &Value) -> PrefixDigest {
        super::super::digest::digest(&serde_json::to_vec(body).unwrap())
            .prefix
            .unwrap()
    }

    fn auto() -> Named {
        Named::Family {
            family: "cred-a".into(),
            base: None,
        }
    }

    fn gemini(system: &str, turns: &[&str]) -> Value {
        let contents: Vec<Value> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let role = if i % 2 == 0 { "user" } else { "model" };
                json!({"role": role, "parts": [{"text": t}]})
            })
            .collect();
        json!({"systemInstruction": {"parts": [{"text": system}]}, "contents": contents})
    }

    #[test]
    fn two_conversations_with_one_setup_turn_are_two_sessions_and_each_grows_in_its_own() {
        // Gemini CLI: the same context turn and reply open every conversation.
        let mut places = Conversations::default();
        let setup = ["Context: today, this folder.", "Got it."];
        let a1 = [setup[0], setup[1], "list the files"];
        let b1 = [setup[0], setup[1], "write a poem"];
        let a2 = [a1[0], a1[1], a1[2], "a.txt b.txt", "and sizes?"];
        let one = places.place(&auto(), Some(&prefix(&gemini("S", &a1))), "pro");
        let two = places.place(&auto(), Some(&prefix(&gemini("S", &b1))), "pro");
        assert!(one.fresh && two.fresh);
        assert_ne!(one.session, two.session);
        assert!(one.session.starts_with("auto-"), "{one:?}");
        let three = places.place(&auto(), Some(&prefix(&gemini("S", &a2))), "pro");
        assert_eq!(three.session, one.session);
        assert!(!three.fresh);
        // A routing call to another model with the conversation so far is its own.
        let routing = places.place(&auto(), Some(&prefix(&gemini("Route.", &a2))), "lite");
        assert_eq!(routing.session, one.session);
    }

    #[test]
    fn a_body_named_key_shared_by_conversations_does_not_merge_them() {
        // `--cache-key`: one prompt_cache_key for every conversation of a brief.
        let mut places = Conversations::default();
        let named = Named::Family {
            family: "key:brief-1234".into(),
            base: Some("brief-1234".into()),
        };
        let chat = |turns: &[&str]| {
            let messages: Vec<Value> = turns
                .iter()
                .map(|t| json!({"role": "user", "content": t}))
                .collect();
            json!({"model": "m", "messages": messages})
        };
        let a = places.place(&named, Some(&prefix(&chat(&["one"]))), "m");
        let b = places.place(&named, Some(&prefix(&chat(&["two"]))), "m");
        let a2 = places.place(&named, Some(&prefix(&chat(&["one", "more"]))), "m");
        assert_eq!(a.session, "brief-1234");
        assert!(b.session.starts_with("brief-1234~"), "{b:?}");
        assert_eq!(a2.session, a.session);
        // The same first call again, after the first grew: a conversation of its own.
        let again = places.place(&named, Some(&prefix(&chat(&["one"]))), "m");
        assert_ne!(again.session, a.session);
        assert!(again.fresh);
        let fixed = Named::Fixed("agent-7".into());
        assert_eq!(places.place(&fixed, None, "m").session, "agent-7");
    }

    #[test]
    fn a_family_keeps_a_bounded_number_of_conversations() {
        let mut places = Conversations::default();
        for i in 0..MAX_PER_FAMILY + 10 {
            let body =
                json!({"model": "m", "messages": [{"role": "user", "content": format!("q{i}")}]});
            places.place(&auto(), Some(&prefix(&body)), "m");
        }
        assert_eq!(places.families["cred-a"].len(), MAX_PER_FAMILY);
    }
}
