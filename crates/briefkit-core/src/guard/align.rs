//! Sentence alignment: for each sentence of one text, the sentence of the other that says
//! the same thing, by shared content words and values.
//!
//! Comparing every pair of sentences would be quadratic, so candidates come from an index
//! of the other text's words; a word found in more than [`CAP`] sentences contributes only
//! its [`CAP`] occurrences nearest to where the sentence would sit by position. Each
//! sentence therefore costs at most `CAP` steps per word: linear in the texts. Ties go to
//! the candidate nearest that position, then to the earlier one: deterministic.

use super::hash::FxMap;
use super::vocab::Id;

/// Per sentence of a text: its distinct content ids, sorted; all sentences in one pool
/// (a vector per sentence cost more than its words on a long text).
#[derive(Debug, Default)]
pub struct Content {
    ids: Vec<Id>,
    ends: Vec<u32>,
}

impl Content {
    /// Adds the next sentence's ids (sorted, distinct).
    pub fn push(&mut self, words: &[Id]) {
        self.ids.extend_from_slice(words);
        self.ends.push(self.ids.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Gives back the growth slack once every sentence is in.
    pub fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    pub fn iter(&self) -> impl Iterator<Item = &[Id]> {
        (0..self.len()).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for Content {
    type Output = [Id];

    fn index(&self, i: usize) -> &[Id] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.ids[start..self.ends[i] as usize]
    }
}

impl From<&[Vec<Id>]> for Content {
    fn from(sentences: &[Vec<Id>]) -> Self {
        let mut content = Content::default();
        for words in sentences {
            content.push(words);
        }
        content
    }
}

/// At most this many candidate sentences per word.
const CAP: usize = 16;

/// The at most `cap` of `postings` (sorted sentence numbers) nearest to `expected`: all of
/// them when there are no more than `cap`.
pub(super) fn nearest(postings: &[u32], expected: usize, cap: usize) -> &[u32] {
    if postings.len() <= cap {
        return postings;
    }
    let at = postings.partition_point(|&p| (p as usize) < expected);
    let lo = at.saturating_sub(cap / 2).min(postings.len() - cap);
    &postings[lo..lo + cap]
}

/// The best match of a sentence, and whether it is strong: most of the sentence's words
/// found in a sentence they make a good part of, enough to trust without the other side
/// agreeing.
pub type Match = Option<(usize, bool)>;

/// For each sentence of `from` (its distinct content stems), the best sentence of `to`,
/// or `None` when no sentence of `to` shares at least half of the smaller one's words
/// (and two words, unless one sentence has only one or two).
pub fn best(from: &Content, to: &Content) -> Vec<Match> {
    let index = Postings::new(to);
    // Sentences with exactly the same words: an unchanged sentence finds its copy without
    // scoring (a copy shares every word and has none of its own, so it would win anyway;
    // among several, the nearest, as below).
    let mut copies: FxMap<&[Id], Vec<u32>> = FxMap::default();
    for (i, words) in to.iter().enumerate() {
        if !words.is_empty() {
            copies.entry(words).or_default().push(i as u32);
        }
    }
    let mut score = vec![0u32; to.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut out = Vec::with_capacity(from.len());
    for (f, words) in from.iter().enumerate() {
        let expected = if from.len() <= 1 {
            0
        } else {
            f * to.len().saturating_sub(1) / (from.len() - 1)
        };
        if let Some(same) = copies.get(words) {
            let at = same.partition_point(|&p| (p as usize) < expected);
            let nearest = [at.checked_sub(1), Some(at)]
                .into_iter()
                .flatten()
                .filter_map(|k| same.get(k))
                .min_by_key(|&&p| ((p as usize).abs_diff(expected), p))
                .copied()
                .unwrap_or(same[0]);
            out.push(Some((nearest as usize, words.len() >= 3)));
            continue;
        }
        for word in words {
            let postings = index.get(*word);
            if postings.is_empty() {
                continue;
            }
            let near = nearest(postings, expected, CAP);
            for &p in near {
                if score[p as usize] == 0 {
                    touched.push(p);
                }
                score[p as usize] += 1;
            }
        }
        // Most shared words, then fewest words of its own (an exact copy beats a longer
        // sentence that contains it), then nearest by position, then first.
        let mut chosen: Option<(u32, usize, usize, u32)> = None;
        for &p in &touched {
            let s = score[p as usize];
            let extra = to[p as usize].len() - s as usize;
            let distance = (p as usize).abs_diff(expected);
            let key = (
                s,
                std::cmp::Reverse(extra),
                std::cmp::Reverse(distance),
                std::cmp::Reverse(p),
            );
            let better = chosen.is_none_or(|(bs, be, bd, bp)| {
                key > (
                    bs,
                    std::cmp::Reverse(be),
                    std::cmp::Reverse(bd),
                    std::cmp::Reverse(bp),
                )
            });
            if better {
                chosen = Some((s, extra, distance, p));
            }
        }
        for &p in &touched {
            score[p as usize] = 0;
        }
        touched.clear();
        out.push(chosen.and_then(|(s, _, _, p)| {
            let (s, theirs) = (s as usize, to[p as usize].len());
            let smaller = words.len().min(theirs);
            let enough = s * 2 >= smaller && (s >= 2 || smaller <= 2);
            // Strong: most of this sentence is there, and it is a good part of that one.
            let strong = s >= 3 && s * 4 >= words.len() * 3 && s * 3 >= theirs;
            enough.then_some((p as usize, strong))
        }));
    }
    out
}

/// Each sentence's group on the other side: the sentences it is linked with. A match is
/// a link when both sides chose each other, or when it is strong and brings words the
/// other side's own choice lacks (two sentences merged into one, one split in two). A
/// deleted sentence is not linked to a sentence that merely shares some of its words.
pub fn groups(best: &[Match], back: &[Match], mine: &Content, theirs: &Content) -> Vec<Vec<usize>> {
    // Whether `words` share with `other` a word that `rival` does not have.
    let adds = |words: &[Id], other: &[Id], rival: &[Id]| {
        words
            .iter()
            .any(|w| other.binary_search(w).is_ok() && rival.binary_search(w).is_err())
    };
    let mut groups: Vec<Vec<usize>> = best
        .iter()
        .enumerate()
        .map(|(m, b)| {
            b.iter()
                .filter(|(other, strong)| match back[*other] {
                    Some((r, _)) if r == m => true,
                    Some((r, _)) => *strong && adds(&mine[m], &theirs[*other], &mine[r]),
                    None => *strong,
                })
                .map(|(other, _)| *other)
                .collect()
        })
        .collect();
    for (other, b) in back.iter().enumerate() {
        if let Some((m, true)) = *b
            && best[m].map(|x| x.0) != Some(other)
            && best[m].is_none_or(|(r, _)| adds(&theirs[other], &mine[m], &theirs[r]))
        {
            groups[m].push(other);
        }
    }
    groups
}

/// For each word id, the sentences (in order) that have it: one flat array, so building
/// it is two passes over the words with no map.
struct Postings {
    starts: Vec<u32>,
    sentences: Vec<u32>,
}

impl Postings {
    fn new(to: &Content) -> Self {
        let len = to.iter().flatten().max().map_or(0, |&m| m as usize + 1);
        let mut starts = vec![0u32; len + 1];
        for &w in to.iter().flatten() {
            starts[w as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut fill = starts.clone();
        let mut sentences = vec![0u32; starts[len] as usize];
        for (i, words) in to.iter().enumerate() {
            for &w in words {
                sentences[fill[w as usize] as usize] = i as u32;
                fill[w as usize] += 1;
            }
        }
        Postings { starts, sentences }
    }

    fn get(&self, word: Id) -> &[u32] {
        let w = word as usize;
        if w + 1 >= self.starts.len() {
            return &[];
        }
        &self.sentences[self.starts[w] as usize..self.starts[w + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(words: &[&str]) -> Vec<Id> {
        let mut v: Vec<Id> = words
            .iter()
            .map(|w| {
                w.bytes()
                    .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b.into()))
                    % 1000
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn reordered_sentences_align_by_their_words() {
        let a = [
            s(&["refund", "day"]),
            s(&["ship", "free"]),
            s(&["tone", "calm"]),
        ];
        let b = [
            s(&["tone", "calm"]),
            s(&["refund", "day"]),
            s(&["ship", "free"]),
        ];
        assert_eq!(
            best(&Content::from(&a[..]), &Content::from(&b[..])),
            [Some((1, false)), Some((2, false)), Some((0, false))]
        );
    }

    #[test]
    fn repeated_text_aligns_to_the_copy_at_the_same_place() {
        let a: Vec<Vec<Id>> = (0..100).map(|_| s(&["same", "words"])).collect();
        let a = Content::from(&a[..]);
        let got = best(&a, &a);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, b)| b.map(|m| m.0) == Some(i)),
            "{got:?}"
        );
    }

    #[test]
    fn a_sentence_sharing_too_little_is_not_aligned() {
        let a = [s(&["alpha", "beta", "gamma", "delta"])];
        let b = [s(&["alpha", "x", "y", "z"])];
        assert_eq!(best(&Content::from(&a[..]), &Content::from(&b[..])), [None]);
    }
}
