//! Where a unit of the original went: the sentence of the proposal (alone, or with the
//! sentence before or after it, for a unit split in two) that keeps most of its key words,
//! weighted by how rare each word is in the original.
//!
//! Candidates come from an index of the proposal's key words; a word found in more than
//! [`CAP`] sentences contributes only its [`CAP`] occurrences nearest to where the unit
//! would sit by position, so each unit costs at most `CAP` steps per word: linear.

use super::super::align::nearest;
use super::super::hash::FxMap;
use super::super::lookup::Lookup;
use super::super::reading::SentenceView;
use super::super::vocab::{Id, Vocab};
use super::super::words::Tok;
use super::instruct::{self, ORDERED_ITEM};
use super::units::{self, FactCursor, FactKeys, Shape};

const CAP: usize = 16;

/// What a sentence of the proposal offers: its key words and constraint families
/// (with those of the lead-in it is a list item of).
pub struct Window {
    pub keys: Box<[Id]>,
    pub families: u16,
    /// The list this sentence belongs to, lead-in and items (first and last window): a
    /// sentence written as a list (`Do not give:` `- medical advice` …) is found in it.
    pub block: (u32, u32),
    /// Continues the paragraph or list item of the sentence before it: the two may be
    /// one unit of the original split in two.
    pub continues: bool,
    /// The qualifiers it has (`explicitly`, `occasionally`: `qualifier_mask`).
    pub qualifiers: u32,
}

/// At most this many windows on either side of the best one are joined into a list's
/// window.
const BLOCK: usize = 8;

/// Builds the proposal's windows as its sentences are read.
pub struct Windows<'a> {
    text: &'a str,
    lk: &'a Lookup,
    facts: FactCursor<'a>,
    windows: Vec<Window>,
    /// The last sentence's window, its keys still open to a fact after it on its line.
    pending: Option<(Vec<Id>, Window)>,
    last_end: Option<usize>,
    /// The lead-in or heading a list item belongs to: its window and families.
    lead: Option<(u32, u16)>,
}

impl<'a> Windows<'a> {
    pub fn new(text: &'a str, lk: &'a Lookup, facts: &'a FactKeys) -> Self {
        Windows {
            text,
            lk,
            facts: FactCursor::new(facts),
            windows: Vec::new(),
            pending: None,
            last_end: None,
            lead: None,
        }
    }

    fn settle(&mut self) {
        if let Some((mut keys, mut window)) = self.pending.take() {
            keys.sort_unstable();
            keys.dedup();
            window.keys = keys.into_boxed_slice();
            self.windows.push(window);
        }
    }

    pub fn sentence(&mut self, vocab: &Vocab, view: &SentenceView) {
        let (toks, text) = (view.tokens, self.text);
        let mut keys = Vec::new();
        let mut for_prev = Vec::new();
        self.facts.take(
            text,
            self.last_end,
            view.sentence.end,
            &mut for_prev,
            &mut keys,
        );
        if let Some((prev, _)) = self.pending.as_mut() {
            prev.extend(for_prev);
        }
        self.settle();
        let s = view.index as u32;
        let bound = view.values.iter().any(|v| v.bound.is_some());
        let mut families = match view.constraints {
            Some(c) => instruct::families_of(c, toks, view.consumed, bound, vocab, text),
            None => instruct::families(toks, view.consumed, bound, vocab, self.lk, text),
        };
        if instruct::gives_order(toks, vocab, self.lk) {
            families |= instruct::ORDERS;
        }
        // A question answered by the next sentence is its condition (`No dedicated
        // command? Check hooks` = `If no dedicated command exists, check hooks`).
        if self
            .last_end
            .is_some_and(|p| text[p..view.sentence.start].trim_start().starts_with('?'))
        {
            families |= instruct::COND;
        }
        // A label before a colon says when or where the rest applies (`Config changes:
        // update docs` = `Whenever the configuration changes, update the docs`).
        if toks
            .iter()
            .skip(1)
            .take(toks.len().saturating_sub(2))
            .any(|t| matches!(t.tok, Tok::Mark(':')))
        {
            families |= instruct::CARRY;
        }
        let start = view.sentence.start;
        let shape = units::shape(text, start);
        let mut block = (s, s);
        match shape {
            Shape::Item { ordered } => {
                if ordered {
                    families |= ORDERED_ITEM;
                }
                if let Some((l, lead_families)) = self.lead {
                    // What the lead-in says of its items (`Required fields:`,
                    // `Never discuss:`), they say too.
                    families |= lead_families & (instruct::CHECKED | instruct::CARRIED);
                    block.0 = l;
                }
            }
            Shape::Heading => self.lead = Some((s, families)),
            _ if units::at_line_start(text, start) => self.lead = None,
            _ => {}
        }
        if shape != Shape::Heading
            && !matches!(shape, Shape::Item { .. })
            && matches!(toks.last().map(|t| t.tok), Some(Tok::Mark(':')))
        {
            self.lead = Some((s, families));
        }
        instruct::keys(toks, view.consumed, view.keys, vocab, &mut keys);
        // A sentence that continues the paragraph or list item before it (no blank line,
        // not at a line's start) may be the second half of a split unit.
        let continues = self.last_end.is_some_and(|p| {
            shape == Shape::Plain
                && !text[p..start].contains("\n\n")
                && !units::at_line_start(text, start)
        });
        self.last_end = Some(view.sentence.end);
        let qualifiers = super::super::lexicon::data::qualifier_mask(
            &text[view.sentence.start..view.sentence.end.min(text.len())].to_lowercase(),
        );
        let window = Window {
            keys: Box::default(),
            families,
            block,
            continues,
            qualifiers,
        };
        self.pending = Some((keys, window));
    }

