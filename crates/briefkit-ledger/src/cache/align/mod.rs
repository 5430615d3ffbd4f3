//! Prefix-drift detection for a sequence of provider request bodies ("wakes").
//!
//! A provider serves a call from its prompt cache only when the start of the request is
//! byte-identical to an earlier one. So across wakes the stable prefix (tools, static
//! system and worked examples, as `wire::prefix` defines it from the bytes sent) must not
//! change at all (a changed example is drift of the `examples` part), and
//! the conversation may only grow at its end. This module says, per wake, whether that held,
//! which part broke it and where; and it points at volatile values (timestamps, ids, tokens)
//! that sit in the part that should not change. It never rewrites a request: rewriting the
//! cached zone is what breaks caches in the first place.
//!
//! Three zones are never drift and never warned about, only measured: the live zone (the
//! volatile system part after the stable prefix, see `wire::prefix`), the last N messages
//! of every wake when the caller names a volatile tail (a session's Tier 3), and, with
//! `--wakes`, the whole conversation (each wake brings its own).
//!
//! `cache_control` markers count as bytes in tools and system: moving the marker there
//! changes which prefix is written, so it is drift. In the conversation they are left out of
//! the comparison, because sliding one marker to the newest message on every call is the
//! documented way to cache a growing conversation, and the marker is not part of the key.
//!
//! Streaming: [`Aligner`] takes one body at a time and keeps only the previous wake's hashes
//! and texts plus a small report per wake, so memory does not grow with the bodies read.

pub mod diff;
mod markers;
pub mod read;
mod report;
pub mod run;
pub mod state;
mod wake;
pub mod warnings;

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use crate::wire::Wire;
pub use crate::wire::prefix::NotARequest;
pub use markers::ClientMarker;
pub use report::{
    Baseline, CacheMetrics, Difference, Part, PartStats, Parts, Totals, WakeReport, Zone,
};
pub use state::State;
pub use wake::comparison_text;
pub use warnings::Warning;

use wake::{Digested, Texts};

/// What to compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Each body is a separate wake with its own conversation: compare the stable prefix
    /// only.
    pub wakes: bool,
    /// Leave the last N messages of every wake out of the comparison (a volatile tail, such
    /// as a session's Tier 3).
    pub volatile_tail: usize,
}

/// A run's report: per wake, then across them. Its JSON form is `wakes` and `totals` (the
/// state and options are the caller's own).
#[derive(serde::Serialize)]
pub struct Report {
    pub wakes: Vec<WakeReport>,
    pub totals: Totals,
    /// The last wake, for `--state`.
    #[serde(skip)]
    pub state: State,
    #[serde(skip)]
    pub options: Options,
}

impl Report {
    /// No wake drifted and no warning was raised.
    pub fn clean(&self) -> bool {
        self.totals.drifted == 0 && self.totals.warnings == 0
    }
}

/// The previous wake, by hash; its texts only within one run.
struct Previous {
    state: State,
    texts: Option<Texts>,
    baseline: Baseline,
}

/// Compares wakes one at a time. A capture may mix wires (several agents behind one
/// proxy): each wake is compared with the previous wake of its own wire.
pub struct Aligner {
    options: Options,
    /// The last wake of each wire in this run.
    previous: HashMap<Wire, Previous>,
    /// The last wake of an earlier run (`--state`), for the first wake of its wire.
    baseline: Option<Previous>,
    /// Fingerprints of (pointer, element hash) already scanned for volatile values.
    reported: HashSet<u64>,
    /// Per wire, the number of wakes and the fingerprints of the elements every one of
    /// them holds unchanged at the same place: a volatile-looking value in one of those
    /// never changed in the run, so it cannot have broken a cache.
    in_every_wake: HashMap<Wire, (usize, HashSet<u64>)>,
    /// Per wake, its wire and the element fingerprint of each of its warnings.
    warning_elements: Vec<(Wire, Vec<u64>)>,
    /// The last wake's state, for `--state`.
    last: Option<State>,
    wakes: Vec<WakeReport>,
    totals: Totals,
}

impl Aligner {
    /// `baseline` is the last wake of an earlier run, if any.
    pub fn new(options: Options, baseline: Option<State>) -> Aligner {
        Aligner {
            options,
            previous: HashMap::new(),
            baseline: baseline.map(|state| Previous {
                state,
                texts: None,
                baseline: Baseline::StateFile,
            }),
            reported: HashSet::new(),
            in_every_wake: HashMap::new(),
            warning_elements: Vec::new(),
            last: None,
            wakes: Vec::new(),
            totals: Totals::default(),
        }
    }

