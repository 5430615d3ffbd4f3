//! Rendering a session for the next model call: Tier 1, then Tier 2, then Tier 3 last, in
//! each wire's request body ([`openai`], [`responses`], [`anthropic`], [`gemini`]) or as
//! plain text ([`text`]).
//!
//! Tier 1 is the brief's stable prefix exactly as `compose` sends it, its worked examples
//! (message samples) included: they open the conversation, before Tier 2, with their own
//! breakpoint on Anthropic (three breakpoints at most: system or last tool, examples, Tier 2).
//!
//! Every wire reads Tier 2 as the same runs ([`runs`]): consecutive assistant-side entries
//! (text, tool calls) are one assistant message, however they were appended; the user side
//! between them is the wire's business (OpenAI: a message per entry, `tool` messages for
//! results; Anthropic: one user turn, results first). Every Tier 2 entry becomes the same
//! bytes in every render (its visible id first, its text as stored), and entries are only
//! ever added after it, so when only Tier 2 grew the previous render is a prefix of the new
//! one, message by message, except that the last message may have grown.
//!
//! Each wire module also has `check`, which holds a body to that provider's documented
//! ordering rules (tool results right after their calls, turn alternation, no empty
//! content); [`check`] picks it. A session never sends a body its check refuses. A new wire
//! is a new module with a `body` and a `check`, and a [`Format`] for it.

pub mod anthropic;
pub mod gemini;
pub mod openai;
pub mod responses;
mod text;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

pub use text::text;

use super::flow::is_assistant;
use super::log::{Entry, Kind};
use crate::wire::{Message, Prompt, ToolDef};

/// The body format is the core's one enum (what `compose` renders too): a session
/// renders each of its wires' bodies, or text. A new wire in it is a compile error here
/// until the session renders and checks that wire's body.
pub use crate::prompt::render::Format;

/// An entry the framework writes itself (no tool name, call, group or source), its
/// tokens counted as the model sees it (with its visible id).
pub(crate) fn framework_entry(
    id: String,
    kind: Kind,
    text: String,
    op: Option<String>,
    encoding: crate::tokens::Encoding,
) -> Entry {
    let mut entry = Entry {
        id,
        kind,
        text,
        tokens: 0,
        name: None,
        call: None,
        group: None,
        source: None,
        op,
        over_budget: false,
    };
    entry.tokens = crate::tokens::count(encoding, &entry_text(&entry)) as u64;
    entry
}

/// The text of an entry as the model reads it, its visible id first.
pub fn entry_text(entry: &Entry) -> String {
    match entry.kind {
        Kind::ToolCall => format!(
            "[{}] {} {}",
            entry.id,
            entry.name.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::Summary => format!("[{}] Summary: {}", entry.id, entry.text),
        _ => format!("[{}] {}", entry.id, entry.text),
    }
}

/// The line `brief session render --format text` shows, in the seed's stream notation.
pub fn entry_line(entry: &Entry) -> String {
    match entry.kind {
        Kind::User => format!("[{}] User: {}", entry.id, entry.text),
        Kind::Assistant => format!("[{}] AI: {}", entry.id, entry.text),
        Kind::ToolCall => format!(
            "[{}] AI -> {}: {}",
            entry.id,
            entry.name.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::ToolResult => format!(
            "[{}] System ({}): {}",
            entry.id,
            entry.call.as_deref().unwrap_or(""),
            entry.text
        ),
        Kind::Summary => format!("[{}] Summary: {}", entry.id, entry.text),
        Kind::State => format!("[{}] Compacted state: {}", entry.id, entry.text),
        Kind::Resume => format!("[{}] Resume: {}", entry.id, entry.text),
    }
}

/// One side's consecutive entries.
#[derive(Debug, Clone, PartialEq)]
pub enum Run<'a> {
    /// One assistant message: its text entries and tool calls.
    Assistant(Vec<&'a Entry>),
    /// User-side entries: messages, summaries, states, resume instructions, results.
    User(Vec<&'a Entry>),
}

/// Tier 2 cut into alternating runs of the two sides.
pub fn runs<'a>(tier2: &[&'a Entry]) -> Vec<Run<'a>> {
    let mut out: Vec<Run<'a>> = Vec::new();
    for &entry in tier2 {
        match (out.last_mut(), is_assistant(entry.kind)) {
            (Some(Run::Assistant(run)), true) | (Some(Run::User(run)), false) => run.push(entry),
            (_, true) => out.push(Run::Assistant(vec![entry])),
            (_, false) => out.push(Run::User(vec![entry])),
        }
    }
    out
}

/// What a render is made of.
pub struct Parts<'a> {
    pub static_system: &'a str,
    /// The brief's worked examples, sent right after the static system as compose sends
    /// them (same bytes, so the session's prefix hash is compose's).
    pub examples: &'a [Message],
    pub tools: &'a [ToolDef],
    pub tier2: Vec<&'a Entry>,
    pub tier3: &'a str,
    pub model: Option<&'a str>,
}

fn tier1_prompt(parts: &Parts) -> Prompt {
    Prompt {
        static_system: parts.static_system.to_string(),
        examples: parts.examples.to_vec(),
        volatile_system: None,
        tools: parts.tools.to_vec(),
        messages: Vec::new(),
    }
}

/// A render's body in a wire format (`None` for text).
pub fn body(format: Format, parts: &Parts) -> Option<Value> {
    match format {
        Format::Openai => Some(openai::body(parts)),
        Format::Responses => Some(responses::body(parts)),
        Format::Anthropic => Some(anthropic::body(parts)),
        Format::Gemini => Some(gemini::body(parts)),
        Format::Text => None,
    }
}

/// One way a body breaks its provider's rules: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub pointer: String,
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.pointer, self.rule, self.message)
    }
}

/// The `messages` array of a Chat Completions or Anthropic body, with the violation of an
/// empty one; `Err` when there is no array to check at all.
pub(crate) fn messages_of(body: &Value) -> Result<(&Vec<Value>, Vec<Violation>), Vec<Violation>> {
    let at = || "/messages".to_string();
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return Err(vec![violation(
            at(),
            "messages",
            "must be a non-empty array".into(),
        )]);
    };
    let mut out = Vec::new();
    if messages.is_empty() {
        out.push(violation(at(), "messages", "must not be empty".into()));
    }
    Ok((messages, out))
}

pub(crate) fn violation(pointer: String, rule: &'static str, message: String) -> Violation {
    Violation {
        pointer,
        rule,
        message,
    }
}

/// Every way `body` breaks the ordering and content rules of `format`'s provider.
pub fn check(format: Format, body: &Value) -> Vec<Violation> {
    match format {
        Format::Openai => openai::check(body),
        Format::Responses => responses::check(body),
        Format::Anthropic => anthropic::check(body),
        Format::Gemini => gemini::check(body),
        Format::Text => Vec::new(),
    }
}

/// Whether a message's `content` holds something: non-blank text, or parts none of whose
/// texts is blank (OpenAI's chat messages and Responses' message items alike).
pub(crate) fn content_ok(content: &Value) -> bool {
    match content {
        Value::String(_) => has_text(content),
        Value::Array(parts) => {
            !parts.is_empty() && parts.iter().all(|p| p.get("text").is_none_or(has_text))
        }
        _ => false,
    }
}

/// Whether a JSON value is a string with something other than whitespace in it.
pub(crate) fn has_text(value: &Value) -> bool {
    value.as_str().is_some_and(|s| !s.trim().is_empty())
}
