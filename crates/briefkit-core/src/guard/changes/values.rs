//! Values compared across aligned sentences: another value in its place, or the same
//! value with another unit, bound, counted noun or subject.

use super::super::hash::FxSet;
use super::super::reading::{Reading, Value};
use super::super::vocab::Id;
use super::{ChangeKind, Found, LIMIT, squash};

#[allow(clippy::too_many_arguments)]
pub(super) fn values(
    o: &Reading,
    p: &Reading,
    v: &Value,
    mine: &[Value],
    theirs: &[&Value],
    keys: &FxSet<Id>,
    dropped: &FxSet<Id>,
    out: &mut Vec<Found>,
) {
    // Bounded, so a sentence of a thousand values stays linear.
    let theirs = &theirs[..theirs.len().min(LIMIT)];
    let same: Vec<&&Value> = theirs.iter().filter(|c| c.key.id == v.key.id).collect();
    if same.iter().any(|c| differ(v, c, mine).is_none()) {
        return;
    }
    if same.is_empty() && dropped.contains(&v.key.id) {
        // Gone from the whole proposal: the first layer reports it as dropped.
        return;
    }
    let replacement = theirs.iter().find(|r| {
        !keys.contains(&r.key.id) && r.key.price == v.key.price && differ_binding(v, r).is_none()
    });
    if let Some(r) = replacement
        && (same.is_empty() || v.bound.is_some() || v.unit.is_some())
    {
        let what = format!(
            "`{}` became `{}`",
            squash(&o.text[v.start..v.end]),
            squash(&p.text[r.start..r.end])
        );
        out.push(value_change(o, p, v, r, ChangeKind::Value, what, false));
        return;
    }
    if same.is_empty() {
        // Moved out of the aligned sentences (a split sentence): nothing to compare.
        return;
    }
    let c = same[0];
    if let Some((kind, message, flip)) = differ(v, c, mine) {
        out.push(value_change(o, p, v, c, kind, message, flip));
    }
}

/// How `c` (the same value in the proposal) is bound differently from `v`, if it is.
fn differ(v: &Value, c: &Value, mine: &[Value]) -> Option<(ChangeKind, String, bool)> {
    if let Some(d) = differ_binding(v, c) {
        return Some(d);
    }
    if !v.subject.is_empty() {
        let others: FxSet<Id> = mine
            .iter()
            .take(LIMIT)
            .filter(|m| m.key != v.key)
            .flat_map(|m| m.subject.iter().copied())
            .filter(|w| !v.subject.contains(w))
            .collect();
        if c.subject
            .iter()
            .any(|w| !v.subject.contains(w) && others.contains(w))
        {
            return Some((ChangeKind::Subject, String::new(), false));
        }
    }
    None
}

fn differ_binding(v: &Value, c: &Value) -> Option<(ChangeKind, String, bool)> {
    if let (Some(a), Some(b)) = (&v.unit, &c.unit)
        && (a.dimension != b.dimension || a.magnitude != b.magnitude)
    {
        return Some((
            ChangeKind::Unit,
            format!("unit `{}` became `{}`", a.text, b.text),
            false,
        ));
    }
    let side = |upper: bool| {
        if upper {
            "an upper bound"
        } else {
            "a lower bound"
        }
    };
    match (v.bound, c.bound) {
        (Some(a), Some(b)) if a.upper != b.upper => {
            return Some((
                ChangeKind::Bound,
                format!("{} became {}", side(a.upper), side(b.upper)),
                true,
            ));
        }
        (Some(a), None) if !a.soft => {
            return Some((
                ChangeKind::Bound,
                format!("{} was lost", side(a.upper)),
                false,
            ));
        }
        (None, Some(b)) if !b.soft => {
            return Some((
                ChangeKind::Bound,
                format!("{} was added", side(b.upper)),
                false,
            ));
        }
        _ => {}
    }
    if !v.noun.is_empty() && !c.noun.is_empty() && !v.noun.iter().any(|w| c.noun.contains(w)) {
        return Some((
            ChangeKind::Noun,
            "the value counts something else".into(),
            false,
        ));
    }
    None
}

