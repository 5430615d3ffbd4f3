//! How widely and how strongly an instruction applies, compared across counterparts: a
//! qualifier lost (`explicitly`, `gradually`, `strictly`), a strength turned (`prefer` →
//! `always`), a hedge dropped (`ideally`, `sometimes`, `it is recommended`) and a scope
//! phrase lost (`for object shapes`). Each changes how the rule applies, not what it says,
//! and telegraphic rewrites move these words often: `review`, never `flagged`.
//!
//! Every check first asks whether the counterpart is one: most of the sentence's other
//! content words must survive there, or the sentence went (the instruction layer's
//! finding) rather than weakened.

use std::sync::OnceLock;

use super::super::hash::FxMap;
use super::super::lexicon::{ENGLISH, data};
use super::super::reading::{Constraints, Reading};
use super::evidence::{kept, kept_share, part_gone, phrase_at, words};
use super::phrases::{lost_alternative, lost_restrictor, lost_scope, lost_time, purpose, whole};
use super::{ChangeKind, Found, squash};

const DATA: &str = include_str!("weakening.txt");

/// The word lists of `weakening.txt` under `key`, one list per line.
fn lists(key: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    DATA.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(move |l| {
            let (k, rest) = l.split_once(": ")?;
            (k == key).then(|| rest.split(", ").collect())
        })
}

/// Every word of `weakening.txt` under `key`, read once.
pub(super) fn list(key: &'static str) -> &'static [&'static str] {
    static ALL: OnceLock<FxMap<&'static str, Vec<&'static str>>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut all: FxMap<&'static str, Vec<&'static str>> = Default::default();
        for l in DATA.lines().map(str::trim).filter(|l| !l.starts_with('#')) {
            if let Some((k, rest)) = l.split_once(": ") {
                all.entry(k).or_default().extend(rest.split(", "));
            }
        }
        all
    });
    all.get(key).map_or(&[], Vec::as_slice)
}

/// The qualifier groups of both lexicons (each with the words that keep it), read once.
fn qualifier_groups() -> &'static [Vec<&'static str>] {
    static GROUPS: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    GROUPS.get_or_init(|| data::qualifiers().chain(lists("qualifier")).collect())
}

/// The `weak` and `strong` words of the strength lexicon, read once.
fn strengths() -> &'static (Vec<&'static str>, Vec<&'static str>) {
    static BOTH: OnceLock<(Vec<&'static str>, Vec<&'static str>)> = OnceLock::new();
    BOTH.get_or_init(|| (data::strength("weak"), data::strength("strong")))
}

/// At least this share of a sentence's other content words must survive in its aligned
/// sentences for them to be its counterpart.
const COUNTERPART: f64 = 0.5;

