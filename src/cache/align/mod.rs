//! Prefix-drift detection for a sequence of provider request bodies ("wakes").
//!
//! A provider serves a call from its prompt cache only when the start of the request is
//! byte-identical to an earlier one. So across wakes the tools and the system part must not
//! change at all, and the conversation may only grow at its end. This module says, per
//! wake, whether that held, which part broke it and where; and it points at volatile values
//! (timestamps, ids, tokens) that sit in the part that should not change. It never rewrites
//! a request: rewriting the cached zone is what breaks caches in the first place.
//!
//! `cache_control` markers count as bytes in tools and system: moving the marker there
//! changes which prefix is written, so it is drift. In the conversation they are left out of
//! the comparison, because sliding one marker to the newest message on every call is the
//! documented way to cache a growing conversation, and the marker is not part of the key.

pub mod diff;
mod payload;
pub mod state;
pub mod warnings;

use std::collections::HashSet;

pub use payload::{Element, Request, Shape};
pub use state::State;
pub use warnings::Warning;

use crate::prompt::canonical::sha256_hex;

/// A part of a request, in the order a prompt cache sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Tools,
    System,
    Messages,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Tools => "tools",
            Part::System => "system",
            Part::Messages => "messages",
        }
    }
}

/// Size and hash of one part's canonical JSON.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PartStats {
    pub bytes: usize,
    pub tokens_est: usize,
    pub sha256: String,
    /// How many tools, system elements or messages the part holds.
    pub count: usize,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Parts {
    pub tools: PartStats,
    pub system: PartStats,
    pub messages: PartStats,
}

/// What a wake was compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// The first wake of a run without a state file: nothing to compare with.
    None,
    PreviousWake,
    StateFile,
}

/// Where a drifted part first differs from the previous wake.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Difference {
    pub part: Part,
    /// The first tool, system element or message that differs.
    pub pointer: String,
    /// Byte offset in the part's canonical JSON (for the conversation: without
    /// `cache_control`). Unknown across runs: the state file keeps hashes, not text.
    pub offset: Option<usize>,
    /// About 40 bytes either side of the offset, secrets cut.
    pub previous: Option<String>,
    pub current: Option<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct WakeReport {
    /// 1-based position in the run.
    pub wake: usize,
    pub source: String,
    pub shape: Shape,
    pub compared_with: Baseline,
    pub stable_prefix_bytes: usize,
    pub stable_prefix_tokens_est: usize,
    pub stable_prefix_hash: String,
    pub previous_hash: Option<String>,
    pub prefix_changed: bool,
    pub drifted_parts: Vec<Part>,
    pub parts: Parts,
    /// Volatile values in tools, system and every message but the newest; a value already
    /// reported earlier in the run, at the same place and unchanged, is not repeated.
    pub warnings: Vec<Warning>,
    /// For the first drifted part (the one that broke the cache).
    pub first_difference: Option<Difference>,
}

/// Across the wakes of one run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Totals {
    pub wakes: usize,
    /// Wakes that had a previous wake (or a state file) to compare with.
    pub compared: usize,
    /// Compared wakes with nothing drifted: the provider could have served their prefix
    /// from its cache (if it was still warm and long enough).
    pub cacheable: usize,
    pub drifted: usize,
    /// Per part, how many drifted wakes it broke first.
    pub broken_by_tools: usize,
    pub broken_by_system: usize,
    pub broken_by_messages: usize,
    pub warnings: usize,
}

pub struct Report {
    pub wakes: Vec<WakeReport>,
    pub totals: Totals,
    /// The last wake, for `--state`.
    pub state: State,
}

impl Report {
    /// No wake drifted and no warning was raised.
    pub fn clean(&self) -> bool {
        self.totals.drifted == 0 && self.totals.warnings == 0
    }
}

/// The texts of the previous wake of this run, for byte offsets.
struct Texts {
    tools: String,
    system: String,
    messages: String,
}