fn phrase(v: &Value, subject: bool) -> (usize, usize, usize) {
    let mut start = v.start;
    let mut end = v.noun_end.max(v.end);
    if let Some(b) = v.bound {
        start = start.min(b.at);
        end = end.max(b.end);
    }
    if subject {
        start = start.min(v.subject_start);
    }
    (start, start, end)
}

fn value_change(
    o: &Reading,
    p: &Reading,
    v: &Value,
    c: &Value,
    kind: ChangeKind,
    what: String,
    flip: bool,
) -> Found {
    let subject = kind == ChangeKind::Subject;
    let (a, b) = (phrase(v, subject), phrase(c, subject));
    let message = if subject {
        let whose = |r: &Reading, x: &Value| {
            let end = x.bound.map_or(x.start, |b| b.at.min(x.start));
            squash(&r.text[x.subject_start.min(end)..end])
        };
        format!(
            "`{}` moved from `{}` to `{}`",
            squash(&o.text[v.start..v.end]),
            whose(o, v),
            whose(p, c)
        )
    } else {
        what
    };
    Found {
        kind,
        message,
        original: a,
        proposal: b,
        pair: (v.sentence, c.sentence),
        flip,
        gone: false,
    }
}

/// A value of the original whose binding is gone from the whole proposal: the value
/// survives (the first layer is satisfied), but nowhere with the noun or unit it had
/// (`at most 5 passengers` removed while `5 business days` stays). `reported` are the
/// original sentences already holding a value change.
/// A value's key, counted noun and unit (dimension, magnitude bits).
type Binding<'a> = (Id, Vec<Id>, Option<(&'a str, u64)>);

pub(super) fn unbound(
    o: &Reading,
    p: &Reading,
    by_key: &super::super::hash::FxMap<Id, Vec<usize>>,
    reported: &FxSet<usize>,
    out: &mut Vec<Found>,
) {
    // The nouns each value is bound to in the proposal: most bindings are found here.
    let bound: FxSet<(Id, Id)> = p
        .values
        .iter()
        .flat_map(|c| c.noun.iter().map(move |&n| (c.key.id, n)))
        .collect();
    // A binding is looked for once however often the original repeats it, and a value
    // that occurs more than `SCAN` times is taken as bound (linear, never a false flag).
    const SCAN: usize = 4096;
    let mut seen: super::super::hash::FxMap<Binding, bool> = Default::default();
    for v in &o.values {
        // A number word that is not a count (`one of`) binds nothing worth keeping.
        if (v.noun.is_empty() && v.unit.is_none()) || v.key.word || reported.contains(&v.sentence) {
            continue;
        }
        let Some(theirs) = by_key.get(&v.key.id) else {
            continue;
        };
        if v.noun.iter().any(|&n| bound.contains(&(v.key.id, n))) {
            continue;
        }
        let fits = |c: &Value| {
            let unit = match (&v.unit, &c.unit) {
                (Some(a), Some(b)) => a.dimension == b.dimension && a.magnitude == b.magnitude,
                (Some(_), None) => c.noun.is_empty(),
                _ => true,
            };
            // A number left bare or beside a symbol (`50 items` -> `50`, `18 +`) is bound
            // to nothing else: only a different content noun is a changed binding.
            let noun = v.noun.is_empty()
                || (c.noun.is_empty() && c.unit.is_none())
                || (c.sentence < p.content.len()
                    && v.noun
                        .iter()
                        .any(|w| p.content[c.sentence].binary_search(w).is_ok()));
            unit && noun
        };
        let signature = (
            v.key.id,
            v.noun.clone(),
            v.unit
                .as_ref()
                .map(|u| (u.dimension, u.magnitude.to_bits())),
        );
        let kept = *seen
            .entry(signature)
            .or_insert_with(|| theirs.len() > SCAN || theirs.iter().any(|&i| fits(&p.values[i])));
        if kept {
            continue;
        }
        let c = &p.values[theirs[0]];
        let what = format!(
            "`{}` lost what it was bound to: the proposal has it only as `{}`",
            squash(&o.text[phrase(v, false).1..phrase(v, false).2]),
            squash(&p.text[phrase(c, false).1..phrase(c, false).2])
        );
        out.push(value_change(o, p, v, c, ChangeKind::Value, what, false));
    }
}
