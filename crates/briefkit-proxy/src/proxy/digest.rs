//! A request body reduced to what its ledger row and its session's drift check need: the
//! model, the stable prefix hash, one hash per part, and a hash chain over the
//! conversation — never the request itself.
//!
//! The drift check asks whether this call's tools, system and worked examples equal the
//! session's previous call's, and whether the previous conversation is still there,
//! unchanged, at the start of this one. Hashes per part answer the first question; for the
//! second, message `i`'s chain hash covers messages `0..=i`, so "the previous call's `n`
//! messages start this one" is one comparison: this call's chain at `n - 1` against the
//! previous call's last chain hash. A session therefore keeps a few dozen bytes however
//! long its conversation grows (see `session`).
//!
//! The prefix itself is `wire::prefix`'s, the one identity; what a message is compared as
//! is `align`'s, so the proxy says "drifted" exactly when `brief align` would. Only the head
//! of `messages` that can hold system messages and worked examples is parsed into one JSON
//! tree (for `wire::prefix::layout`); the conversation after it is read one message at a
//! time, so digesting a body of a million small messages holds one of them parsed at a time
//! (plus 32 bytes per message: where it is and its chain hash), not a tree ten times the
//! size of the body. Responses bodies (`instructions`, `input`) and Gemini bodies
//! (`systemInstruction`, `contents`) are read the same way, each with its own head.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::cache::align::comparison_text;
use crate::wire::prefix::{self, StablePrefix};

use super::body::{Messages, Top};
use super::detail::{PER_SESSION_BYTES, StableTexts, Texts};

/// A truncated sha256: 128 bits tell parts apart, at half the memory.
pub type Hash = [u8; 16];

/// More messages than this before the conversation can start (system messages, worked
/// examples, or plain-text turns before the first message of content blocks — see
/// [`head_len`]) and the body is recorded without a prefix analysis: its head would have
/// to be parsed whole.
pub const MAX_HEAD_MESSAGES: usize = 100_000;

/// What a request body says for its row and its drift check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestDigest {
    /// The `model` string as sent; `None` when there is none.
    pub model: Option<String>,
    /// The client's own session id, when the body names one: OpenAI's `prompt_cache_key`,
    /// or the session in Anthropic's `metadata.user_id` (Claude Code writes a JSON object
    /// there with a `session_id`; older versions `…_session_<id>`).
    pub client_session: Option<String>,
    /// `None` when the body is not a chat request (or its head is over
    /// [`MAX_HEAD_MESSAGES`]).
    pub prefix: Option<PrefixDigest>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PrefixDigest {
    /// The stable prefix hash, sha256 hex, as `brief compose --stats` prints it.
    pub hash: String,
    pub tools: Hash,
    pub system: Hash,
    pub examples: Option<Hash>,
    /// Per conversation message, the chain hash of every message up to it.
    pub chain: Vec<Hash>,
    /// The texts a drift's offset is taken in, when they fit what a session may keep
    /// (`detail`).
    pub texts: Option<Texts>,
}

/// Digests `body`: linear in its size; never fails (a body that is not a chat request
/// digests to no prefix).
#[cfg(test)]
pub fn digest(body: &[u8]) -> RequestDigest {
    digest_with(body, None)
}

/// [`digest`], reusing the heads of earlier requests from `cache`.
pub fn digest_with(body: &[u8], cache: Option<&Mutex<HeadCache>>) -> RequestDigest {
    let Ok(top) = serde_json::from_slice::<Top>(body) else {
        return RequestDigest::default();
    };
    let model = top
        .model
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|v| v.as_str().map(str::to_string));
    RequestDigest {
        model,
        client_session: client_session(&top),
        prefix: prefix_digest(&top, cache),
    }
}

/// The session id a client put in its body (see [`RequestDigest::client_session`]).
fn client_session(top: &Top) -> Option<String> {
    let text = |raw: Option<&RawValue>| {
        serde_json::from_str::<Value>(raw?.get())
            .ok()?
            .as_str()
            .map(str::to_string)
    };
    if let Some(key) = text(top.prompt_cache_key).filter(|k| !k.is_empty()) {
        return Some(key);
    }
    let metadata: Value = serde_json::from_str(top.metadata?.get()).ok()?;
    let user = metadata.get("user_id")?.as_str()?;
    if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(user) {
        return fields
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
    }
    user.split_once("_session_")
        .map(|(_, session)| session.to_string())
        .filter(|s| !s.is_empty())
}