/// Analyses the wakes in order. `baseline` is the last wake of an earlier run, if any.
/// Returns `None` when there are no wakes.
pub fn analyse(requests: &[Request], baseline: Option<&State>) -> Option<Report> {
    let mut previous: Option<(State, Option<Texts>, Baseline)> =
        baseline.map(|state| (state.clone(), None, Baseline::StateFile));
    let mut reported: HashSet<(String, String)> = HashSet::new();
    let mut wakes = Vec::new();
    let mut totals = Totals::default();
    for (i, request) in requests.iter().enumerate() {
        let texts = Texts {
            tools: request.tools_text(),
            system: request.system_text(),
            messages: request.messages_comparison_text(),
        };
        let tools_sha256 = sha256_hex(texts.tools.as_bytes());
        let system_sha256 = sha256_hex(texts.system.as_bytes());
        let prefix_text = format!("{}\n{}", texts.tools, texts.system);
        let state = State {
            version: state::VERSION,
            stable_prefix_hash: sha256_hex(prefix_text.as_bytes()),
            tools_sha256: tools_sha256.clone(),
            system_sha256: system_sha256.clone(),
            tools: payload::element_hashes(&request.tools),
            system: payload::element_hashes(&request.system),
            messages: request.message_hashes(),
        };
        let messages_sent = request.messages_text();
        let parts = Parts {
            tools: stats(&texts.tools, tools_sha256, request.tools.len()),
            system: stats(&texts.system, system_sha256, request.system.len()),
            messages: stats(
                &messages_sent,
                sha256_hex(messages_sent.as_bytes()),
                request.messages.len(),
            ),
        };
        let warnings = scan_warnings(request, &state, &mut reported);
        let mut report = WakeReport {
            wake: i + 1,
            source: request.source.clone(),
            shape: request.shape,
            compared_with: Baseline::None,
            stable_prefix_bytes: texts.tools.len() + texts.system.len(),
            stable_prefix_tokens_est: crate::tokens::estimate(&texts.tools)
                + crate::tokens::estimate(&texts.system),
            stable_prefix_hash: state.stable_prefix_hash.clone(),
            previous_hash: None,
            prefix_changed: false,
            drifted_parts: Vec::new(),
            parts,
            warnings,
            first_difference: None,
        };
        if let Some((before, before_texts, baseline)) = &previous {
            report.compared_with = *baseline;
            report.previous_hash = Some(before.stable_prefix_hash.clone());
            report.prefix_changed = before.stable_prefix_hash != state.stable_prefix_hash;
            report.drifted_parts = drifted_parts(before, &state);
            report.first_difference = report.drifted_parts.first().map(|&part| {
                difference(part, request, before, &state, before_texts.as_ref(), &texts)
            });
            totals.compared += 1;
            match report.drifted_parts.first() {
                None => totals.cacheable += 1,
                Some(part) => {
                    totals.drifted += 1;
                    match part {
                        Part::Tools => totals.broken_by_tools += 1,
                        Part::System => totals.broken_by_system += 1,
                        Part::Messages => totals.broken_by_messages += 1,
                    }
                }
            }
        }
        totals.wakes += 1;
        totals.warnings += report.warnings.len();
        wakes.push(report);
        previous = Some((state, Some(texts), Baseline::PreviousWake));
    }
    let (state, _, _) = previous.filter(|_| !wakes.is_empty())?;
    Some(Report {
        wakes,
        totals,
        state,
    })
}

fn stats(text: &str, sha256: String, count: usize) -> PartStats {
    PartStats {
        bytes: text.len(),
        tokens_est: crate::tokens::estimate(text),
        sha256,
        count,
    }
}

fn drifted_parts(before: &State, now: &State) -> Vec<Part> {
    let mut parts = Vec::new();
    if before.tools_sha256 != now.tools_sha256 {
        parts.push(Part::Tools);
    }
    if before.system_sha256 != now.system_sha256 {
        parts.push(Part::System);
    }
    // Append-only: every earlier message still there, unchanged, in the same place.
    if !now.messages.starts_with(&before.messages) {
        parts.push(Part::Messages);
    }
    parts
}

fn difference(
    part: Part,
    request: &Request,
    before: &State,
    now: &State,
    before_texts: Option<&Texts>,
    texts: &Texts,
) -> Difference {
    let (old, new, elements) = match part {
        Part::Tools => (&before.tools, &now.tools, &request.tools),
        Part::System => (&before.system, &now.system, &request.system),
        Part::Messages => (&before.messages, &now.messages, &request.messages),
    };
    let index = (0..old.len().max(new.len()))
        .find(|&j| old.get(j) != new.get(j))
        .unwrap_or(0);
    let pointer = elements
        .get(index)
        .map(|e| e.pointer.clone())
        .unwrap_or_else(|| fallback_pointer(part, request, index));
    let pick = |t: &Texts| -> String {
        match part {
            Part::Tools => t.tools.clone(),
            Part::System => t.system.clone(),
            Part::Messages => t.messages.clone(),
        }
    };
    let mut found = Difference {
        part,
        pointer,
        offset: None,
        previous: None,
        current: None,
    };
    if let Some(before_texts) = before_texts {
        let (old_text, new_text) = (pick(before_texts), pick(texts));
        if let Some(offset) = diff::first_difference(&old_text, &new_text) {
            found.offset = Some(offset);
            found.previous = Some(diff::context(&old_text, offset));
            found.current = Some(diff::context(&new_text, offset));
        }
    }
    found
}

/// The pointer of an element that is gone from this wake (it was removed).
fn fallback_pointer(part: Part, request: &Request, index: usize) -> String {
    match (part, request.shape) {
        (Part::Tools, _) => format!("/tools/{index}"),
        (Part::System, Shape::Anthropic) => format!("/system/{index}"),
        (Part::System, Shape::OpenAi) => format!("/messages/{index}"),
        (Part::Messages, Shape::Anthropic) => format!("/messages/{index}"),
        (Part::Messages, Shape::OpenAi) => format!("/messages/{}", request.system.len() + index),
    }
}

/// Warnings for elements not already reported, unchanged at the same place, in this run.
fn scan_warnings(
    request: &Request,
    state: &State,
    reported: &mut HashSet<(String, String)>,
) -> Vec<Warning> {
    let earlier = request.messages.len().saturating_sub(1);
    let scanned = request
        .tools
        .iter()
        .zip(&state.tools)
        .chain(request.system.iter().zip(&state.system))
        .chain(request.messages[..earlier].iter().zip(&state.messages));
    let mut out = Vec::new();
    for (element, hash) in scanned {
        if reported.insert((element.pointer.clone(), hash.clone())) {
            warnings::collect(&element.pointer, &element.value, &mut out);
        }
    }
    out
}
