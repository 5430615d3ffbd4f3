//! Constraints compared across aligned sentences: a negation, modal, `only`, exception,
//! condition or absolute that the proposal lost, reversed or added.

use super::super::lexicon::data;
use super::super::lookup::Mark;
use super::super::reading::{Constraints, Modal, Reading};
use super::{ChangeKind, Found};

fn sentence_span(r: &Reading, s: usize) -> (usize, usize) {
    (r.sentences[s].start, r.sentences[s].end)
}

fn word_at(text: &str, at: usize) -> &str {
    let rest = &text[at..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// A constraint change between sentence `s` of the original and `q` of the proposal,
/// pointing at the constraint word on each side where there is one.
#[allow(clippy::too_many_arguments)]
fn constraint(
    o: &Reading,
    p: &Reading,
    (s, q): (usize, usize),
    (o_at, p_at): (Option<usize>, Option<usize>),
    kind: ChangeKind,
    message: String,
    flip: bool,
) -> Found {
    let (os, oe) = sentence_span(o, s);
    let (ps, pe) = sentence_span(p, q);
    Found {
        kind,
        message,
        original: (o_at.unwrap_or(os), os, oe),
        proposal: (p_at.unwrap_or(ps), ps, pe),
        pair: (s, q),
        flip,
        gone: false,
    }
}

/// Picks one kind of constraint word out of a sentence's constraints.
type Words = fn(&Constraints) -> &Vec<usize>;

fn effective(m: &Modal) -> Mark {
    match (m.mark, m.negated) {
        (Mark::Obligation | Mark::Permission, true) => Mark::Negation,
        (Mark::Recommendation, true) => Mark::Partial,
        (mark, _) => mark,
    }
}

/// Constraints of original sentence `s` that its aligned sentences lost or reversed.
pub(super) fn lost(
    o: &Reading,
    p: &Reading,
    s: usize,
    q: usize,
    c: &Constraints,
    others: &[(usize, &Constraints)],
    out: &mut Vec<Found>,
) {
    let any =
        |f: fn(&Constraints) -> &Vec<usize>| others.iter().find_map(|(_, g)| f(g).first().copied());
    let ow = |at: usize| word_at(o.text, at).to_string();
    let pw = |at: usize| word_at(p.text, at).to_string();
    // `never X without Y` = `X only after Y`: an `only` says a negation that had a
    // condition of its own (`never share data` → `only share data` is a flip).
    let (os, oe) = sentence_span(o, s);
    let conditional = has_condition(c, &o.text[os..oe].to_lowercase());
    if let Some(&at) = c.negation.first()
        && any(|g| &g.negation).is_none()
        && !(conditional && any(|g| &g.only).is_some())
        && !others.iter().any(|(_, g)| reworded_negation(c, g))
    {
        let (message, p_at) = match any(|g| &g.universal) {
            Some(u) if c.universal.is_empty() => {
                (format!("`{}` became `{}`", ow(at), pw(u)), Some(u))
            }
            _ => (format!("negation `{}` was lost", ow(at)), None),
        };
        out.push(constraint(
            o,
            p,
            (s, q),
            (Some(at), p_at),
            ChangeKind::Negation,
            message,
            false,
        ));
    }
    for m in &c.modals {
        let theirs: Vec<&Modal> = others.iter().flat_map(|(_, g)| &g.modals).collect();
        let same_verb: Vec<&&Modal> = theirs
            .iter()
            .filter(|t| t.verb.is_some() && t.verb == m.verb)
            .collect();
        let pick = if !same_verb.is_empty() {
            if same_verb.iter().any(|t| effective(t) == effective(m)) {
                continue;
            }
            Some(*same_verb[0])
        } else if c.modals.len() == 1 && theirs.len() == 1 {
            Some(theirs[0])
        } else {
            None
        };
        if let Some(t) = pick
            && effective(t) != effective(m)
            && t.mark != m.mark
        {
            let message = format!("`{}` became `{}`", ow(m.at), pw(t.at));
            out.push(constraint(
                o,
                p,
                (s, q),
                (Some(m.at), Some(t.at)),
                ChangeKind::Modality,
                message,
                false,
            ));
        }
    }
    if let Some(&at) = c.only.first()
        && any(|g| &g.only).is_none()
        && any(|g| &g.only_weak).is_none()
    {
        let message = format!("exclusivity `{}` was lost", ow(at));
        out.push(constraint(
            o,
            p,
            (s, q),
            (Some(at), None),
            ChangeKind::Exclusivity,
            message,
            false,
        ));
    }
    let pairs: [(Words, Option<Words>, &str); 3] = [
        (|c| &c.exception, Some(|c| &c.condition), "exception"),
        (|c| &c.condition, Some(|c| &c.exception), "condition"),
        (|c| &c.until, None, "time limit"),
    ];
    for (mine, opposite, name) in pairs {
        let Some(&at) = mine(c).first() else { continue };
        if any(mine).is_some() {
            continue;
        }
        let turned = opposite.and_then(|f| if f(c).is_empty() { any(f) } else { None });
        if name == "condition" && turned.is_none() && (carried(c, others) || asked(p, others)) {
            continue;
        }
        let (message, p_at, flip) = match turned {
            Some(t) => (format!("`{}` became `{}`", ow(at), pw(t)), Some(t), true),
            None => (format!("{name} `{}` was lost", ow(at)), None, false),
        };
        out.push(constraint(
            o,
            p,
            (s, q),
            (Some(at), p_at),
            ChangeKind::Condition,
            message,
            flip,
        ));
    }
    let weakened = |from: &Vec<usize>,
                    to: fn(&Constraints) -> &Vec<usize>,
                    mine: fn(&Constraints) -> &Vec<usize>,
                    other_own: &Vec<usize>| {
        from.first()
            .copied()
            .filter(|_| any(mine).is_none() && other_own.is_empty())
            .and_then(|at| any(to).map(|t| (at, t)))
    };
    let proposal_sentences: Vec<usize> = others.iter().map(|(q, _)| *q).collect();
    qualifiers_and_strength(o, p, (s, q), &proposal_sentences, out);
    let absolute = weakened(&c.universal, |g| &g.partial, |g| &g.universal, &c.partial)
        .or_else(|| weakened(&c.partial, |g| &g.universal, |g| &g.partial, &c.universal));
    if let Some((at, t)) = absolute {
        let message = format!("`{}` became `{}`", ow(at), pw(t));
        out.push(constraint(
            o,
            p,
            (s, q),
            (Some(at), Some(t)),
            ChangeKind::Absolute,
            message,
            false,
        ));
    }
}

/// Whether a constraint comes with a condition (`without`, `unless`, `until`, `before`,
/// `after`, `if`): what `never X without Y` and `X only after Y` both have.
fn has_condition(c: &Constraints, lower: &str) -> bool {
    !c.exception.is_empty()
        || !c.condition.is_empty()
        || !c.until.is_empty()
        || ["without", "before", "after", "unless", "until"]
            .iter()
            .any(|w| data::has_phrase(lower, w))
}

/// Whether a (lowercased) sentence sets one thing against another (`rather than`,
/// `instead of`, `over`, `>`): a rewrite saying it with `not` keeps the contrast.
fn contrasts(lower: &str) -> bool {
    [
        "rather than",
        "instead of",
        "over",
        "than",
        "versus",
        "vs",
        "as opposed to",
    ]
    .iter()
    .any(|w| data::has_phrase(lower, w))
        || lower.contains(" > ")
}

/// A qualifier of the original sentence `s` (`explicitly`, `gradually`, `each`) that
/// none of its aligned sentences keeps, and a strength that moved: a preference or habit
/// (`prefer`, `generally`) turned absolute (`always`, `must`), or the reverse. Both change
/// how widely or how strongly the instruction applies: `review`, never `flagged`.
fn qualifiers_and_strength(
    o: &Reading,
    p: &Reading,
    (s, q): (usize, usize),
    theirs: &[usize],
    out: &mut Vec<Found>,
) {
    let (os, oe) = sentence_span(o, s);
    let mine = o.text[os..oe].to_lowercase();
    // Built only when the original sentence has a qualifier or a strength word (most
    // have none): lowercasing and joining the aligned sentences for every pair was a
    // fifth of the guard's time on ordinary briefs.
    let other = std::cell::OnceCell::new();
    let other = || -> &str {
        other.get_or_init(|| {
            theirs
                .iter()
                .map(|&g| {
                    let (ps, pe) = sentence_span(p, g);
                    p.text[ps..pe].to_lowercase()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    // A phrase can only be in `mine` when its first word is one of `mine`'s words:
    // one set lookup instead of a substring search per word of every list.
    let is_word = |c: char| c.is_alphanumeric() || c == '\'';
    let my_words: super::super::hash::FxSet<&str> = mine
        .split(|c: char| !is_word(c))
        .filter(|w| !w.is_empty())
        .collect();
    let may_be_mine = |phrase: &str| {
        let first = phrase.split(|c: char| !is_word(c)).next().unwrap_or("");
        first.is_empty() || my_words.contains(first)
    };
    let find = |text: &str, words: &[&'static str]| {
        words.iter().copied().find(|w| data::has_phrase(text, w))
    };
    let find_mine = |words: &[&'static str]| {
        words
            .iter()
            .copied()
            .find(|w| may_be_mine(w) && data::has_phrase(&mine, w))
    };
    let at_word = |w: &str| o.text[os..oe].to_lowercase().find(w).map(|n| os + n);
    for group in data::qualifiers() {
        if let Some(w) = find_mine(&group)
            && find(other(), &group).is_none()
        {
            out.push(constraint(
                o,
                p,
                (s, q),
                (at_word(w), None),
                ChangeKind::Qualifier,
                format!("qualifier `{w}` was lost"),
                false,
            ));
            break;
        }
    }
    let (weak, strong) = (data::strength("weak"), data::strength("strong"));
    let (my_weak, my_strong) = (find_mine(&weak), find_mine(&strong));
    // A strength moved only when the original has exactly one of the two.
    let message = if my_weak.is_some() != my_strong.is_some() {
        let (their_weak, their_strong) = (find(other(), &weak), find(other(), &strong));
        match (my_weak, my_strong, their_weak, their_strong) {
            (Some(w), None, None, Some(t)) => Some((w, format!("`{w}` became `{t}`"))),
            (None, Some(w), Some(t), None) => Some((w, format!("`{w}` became `{t}`"))),
            _ => None,
        }
    } else {
        None
    };
    if let Some((w, message)) = message {
        out.push(constraint(
            o,
            p,
            (s, q),
            (at_word(w), None),
            ChangeKind::Strength,
            message,
            false,
        ));
    }
}

/// Whether `other` says the negation of `c` with a negative prefix (`not resolved` ↔
/// `unresolved`).
fn reworded_negation(c: &Constraints, other: &Constraints) -> bool {
    other.affixed.iter().any(|w| c.negated.contains(w))
}

/// Whether one of the aligned sentences is a question, the condition of the sentence
/// after it (`No dedicated command? Check hooks`).
fn asked(p: &Reading, others: &[(usize, &Constraints)]) -> bool {
    others.iter().any(|&(q, _)| {
        let (_, end) = sentence_span(p, q);
        p.text[end..].trim_start().starts_with('?')
            || (q > 0 && {
                let (_, prev_end) = sentence_span(p, q - 1);
                p.text[prev_end..].trim_start().starts_with('?')
            })
    })
}

/// Whether the aligned sentences carry the condition's clause as a phrase (`if the
/// customer wants an exchange` → `for an exchange`): at least half of the clause's content
/// after its first word (usually its subject) follows a carrier word there.
fn carried(c: &Constraints, others: &[(usize, &Constraints)]) -> bool {
    let rest = if c.clause.len() >= 2 {
        &c.clause[1..]
    } else {
        &c.clause[..]
    };
    let kept = rest
        .iter()
        .filter(|w| others.iter().any(|(_, g)| g.carried.contains(w)))
        .count();
    kept >= 1 && kept * 2 >= rest.len()
}

/// Constraints the proposal's sentence `q` added that its aligned original sentences lack.
pub(super) fn gained(
    o: &Reading,
    p: &Reading,
    q: usize,
    s: usize,
    c: &Constraints,
    others: &[&Constraints],
    out: &mut Vec<Found>,
) {
    let none = |f: fn(&Constraints) -> &Vec<usize>| others.iter().all(|g| f(g).is_empty());
    let pw = |at: usize| word_at(p.text, at).to_string();
    // An added condition usually rewords a phrase as a clause (`for a refund` → `if you
    // want a refund`): only an added negation or `only` is reported.
    let simple: [(Words, ChangeKind, &str); 2] = [
        (|c| &c.negation, ChangeKind::Negation, "negation"),
        (|c| &c.only, ChangeKind::Exclusivity, "exclusivity"),
    ];
    // A contrast kept (`rather than`, `instead of`, `>` → `not`) and `X only after Y` →
    // `never X without Y` add no negation.
    let (os, oe) = sentence_span(o, s);
    let lower = o.text[os..oe].to_lowercase();
    let contrast = contrasts(&lower);
    let conditional = others.iter().any(|g| has_condition(g, &lower)) || has_condition(c, &lower);
    for (f, kind, name) in simple {
        let Some(&at) = f(c).first() else { continue };
        let reworded = match kind {
            ChangeKind::Negation => {
                contrast
                    || (conditional && !none(|g| &g.only))
                    || others.iter().any(|g| reworded_negation(c, g))
            }
            _ => !none(|g| &g.only_weak) || (conditional && !none(|g| &g.negation)),
        };
        if none(f) && !reworded {
            let message = format!("{name} `{}` was added", pw(at));
            out.push(constraint(
                o,
                p,
                (s, q),
                (None, Some(at)),
                kind,
                message,
                false,
            ));
        }
    }
    // A permission where the original gave an order (`verify` → `you may verify`).
    if others.iter().all(|g| g.modals.is_empty()) {
        for m in &c.modals {
            let weaker = matches!(
                m.mark,
                Mark::Permission | Mark::Recommendation | Mark::Optional
            );
            if weaker
                && !m.negated
                && let Some(verb) = &m.verb
                && o.content[s].contains(verb)
            {
                let message = format!("an instruction became `{}`", pw(m.at));
                out.push(constraint(
                    o,
                    p,
                    (s, q),
                    (None, Some(m.at)),
                    ChangeKind::Modality,
                    message,
                    false,
                ));
                break;
            }
        }
    }
}