    /// The windows, keys sorted, each list's last window known.
    pub fn finish(mut self) -> Vec<Window> {
        if let (Some((keys, _)), Some(end)) = (self.pending.as_mut(), self.last_end) {
            self.facts.rest(self.text, end, keys);
        }
        self.settle();
        let mut ends = vec![0u32; self.windows.len()];
        for (i, w) in self.windows.iter().enumerate() {
            ends[w.block.0 as usize] = i as u32;
        }
        for w in &mut self.windows {
            w.block.1 = ends[w.block.0 as usize];
        }
        self.windows
    }
}

/// For each key word, the windows (in order) that have it.
pub struct Index {
    starts: Vec<u32>,
    windows: Vec<u32>,
    ids: FxMap<Id, u32>,
}

impl Index {
    pub fn new(windows: &[Window]) -> Self {
        let mut ids: FxMap<Id, u32> = FxMap::default();
        for w in windows {
            for &k in &w.keys {
                let n = ids.len() as u32;
                ids.entry(k).or_insert(n);
            }
        }
        let mut starts = vec![0u32; ids.len() + 1];
        for w in windows {
            for k in &w.keys {
                starts[ids[k] as usize + 1] += 1;
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut fill = starts.clone();
        let mut list = vec![0u32; starts[ids.len()] as usize];
        for (i, w) in windows.iter().enumerate() {
            for k in &w.keys {
                let slot = ids[k] as usize;
                list[fill[slot] as usize] = i as u32;
                fill[slot] += 1;
            }
        }
        Index {
            starts,
            windows: list,
            ids,
        }
    }

    fn get(&self, key: Id) -> &[u32] {
        match self.ids.get(&key) {
            Some(&i) => {
                let i = i as usize;
                &self.windows[self.starts[i] as usize..self.starts[i + 1] as usize]
            }
            None => &[],
        }
    }
}

/// The best counterpart of a unit: the share of its key weight kept (0 to 1) and the
/// families of the windows that keep it.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    pub share: f64,
    pub families: u16,
    /// The first and last window of the counterpart.
    pub from: usize,
    pub to: usize,
}

/// Scratch space reused across units (scores per window).
pub struct Search<'a> {
    pub windows: &'a [Window],
    pub index: &'a Index,
    score: Vec<f64>,
    touched: Vec<u32>,
}

impl<'a> Search<'a> {
    pub fn new(windows: &'a [Window], index: &'a Index) -> Self {
        Search {
            windows,
            index,
            score: vec![0.0; windows.len()],
            touched: Vec::new(),
        }
    }

    /// The counterpart of a unit with `keys` weighted by `weights`, expected near window
    /// `expected`: one window, or two when the second continues the first (a split
    /// sentence), or a whole list for a unit with a list in it (`lists`).
    pub fn find(
        &mut self,
        keys: &[Id],
        weights: &[f64],
        expected: usize,
        lists: bool,
    ) -> Option<Found> {
        let total: f64 = weights.iter().sum();
        if total <= 0.0 || self.windows.is_empty() {
            return None;
        }
        for (&k, &w) in keys.iter().zip(weights) {
            let postings = self.index.get(k);
            if postings.is_empty() {
                continue;
            }
            let near = nearest(postings, expected, CAP);
            for &p in near {
                if self.score[p as usize] == 0.0 {
                    self.touched.push(p);
                }
                self.score[p as usize] += w;
            }
        }
        // The two best single windows, nearest the expected place on ties.
        let mut best: [Option<(f64, usize)>; 2] = [None, None];
        for &p in &self.touched {
            let p = p as usize;
            let s = self.score[p];
            let better = |b: Option<(f64, usize)>| {
                b.is_none_or(|(bs, bp)| {
                    s > bs || (s == bs && p.abs_diff(expected) < bp.abs_diff(expected))
                })
            };
            if better(best[0]) {
                best[1] = best[0];
                best[0] = Some((s, p));
            } else if better(best[1]) {
                best[1] = Some((s, p));
            }
        }
        for &p in &self.touched {
            self.score[p as usize] = 0.0;
        }
        self.touched.clear();
        let mut found: Option<Found> = None;
        for (_, p) in best.into_iter().flatten() {
            let last = self.windows.len() - 1;
            let (first, end) = self.windows[p].block;
            let (first, end) = (first as usize, end as usize);
            let mut candidates = vec![(p, p)];
            if p > 0 && self.windows[p].continues {
                candidates.push((p - 1, p));
            }
            if p < last && self.windows[p + 1].continues {
                candidates.push((p, p + 1));
            }
            if lists && first != end {
                candidates.push((first.max(p.saturating_sub(BLOCK)), end.min(p + BLOCK)));
            }
            for (from, to) in candidates {
                let kept: f64 = keys
                    .iter()
                    .zip(weights)
                    .filter(|(k, _)| {
                        (from..=to).any(|q| self.windows[q].keys.binary_search(k).is_ok())
                    })
                    .map(|(_, &w)| w)
                    .sum();
                let families = (from..=to).fold(0, |f, q| f | self.windows[q].families);
                let share = kept / total;
                if found.is_none_or(|f| share > f.share + 1e-9) {
                    found = Some(Found {
                        share,
                        families,
                        from,
                        to,
                    });
                }
            }
        }
        found
    }

    /// The qualifiers of window range `from..=to`.
    pub fn qualifiers(&self, from: usize, to: usize) -> u32 {
        (from..=to).fold(0, |m, q| m | self.windows[q].qualifiers)
    }

    /// Whether window range `from..=to` has every key of `wanted`.
    pub fn has(&self, from: usize, to: usize, wanted: Id) -> bool {
        (from..=to).any(|q| self.windows[q].keys.binary_search(&wanted).is_ok())
    }
}
