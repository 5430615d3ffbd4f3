//! The third layer: every instruction of the original needs a counterpart in the
//! proposal.
//!
//! The original is split into units (sentences and clauses, list items, table rows; see
//! `units.rs`). A unit is instruction-bearing when it tells the agent what to do or not
//! do: a constraint word, an imperative, a requirement, the agent addressed as `you`, a
//! numbered step, or a list item under such a lead-in. Filler, courtesies and prefaces
//! (units with nothing but filler and words about the text) are not instructions.
//!
//! A counterpart is a sentence of the proposal (or two adjacent ones) that keeps at least
//! half of the unit's key words, weighted by rarity in the original (`customer` in every
//! rule counts less than `promise`; a name, code or a URL counts three times), after stemming and synonym
//! groups, and keeps its constraints (`never`, `only`, `unless`, `if`, `until`,
//! `before`), or a rewording of them, unless the second layer already compared the
//! sentence and judged its constraints. A unit repeated in the original is covered by any
//! copy. A unit whose best match keeps under a third of its words is reported; one that
//! keeps a third to a half is borderline: not reported on its own (a heavy rewording
//! looks like that), but not counted as kept, so a proposal that keeps under half of its
//! instructions is flagged even when each unit's test is borderline.

mod counterpart;
mod instruct;
mod lines;
mod lists;
mod notation;
mod repeats;
mod scope;
mod statements;
mod units;

use super::changes::{Lines, squash};
use super::hash::FxMap;
use super::report::{Confidence, Coverage, DroppedContext, DroppedInstruction, UnitKind};
use super::vocab::{Id, Vocab};

/// A unit whose best counterpart keeps less than this share of its key weight is
/// reported as dropped ...
const REPORT: f64 = 0.5;
/// The bars never fall under this share of [`REPORT`] and [`PASS`], however terse the
/// proposal.
const FLOOR: f64 = 0.5;
/// ... and counts as kept from this share on (in between: borderline, not reported one
/// by one, not counted as kept).
const PASS: f64 = 0.6;
/// A unit whose nearest counterpart keeps less than this share of its key weight, and
/// none of the words only it has, has no counterpart at all: reported at high confidence.
/// Above it, a counterpart that keeps some of it may be a heavy rewording: `review`.
const SURE: f64 = 0.25;
/// In a terse proposal, a nearest match keeping this share or more is not reported for
/// lacking the unit's own words (telegraphic text abbreviates exactly those).
const OWN_TERSE: f64 = 0.4;
/// A unit of the original taken for a repeat of another must share this much with it.
const REPEAT: f64 = 0.75;
/// At most this many units of the original are compared with a unit taken for a repeat.
const REPEATS: usize = 16;

/// What the layer compares: the original's units, the proposal's windows, and what the
/// other layers found.
pub struct Input<'a> {
    pub text: &'a str,
    pub units: units::Finished,
    /// `None`: the two texts are the same, every unit is kept.
    pub windows: Option<Vec<counterpart::Window>>,
    /// How many sentences the original has (where a unit is expected in the proposal).
    pub sentences: usize,
    pub vocab: &'a Vocab<'a>,
    /// Per sentence of the original: how the second layer compared it.
    pub linked: &'a [super::changes::Link],
    /// Keys of the facts the first layer reports as dropped: a unit is not reported
    /// again for them (a unit whose only loss is its price is a dropped price).
    pub dropped: &'a super::hash::FxSet<Id>,
}

pub use counterpart::Windows;
pub use notation::readable;
pub use units::Units;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Dropped,
    Partial,
    Kept,
}

fn family_name(f: u16) -> &'static str {
    match f {
        instruct::NEG => "negation",
        instruct::ONLY => "exclusivity (`only`)",
        instruct::EXC => "exception",
        instruct::COND => "condition",
        instruct::UNTIL => "time limit (`until`)",
        _ => "order (`before`/`after`)",
    }
}

