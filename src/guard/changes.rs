//! The second layer's comparison: values whose binding moved and constraints that flipped
//! or were lost, sentence by aligned sentence.
//!
//! A value is compared with the same value in the aligned sentences of the proposal: its
//! unit and magnitude, the bound on it, the noun it counts and, where two values of one
//! sentence have different subjects, whose it is. Constraints are compared by presence in
//! the aligned sentences, so a merged or split sentence still finds its words. A lost
//! negation together with a reversed bound or exception (`never more than` ↔ `at most`,
//! `unless` ↔ `if … not`) is one rewording, not two changes.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::align;
use super::lookup::Mark;
use super::reading::{Constraints, Modal, Reading, Value};

/// What changed. Serialised in lowercase (`bound`, `negation`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Another value took this value's place; the original value survives elsewhere.
    Value,
    /// Same number, another unit or magnitude (`10 MB` → `10 GB`).
    Unit,
    /// The comparison bounding the value reversed, was lost or was added.
    Bound,
    /// Same number, counting something else.
    Noun,
    /// Same number, belonging to another subject (`gold` ↔ `silver`).
    Subject,
    Negation,
    Modality,
    Exclusivity,
    /// An exception or condition (`unless`, `except`, `if`, `until`) lost, added or
    /// turned into the other.
    Condition,
    /// `always` became `usually`, or the reverse.
    Absolute,
}

impl ChangeKind {
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Value => "value",
            ChangeKind::Unit => "unit",
            ChangeKind::Bound => "bound",
            ChangeKind::Noun => "noun",
            ChangeKind::Subject => "subject",
            ChangeKind::Negation => "negation",
            ChangeKind::Modality => "modality",
            ChangeKind::Exclusivity => "exclusivity",
            ChangeKind::Condition => "condition",
            ChangeKind::Absolute => "absolute",
        }
    }
}

/// One change: what it is, the original and proposal wording (the bound phrase of a
/// value, or the whole sentence of a constraint), and where each is (1-based line and
/// column in characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub kind: ChangeKind,
    pub original: String,
    pub proposal: String,
    pub line: usize,
    pub column: usize,
    pub proposal_line: usize,
    pub proposal_column: usize,
    /// What changed, in words (`` `must` became `may` ``).
    #[serde(default)]
    pub message: String,
}

/// At most this many values of one sentence group are compared with each value.
const LIMIT: usize = 64;

/// A change before positions are resolved.
struct Found {
    kind: ChangeKind,
    message: String,
    original: (usize, usize, usize),
    proposal: (usize, usize, usize),
    /// Sentences (original, proposal) and whether the change reverses a direction.
    pair: (usize, usize),
    flip: bool,
    gone: bool,
}

pub fn compare(o: &Reading, p: &Reading, dropped: &HashSet<String>) -> Vec<Change> {
    let best_p = align::best(&o.content, &p.content);
    let best_o = align::best(&p.content, &o.content);
    let group_p = align::groups(&best_p, &best_o, &o.content, &p.content);
    let group_o = align::groups(&best_o, &best_p, &p.content, &o.content);
    let o_vals = by_sentence(o);
    let p_vals = by_sentence(p);
    // A sentence is compared only when it is linked (its group); it is compared with
    // everything that chose it as well, so a merged or split sentence finds its words.
    let wide_p = widen(&group_p, &best_o, o.sentences.len());
    let wide_o = widen(&group_o, &best_p, p.sentences.len());
    let mut found = Vec::new();
    for (s, group) in wide_p.iter().enumerate() {
        if group_p[s].is_empty() {
            continue;
        }
        let mut keys: HashSet<&str> = o.values[o_vals[s].clone()]
            .iter()
            .map(|v| v.key.as_str())
            .collect();
        for &g in group {
            for &b in &wide_o[g] {
                keys.extend(o.values[o_vals[b].clone()].iter().map(|v| v.key.as_str()));
            }
        }
        let theirs: Vec<&Value> = group
            .iter()
            .flat_map(|&g| &p.values[p_vals[g].clone()])
            .collect();
        let mine = &o.values[o_vals[s].clone()];
        for v in mine {
            values(o, p, v, mine, &theirs, &keys, dropped, &mut found);
        }
        if let Some(c) = &o.constraints[s] {
            let others: Vec<(usize, &Constraints)> = group
                .iter()
                .filter_map(|&g| p.constraints[g].as_ref().map(|c| (g, c)))
                .collect();
            if !others.is_empty() {
                lost(o, p, s, group_p[s][0], c, &others, &mut found);
            }
        }
    }
    for (q, group) in wide_o.iter().enumerate() {
        let (Some(c), false) = (&p.constraints[q], group_o[q].is_empty()) else {
            continue;
        };
        let others: Vec<&Constraints> = group
            .iter()
            .filter_map(|&g| o.constraints[g].as_ref())
            .collect();
        if !others.is_empty() {
            gained(o, p, q, group_o[q][0], c, &others, &mut found);
        }
    }
    cancel_double_flips(&mut found);
    let (o_lines, p_lines) = (Lines::new(o.text), Lines::new(p.text));
    let mut out: Vec<Change> = found
        .into_iter()
        .filter(|f| !f.gone)
        .map(|f| {
            let (line, column) = o_lines.at(o.text, f.original.0);
            let (proposal_line, proposal_column) = p_lines.at(p.text, f.proposal.0);
            Change {
                kind: f.kind,
                original: squash(&o.text[f.original.1..f.original.2]),
                proposal: squash(&p.text[f.proposal.1..f.proposal.2]),
                line,
                column,
                proposal_line,
                proposal_column,
                message: f.message,
            }
        })
        .collect();
    out.sort_by_key(|c| (c.line, c.column, c.kind));
    out.dedup_by(|a, b| a.kind == b.kind && a.line == b.line && a.column == b.column);
    out
}