/// `null` is as good as absent.
fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get().trim() != "null")
}

fn prefix_digest(top: &Top, cache: Option<&Mutex<HeadCache>>) -> Option<PrefixDigest> {
    // Borrowed from the body like the rest: a Responses string input is one message.
    let single;
    let listed: Vec<&RawValue>;
    let (members, list_name, messages, head_end): (Vec<(&str, &RawValue)>, _, &[&RawValue], _) =
        if let Some(contents) = top.contents {
            let Ok(Messages::Array(contents)) = serde_json::from_str::<Messages>(contents.get())
            else {
                return None;
            };
            listed = contents;
            let mut members = Vec::new();
            members.extend(present(top.tools).map(|t| ("tools", t)));
            if let Some((name, raw)) = top.system_instruction {
                members.push((name, raw));
            }
            (members, "contents", &listed[..], 0)
        } else if let Some(Messages::Array(messages)) = &top.messages {
            let has_system = present(top.system).is_some();
            let mut members = Vec::new();
            members.extend(present(top.tools).map(|t| ("tools", t)));
            members.extend(present(top.system).map(|s| ("system", s)));
            (
                members,
                "messages",
                &messages[..],
                head_len(messages, has_system),
            )
        } else if top.messages.is_none() && (top.input.is_some() || top.instructions.is_some()) {
            let mut members = Vec::new();
            members.extend(present(top.tools).map(|t| ("tools", t)));
            let instructions = present(top.instructions);
            members.extend(instructions.map(|i| ("instructions", i)));
            let items: &[&RawValue] = match present(top.input) {
                None => &[],
                Some(input) if input.get().trim_start().starts_with('"') => {
                    single = [input];
                    &single
                }
                Some(input) => match serde_json::from_str::<Messages>(input.get()) {
                    Ok(Messages::Array(items)) => {
                        listed = items;
                        &listed
                    }
                    _ => return None,
                },
            };
            let string_input =
                present(top.input).is_some_and(|i| i.get().trim_start().starts_with('"'));
            let head = if string_input {
                0
            } else {
                responses_head_len(items, instructions.is_some())?
            };
            (members, "input", items, head)
        } else {
            return None;
        };
    if head_end > MAX_HEAD_MESSAGES {
        return None;
    }
    let parts = HeadParts {
        members,
        list_name,
        messages: &messages[..head_end],
    };
    let head = match cache {
        Some(cache) => {
            let key = parts.key();
            let found = cache.lock().ok().and_then(|c| c.get(&key));
            match found {
                Some(head) => head,
                None => {
                    let head = parts.digest()?;
                    if let Ok(mut cache) = cache.lock() {
                        cache.put(key, head.clone());
                    }
                    head
                }
            }
        }
        None => parts.digest()?,
    };
    let mut chain = Vec::with_capacity(messages.len() - head.after);
    let mut last: Hash = [0; 16];
    // The conversation as `align` compares it, while it fits beside the stable texts.
    let room = head
        .texts
        .as_ref()
        .map_or(0, |t| PER_SESSION_BYTES.saturating_sub(t.bytes()));
    let mut text = head.texts.is_some().then(|| String::from("["));
    for raw in &messages[head.after..] {
        let message: Value = serde_json::from_str(raw.get()).ok()?;
        // (A Responses string input is its one message.)
        if !message.is_object() && !message.is_string() {
            return None;
        }
        let compared = comparison_text(&message);
        last = link(&last, &compared);
        chain.push(last);
        if let Some(kept) = &mut text {
            if kept.len() + compared.len() + 2 > room {
                text = None;
            } else {
                if kept.len() > 1 {
                    kept.push(',');
                }
                kept.push_str(&compared);
            }
        }
    }
    let texts = head.texts.map(|stable| Texts {
        stable,
        messages: text.map(|mut t| {
            t.push(']');
            Arc::from(t)
        }),
    });
    Some(PrefixDigest {
        hash: head.hash,
        tools: head.tools,
        system: head.system,
        examples: head.examples,
        chain,
        texts,
    })
}

/// What decides a request's layout: its tools, its system part, the head of its list of
/// messages (`messages`, `input` or `contents`).
struct HeadParts<'a> {
    /// The top-level members that are not the list, by name.
    members: Vec<(&'a str, &'a RawValue)>,
    list_name: &'static str,
    messages: &'a [&'a RawValue],
}

