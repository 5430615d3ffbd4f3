//! What a run of tokens says: its constraint families (what a counterpart must keep),
//! whether it gives an order (an imperative, a requirement, the agent addressed), and the
//! key words a counterpart must share with it.

use super::super::bind::matches_at;
use super::super::lookup::{
    AUXILIARY, CARRIER, CLAUSE_JOINER, CONTENT, Cue, FILLER, IMPERATIVE, LEAD, Lookup, META, Mark,
    NONE, OBJECT_START, ORDER, SEQUENCE, STOP,
};
use super::super::marks;
use super::super::reading::Key;
use super::super::vocab::{Id, Vocab};
use super::super::words::{Tok, Token};

/// Constraint families (bits): the first six must survive in a counterpart.
pub const NEG: u16 = 1;
pub const ONLY: u16 = 1 << 1;
pub const EXC: u16 = 1 << 2;
pub const COND: u16 = 1 << 3;
pub const UNTIL: u16 = 1 << 4;
pub const ORDER_F: u16 = 1 << 5;
/// Marks of an instruction that need not survive as such.
pub const OBL: u16 = 1 << 6;
pub const PERM: u16 = 1 << 7;
pub const ALWAYS: u16 = 1 << 8;
pub const BOUND: u16 = 1 << 9;
/// What may stand in for a checked family in a rewording.
pub const WEAK_ONLY: u16 = 1 << 10;
pub const CARRY: u16 = 1 << 11;
pub const SEQ: u16 = 1 << 12;
pub const ORDERED_ITEM: u16 = 1 << 13;
/// A sentence of the proposal that gives an order itself (an imperative, the agent
/// addressed, a requirement cue): it can carry an obligation without `must`.
pub const ORDERS: u16 = 1 << 14;

pub const CHECKED: u16 = NEG | ONLY | EXC | COND | UNTIL | ORDER_F;
/// What makes a unit an order even when it opens like context (`This file must …`).
pub const ORDER_MARKS: u16 = NEG | ONLY | OBL | ALWAYS;
/// What else a lead-in lends the list items under it in the proposal.
pub const CARRIED: u16 = OBL | ALWAYS | ORDERS;
const MARKS: u16 = CHECKED | OBL | PERM | ALWAYS | BOUND;

/// The families that can stand for `family` in a counterpart (`unless` ↔ `if … not`,
/// `never` ↔ `only`, `before` ↔ `first` or a numbered step).
pub fn satisfied_by(family: u16) -> u16 {
    match family {
        NEG => NEG | ONLY | EXC,
        ONLY => ONLY | WEAK_ONLY | NEG | COND,
        EXC => EXC | COND | NEG,
        COND => COND | EXC | CARRY | UNTIL | ORDER_F | SEQ,
        UNTIL => UNTIL | ORDER_F | SEQ | BOUND,
        ORDER_F => ORDER_F | SEQ | UNTIL | ORDERED_ITEM | BOUND | COND,
        other => other,
    }
}

/// The checked families of `have` that `window` does not keep, lowest bit first.
pub fn lost(have: u16, window: u16) -> Option<u16> {
    (0..6)
        .map(|b| 1u16 << b)
        .find(|&f| have & f != 0 && window & satisfied_by(f) == 0)
}

/// Whether an obligation of the unit (`must`, `required`) is gone from `window`: the
/// window neither says it (`must`, `mandatory`, `always`, `never`, `only`) nor gives an
/// order by itself (`You must log refunds` → `Log refunds` keeps it). A field marked
/// `(required)` that lost the mark is a description, no longer a requirement.
pub fn lost_obligation(have: u16, window: u16) -> bool {
    have & OBL != 0 && window & (OBL | ALWAYS | NEG | ONLY | EXC | ORDERS | ORDERED_ITEM) == 0
}

/// Whether a run of tokens gives an order by itself (the words of a sentence of the
/// proposal, for [`ORDERS`]).
pub fn gives_order(toks: &[Token], vocab: &Vocab, lk: &Lookup) -> bool {
    imperative_at(toks, 0, vocab)
        || toks.iter().enumerate().any(|(k, t)| {
            k > 0 && matches!(t.tok, Tok::Mark(',' | ':')) && imperative_at(toks, k + 1, vocab)
        })
        || matches!(cue_at(toks, 0, vocab, lk), Some((Cue::Addressee, _)))
        || has_requirement(toks, vocab, lk)
}

/// The families of a run of tokens.
pub fn families(
    toks: &[Token],
    consumed: &[bool],
    values_bound: bool,
    vocab: &Vocab,
    lk: &Lookup,
    text: &str,
) -> u16 {
    let c = marks::constraints(toks, consumed, vocab, lk);
    families_of(&c, toks, consumed, values_bound, vocab, text)
}