    /// Compares the next wake with the previous one; `source` names it in the report.
    pub fn push(&mut self, source: &str, body: &Value) -> Result<&WakeReport, NotARequest> {
        let digested = wake::digest(body, self.options.volatile_tail)?;
        let state = State {
            version: state::VERSION,
            stable_prefix_hash: digested.stable.hash.clone(),
            tools_sha256: digested.stable.tools_hash.clone(),
            system_sha256: digested.stable.system_hash.clone(),
            tools: digested.tool_hashes.clone(),
            system: digested.system_hashes.clone(),
            examples: digested.example_hashes.clone(),
            messages: digested.message_hashes.clone(),
            wire: Some(digested.layout.wire),
        };
        let wire = digested.layout.wire;
        let (warnings, elements) = self.scan_warnings(&digested);
        self.keep_unchanged(&digested);
        self.warning_elements.push((wire, elements));
        let mut report = report::new(self.wakes.len() + 1, source, &digested, warnings);
        if !self.previous.contains_key(&wire)
            && let Some(baseline) = self
                .baseline
                .take_if(|b| b.state.wire.is_none_or(|w| w == wire))
        {
            self.previous.insert(wire, baseline);
        }
        if let Some(previous) = self.previous.get(&wire) {
            report.compare(&previous.state, previous.baseline);
            report.drifted_parts = self.drifted_parts(&previous.state, &state);
            report.first_difference = report
                .drifted_parts
                .first()
                .map(|&part| difference(part, &digested, &previous.state, previous.texts.as_ref()));
            self.totals
                .count_compared(report.drifted_parts.first().copied());
        }
        self.totals.wakes += 1;
        self.totals.warnings += report.warnings.len();
        self.last = Some(state.clone());
        self.previous.insert(
            wire,
            Previous {
                state,
                texts: Some(digested.texts),
                baseline: Baseline::PreviousWake,
            },
        );
        self.wakes.push(report);
        Ok(self.wakes.last().expect("just pushed"))
    }

    /// The report; `None` when no wake was pushed. With two wakes or more, a warning
    /// whose element is byte-identical at the same place in every wake becomes a constant
    /// value: reported, not flagged. (With one wake nothing says it is constant.)
    pub fn finish(mut self) -> Option<Report> {
        if self.wakes.is_empty() {
            return None;
        }
        for (wake, (wire, elements)) in self.wakes.iter_mut().zip(&self.warning_elements) {
            let Some((count, unchanged)) = self.in_every_wake.get(wire) else {
                continue;
            };
            if *count < 2 {
                continue;
            }
            let warnings = std::mem::take(&mut wake.warnings);
            for (warning, element) in warnings.into_iter().zip(elements) {
                if unchanged.contains(element) {
                    wake.constant_values.push(warning);
                } else {
                    wake.warnings.push(warning);
                }
            }
            self.totals.warnings -= wake.constant_values.len();
            self.totals.constant_values += wake.constant_values.len();
        }
        let state = self.last?;
        Some(Report {
            wakes: self.wakes,
            totals: self.totals,
            state,
            options: self.options,
        })
    }

    fn drifted_parts(&self, before: &State, now: &State) -> Vec<Part> {
        let mut parts = Vec::new();
        if before.tools_sha256 != now.tools_sha256 {
            parts.push(Part::Tools);
        }
        if before.system_sha256 != now.system_sha256 {
            parts.push(Part::System);
        }
        // Changing a worked example changes the prefix: drift, named as such.
        if before.examples != now.examples {
            parts.push(Part::Examples);
        }
        // Append-only: every earlier message still there, unchanged, in the same place.
        if !self.options.wakes && !now.messages.starts_with(&before.messages) {
            parts.push(Part::Messages);
        }
        parts
    }

    /// Narrows the elements found unchanged in every wake to those this wake holds too.
    fn keep_unchanged(&mut self, d: &Digested) {
        let layout = &d.layout;
        let this: HashSet<u64> = layout.tools[..layout.stable_tools]
            .iter()
            .zip(&d.tool_hashes)
            .chain(
                layout.system[..layout.stable_system]
                    .iter()
                    .zip(&d.system_hashes),
            )
            .chain(layout.examples.iter().zip(&d.example_hashes))
            .chain(
                layout.conversation[..d.compared]
                    .iter()
                    .zip(&d.message_hashes),
            )
            .map(|(element, hash)| fingerprint(&element.pointer, hash))
            .collect();
        match self.in_every_wake.get_mut(&layout.wire) {
            None => {
                self.in_every_wake.insert(layout.wire, (1, this));
            }
            Some((count, before)) => {
                *count += 1;
                before.retain(|print| this.contains(print));
            }
        }
    }