/// Qualifier, strength, hedge and scope changes of original sentence `s` against its
/// aligned proposal sentences `theirs` (`q` the first).
pub(super) fn weakenings(
    o: &Reading,
    p: &Reading,
    (s, q): (usize, usize),
    theirs: &[usize],
    c: &Constraints,
    out: &mut Vec<Found>,
) {
    let (os, oe) = (o.sentences[s].start, o.sentences[s].end);
    // Whitespace runs as one space: phrases are matched word by word.
    let mine = squash(&o.text[os..oe]).to_lowercase();
    let other: String = theirs
        .iter()
        .map(|&g| squash(&p.text[p.sentences[g].start..p.sentences[g].end]).to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let hedges = list("hedge");
    let (weak, strong) = strengths();
    let find = |text: &str, words: &[&'static str]| {
        words.iter().copied().find(|w| data::has_phrase(text, w))
    };
    // Most sentences carry none of these words: nothing to compare.
    let qualifiers: Vec<&str> = qualifier_groups().iter().flatten().copied().collect();
    let any_of = |list: &[&'static str]| list.iter().any(|w| mine.contains(w) || other.contains(w));
    if !(any_of(hedges)
        || any_of(&qualifiers)
        || any_of(weak)
        || any_of(strong)
        || mine.contains("for")
        || mine.contains(" or ")
        || list("time").iter().any(|w| mine.contains(w))
        || list("restrictor").iter().any(|w| mine.contains(w)))
    {
        return;
    }
    let (my_words, other_words) = (words(&mine), words(&other));
    let content: Vec<&str> = my_words
        .iter()
        .copied()
        .filter(|w| {
            w.len() >= 4
                && !hedges.contains(w)
                && !qualifiers.contains(w)
                && !ENGLISH.stop_words.contains(w)
        })
        .collect();
    // A shared value anchors a counterpart that shares few words (`Functions should
    // generally be no longer than 20-30 lines` → `fn.len≤20..30ln`): enough to compare
    // how strongly it is said, not what it applies to.
    let counterpart = kept_share(&content, &other_words) >= COUNTERPART;
    // A lost scope is judged on the rest of the sentence (at least three words of it):
    // `Add unique indexes to hot tables for frequently queried columns` → `+unique
    // indexes on hot tables` keeps all of it but the scope.
    let scope = (instruction(&mine, c) && !named_start(&o.text[os..oe]))
        .then(|| lost_scope(&mine, &other_words))
        .flatten()
        .filter(|phrase| {
            let rest: Vec<&str> = content
                .iter()
                .copied()
                .filter(|w| !phrase.split(' ').any(|p| p == *w))
                .collect();
            let share = kept_share(&rest, &other_words);
            // A terse counterpart (`Use pagination for large result sets` → `paginate`)
            // keeps every other word: the phrase went alone. Only a phrase naming what
            // the rule applies to counts then, not one naming what it is for (`for
            // package management`, `for debugging`), nor one covering everything (`for all
            // installs` → `pnpm only`) unless it restricts what it covers (`for all new code`).
            (rest.len() >= 3 && share >= COUNTERPART)
                || (!rest.is_empty() && share >= 1.0 && !purpose(phrase) && !whole(phrase))
        });
    // Only an order is anchored by its value alone: a description that drops `usually`
    // beside its numbers (`usually land at $50-200/mo` → `$50–$200 per month`) is read
    // as a summary.
    let ordered = c.modals.iter().any(|m| {
        matches!(
            m.mark,
            super::super::lookup::Mark::Obligation | super::super::lookup::Mark::Recommendation
        )
    });
    if !counterpart && scope.is_none() && !(ordered && shares_value(o, p, s, theirs)) {
        return;
    }
    // Where the word is in the original (its sentence start when lowercasing or spacing
    // moved it).
    let lowered = o.text[os..oe].to_lowercase();
    let at_word = |w: &str| {
        lowered
            .find(w)
            .map(|n| os + n)
            .filter(|&at| at < oe && o.text.is_char_boundary(at))
    };
    let mut push = |w: Option<&str>, kind: ChangeKind, message: String| {
        let at = w.and_then(at_word).unwrap_or(os);
        out.push(Found {
            kind,
            message,
            original: (at, os, oe),
            proposal: (
                p.sentences[q].start,
                p.sentences[q].start,
                p.sentences[q].end,
            ),
            pair: (s, q),
            flip: false,
            gone: false,
        });
    };
    let gone = |group: &[&'static str]| {
        find(&other, group).is_none()
            && group
                .iter()
                .filter(|g| !g.contains(' '))
                .all(|g| !kept(g, &other_words))
    };
    for group in qualifier_groups() {
        if let Some(w) = find(&mine, group)
            && gone(group)
            && qualifies(&mine, w, &other_words)
        {
            push(
                Some(w),
                ChangeKind::Qualifier,
                format!("qualifier `{w}` was lost"),
            );
            break;
        }
    }
    let (my_weak, my_strong) = (find(&mine, weak), find(&mine, strong));
    let (their_weak, their_strong) = (find(&other, weak), find(&other, strong));
    let turned = match (my_weak, my_strong, their_weak, their_strong) {
        (Some(w), None, None, Some(t)) | (None, Some(w), Some(t), None) => Some((w, t)),
        _ => None,
    };
    if let Some((w, t)) = turned {
        push(Some(w), ChangeKind::Strength, format!("`{w}` became `{t}`"));
    } else if let Some(h) = find(&mine, hedges)
        && find(&other, hedges).is_none()
        && their_weak.is_none()
        && find(&other, list("softener")).is_none()
        && !(list("preference").contains(&h) && find(&other, list("ranking")).is_some())
    {
        push(
            Some(h),
            ChangeKind::Strength,
            format!("hedge `{h}` was dropped: the proposal states it outright"),
        );
    } else if my_weak.is_none()
        && c.partial.is_empty()
        && find(&mine, hedges).is_none()
        && find(&mine, list("softener")).is_none()
        && let Some(h) = find(&other, hedges)
    {
        push(
            None,
            ChangeKind::Strength,
            format!("hedge `{h}` was added: the proposal makes a rule a habit"),
        );
    }
    if let Some(phrase) = scope {
        push(
            Some(phrase.as_str()),
            ChangeKind::Scope,
            format!("scope `{phrase}` was lost"),
        );
    } else if counterpart
        && instruction(&mine, c)
        && let Some(phrase) = lost_restrictor(&mine, &other_words)
    {
        let (adjective, noun) = phrase.split_once(' ').unwrap_or((&phrase, ""));
        push(
            Some(phrase.as_str()),
            ChangeKind::Scope,
            format!("restriction `{adjective}` was lost: `{phrase}` became `{noun}`"),
        );
    }
    if !counterpart {
        return;
    }
    // Pointing at the sentence: the verb starts it.
    if let Some((kind, message)) = super::stance::turned(&o.text[os..oe], p, q) {
        push(None, kind, message);
    }
    // A time clause said with another word of time (`before running` → `first, then`)
    // is kept.
    if instruction(&mine, c)
        && !super::evidence::orders_in_time(&other)
        && let Some(clause) = lost_time(&mine, &other_words)
    {
        push(
            Some(clause.as_str()),
            ChangeKind::Condition,
            format!("condition `{clause}` was lost"),
        );
    }
    if let Some(pair) = lost_alternative(&mine, &other) {
        push(
            None,
            ChangeKind::Scope,
            format!("alternative `{pair}` lost its `or`: both now read as one"),
        );
    }
}

/// Whether qualifier `w` of a (lowercased) sentence qualifies what it stands in
/// ([`data::has_qualifier`]) and is not in a table cell or run-on part the rewrite dropped
/// whole.
fn qualifies(mine: &str, w: &str, other: &[&str]) -> bool {
    data::has_qualifier(mine, w)
        && phrase_at(mine, w).is_none_or(|at| !part_gone(mine, at, w, other))
}

/// The values of sentence `s` (values are in text order).
fn values_of<'r>(r: &'r Reading, s: usize) -> &'r [super::super::reading::Value] {
    let lo = r.values.partition_point(|v| v.sentence < s);
    let hi = r.values.partition_point(|v| v.sentence <= s);
    &r.values[lo..hi]
}