/// The families of a run of tokens whose constraint words `c` are already read (a whole
/// sentence, as the second layer read it).
pub fn families_of(
    c: &super::super::reading::Constraints,
    toks: &[Token],
    consumed: &[bool],
    values_bound: bool,
    vocab: &Vocab,
    text: &str,
) -> u16 {
    let mut f = 0;
    let effective_neg = c.modals.iter().any(|m| {
        matches!(m.mark, Mark::Optional)
            || (m.negated && matches!(m.mark, Mark::Obligation | Mark::Permission))
    });
    if !c.negation.is_empty() || effective_neg {
        f |= NEG;
    }
    if !c.only.is_empty() {
        f |= ONLY;
    }
    if !c.only_weak.is_empty() {
        f |= WEAK_ONLY;
    }
    if !c.exception.is_empty() {
        f |= EXC;
    }
    if !c.condition.is_empty() {
        f |= COND;
    }
    if !c.until.is_empty() {
        f |= UNTIL;
    }
    for m in &c.modals {
        f |= match m.mark {
            Mark::Obligation | Mark::Recommendation => OBL,
            _ => PERM,
        };
    }
    // `always`, `never`, `at all times`: the strong absolutes (not `all`, `every`).
    if c.universal.iter().any(|&at| {
        let w = &text[at..];
        !(w.starts_with("all")
            || w.starts_with("All")
            || w.starts_with("ever")
            || w.starts_with("Ever"))
    }) {
        f |= ALWAYS;
    }
    if values_bound {
        f |= BOUND;
    }
    for (k, t) in toks.iter().enumerate() {
        let Some(w) = t.id() else { continue };
        if consumed.get(k).copied().unwrap_or(false) {
            continue;
        }
        let info = vocab.info(w);
        if info.has(ORDER) {
            f |= ORDER_F;
        }
        if info.has(SEQUENCE) {
            f |= SEQ;
        }
        if info.has(CARRIER) {
            f |= CARRY;
        }
    }
    f
}

/// Whether the families mark an instruction by themselves.
pub fn marks_instruction(families: u16) -> bool {
    families & MARKS != 0
}

/// The third layer's cue starting at `toks[i]`, and its length in tokens.
pub fn cue_at(toks: &[Token], i: usize, vocab: &Vocab, lk: &Lookup) -> Option<(Cue, usize)> {
    let w = toks.get(i)?.id()?;
    let list = vocab.info(w).cues;
    if list == NONE {
        return None;
    }
    lk.cues[list as usize]
        .iter()
        .find(|p| matches_at(toks, vocab, i, &p.words))
        .map(|p| (p.what, p.words.len()))
}

/// Whether some token of the run is a requirement cue (`before`, `make sure`).
pub fn has_requirement(toks: &[Token], vocab: &Vocab, lk: &Lookup) -> bool {
    (0..toks.len()).any(|i| matches!(cue_at(toks, i, vocab, lk), Some((Cue::Requirement, _))))
}

fn word<'v>(toks: &[Token], k: usize, vocab: &'v Vocab) -> Option<(Id, &'v str)> {
    let id = toks.get(k)?.id()?;
    Some((id, vocab.word(id)))
}

/// Whether an imperative starts at `toks[i]`: a verb in its base form with an object or
/// complement after it (`verify the email`, `keep answers short`), after any leading
/// adverbs or `do not` (`please always check`, `never promise`).
pub fn imperative_at(toks: &[Token], i: usize, vocab: &Vocab) -> bool {
    if verb_at(toks, i, vocab) {
        return true;
    }
    let mut k = i;
    let mut skipped = 0;
    while let Some((w, text)) = word(toks, k, vocab) {
        let lead = vocab.info(w).has(LEAD) || (text.len() > 4 && text.ends_with("ly"));
        if !lead || skipped == 4 {
            break;
        }
        k += 1;
        skipped += 1;
    }
    skipped > 0 && verb_at(toks, k, vocab)
}

