//! The second layer's comparison: values whose binding moved and constraints that flipped
//! or were lost, sentence by aligned sentence.
//!
//! A value is compared with the same value in the aligned sentences of the proposal: its
//! unit and magnitude, the bound on it, the noun it counts and, where two values of one
//! sentence have different subjects, whose it is. Constraints are compared by presence in
//! the aligned sentences, so a merged or split sentence still finds its words. A lost
//! negation together with a reversed bound or exception (`never more than` ↔ `at most`,
//! `unless` ↔ `if … not`) is one rewording, not two changes.

mod constraints;
mod evidence;
mod phrases;
mod rewording;
mod stance;
mod values;
mod weakening;

use serde::{Deserialize, Serialize};

use super::align;
use super::hash::FxSet;
use super::reading::{Constraints, Reading, Value};
use super::vocab::Id;

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
    /// A qualifier of how an instruction applies was lost (`explicitly`, `gradually`,
    /// `each`, `in depth`).
    Qualifier,
    /// A preference or habit turned absolute (`prefer` → `always`), or the reverse, or a
    /// hedge dropped (`ideally`, `it is recommended`).
    Strength,
    /// A phrase saying what an instruction applies to was lost (`for object shapes`).
    Scope,
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
            ChangeKind::Qualifier => "qualifier",
            ChangeKind::Strength => "strength",
            ChangeKind::Scope => "scope",
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
    /// The sample message it is in (`message 2 (assistant)`), when the texts were compared
    /// message by message; lines and columns are then within that message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_message: Option<String>,
    /// The item file `line` and `column` are in, when the original was an item's body
    /// judged against its file (front matter counted); absent for plain texts and for
    /// findings inside a sample message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<std::path::PathBuf>,
}

impl Change {
    /// How sure the change is a loss: a value, its unit, bound, noun or subject, or a
    /// negation that flipped changes what the text says (`high`); a modal, an `only`, a
    /// condition or an absolute that moved changes how strongly or how widely it says
    /// it, and telegraphic rewrites move those often without meaning to (`review`).
    pub fn confidence(&self) -> super::report::Confidence {
        use super::report::Confidence;
        match self.kind {
            ChangeKind::Value
            | ChangeKind::Unit
            | ChangeKind::Bound
            | ChangeKind::Noun
            | ChangeKind::Subject
            | ChangeKind::Negation => Confidence::High,
            ChangeKind::Modality
            | ChangeKind::Exclusivity
            | ChangeKind::Condition
            | ChangeKind::Absolute
            | ChangeKind::Qualifier
            | ChangeKind::Strength
            | ChangeKind::Scope => Confidence::Review,
        }
    }
}

/// How the second layer compared a sentence of the original.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// No sentence of the proposal says the same thing.
    Alone,
    /// Compared with its counterpart: its constraints were judged there.
    Linked,
    /// Compared, and a change was reported for it.
    Changed,
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

