//! The proxy's short memory for the dashboard: the last calls (a time series of input and
//! cached share per call) and the last drift events, each with where it drifted.
//!
//! Both are rings of a fixed length, so a proxy that runs for months holds the same few
//! hundred KiB as one that just started: the running totals are in `stats`, the whole
//! history in the ledger.

use std::collections::VecDeque;

use serde::Serialize;

use crate::cache::ledger::Entry;
use crate::call_status::CallStatus;

use super::super::detail::Detail;

/// Calls kept for the time series.
pub const MAX_RECENT_CALLS: usize = 256;

/// Drift events kept for the list.
pub const MAX_DRIFT_EVENTS: usize = 100;

/// One call, as the time series shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CallPoint {
    /// The call's place in the order requests arrived (1 for the proxy's first).
    pub seq: u64,
    /// When it finished (RFC 3339, UTC).
    pub time: String,
    pub provider: String,
    pub model: String,
    pub session: Option<String>,
    pub status: CallStatus,
    pub input_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub latency_ms: u64,
    pub drifted_parts: Option<Vec<String>>,
}

/// One call whose prefix drifted from its session's previous call.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DriftEvent {
    /// The `seq` of the call in the time series.
    pub seq: u64,
    pub time: String,
    pub provider: String,
    pub model: String,
    pub session: Option<String>,
    /// Every part that drifted, in the order a prompt cache reads them.
    pub parts: Vec<String>,
    /// The first of them (the one that broke the cache), with where and what changed.
    pub part: String,
    pub offset: Option<u64>,
    pub previous: Option<String>,
    pub current: Option<String>,
    /// Why there is no offset, when there is none.
    pub missing: Option<&'static str>,
}

/// Both rings are in arrival order: rows are finished by several threads, so one may be
/// handed over after a later one, and is put back in its place.
#[derive(Debug, Default)]
pub struct Recent {
    calls: VecDeque<CallPoint>,
    drifts: VecDeque<DriftEvent>,
}

impl Recent {
    /// A row as it is handed to the ledger: `arrival` is its request's place in arrival
    /// order (from 0), `drift` where its drift is, when it drifted.
    pub fn record(&mut self, arrival: u64, row: &Entry, drift: Option<&Detail>) {
        let seq = arrival.saturating_add(1);
        let point = CallPoint {
            seq,
            time: row.time.clone(),
            provider: row.provider.clone(),
            model: row.model.clone(),
            session: row.session.clone(),
            status: row.status.clone(),
            input_tokens: row.input_tokens,
            cached_input_tokens: row.cached_input_tokens,
            cache_write_tokens: row.cache_write_tokens,
            output_tokens: row.output_tokens,
            latency_ms: row.latency_ms,
            drifted_parts: row.drifted_parts.clone(),
        };
        if let Some(parts) = row.drifted_parts.as_ref().filter(|p| !p.is_empty()) {
            let event = DriftEvent {
                seq,
                time: row.time.clone(),
                provider: row.provider.clone(),
                model: row.model.clone(),
                session: row.session.clone(),
                parts: parts.clone(),
                part: drift.map_or_else(|| parts[0].clone(), |d| d.part.clone()),
                offset: drift.and_then(|d| d.offset),
                previous: drift.and_then(|d| d.previous.clone()),
                current: drift.and_then(|d| d.current.clone()),
                missing: drift.and_then(|d| d.missing),
            };
            place(&mut self.drifts, event, |e| e.seq, MAX_DRIFT_EVENTS);
        }
        place(&mut self.calls, point, |c| c.seq, MAX_RECENT_CALLS);
    }

    pub fn calls(&self) -> impl Iterator<Item = &CallPoint> {
        self.calls.iter()
    }

    /// Newest first.
    pub fn drifts(&self) -> impl Iterator<Item = &DriftEvent> {
        self.drifts.iter().rev()
    }
}

/// Puts `item` in its place by `seq` (almost always the end), dropping the oldest past
/// `cap`; an item older than everything in a full ring is dropped itself.
fn place<T>(ring: &mut VecDeque<T>, item: T, seq: impl Fn(&T) -> u64, cap: usize) {
    let at = ring.len()
        - ring
            .iter()
            .rev()
            .take_while(|x| seq(x) > seq(&item))
            .count();
    if ring.len() == cap {
        if at == 0 {
            return;
        }
        ring.pop_front();
        ring.insert(at - 1, item);
    } else {
        ring.insert(at, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(drifted: Option<Vec<&str>>) -> Entry {
        let mut e = Entry::new("proxy", "openai", "m");
        e.session = Some("s".into());
        e.input_tokens = Some(100);
        e.drifted_parts = drifted.map(|p| p.into_iter().map(String::from).collect());
        e
    }

    #[test]
    fn the_rings_keep_the_newest_and_stay_bounded() {
        let mut recent = Recent::default();
        let detail = Detail {
            part: "system".into(),
            offset: Some(12),
            previous: Some("a".into()),
            current: Some("b".into()),
            missing: None,
        };
        for i in 0..(MAX_RECENT_CALLS + 50) {
            let drifted = (i % 2 == 0).then(|| vec!["system", "messages"]);
            recent.record(i as u64, &row(drifted), (i % 2 == 0).then_some(&detail));
        }
        assert_eq!(recent.calls().count(), MAX_RECENT_CALLS);
        assert_eq!(
            recent.calls().last().unwrap().seq,
            MAX_RECENT_CALLS as u64 + 50
        );
        assert_eq!(recent.drifts().count(), MAX_DRIFT_EVENTS);
        let newest = recent.drifts().next().unwrap();
        assert_eq!(newest.seq, MAX_RECENT_CALLS as u64 + 49);
        assert_eq!((newest.part.as_str(), newest.offset), ("system", Some(12)));
        assert_eq!(newest.parts, ["system", "messages"]);
    }

    #[test]
    fn a_row_handed_over_late_takes_its_place_in_arrival_order() {
        let mut recent = Recent::default();
        for arrival in [0, 2, 1, 4, 3] {
            recent.record(arrival, &row(Some(vec!["tools"])), None);
        }
        let seqs: Vec<u64> = recent.calls().map(|c| c.seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5]);
        let newest: Vec<u64> = recent.drifts().map(|d| d.seq).collect();
        assert_eq!(newest, [5, 4, 3, 2, 1]);
        // In a full ring, a row older than all of it is left out.
        let mut full = Recent::default();
        for arrival in 10..(10 + MAX_RECENT_CALLS as u64) {
            full.record(arrival, &row(None), None);
        }
        full.record(3, &row(None), None);
        assert_eq!(full.calls().next().unwrap().seq, 11);
        full.record(10 + MAX_RECENT_CALLS as u64 + 5, &row(None), None);
        full.record(10 + MAX_RECENT_CALLS as u64, &row(None), None);
        let last: Vec<u64> = full
            .calls()
            .map(|c| c.seq)
            .skip(MAX_RECENT_CALLS - 2)
            .collect();
        assert_eq!(
            last,
            [11 + MAX_RECENT_CALLS as u64, 16 + MAX_RECENT_CALLS as u64]
        );
    }

    #[test]
    fn a_call_that_did_not_drift_is_no_event() {
        let mut recent = Recent::default();
        recent.record(0, &row(Some(vec![])), None);
        recent.record(1, &row(None), None);
        assert_eq!(recent.drifts().count(), 0);
        assert_eq!(recent.calls().count(), 2);
    }
}
