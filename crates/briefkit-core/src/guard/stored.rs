//! The constraint words of every sentence of a text, stored flat: one pool of `u32`s and
//! a 17-byte record per sentence, instead of a dozen vectors each (300 bytes a sentence,
//! most of them empty). A sentence's [`Constraints`] are rebuilt when the comparison asks
//! for them, which it does only for sentences it aligned.

use super::lookup::Mark;
use super::reading::{Constraints, Modal};

/// Where one sentence's constraints are in the pool: the start and each list's length
/// (a list longer than 255 entries keeps its first 255: a sentence of that many
/// negations is not prose).
#[derive(Debug, Clone, Copy, Default)]
struct Record {
    offset: u32,
    lens: [u8; 13],
}

/// The constraints of a text's sentences.
#[derive(Debug, Default)]
pub struct Store {
    pool: Vec<u32>,
    records: Vec<Record>,
}

const MARKS: [Mark; 13] = [
    Mark::Negation,
    Mark::Obligation,
    Mark::Recommendation,
    Mark::Permission,
    Mark::Optional,
    Mark::Only,
    Mark::OnlyWeak,
    Mark::OnlyIf,
    Mark::Exception,
    Mark::Condition,
    Mark::Until,
    Mark::Universal,
    Mark::Partial,
];

fn lists(c: &Constraints) -> [Vec<u32>; 12] {
    let offsets = |v: &Vec<usize>| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    [
        offsets(&c.negation),
        c.negated.clone(),
        c.affixed.clone(),
        offsets(&c.only),
        offsets(&c.only_weak),
        offsets(&c.exception),
        offsets(&c.condition),
        c.clause.clone(),
        c.carried.clone(),
        offsets(&c.until),
        offsets(&c.universal),
        offsets(&c.partial),
    ]
}

impl Store {
    /// Gives back the growth slack once every sentence is in.
    pub fn shrink_to_fit(&mut self) {
        self.pool.shrink_to_fit();
        self.records.shrink_to_fit();
    }

    /// Stores `c`; returns its index.
    pub fn push(&mut self, c: &Constraints) -> u32 {
        let mut record = Record {
            offset: self.pool.len() as u32,
            lens: [0; 13],
        };
        for (k, list) in lists(c).iter().enumerate() {
            let n = list.len().min(255);
            record.lens[k] = n as u8;
            self.pool.extend_from_slice(&list[..n]);
        }
        let n = c.modals.len().min(255);
        record.lens[12] = n as u8;
        for m in &c.modals[..n] {
            let mark = MARKS.iter().position(|x| *x == m.mark).unwrap_or(0) as u32;
            self.pool
                .push(mark | u32::from(m.negated) << 8 | u32::from(m.verb.is_some()) << 9);
            self.pool.push(m.verb.unwrap_or(0));
            self.pool.push(m.at as u32);
        }
        self.records.push(record);
        (self.records.len() - 1) as u32
    }

    /// The constraints stored at `index`.
    pub fn get(&self, index: u32) -> Constraints {
        let Some(record) = self.records.get(index as usize) else {
            return Constraints::default();
        };
        let mut at = record.offset as usize;
        let mut take = |k: usize| {
            let n = record.lens[k] as usize;
            let out = self.pool[at..at + n].to_vec();
            at += n;
            out
        };
        let offsets = |v: Vec<u32>| v.into_iter().map(|x| x as usize).collect();
        let mut c = Constraints {
            negation: offsets(take(0)),
            negated: take(1),
            affixed: take(2),
            only: offsets(take(3)),
            only_weak: offsets(take(4)),
            exception: offsets(take(5)),
            condition: offsets(take(6)),
            clause: take(7),
            carried: take(8),
            until: offsets(take(9)),
            universal: offsets(take(10)),
            partial: offsets(take(11)),
            modals: Vec::new(),
        };
        for m in self.pool[at..at + 3 * record.lens[12] as usize].chunks_exact(3) {
            c.modals.push(Modal {
                mark: MARKS[(m[0] & 0xff) as usize % MARKS.len()],
                negated: m[0] & 1 << 8 != 0,
                verb: (m[0] & 1 << 9 != 0).then_some(m[1]),
                at: m[2] as usize,
            });
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_come_back_as_stored() {
        let c = Constraints {
            negation: vec![3, 40],
            negated: vec![7],
            modals: vec![Modal {
                mark: Mark::Permission,
                negated: true,
                verb: Some(12),
                at: 9,
            }],
            carried: vec![1, 2, 3],
            partial: vec![99],
            ..Constraints::default()
        };
        let mut store = Store::default();
        store.push(&Constraints::default());
        let i = store.push(&c);
        let back = store.get(i);
        assert_eq!(format!("{back:?}"), format!("{c:?}"));
        assert!(store.get(0).negation.is_empty());
    }
}