/// Every change between the original `o` and the proposal `p`; `dropped` are the keys of
/// values the first layer reports as dropped (not reported again). Also says, per
/// sentence of the original, whether it was compared with a linked sentence of the
/// proposal (the third layer trusts this comparison for its constraints).
pub fn compare(o: &Reading, p: &Reading, dropped: &FxSet<Id>) -> (Vec<Change>, Vec<Link>) {
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
    // The proposal's sentences that chose each original sentence (split sentences).
    let mut chose: Vec<Vec<usize>> = vec![Vec::new(); o.sentences.len()];
    for (g, b) in best_o.iter().enumerate() {
        if let Some((s, _)) = *b
            && let Some(list) = chose.get_mut(s)
        {
            list.push(g);
        }
    }
    for (s, group) in wide_p.iter().enumerate() {
        if group_p[s].is_empty() {
            // An item merged with its neighbours into one line (`- Cute and slightly
            // flirty speech` → `Cute, flirty, emojis`) matches that line without a link:
            // how strongly and widely it applies is still compared there, each check
            // asking for most of its words first.
            if let (Some((q, _)), Some(c)) = (best_p[s], o.constraints(s))
                && !stance::intro_or_context(o, s)
                && !stance::heading(p, q)
            {
                let mut theirs = vec![q];
                theirs.extend(chose[s].iter().copied().filter(|&g| g != q));
                weakening::weakenings(o, p, (s, q), &theirs, &c, &mut found);
            }
            continue;
        }
        let mut keys: FxSet<Id> = o.values[o_vals[s].clone()]
            .iter()
            .map(|v| v.key.id)
            .collect();
        for &g in group {
            for &b in &wide_o[g] {
                keys.extend(o.values[o_vals[b].clone()].iter().map(|v| v.key.id));
            }
        }
        let theirs: Vec<&Value> = group
            .iter()
            .flat_map(|&g| &p.values[p_vals[g].clone()])
            .collect();
        let mine = &o.values[o_vals[s].clone()];
        for v in mine {
            values::values(o, p, v, mine, &theirs, &keys, dropped, &mut found);
        }
        if let Some(c) = o.constraints(s) {
            let owned: Vec<(usize, Constraints)> = group
                .iter()
                .filter_map(|&g| p.constraints(g).map(|c| (g, c)))
                .collect();
            let others: Vec<(usize, &Constraints)> = owned.iter().map(|(g, c)| (*g, c)).collect();
            if !others.is_empty() {
                constraints::lost(o, p, s, group_p[s][0], &c, &others, &mut found);
            }
        }
    }
    for (q, group) in wide_o.iter().enumerate() {
        if group_o[q].is_empty() {
            continue;
        }
        let Some(c) = p.constraints(q) else {
            continue;
        };
        let owned: Vec<Constraints> = group.iter().filter_map(|&g| o.constraints(g)).collect();
        let others: Vec<&Constraints> = owned.iter().collect();
        if !others.is_empty() {
            constraints::gained(o, p, q, group_o[q][0], &c, &others, &mut found);
        }
    }
    let reported: FxSet<usize> = found.iter().filter(|f| !f.gone).map(|f| f.pair.0).collect();
    let mut by_key: super::hash::FxMap<Id, Vec<usize>> = Default::default();
    for (i, v) in p.values.iter().enumerate() {
        by_key.entry(v.key.id).or_default().push(i);
    }
    let mut linked: Vec<Link> = group_p
        .iter()
        .map(|g| {
            if g.is_empty() {
                Link::Alone
            } else {
                Link::Linked
            }
        })
        .collect();
    // Changes found in a linked sentence (not a value whose binding went with a deleted
    // sentence: that sentence is still gone).
    for &s in &reported {
        if let Some(l) = linked.get_mut(s).filter(|l| **l == Link::Linked) {
            *l = Link::Changed;
        }
    }
    values::unbound(o, p, &by_key, &reported, &mut found);
    cancel_double_flips(&mut found);
    // Line tables only when there is something to place (most checks of a faithful
    // rewrite find nothing).
    let live = found.iter().any(|f| !f.gone);
    let (o_lines, p_lines) = if live {
        (Lines::new(o.text), Lines::new(p.text))
    } else {
        (Lines::new(""), Lines::new(""))
    };
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
                in_message: None,
                file: None,
            }
        })
        .collect();
    out.sort_by_key(|c| (c.line, c.column, c.kind));
    out.dedup_by(|a, b| a.kind == b.kind && a.line == b.line && a.column == b.column);
    (out, linked)
}

/// Each linked group plus the sentences on the other side that chose this one, whether
/// linked or not (each sentence is added once: linear).
fn widen(groups: &[Vec<usize>], back: &[align::Match], len: usize) -> Vec<Vec<usize>> {
    let linked: FxSet<(usize, usize)> = groups
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

/// A negation lost or added together with a reversed bound or exception in the same
/// sentence is one rewording (`never more than 15%` = `capped at 15%`): both go.
fn cancel_double_flips(found: &mut [Found]) {
    let mut by_original: super::hash::FxMap<usize, Vec<usize>> = Default::default();
    let mut by_proposal: super::hash::FxMap<usize, Vec<usize>> = Default::default();
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
pub(super) fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Line starts of a text, for 1-based line and character column of a byte offset.
pub(super) struct Lines(Vec<usize>);

impl Lines {
    pub(super) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts)
    }

    pub(super) fn at(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&s| s <= offset);
        let start = self.0[line - 1];
        (line, text[start..offset].chars().count() + 1)
    }
}
