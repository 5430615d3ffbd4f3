//! What `align` reports per wake and across a run, as typed, serialisable values.
//!
//! The per-wake object keeps its flat fields (`stable_prefix_hash`, `prefix_changed`, …)
//! and also carries them as seed 002's `cache_metrics` object with its `markers`, so tools
//! written against either shape read the same figures.

use super::State;
use super::wake::Digested;
use super::warnings::Warning;
use crate::wire::Wire;

/// A part of a request, in the order a prompt cache sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Tools,
    System,
    /// The worked examples after the system part (part of the stable prefix).
    Examples,
    Messages,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Tools => "tools",
            Part::System => "system",
            Part::Examples => "examples",
            Part::Messages => "messages",
        }
    }
}

/// Size and hash of one compared part as sent (the conversation without `cache_control`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PartStats {
    pub bytes: usize,
    pub tokens_est: usize,
    pub sha256: String,
    /// How many tools, system elements or messages the part holds.
    pub count: usize,
}

/// The compared parts: the stable tools and system, and the compared conversation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Parts {
    pub tools: PartStats,
    pub system: PartStats,
    /// Only for a body with worked examples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<PartStats>,
    pub messages: PartStats,
}

/// A zone left out of the comparison, measured only.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Zone {
    /// How many elements (tools, system blocks or messages) it holds.
    pub count: usize,
    /// Their size as sent.
    pub bytes: usize,
    pub tokens_est: usize,
    /// Their JSON pointers.
    pub pointers: Vec<String>,
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
    /// Byte offset in the part's text as sent (for the conversation: without
    /// `cache_control`). Unknown across runs: the state file keeps hashes, not text.
    pub offset: Option<usize>,
    /// About 40 bytes either side of the offset, secrets cut.
    pub previous: Option<String>,
    pub current: Option<String>,
    /// A marker a known client writes into its requests, when the differing element holds
    /// one: what it is and what its change means for the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_marker: Option<super::ClientMarker>,
}

/// Seed 002's per-wake cache metrics.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CacheMetrics {
    pub stable_prefix_bytes: usize,
    pub stable_prefix_tokens_est: usize,
    pub stable_prefix_hash: String,
    pub prefix_changed: bool,
    pub previous_hash: Option<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct WakeReport {
    /// 1-based position in the run.
    pub wake: usize,
    pub source: String,
    pub shape: Wire,
    pub compared_with: Baseline,
    pub stable_prefix_bytes: usize,
    pub stable_prefix_tokens_est: usize,
    pub stable_prefix_hash: String,
    pub previous_hash: Option<String>,
    pub prefix_changed: bool,
    pub drifted_parts: Vec<Part>,
    pub parts: Parts,
    /// The volatile tools and system blocks after the stable prefix.
    pub live_zone: Zone,
    /// The last messages left out with `--volatile-tail` (empty without it).
    pub volatile_tail: Zone,
    /// Volatile values in the stable prefix and in every compared message but the newest;
    /// a value already reported earlier in the run, at the same place and unchanged, is
    /// not repeated.
    pub warnings: Vec<Warning>,
    /// Volatile-looking values (a clock time in an example, a date in a tool's text) that
    /// are byte-identical at the same place in every wake of the run: they cannot break a
    /// cache, so they are listed here and not flagged. Empty for a run of one wake.
    pub constant_values: Vec<Warning>,
    /// For the first drifted part (the one that broke the cache).
    pub first_difference: Option<Difference>,
    pub cache_metrics: CacheMetrics,
    /// `stable_prefix_hash:<hash>`, for downstream observability.
    pub markers: Vec<String>,
}

pub(super) fn new(wake: usize, source: &str, d: &Digested, warnings: Vec<Warning>) -> WakeReport {
    let bytes = d.stable.bytes();
    // The parts were measured from the same texts: no second pass over the prefix.
    let tokens_est = d.parts.tools.tokens_est
        + d.parts.system.tokens_est
        + d.parts.examples.as_ref().map_or(0, |e| e.tokens_est);
    let hash = d.stable.hash.clone();
    WakeReport {
        wake,
        source: source.to_string(),
        shape: d.layout.wire,
        compared_with: Baseline::None,
        stable_prefix_bytes: bytes,
        stable_prefix_tokens_est: tokens_est,
        stable_prefix_hash: hash.clone(),
        previous_hash: None,
        prefix_changed: false,
        drifted_parts: Vec::new(),
        parts: d.parts.clone(),
        live_zone: d.live_zone.clone(),
        volatile_tail: d.volatile_tail.clone(),
        warnings,
        constant_values: Vec::new(),
        first_difference: None,
        cache_metrics: CacheMetrics {
            stable_prefix_bytes: bytes,
            stable_prefix_tokens_est: tokens_est,
            stable_prefix_hash: hash.clone(),
            prefix_changed: false,
            previous_hash: None,
        },
        markers: vec![format!("stable_prefix_hash:{hash}")],
    }
}

impl WakeReport {
    /// Records what this wake is compared with.
    pub(super) fn compare(&mut self, before: &State, baseline: Baseline) {
        self.compared_with = baseline;
        let changed = before.stable_prefix_hash != self.stable_prefix_hash;
        self.previous_hash = Some(before.stable_prefix_hash.clone());
        self.prefix_changed = changed;
        self.cache_metrics.previous_hash = self.previous_hash.clone();
        self.cache_metrics.prefix_changed = changed;
    }
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
    /// Only when an example broke a wake.
    #[serde(skip_serializing_if = "is_zero")]
    pub broken_by_examples: usize,
    pub warnings: usize,
    /// Volatile-looking values identical in every wake (not flagged).
    pub constant_values: usize,
}

impl Totals {
    pub(super) fn count_compared(&mut self, first_drifted: Option<Part>) {
        self.compared += 1;
        match first_drifted {
            None => self.cacheable += 1,
            Some(part) => {
                self.drifted += 1;
                match part {
                    Part::Tools => self.broken_by_tools += 1,
                    Part::System => self.broken_by_system += 1,
                    Part::Examples => self.broken_by_examples += 1,
                    Part::Messages => self.broken_by_messages += 1,
                }
            }
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
