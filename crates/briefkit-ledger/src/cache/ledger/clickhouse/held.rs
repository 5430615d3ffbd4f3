//! Rows the spool's disk refused (full, or failing), kept in memory and sent from there.
//!
//! A row handed to the shipper is never acknowledged and then lost: when the spool file
//! cannot take it, the row is held here, up to [`HOLD_BYTES`] of rows, and the writer
//! thread sends it straight to ClickHouse with the spool's rows, under an identity of its
//! own (a name for this process's held rows and the row's sequence number), so a batch sent
//! twice is stored once. Past the cap the append fails and the caller counts the row as a
//! ledger error: refused, never silently dropped. Held rows live as long as the process: a
//! kill -9 loses them (at most [`HOLD_BYTES`], counted as `rows_held` in `/stats`).

use std::collections::VecDeque;

use crate::cache::ledger::Entry;

/// The most bytes of rows held in memory.
pub const HOLD_BYTES: u64 = 32 << 20;

/// This process's held rows, oldest first.
pub struct Held {
    /// The identity of this process's held rows (as a spool file's name is).
    pub name: String,
    next: u64,
    rows: VecDeque<(u64, Entry, u64)>,
    bytes: u64,
}

impl Held {
    pub fn new() -> Held {
        let ms = crate::clock::now_ms().max(0);
        let random = std::hash::BuildHasher::hash_one(
            &std::collections::hash_map::RandomState::new(),
            (ms, std::process::id()),
        );
        Held {
            name: format!("held-{ms:013}-{}-{:08x}", std::process::id(), random as u32),
            next: 0,
            rows: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Holds `rows` (encoded in `bytes` bytes), or refuses them all when they would pass
    /// the cap.
    pub fn hold(&mut self, rows: &[Entry], bytes: u64) -> bool {
        if self.bytes.saturating_add(bytes) > HOLD_BYTES {
            return false;
        }
        let each = bytes / rows.len().max(1) as u64;
        for row in rows {
            self.rows.push_back((self.next, row.clone(), each));
            self.next += 1;
        }
        self.bytes += each * rows.len() as u64;
        true
    }

    pub fn len(&self) -> u64 {
        self.rows.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The oldest rows, at most `max`, with their sequence numbers: the next batch.
    pub fn batch(&self, max: usize) -> Vec<(u64, Entry)> {
        self.rows
            .iter()
            .take(max.max(1))
            .map(|(seq, row, _)| (*seq, row.clone()))
            .collect()
    }

    /// Forgets the oldest `n` rows (ClickHouse took them).
    pub fn taken(&mut self, n: usize) {
        for _ in 0..n {
            if let Some((_, _, bytes)) = self.rows.pop_front() {
                self.bytes = self.bytes.saturating_sub(bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_held_in_order_up_to_the_cap_and_forgotten_once_taken() {
        let mut held = Held::new();
        let row = Entry::new("proxy", "openai", "m");
        assert!(held.hold(&[row.clone(), row.clone()], 600));
        assert!(!held.hold(std::slice::from_ref(&row), HOLD_BYTES));
        assert_eq!(held.len(), 2);
        let batch = held.batch(10);
        assert_eq!(batch.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [0, 1]);
        held.taken(1);
        assert_eq!(held.batch(10)[0].0, 1);
        held.taken(1);
        assert!(held.is_empty());
        assert!(held.hold(&[row], HOLD_BYTES));
    }
}