/// Each linked group plus the sentences on the other side that chose this one, whether
/// linked or not (each sentence is added once: linear).
fn widen(groups: &[Vec<usize>], back: &[align::Match], len: usize) -> Vec<Vec<usize>> {
    let linked: HashSet<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(mine, g)| g.iter().map(move |&other| (mine, other)))
        .collect();
    let mut wide = groups.to_vec();
    wide.resize(len, Vec::new());
    for (other, b) in back.iter().enumerate() {
        if let Some((mine, _)) = *b
            && !linked.contains(&(mine, other))
        {
            wide[mine].push(other);
        }
    }
    wide
}

/// The value index range of each sentence (values are in text order).
fn by_sentence(r: &Reading) -> Vec<std::ops::Range<usize>> {
    let mut out = vec![0..0; r.sentences.len()];
    let mut i = 0;
    for (s, range) in out.iter_mut().enumerate() {
        let start = i;
        while i < r.values.len() && r.values[i].sentence == s {
            i += 1;
        }
        *range = start..i;
    }
    out
}

/// Compares one value of the original with the values of its aligned sentences.
#[allow(clippy::too_many_arguments)]
fn values(
    o: &Reading,
    p: &Reading,
    v: &Value,
    mine: &[Value],
    theirs: &[&Value],
    keys: &HashSet<&str>,
    dropped: &HashSet<String>,
    out: &mut Vec<Found>,
) {
    // Bounded, so a sentence of a thousand values stays linear.
    let theirs = &theirs[..theirs.len().min(LIMIT)];
    let same: Vec<&&Value> = theirs.iter().filter(|c| c.key == v.key).collect();
    if same.iter().any(|c| differ(v, c, mine).is_none()) {
        return;
    }
    if same.is_empty() && !v.word && dropped.contains(&v.key) {
        // Gone from the whole proposal: the first layer reports it as dropped.
        return;
    }
    let replacement = theirs.iter().find(|r| {
        !keys.contains(r.key.as_str())
            && r.key.as_bytes().first() == v.key.as_bytes().first()
            && differ_binding(v, r).is_none()
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
        let others: HashSet<&String> = mine
            .iter()
            .take(LIMIT)
            .filter(|m| m.key != v.key)
            .flat_map(|m| &m.subject)
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
fn lost(
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
    if let Some(&at) = c.negation.first()
        && any(|g| &g.negation).is_none()
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

/// Constraints the proposal's sentence `q` added that its aligned original sentences lack.
fn gained(
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
    for (f, kind, name) in simple {
        let Some(&at) = f(c).first() else { continue };
        if none(f) {
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
                && o.content[s].iter().any(|w| w == verb)
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

/// A negation lost or added together with a reversed bound or exception in the same
/// sentence is one rewording (`never more than 15%` = `capped at 15%`): both go.
fn cancel_double_flips(found: &mut [Found]) {
    use std::collections::HashMap;
    let mut by_original: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut by_proposal: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, f) in found.iter().enumerate().rev() {
        if f.flip {
            by_original.entry(f.pair.0).or_default().push(i);
            by_proposal.entry(f.pair.1).or_default().push(i);
        }
    }
    for n in 0..found.len() {
        if found[n].kind != ChangeKind::Negation {
            continue;
        }
        let (s, q) = found[n].pair;
        let take = |list: Option<&mut Vec<usize>>| {
            let list = list?;
            while let Some(i) = list.pop() {
                if !found[i].gone {
                    return Some(i);
                }
            }
            None
        };
        let flip = take(by_original.get_mut(&s)).or_else(|| take(by_proposal.get_mut(&q)));
        if let Some(f) = flip {
            found[f].gone = true;
            found[n].gone = true;
        }
    }
}

/// Whitespace runs as one space: a sentence may span lines.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Line starts of a text, for 1-based line and character column of a byte offset.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts)
    }

    fn at(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= offset);
        let start = self.0[line - 1];
        (line, text[start..offset].chars().count() + 1)
    }
}