/// What the head says: the stable prefix's hashes and where the conversation starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    hash: String,
    tools: Hash,
    system: Hash,
    examples: Option<Hash>,
    /// The index of the first conversation message.
    after: usize,
    /// The stable texts, when they fit what a session may keep.
    texts: Option<Arc<StableTexts>>,
}

impl Head {
    /// What the head cache holds for it beside its key.
    fn bytes(&self) -> usize {
        self.texts.as_ref().map_or(0, |t| t.bytes())
    }
}

impl HeadParts<'_> {
    /// The head as one tree, laid out by `wire::prefix` (the one identity).
    fn digest(&self) -> Option<Head> {
        let mut body = Map::new();
        for (name, raw) in &self.members {
            body.insert((*name).into(), serde_json::from_str(raw.get()).ok()?);
        }
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|raw| serde_json::from_str(raw.get()).ok())
            .collect::<Option<_>>()?;
        body.insert(self.list_name.into(), Value::Array(messages));
        let body = Value::Object(body);
        let layout = prefix::layout(&body).ok()?;
        let stable = StablePrefix::of_layout(&layout);
        let texts = StableTexts {
            tools: stable.tools_text,
            system: stable.system_text,
            examples: stable.examples_text,
        };
        Some(Head {
            hash: stable.hash,
            tools: from_hex(&stable.tools_hash),
            system: from_hex(&stable.system_hash),
            examples: stable.examples_hash.as_deref().map(from_hex),
            after: self.messages.len() - layout.conversation.len(),
            texts: (texts.bytes() <= PER_SESSION_BYTES).then(|| Arc::new(texts)),
        })
    }

    /// The head's bytes as sent, each part framed by its length: equal keys, equal heads.
    fn key(&self) -> Vec<u8> {
        let mut key = Vec::new();
        let mut part = |text: Option<&str>| match text {
            None => key.extend_from_slice(&u64::MAX.to_le_bytes()),
            Some(text) => {
                key.extend_from_slice(&(text.len() as u64).to_le_bytes());
                key.extend_from_slice(text.as_bytes());
            }
        };
        part(Some(self.list_name));
        for (name, raw) in &self.members {
            part(Some(name));
            part(Some(raw.get()));
        }
        part(None);
        for message in self.messages {
            part(Some(message.get()));
        }
        key
    }
}

/// The heads of recent requests: an agent sends the same tools, system and examples on
/// every call, so their parse and hashes are done once. Bounded by [`HEAD_CACHE_BYTES`] of
/// keys (the heads' bytes as sent) and kept texts; when full it starts again.
#[derive(Default)]
pub struct HeadCache {
    heads: HashMap<Vec<u8>, Head, foldhash::fast::RandomState>,
    bytes: usize,
}

/// The most bytes of request heads remembered.
pub const HEAD_CACHE_BYTES: usize = 16 << 20;

impl HeadCache {
    fn get(&self, key: &[u8]) -> Option<Head> {
        self.heads.get(key).cloned()
    }

    fn put(&mut self, key: Vec<u8>, head: Head) {
        let bytes = key.len() + head.bytes();
        if bytes > HEAD_CACHE_BYTES / 4 {
            return;
        }
        if self.bytes + bytes > HEAD_CACHE_BYTES {
            self.heads.clear();
            self.bytes = 0;
        }
        self.bytes += bytes;
        self.heads.insert(key, head);
    }
}

/// The next chain hash: the previous one, the message's length, the message.
fn link(previous: &Hash, text: &str) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update(previous);
    hasher.update((text.len() as u64).to_le_bytes());
    hasher.update(text.as_bytes());
    truncate(&hasher.finalize())
}