/// The instructions of `o` without a counterpart in `p`, the coverage counts (the
/// lengths are filled in by the caller), and the context units that went.
pub fn check(input: Input) -> (Vec<DroppedInstruction>, Coverage, Vec<DroppedContext>) {
    let (text, vocab) = (input.text, input.vocab);
    let units::Finished {
        mut units,
        df,
        count,
    } = input.units;
    for u in &mut units {
        if u.keys.iter().any(|k| input.dropped.contains(k)) {
            let rest: Box<[Id]> = u
                .keys
                .iter()
                .copied()
                .filter(|k| !input.dropped.contains(k))
                .collect();
            // Nothing but dropped facts: the unit went with them, and is checked whole
            // (a line naming a path that went is a dropped line, not only a path).
            if !rest.is_empty() {
                u.keys = rest;
            }
        }
    }
    for u in units.iter_mut().filter(|u| u.statement) {
        u.statement = statements::worth_finding(&text[u.start..u.end], &u.keys, vocab);
    }
    let n = count.max(1) as f64;
    // A fact (code, a name, a URL) says more than a word; a value counts as a word
    // (the first two layers check where it went).
    let weight = |k: Id| {
        let rare = 1.0 + (n / f64::from(*df.get(&k).unwrap_or(&1))).ln();
        let w = vocab.word(k);
        let fact = w.starts_with('@') || ["url:", "mail:", "ph:"].iter().any(|t| w.starts_with(t));
        if fact { 3.0 * rare } else { rare }
    };
    // Units with the same words and constraints are one instruction said twice.
    let mut groups: FxMap<(&[Id], u16), usize> = FxMap::default();
    let mut group_of = vec![usize::MAX; units.len()];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, u) in units.iter().enumerate().filter(|(_, u)| u.instruction) {
        let key = (&u.keys[..], u.families & instruct::CHECKED);
        let g = *groups.entry(key).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        group_of[i] = g;
        members[g].push(i);
    }
    let mut coverage = Coverage {
        instructions: members
            .iter()
            .filter(|g| units[g[0]].context.is_none())
            .count(),
        ..Coverage::default()
    };
    let Some(windows) = input.windows else {
        coverage.kept = coverage.instructions;
        return (Vec::new(), coverage, Vec::new());
    };
    let index = counterpart::Index::new(&windows);
    let mut search = counterpart::Search::new(&windows, &index);
    let (o_len, p_len) = (input.sentences, windows.len());
    let mut verdict = vec![Verdict::Dropped; units.len()];
    let mut sure = vec![true; units.len()];
    let mut missing_words: Vec<Vec<Id>> = vec![Vec::new(); units.len()];
    let mut why: Vec<String> = vec![String::new(); units.len()];
    let mut gone_items: Vec<Vec<String>> = vec![Vec::new(); units.len()];
    // Units kept but for the scope that bounded them (`for large result sets`).
    let mut narrowed = vec![false; units.len()];
    // Each unit's nearest counterpart first: how much the proposal keeps of a unit it
    // kept says how terse it writes, and the bar for "no counterpart" follows it.
    let founds: Vec<Option<counterpart::Found>> = units
        .iter()
        .map(|u| {
            if !u.instruction && !u.statement {
                return None;
            }
            let expected = if o_len <= 1 {
                0
            } else {
                u.sentence * p_len.saturating_sub(1) / (o_len - 1)
            };
            let weights: Vec<f64> = u.keys.iter().map(|&k| weight(k)).collect();
            search.find(&u.keys, &weights, expected, !u.items.is_empty())
        })
        .collect();
    let (report_below, pass_from) = bars(&founds);
    for (i, u) in units.iter().enumerate().filter(|(_, u)| u.statement) {
        verdict[i] = statements::verdict(u, founds[i], &df, &search);
        if verdict[i] == Verdict::Dropped {
            missing_words[i] = u.keys.to_vec();
            why[i] = "a statement with no counterpart in the proposal".into();
        }
    }
    for (i, u) in units.iter().enumerate().filter(|(_, u)| u.instruction) {
        let weights: Vec<f64> = u.keys.iter().map(|&k| weight(k)).collect();
        let Some(found) = founds[i] else {
            why[i] = "no counterpart in the proposal".into();
            missing_words[i] = u.keys.to_vec();
            continue;
        };
        missing_words[i] = u
            .keys
            .iter()
            .copied()
            .filter(|&k| !search.has(found.from, found.to, k))
            .collect();
        // The evidence weighs how sure the drop is: a nearest match that keeps a quarter
        // or more of the unit, or any word only this unit has, may be a telegraphic
        // rewording (`No new deps without discussion`): worth a look, not a block.
        let own_kept = u
            .keys
            .iter()
            .any(|&k| df.get(&k) == Some(&1) && search.has(found.from, found.to, k));
        sure[i] = found.share < SURE && !own_kept;
        let link = input.linked.get(u.sentence).copied();
        // The order kept, the scope that bounded it gone (`Use pagination for large
        // result sets` → `paginate`): widened, worth a look.
        if u.items.is_empty()
            && found.share >= report_below * 0.5
            && let Some(scope) =
                scope::lost(&text[u.start..u.end], &u.keys, &missing_words[i], vocab)
        {
            verdict[i] = Verdict::Partial;
            narrowed[i] = true;
            sure[i] = false;
            why[i] = format!(
                "its words survive ({:.0}%), but its scope `{scope}` was lost",
                found.share * 100.0
            );
            continue;
        }
        // A quantified phrase that lost its modifier (`any new screen` → `any screen`).
        if u.items.is_empty()
            && found.share >= report_below
            && link != Some(super::changes::Link::Changed)
            && let Some(phrase) =
                scope::modifier_lost(&text[u.start..u.end], &u.keys, &missing_words[i], vocab)
        {
            verdict[i] = Verdict::Partial;
            narrowed[i] = true;
            sure[i] = false;
            why[i] = format!(
                "its words survive ({:.0}%), but the word narrowing `{phrase}` was lost",
                found.share * 100.0
            );
            continue;
        }
        // A qualifier that went (`slightly flirty` → `flirty`, `mostly zen` → `zen`), in a
        // sentence the second layer did not already report on.
        let lost_qualifiers =
            super::lexicon::data::qualifier_mask(&text[u.start..u.end].to_lowercase())
                & !search.qualifiers(found.from, found.to);
        if lost_qualifiers != 0
            && found.share >= report_below
            && link != Some(super::changes::Link::Changed)
        {
            verdict[i] = Verdict::Partial;
            narrowed[i] = true;
            sure[i] = false;
            why[i] = format!(
                "its words survive ({:.0}%), but its qualifier `{}` was lost",
                found.share * 100.0,
                super::lexicon::data::qualifier_name(lost_qualifiers.trailing_zeros())
            );
            continue;
        }
        if found.share < pass_from && link == Some(super::changes::Link::Changed) {
            // The second layer reported what changed in this sentence: one finding, not
            // two. Not counted as kept.
            verdict[i] = Verdict::Partial;
            continue;
        }
        if found.share < report_below {
            why[i] = format!(
                "no counterpart in the proposal (the nearest keeps {:.0}% of its words)",
                found.share * 100.0
            );
            continue;
        }
        // A borderline match that kept none of the words only this unit has, nor any of
        // its values or names (`confirms the address` matched by `checks the delivery date`
        // in the next step), is a drop.
        let kept_fact = u.keys.iter().any(|&k| {
            vocab.word(k).starts_with(['#', '$', '@']) && search.has(found.from, found.to, k)
        });
        let own: Vec<Id> = u
            .keys
            .iter()
            .copied()
            .filter(|k| df.get(k) == Some(&1))
            .collect();
        // So is a match that kept only words other units share (`sources`, `say`) when
        // the words only this unit has weigh a third of it or more (`disagree`): what the
        // unit adds to its neighbours went.
        let own_weight: f64 = own.iter().map(|&k| weight(k)).sum();
        let total: f64 = weights.iter().sum();
        // In a terse proposal (bars lowered) a match keeping [`OWN_TERSE`] or more is a
        // rewording more often than not: its own words were abbreviated, not lost.
        let terse = report_below < REPORT;
        if (found.share < pass_from || own_weight * 3.0 >= total)
            && (!terse || found.share < OWN_TERSE)
            && !kept_fact
            && !own.is_empty()
            && !own.iter().any(|&k| search.has(found.from, found.to, k))
        {
            why[i] = format!(
                "no counterpart in the proposal (the nearest keeps {:.0}% of its words, none \
                 of its own)",
                found.share * 100.0
            );
            continue;
        }
        let trusted = link.is_some_and(|l| l != super::changes::Link::Alone);
        // A contrast that went from a rule kept whole (`Approve good-enough code, not
        // perfect code` → `Approve good-enough code`) is no loss; from one kept only in
        // part it still is.
        let contrast = found.share >= pass_from
            && instruct::contrast_only(&text[u.start..u.end].to_lowercase());
        let checked = if contrast {
            u.families & instruct::CHECKED & !instruct::NEG
        } else {
            u.families & instruct::CHECKED
        };
        if !trusted && let Some(f) = instruct::lost(checked, found.families) {
            why[i] = format!(
                "its words survive ({:.0}%), but its {} was lost",
                found.share * 100.0,
                family_name(f)
            );
            sure[i] = false;
            continue;
        }
        // A requirement mark that went from a field (`order_id (required)` → `order_id`)
        // turned a requirement into a description. A `must` that went from a rule whose
        // words survive does not: telegraphic rewrites state every rule in the plain
        // present (`Tests must run in the sandbox` → `Tests run in sandbox`), and on
        // real rewrites none of these reports was a loss.
        let marked = {
            let line_start = text[..u.start].rfind('\n').map_or(0, |n| n + 1);
            let line_end = text[u.end..].find('\n').map_or(text.len(), |n| u.end + n);
            let lower = text[line_start..line_end].to_lowercase();
            ["(required", "(mandatory", "required)", "mandatory)"]
                .iter()
                .any(|w| lower.contains(w))
        };
        if link != Some(super::changes::Link::Changed)
            && marked
            && instruct::lost_obligation(u.families, found.families)
        {
            why[i] = format!(
                "its words survive ({:.0}%), but its requirement mark (`required`) was lost",
                found.share * 100.0
            );
            sure[i] = false;
            continue;
        }
        let missing: Vec<String> = u
            .items
            .iter()
            .filter(|item| !search.has(found.from, found.to, item.keys[0]))
            .map(|item| squash(&text[item.start..item.end]))
            .collect();
        // One item of three written another way (`extensive documentation` → `docs`) is
        // telegraphic; half of a list gone is a loss.
        let missing = if missing.len() * 2 >= u.items.len() {
            missing
        } else {
            Vec::new()
        };
        verdict[i] = if found.share >= pass_from && missing.is_empty() {
            Verdict::Kept
        } else {
            Verdict::Partial
        };
        if !missing.is_empty() {
            why[i] = format!("{} of its {} list items went", missing.len(), u.items.len());
            gone_items[i] = missing;
        }
    }
    repeats::repeats(&units, &weight, &mut verdict);
    let reported = verdict.iter().any(|v| *v != Verdict::Kept);
    let lines = Lines::new(if reported { text } else { "" });
    let mut out = Vec::new();
    let mut context = Vec::new();
    for group in &members {
        let best = group
            .iter()
            .map(|&i| verdict[i])
            .max()
            .unwrap_or(Verdict::Dropped);
        // Context (a rationale, an example, a preface) may go: said, never a finding.
        if let Some(role) = units[group[0]].context {
            if best == Verdict::Dropped {
                let u = &units[group[0]];
                let (line, column) = lines.at(text, u.start);
                context.push(DroppedContext {
                    text: squash(&text[u.start..u.end]),
                    line,
                    column,
                    role: role.to_string(),
                });
            }
            continue;
        }
        match best {
            Verdict::Kept => coverage.kept += 1,
            Verdict::Partial => coverage.borderline += 1,
            Verdict::Dropped => coverage.dropped += 1,
        }
        // A dropped instruction is reported at its first copy in each sentence (the
        // same clause after two different rules went twice); a list that lost items at
        // each copy that did.
        let report: Vec<usize> = match best {
            Verdict::Dropped => group
                .iter()
                .copied()
                .enumerate()
                .filter(|&(n, i)| n == 0 || units[i].sentence != units[group[n - 1]].sentence)
                .map(|(_, i)| i)
                .collect(),
            Verdict::Kept => Vec::new(),
            _ => group
                .iter()
                .copied()
                .filter(|&i| !gone_items[i].is_empty() || narrowed[i])
                .take(1)
                .collect(),
        };
        for i in report {
            let u = &units[i];
            let (line, column) = lines.at(text, u.start);
            let under = u.under.map(|(start, end)| squash(&text[start..end]));
            let high = best == Verdict::Dropped && sure[i] && gone_items[i].is_empty();
            out.push(DroppedInstruction {
                text: squash(&text[u.start..u.end]),
                line,
                column,
                items: std::mem::take(&mut gone_items[i]),
                reason: std::mem::take(&mut why[i]),
                under,
                in_message: None,
                file: None,
                confidence: if high {
                    Confidence::High
                } else {
                    Confidence::Review
                },
                missing: missing_words[i]
                    .iter()
                    .map(|&k| vocab.word(k).to_string())
                    .collect(),
                unit: UnitKind::Instruction,
            });
        }
    }
    for (i, u) in units.iter().enumerate() {
        if u.statement && verdict[i] == Verdict::Dropped {
            let (line, column) = lines.at(text, u.start);
            out.push(DroppedInstruction {
                text: squash(&text[u.start..u.end]),
                line,
                column,
                items: Vec::new(),
                reason: std::mem::take(&mut why[i]),
                under: u.under.map(|(start, end)| squash(&text[start..end])),
                in_message: None,
                file: None,
                confidence: Confidence::High,
                missing: missing_words[i]
                    .iter()
                    .map(|&k| vocab.word(k).to_string())
                    .collect(),
                unit: UnitKind::Statement,
            });
        }
    }
    out.sort_by_key(|d| (d.line, d.column));
    (out, coverage, context)
}

/// The shares under which a unit has no counterpart and from which it counts as kept,
/// scaled to how terse the proposal writes: a rewrite that keeps every other unit whole
/// (the typical median share is 1) is held to [`REPORT`] and [`PASS`]; a telegraphic one
/// (`No new deps without discussion` keeps about half of each unit's words) to bars as
/// much lower as its median kept share, never under [`FLOOR`] of them.
fn bars(founds: &[Option<counterpart::Found>]) -> (f64, f64) {
    let mut shares: Vec<f64> = founds.iter().flatten().map(|f| f.share).collect();
    if shares.len() < 4 {
        return (REPORT, PASS);
    }
    shares.sort_by(f64::total_cmp);
    let median = shares[shares.len() / 2];
    let scale = if median >= 0.9 {
        1.0
    } else {
        (median * 0.8).clamp(FLOOR, 1.0)
    };
    (REPORT * scale, PASS * scale)
}