    /// Volatile values in the stable tools, system and examples and in every compared
    /// message but the newest, each with the fingerprint of its element; an element
    /// already scanned, unchanged at the same place, is skipped.
    fn scan_warnings(&mut self, d: &Digested) -> (Vec<Warning>, Vec<u64>) {
        let layout = &d.layout;
        let newest = if self.options.wakes {
            0
        } else {
            d.compared.saturating_sub(1)
        };
        let scanned = layout.tools[..layout.stable_tools]
            .iter()
            .zip(&d.tool_hashes)
            .chain(
                layout.system[..layout.stable_system]
                    .iter()
                    .zip(&d.system_hashes),
            )
            .chain(layout.examples.iter().zip(&d.example_hashes))
            .chain(layout.conversation[..newest].iter().zip(&d.message_hashes));
        let mut out = Vec::new();
        let mut elements = Vec::new();
        for (element, hash) in scanned {
            let print = fingerprint(&element.pointer, hash);
            if self.reported.insert(print) {
                warnings::collect(&element.pointer, element.value, &mut out);
                elements.resize(out.len(), print);
            }
        }
        (out, elements)
    }
}

/// One element at one place: its pointer and its hash.
fn fingerprint(pointer: &str, hash: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (pointer, hash).hash(&mut hasher);
    hasher.finish()
}

/// The error for a body that is not a request, named by its source.
pub fn bad_request(source: &str, why: &NotARequest) -> crate::error::Error {
    crate::error::Error::input(format!("{source}: {why}")).with_hint(
        "pass a request body: OpenAI chat completions or Anthropic messages (a JSON \
         object with a `messages` array), OpenAI Responses (`input`) or Gemini (`contents`)",
    )
}

/// Analyses parsed bodies in order (a convenience over [`Aligner`] for callers that hold
/// them already). Returns `Ok(None)` when there are none.
pub fn analyse<'a>(
    bodies: impl IntoIterator<Item = (&'a str, &'a Value)>,
    baseline: Option<State>,
    options: Options,
) -> Result<Option<Report>, NotARequest> {
    let mut aligner = Aligner::new(options, baseline);
    for (source, body) in bodies {
        aligner
            .push(source, body)
            .map_err(|e| NotARequest(format!("{source}: {e}")))?;
    }
    Ok(aligner.finish())
}

fn difference(
    part: Part,
    now: &Digested,
    before: &State,
    before_texts: Option<&Texts>,
) -> Difference {
    let (old, new, elements) = match part {
        Part::Tools => (&before.tools, &now.tool_hashes, &now.layout.tools[..]),
        Part::System => (&before.system, &now.system_hashes, &now.layout.system[..]),
        Part::Examples => (
            &before.examples,
            &now.example_hashes,
            &now.layout.examples[..],
        ),
        Part::Messages => (
            &before.messages,
            &now.message_hashes,
            &now.layout.conversation[..],
        ),
    };
    let index = (0..old.len().max(new.len()))
        .find(|&j| old.get(j) != new.get(j))
        .unwrap_or(0);
    let pointer = elements
        .get(index)
        .map(|e| e.pointer.clone())
        .unwrap_or_else(|| fallback_pointer(part, now, index));
    let client_marker = elements
        .get(index)
        .and_then(|e| markers::find(&crate::wire::prefix::as_sent(e.value)));
    let mut found = Difference {
        part,
        pointer,
        offset: None,
        previous: None,
        current: None,
        client_marker,
    };
    if let Some(before_texts) = before_texts {
        let (old_text, new_text) = (before_texts.of(part), now.texts.of(part));
        if let Some(offset) = diff::first_difference(old_text, new_text) {
            found.offset = Some(offset);
            found.previous = Some(diff::context(old_text, offset));
            found.current = Some(diff::context(new_text, offset));
        }
    }
    found
}

/// The pointer of an element that is gone from this wake (it was removed).
fn fallback_pointer(part: Part, now: &Digested, index: usize) -> String {
    let layout = &now.layout;
    // Responses: `instructions` is the first system element, the rest are `input` items.
    let instructions = usize::from(layout.system_is_string);
    match (part, layout.wire) {
        (Part::Tools, _) => format!("/tools/{index}"),
        (Part::System, Wire::Anthropic) => format!("/system/{index}"),
        (Part::System, Wire::OpenAi) => format!("/messages/{index}"),
        (Part::System, Wire::Responses) if index < instructions => "/instructions".into(),
        (Part::System, Wire::Responses) => format!("/input/{}", index - instructions),
        (Part::System, Wire::Gemini) => format!("/systemInstruction/parts/{index}"),
        (Part::Examples, Wire::Anthropic) => format!("/messages/{index}"),
        (Part::Examples, Wire::OpenAi) => {
            format!("/messages/{}", layout.stable_system.min(1) + index)
        }
        (Part::Examples, Wire::Responses) => format!("/input/{index}"),
        (Part::Examples, Wire::Gemini) => format!("/contents/{index}"),
        (Part::Messages, Wire::Anthropic) => format!("/messages/{index}"),
        (Part::Messages, Wire::OpenAi) => format!("/messages/{}", layout.system.len() + index),
        (Part::Messages, Wire::Responses) => format!(
            "/input/{}",
            layout.system.len() - instructions + layout.examples.len() + index
        ),
        (Part::Messages, Wire::Gemini) => format!("/contents/{index}"),
    }
}