/// Whether original sentence `s` and the proposal's sentences `theirs` share a value
/// (at most [`super::LIMIT`] of each compared: linear).
fn shares_value(o: &Reading, p: &Reading, s: usize, theirs: &[usize]) -> bool {
    let mine = values_of(o, s);
    theirs.iter().take(super::LIMIT).any(|&g| {
        values_of(p, g)
            .iter()
            .take(super::LIMIT)
            .any(|c| mine.iter().take(super::LIMIT).any(|v| v.key.id == c.key.id))
    })
}

/// Whether a sentence starts with a name of two capitalised words that a verb in the
/// third person follows (`Fetch Models only uses …`): its first word is no imperative.
fn named_start(text: &str) -> bool {
    let first: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .collect();
    let capital = |i: usize| {
        first
            .get(i)
            .is_some_and(|w| w.starts_with(char::is_uppercase))
    };
    let verbs = ENGLISH.instructions.imperative_verbs;
    capital(0)
        && capital(1)
        && first.iter().skip(2).any(|w| {
            let w = w.to_lowercase();
            w.strip_suffix('s').is_some_and(|v| {
                verbs.contains(&v) || v.strip_suffix('e').is_some_and(|v| verbs.contains(&v))
            })
        })
}

/// Whether a (lowercased) sentence gives an order: it starts with an imperative verb or
/// has a modal or an absolute.
fn instruction(lower: &str, c: &Constraints) -> bool {
    let first = lower
        .split(|ch: char| !ch.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("");
    c.modals.iter().any(|m| {
        matches!(
            m.mark,
            super::super::lookup::Mark::Obligation | super::super::lookup::Mark::Recommendation
        )
    }) || ENGLISH.instructions.imperative_verbs.contains(&first)
        || strengths().0.iter().any(|w| data::has_phrase(lower, w))
        || strengths().1.iter().any(|w| data::has_phrase(lower, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_data_file_is_a_known_entry() {
        let keys = [
            "qualifier",
            "hedge",
            "softener",
            "preference",
            "ranking",
            "time",
            "purpose-ending",
            "activity-ending",
            "restrictor",
            "given",
            "scope-skip",
            "scope-stop",
            "scope-end",
            "bound-upper",
            "bound-lower",
        ];
        for l in DATA.lines().map(str::trim) {
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let (key, rest) = l.split_once(": ").unwrap_or_else(|| panic!("`{l}`"));
            assert!(keys.contains(&key), "unknown key `{key}`");
            assert_eq!(l, l.to_lowercase(), "not lowercase: `{l}`");
            assert!(!l.contains("  ") && !rest.ends_with(','), "`{l}`");
        }
        for key in keys {
            assert!(!list(key).is_empty(), "`{key}` has no words");
        }
    }

    #[test]
    fn a_scope_is_a_for_phrase_whose_words_all_went() {
        let other = ["prefer", "enums", "over", "strings"];
        assert_eq!(
            lost_scope("prefer enums over strings for status fields.", &other).as_deref(),
            Some("for status fields")
        );
        assert_eq!(lost_scope("avoid hacks for portability.", &other), None);
        assert_eq!(lost_scope("wait for the enums.", &other), None);
        assert_eq!(
            lost_alternative("from toc or the title tag", "from toc `<title>` tag").as_deref(),
            Some("toc or title")
        );
        assert_eq!(
            lost_alternative("from toc or the title tag", "from toc/title tag"),
            None
        );
    }
}