/// Whether `toks[k]` reads as an imperative verb.
fn verb_at(toks: &[Token], k: usize, vocab: &Vocab) -> bool {
    let Some((w, text)) = word(toks, k, vocab) else {
        return false;
    };
    let info = vocab.info(w);
    // A word glued to the next by one character (`follow-ups`, `check-in`, `look_up`) is
    // part of a compound or a name, not a verb.
    if toks.get(k + 1).is_some_and(|n| n.glued) {
        return false;
    }
    let next = toks.get(k + 1).map(|t| t.tok);
    let next_info = |n: usize| toks.get(n).and_then(Token::id).map(|id| vocab.info(id));
    // `Return shipping is free`: an auxiliary right after the first words makes them a
    // subject, unless an object word came first (`check the order is paid`).
    let subject = |n: usize| next_info(n).is_some_and(|i| i.has(AUXILIARY));
    let object_next = next_info(k + 1).is_some_and(|i| i.has(OBJECT_START));
    if !object_next && (subject(k + 1) || subject(k + 2)) {
        return false;
    }
    if info.has(IMPERATIVE) {
        // A listed verb takes what follows it (`be friendly`), not a colon (`Issue:`).
        return matches!(next, Some(Tok::Word(_) | Tok::Num(_)));
    }
    if info.has(STOP) || info.has(AUXILIARY) || info.has(OBJECT_START) || !info.has(CONTENT) {
        return false;
    }
    let looks_inflected = (text.ends_with('s') && !text.ends_with("ss") && !text.ends_with("us"))
        || text.ends_with("ing")
        || text.ends_with("ed")
        || text.ends_with("ly")
        || !text.bytes().all(|b| b.is_ascii_lowercase());
    if looks_inflected {
        return false;
    }
    object_next || matches!(next, Some(Tok::Num(_)))
}

/// Whether `toks[i]` can start a new clause inside a sentence: a joiner or comma before
/// an imperative with a listed verb or a negative or exclusive lead (`, and never
/// promise`, `and check`).
pub fn clause_starts(toks: &[Token], i: usize, vocab: &Vocab) -> bool {
    let mut k = i;
    if let Some((w, _)) = word(toks, k, vocab)
        && vocab.info(w).has(CLAUSE_JOINER)
    {
        k += 1;
    }
    let Some((w, text)) = word(toks, k, vocab) else {
        return false;
    };
    let info = vocab.info(w);
    if matches!(text, "never" | "always" | "only" | "do" | "please") {
        return imperative_at(toks, k, vocab);
    }
    info.has(IMPERATIVE) && verb_at(toks, k, vocab)
}

/// Whether a word is a key word: content, not filler, not about the text itself, not a
/// word that only orders steps (`first`, `then`).
pub fn is_key(info: super::super::lookup::Info) -> bool {
    info.has(CONTENT)
        && !info.has(FILLER)
        && !info.has(META)
        && !info.has(ORDER)
        && !info.has(SEQUENCE)
}

/// The key words of a run of tokens: content stems under their synonym group (a unit
/// word as its dimension and magnitude), values, without filler, words about the text
/// itself or the words of a bound (`limited to`, `up to`).
pub fn keys(toks: &[Token], consumed: &[bool], values: &[Key], vocab: &Vocab, out: &mut Vec<Id>) {
    for (k, t) in toks.iter().enumerate() {
        if consumed.get(k).copied().unwrap_or(false) {
            continue;
        }
        match t.tok {
            Tok::Word(w) => {
                // `send the stove back` is `return the stove`.
                let phrasal = vocab.phrasal(w).filter(|(particle, _)| {
                    toks[k + 1..]
                        .iter()
                        .take(3)
                        .any(|t| t.id() == Some(*particle))
                });
                if let Some((_, means)) = phrasal {
                    out.push(vocab.key(means));
                } else if is_key(vocab.info(w)) {
                    out.push(vocab.key(w));
                }
            }
            Tok::Num(n) => out.push(values[n as usize].id),
            Tok::Mark(_) => {}
        }
    }
}

/// Whether the only negation of a unit is a contrast after what it asks for (`Test
/// behaviour, not implementation`, `explain "why" not "what"`): the order is the
/// positive part, and a rewrite that keeps it (`Test behaviour`) keeps the rule. A
/// negation that forbids (`never`, `don't`, `no`, `without`, `not` before a verb) is no
/// contrast.
pub fn contrast_only(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .collect();
    let forbidding = words.iter().any(|w| {
        matches!(
            *w,
            "never" | "no" | "without" | "avoid" | "cannot" | "nor" | "neither" | "none"
        ) || w.ends_with("n't")
            || w.ends_with("n’t")
    });
    let mut contrasts = 0;
    let mut from = 0;
    while let Some(n) = lower[from..].find("not ") {
        let at = from + n;
        let before = lower[..at].trim_end();
        let whole = lower[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        if whole {
            // `X, not Y` or `"why" not "what"`: a contrast; `do not`, `is not`: no.
            if !(before.ends_with(',') || before.ends_with('"') || before.ends_with('”')) {
                return false;
            }
            contrasts += 1;
        }
        from = at + 4;
    }
    contrasts > 0 && !forbidding
}
