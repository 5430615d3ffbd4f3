//! Sentence alignment: for each sentence of one text, the sentence of the other that says
//! the same thing, by shared content words and values.
//!
//! Comparing every pair of sentences would be quadratic, so candidates come from an index
//! of the other text's words; a word found in more than [`CAP`] sentences contributes only
//! its [`CAP`] occurrences nearest to where the sentence would sit by position. Each
//! sentence therefore costs at most `CAP` steps per word: linear in the texts. Ties go to
//! the candidate nearest that position, then to the earlier one: deterministic.

use std::collections::HashMap;

/// At most this many candidate sentences per word.
const CAP: usize = 16;

/// The best match of a sentence, and whether it is strong: most of the sentence's words
/// found in a sentence they make a good part of, enough to trust without the other side
/// agreeing.
pub type Match = Option<(usize, bool)>;

/// For each sentence of `from` (its distinct content stems), the best sentence of `to`,
/// or `None` when no sentence of `to` shares at least half of the smaller one's words
/// (and two words, unless one sentence has only one or two).
pub fn best(from: &[Vec<String>], to: &[Vec<String>]) -> Vec<Match> {
    let mut index: HashMap<&str, Vec<u32>> = HashMap::new();
    for (i, words) in to.iter().enumerate() {
        for word in words {
            index.entry(word.as_str()).or_default().push(i as u32);
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
        for word in words {
            let Some(postings) = index.get(word.as_str()) else {
                continue;
            };
            let near = if postings.len() <= CAP {
                postings.as_slice()
            } else {
                let at = postings.partition_point(|&p| (p as usize) < expected);
                let lo = at.saturating_sub(CAP / 2).min(postings.len() - CAP);
                &postings[lo..lo + CAP]
            };
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
pub fn groups(
    best: &[Match],
    back: &[Match],
    mine: &[Vec<String>],
    theirs: &[Vec<String>],
) -> Vec<Vec<usize>> {
    // Whether `words` share with `other` a word that `rival` does not have.
    let adds = |words: &[String], other: &[String], rival: &[String]| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn s(words: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        v.sort();
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
            best(&a, &b),
            [Some((1, false)), Some((2, false)), Some((0, false))]
        );
    }

    #[test]
    fn repeated_text_aligns_to_the_copy_at_the_same_place() {
        let a: Vec<Vec<String>> = (0..100).map(|_| s(&["same", "words"])).collect();
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
        assert_eq!(best(&a, &b), [None]);
    }
}
