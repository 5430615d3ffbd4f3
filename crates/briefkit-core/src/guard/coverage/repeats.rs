//! Repeats: a rule said twice in the original is kept when either copy is.

use super::super::hash::FxMap;
use super::super::vocab::Id;
use super::{REPEAT, REPEATS, Verdict, instruct, units};

/// A dropped unit whose words and constraints another, kept unit of the original already
/// says (a repeated rule, `as mentioned above, …`) is kept with it.
pub(super) fn repeats(units: &[units::Unit], weight: &dyn Fn(Id) -> f64, verdict: &mut [Verdict]) {
    let mut postings: FxMap<Id, Vec<u32>> = FxMap::default();
    for (i, u) in units.iter().enumerate() {
        if verdict[i] != Verdict::Dropped {
            for &k in &u.keys {
                postings.entry(k).or_default().push(i as u32);
            }
        }
    }
    for i in 0..units.len() {
        let u = &units[i];
        if !(u.instruction || u.statement) || verdict[i] != Verdict::Dropped {
            continue;
        }
        let total: f64 = u.keys.iter().map(|&k| weight(k)).sum();
        let mut candidates: Vec<u32> = u
            .keys
            .iter()
            .filter_map(|k| postings.get(k))
            .flat_map(|list| {
                let at = list.partition_point(|&p| (p as usize) < i);
                let lo = at.saturating_sub(REPEATS / 2);
                list[lo..(lo + REPEATS).min(list.len())].iter().copied()
            })
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        // A repeat shares two words or more: one shared word (`say` in `mentions`) is a
        // coincidence, not a restatement.
        let repeated = candidates.iter().any(|&v| {
            let other = &units[v as usize];
            let shared: Vec<Id> = u
                .keys
                .iter()
                .copied()
                .filter(|k| other.keys.binary_search(k).is_ok())
                .collect();
            let kept: f64 = shared.iter().map(|&k| weight(k)).sum();
            v as usize != i
                && shared.len() >= 2
                && kept >= REPEAT * total
                && instruct::lost(u.families & instruct::CHECKED, other.families).is_none()
                // `always keep answers short` says more than `keep answers short`.
                && (u.families & instruct::ALWAYS == 0 || other.families & instruct::ALWAYS != 0)
        });
        if repeated {
            verdict[i] = Verdict::Kept;
        }
    }
}
