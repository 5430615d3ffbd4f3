//! Constraints compared across aligned sentences: a negation, modal, `only`, exception,
//! condition or absolute that the proposal lost, reversed or added.

use super::super::lexicon::data;
use super::super::lookup::Mark;
use super::super::reading::{Constraints, Modal, Reading};
use super::evidence::{self, contrasts, kept, kept_share, words};
use super::rewording::{
    counts_only, governed, has_condition, new_contrast, reworded_condition, reworded_negation,
};
use super::{ChangeKind, Found};

pub(super) fn sentence_span(r: &Reading, s: usize) -> (usize, usize) {
    (r.sentences[s].start, r.sentences[s].end)
}

pub(super) fn word_at(text: &str, at: usize) -> &str {
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
    let mine_lower = o.text[os..oe].to_lowercase();
    // The aligned sentences' text, read only when a constraint needs it.
    let other_text = std::cell::OnceCell::new();
    let other_lower = || -> &String {
        other_text.get_or_init(|| {
            others
                .iter()
                .map(|&(g, _)| {
                    let (ps, pe) = sentence_span(p, g);
                    p.text[ps..pe].to_lowercase()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    if let Some(&at) = c.negation.first()
        && any(|g| &g.negation).is_none()
        && !(conditional && any(|g| &g.only).is_some())
        && !others.iter().any(|(_, g)| reworded_negation(c, g))
    {
        let other_words = words(other_lower());
        // Said another way: the word as a symbol (`w/o`), or a contrast (`not your
        // preferred approach` → `over preferred approach`).
        let said = other_words.contains(&ow(at).to_lowercase().as_str())
            || new_contrast(&mine_lower, other_lower());
        // The words the negation governs must survive for it to have flipped; when they
        // went too, the clause was dropped (the instruction layer's finding), except a
        // `without …` that an instruction set as its condition.
        let governed = governed(o.text, at, 3);
        let refs: Vec<&str> = governed.iter().map(String::as_str).collect();
        let kept_words = kept_share(&refs, &other_words) >= 0.5;
        if !said && kept_words {
            push_negation(o, p, (s, q), at, any(|g| &g.universal), c, out);
        } else {
            if !said && ow(at).eq_ignore_ascii_case("without") && !c.modals.is_empty() {
                out.push(constraint(
                    o,
                    p,
                    (s, q),
                    (Some(at), None),
                    ChangeKind::Condition,
                    format!("condition `without {}` was lost", governed.join(" ")),
                    false,
                ));
            }
            // Not reported, but still one half of a rewording with a reversed bound
            // (`never more than 15%` → `capped at 15%`): both then go.
            let mut quiet = constraint(
                o,
                p,
                (s, q),
                (Some(at), None),
                ChangeKind::Negation,
                String::new(),
                false,
            );
            quiet.gone = true;
            out.push(quiet);
        }
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
        // `Optionally downscale` → `Optional downscale`: one word, two readings.
        if let Some(t) = pick
            && effective(t) != effective(m)
            && t.mark != m.mark
            && !kept(&ow(m.at).to_lowercase(), &[&pw(t.at).to_lowercase()])
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
    let part_gone = |at: usize, word: &str| {
        evidence::part_gone(
            &o.text[os..oe],
            at.saturating_sub(os),
            word,
            &words(other_lower()),
        )
    };
    if let Some(&at) = c.only.first()
        && any(|g| &g.only).is_none()
        && any(|g| &g.only_weak).is_none()
        && !counts_only(o.text, at)
        && !part_gone(at, "only")
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
        if turned.is_none()
            && (reworded_condition(name, o.text, at, others, p, c, other_lower())
                || part_gone(at, &ow(at).to_lowercase()))
        {
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
    super::weakening::weakenings(o, p, (s, q), &proposal_sentences, c, out);
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

/// A negation of sentence `s` lost in `q` (or turned into the universal at `u`).
fn push_negation(
    o: &Reading,
    p: &Reading,
    (s, q): (usize, usize),
    at: usize,
    universal: Option<usize>,
    c: &Constraints,
    out: &mut Vec<Found>,
) {
    let (message, p_at) = match universal {
        Some(u) if c.universal.is_empty() => (
            format!("`{}` became `{}`", word_at(o.text, at), word_at(p.text, u)),
            Some(u),
        ),
        _ => (format!("negation `{}` was lost", word_at(o.text, at)), None),
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
            // The word was there (`not only` → `not … only`), or what it negates is new
            // (a clause added, not a rule flipped).
            ChangeKind::Negation => {
                contrast
                    || (conditional && !none(|g| &g.only))
                    || others.iter().any(|g| reworded_negation(c, g))
                    || data::has_phrase(&lower, &pw(at).to_lowercase())
                    || {
                        let governed = governed(p.text, at, 3);
                        let refs: Vec<&str> = governed.iter().map(String::as_str).collect();
                        kept_share(&refs, &words(&lower)) < 0.5
                    }
            }
            // An `only` where the original said `always`, or `only` and a count.
            _ => {
                !none(|g| &g.only_weak)
                    || (conditional && !none(|g| &g.negation))
                    || !none(|g| &g.universal)
                    || data::has_phrase(&lower, &pw(at).to_lowercase())
                    || counts_only(p.text, at)
            }
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
            // `Optionally downscale` → `Optional downscale` was already optional.
            if weaker
                && !m.negated
                && let Some(verb) = &m.verb
                && o.content[s].contains(verb)
                && !kept(&pw(m.at).to_lowercase(), &words(&lower))
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