fn truncate(digest: &[u8]) -> Hash {
    let mut out = [0; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

/// The first 16 bytes of a sha256 hex string.
fn from_hex(hex: &str) -> Hash {
    let mut out = [0; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = hex
            .get(2 * i..2 * i + 2)
            .and_then(|pair| u8::from_str_radix(pair, 16).ok())
            .unwrap_or(0);
    }
    out
}

/// How many leading messages decide the layout: `wire::prefix::layout` run on only
/// these gives the same tools, system, worked examples and live zone as on all of them,
/// and every message after them is conversation.
///
/// The layout looks at most at: the leading system/developer messages; after them, the
/// messages named as OpenAI worked examples and the system messages that follow those; and,
/// for Anthropic worked examples, the first message with a breakpoint — which has content
/// blocks, so it is at or after the first message whose content is not a plain string
/// (when the breakpoint lies later, the examples are not examples) — and the message right
/// after it. So the head ends one past the furthest of those. A message that cannot be
/// read for this makes the head the whole array (the layout decides).
fn head_len(messages: &[&RawValue], has_system: bool) -> usize {
    let n = messages.len();
    let mut probes = Probes {
        messages,
        read: Vec::new(),
    };
    let Some(lead) = (if has_system {
        Some(0)
    } else {
        probes.first_not(0, |p| p.system)
    }) else {
        return n;
    };
    let Some(examples_end) = probes.first_not(lead, |p| p.example) else {
        return n;
    };
    let Some(live_end) = probes.first_not(examples_end, |p| p.system) else {
        return n;
    };
    // Without a top-level system, leading system messages make the body OpenAI's, whose
    // worked examples are named ones: no breakpoint is looked for.
    let blocks_end = if has_system || lead == 0 {
        match probes.first_not(lead, |p| p.string_content) {
            None => return n,
            Some(i) if i == n => 0,
            Some(i) => i + 1,
        }
    } else {
        0
    };
    lead.max(live_end).max(blocks_end).saturating_add(1).min(n)
}

/// How many leading `input` items decide a Responses body's layout (see
/// `wire::responses`): the leading system/developer items, or — after `instructions` — the
/// worked examples and the developer items right after them; exactly those, so the layout
/// of the head alone is the layout of the whole. `None` when an item cannot be probed.
fn responses_head_len(items: &[&RawValue], instructions: bool) -> Option<usize> {
    let mut probes = Probes {
        messages: items,
        read: Vec::new(),
    };
    let lead = probes.first_not(0, |p| p.system)?;
    if lead > 0 || !instructions {
        return Some(lead);
    }
    let mut run = 0;
    while run < items.len() {
        probes.first_not(run, |_| false)?;
        let probe = probes.read[run];
        let expected = if run % 2 == 0 {
            probe.user
        } else {
            probe.assistant
        };
        if !(expected && probe.string_content) {
            break;
        }
        run += 1;
    }
    let examples = run - run % 2;
    if examples == 0 {
        return Some(0);
    }
    let after = probes.first_not(examples, |p| p.system)?;
    Some(if after > examples { after } else { 0 })
}

/// Messages probed on demand, each once.
struct Probes<'a> {
    messages: &'a [&'a RawValue],
    read: Vec<Probe>,
}

impl Probes<'_> {
    /// The index of the first message from `from` on that is not `keep` (the length when
    /// all are); `None` when one cannot be probed.
    fn first_not(&mut self, from: usize, keep: impl Fn(&Probe) -> bool) -> Option<usize> {
        let mut i = from;
        while i < self.messages.len() {
            while self.read.len() <= i {
                self.read.push(Probe::read(self.messages[self.read.len()])?);
            }
            if !keep(&self.read[i]) {
                return Some(i);
            }
            i += 1;
        }
        Some(self.messages.len())
    }
}

/// What the layout asks of a message before it needs the message itself.
#[derive(Clone, Copy, Debug)]
struct Probe {
    /// `role` is `system` or `developer`.
    system: bool,
    /// `name` is `example_user` or `example_assistant`.
    example: bool,
    /// `content` is a JSON string.
    string_content: bool,
    /// `role` is `user`, or `assistant`.
    user: bool,
    assistant: bool,
}

impl Probe {
    fn read(raw: &RawValue) -> Option<Probe> {
        #[derive(Deserialize)]
        struct Fields<'a> {
            #[serde(borrow, default)]
            role: Option<Cow<'a, str>>,
            #[serde(borrow, default)]
            name: Option<Cow<'a, str>>,
            #[serde(borrow, default)]
            content: Option<&'a RawValue>,
        }
        // A role or name that is not a string, or a key given twice, is not probed: the
        // layout reads such a message itself.
        let fields: Fields = serde_json::from_str(raw.get()).ok()?;
        Some(Probe {
            system: matches!(fields.role.as_deref(), Some("system" | "developer")),
            example: matches!(
                fields.name.as_deref(),
                Some("example_user" | "example_assistant")
            ),
            string_content: fields
                .content
                .is_some_and(|c| c.get().trim_start().starts_with('"')),
            user: fields.role.as_deref() == Some("user"),
            assistant: fields.role.as_deref() == Some("assistant"),
        })
    }
}

#[cfg(test)]
#[path = "digest_tests.rs"]
mod tests;
