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
    let v = &as_written(o, v);
    let read: Vec<Value> = theirs.iter().map(|c| as_written(p, c)).collect();
    let theirs: Vec<&Value> = read.iter().collect();
    let theirs = &theirs[..];
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
        let moved = match kind {
            // `limited to 100 requests per minute` → `Limits: … 100 req/min`.
            // `limited to 100 requests per minute` → `API: 100 req/min`: a rate given for
            // what it limits is its cap.
            ChangeKind::Bound if c.bound.is_none() => v.bound.is_some_and(|b| {
                super::evidence::bound_nearby(p, c, b.upper)
                    || (b.upper && super::evidence::rate(o, v) && super::evidence::rate(p, c))
            }),
            // `reduced this to 15 minutes for access tokens` → `access token 15min`.
            ChangeKind::Subject => subject_follows(o, v, p, c),
            ChangeKind::Noun => abbreviated(o, v, p, c) || named(o, v) || named(p, c) || v.key.word,
            _ => false,
        };
        if !moved {
            out.push(value_change(o, p, v, c, kind, message, flip));
        }
    }
}

/// A value as its text reads it: a bound word after `/` is a unit (`req/min`), a `+`
/// standing apart is `and` (`React 18 + TypeScript`), a `>` or `<` after another count
/// compares two things (`3 small > 1 large`), and a noun behind an arrow or a colon is
/// another clause (`401 → refresh token`), as is a noun in the next table cell (`Phase 2 |
/// Planning`).
fn as_written(r: &Reading, v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(b) = v.bound {
        let text = |from: usize, to: usize| r.text.get(from..to).unwrap_or("");
        let word = text(b.at.min(b.end), b.end.max(b.at)).trim();
        let before = text(0, b.at).chars().next_back();
        let apart_plus = word == "+" && b.at > v.end && text(v.end, b.at).contains(' ');
        // `3 small > 1 large`: spaced, with a count just before it.
        // The count must be on the same line and no list marker (`1. ensure < 50%`).
        let line = text(0, b.at).rsplit('\n').next().unwrap_or("");
        let comparison = matches!(word, ">" | "<" | "≥" | "≤" | ">=" | "<=")
            && b.at < v.start
            && text(b.end, r.text.len()).starts_with(' ')
            && line.ends_with(' ')
            && super::evidence::unmarked(line)
                .split_whitespace()
                .rev()
                .take(3)
                .any(|w| w.starts_with(|c: char| c.is_ascii_digit()));
        if before == Some('/') || apart_plus || comparison {
            v.bound = None;
        }
    }
    if v.noun_end > v.end
        && r.text
            .get(v.end..v.noun_end)
            .is_some_and(|t| t.contains(['→', ':', '=', '>', '<', '|']))
    {
        v.noun.clear();
    }
    v
}

/// Whether a number is part of a name or version rather than a count (`RFC 8785`,
/// `Windows 10`, `UTF-8`, `SPDX 3`): the word before it is capitalised or joined to it.
fn named(r: &Reading, v: &Value) -> bool {
    let before = &r.text[..v.start];
    if before.ends_with(['-', '.', '/']) {
        return true;
    }
    let before = before.trim_end();
    let word = before.split_whitespace().next_back().unwrap_or("");
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    let Some(&first) = letters.first() else {
        return false;
    };
    // What ends before the word: a sentence or list item starts with a capital anyway.
    let ahead = before[..before.len() - word.len()].trim_end();
    let opens = ahead.is_empty()
        || ahead.ends_with(['.', '!', '?', ':', '-', '*', '#', '>', '|', '('])
        || ahead.ends_with(|c: char| c.is_ascii_digit());
    let acronym = letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase());
    let inner = letters[1..].iter().any(|c| c.is_uppercase()) || word.starts_with('.');
    acronym || inner || (first.is_uppercase() && !opens)
}

/// Whether the words naming whose the proposal's value is follow the value in the
/// original (`15 minutes for access tokens` → `access token 15min`): the same binding.
fn subject_follows(o: &Reading, v: &Value, p: &Reading, c: &Value) -> bool {
    let theirs = p.text[c.subject_start.min(c.start)..c.start].to_lowercase();
    let end = o.sentences[v.sentence].end.min(v.end + 80);
    let mut cut = end;
    while !o.text.is_char_boundary(cut) {
        cut -= 1;
    }
    let after = o.text[v.end..cut.max(v.end)].to_lowercase();
    let after = super::evidence::words(&after);
    super::evidence::words(&theirs)
        .iter()
        .any(|w| w.len() >= 4 && super::evidence::kept(w, &after))
}

/// Whether letters joined to the proposal's number shorten the original's unit (`700
/// bytes` → `700b`, `60 seconds` → `60s`).
fn attached_unit(p: &Reading, c: &Value, unit: &str) -> bool {
    let letters: String = p.text[c.start..]
        .chars()
        .skip_while(|ch| !ch.is_alphabetic() && !ch.is_whitespace())
        .take_while(|ch| ch.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    !letters.is_empty() && unit.to_lowercase().starts_with(&letters)
}

/// Whether the proposal's counted noun is the original's shortened (`100 requests` →
/// `100 req/min`).
fn abbreviated(o: &Reading, v: &Value, p: &Reading, c: &Value) -> bool {
    let mine = o.text[v.end..v.noun_end.max(v.end)].to_lowercase();
    let theirs = p.text[c.end..c.noun_end.max(c.end)].to_lowercase();
    let mine = super::evidence::words(&mine);
    super::evidence::words(&theirs)
        .iter()
        .any(|w| w.len() >= 3 && super::evidence::kept(w, &mine))
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
        if (v.noun.is_empty() && v.unit.is_none())
            || v.key.word
            || reported.contains(&v.sentence)
            || named(o, v)
        {
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
            } || v
                .unit
                .as_ref()
                .is_some_and(|a| attached_unit(p, c, &a.text));
            // A number left bare or beside a symbol (`50 items` -> `50`, `18 +`) is bound
            // to nothing else: only a different content noun is a changed binding.
            let noun = v.noun.is_empty()
                || (c.noun.is_empty() && c.unit.is_none())
                || abbreviated(o, v, p, c)
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
        let kept = *seen.entry(signature).or_insert_with(|| {
            theirs.len() > SCAN || theirs.iter().any(|&i| fits(&as_written(p, &p.values[i])))
        });
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
