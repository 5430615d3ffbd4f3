//! The constraint words of one sentence: negation, modality, exclusivity, exceptions and
//! conditions, time limits, absolutes.

use super::bind::matches_at;
use super::lookup::{
    CARRIER, CONTENT, HEDGE, Lookup, MODAL_SKIP, Mark, NONE, NOT_NEGATION, STOP, WHETHER,
};
use super::reading::{Constraints, Modal};
use super::vocab::Vocab;
use super::words::{Tok, Token};

/// The constraint words of one sentence's tokens; tokens of bound phrases are skipped
/// (`no more than` is a bound, not a negation).
pub fn constraints(toks: &[Token], consumed: &[bool], vocab: &Vocab, lk: &Lookup) -> Constraints {
    let mut c = Constraints::default();
    let word = |k: usize| toks.get(k).and_then(Token::id);
    let mut i = 0;
    while i < toks.len() {
        let Some(id) = word(i).filter(|_| !consumed[i]) else {
            i += 1;
            continue;
        };
        let w = vocab.word(id);
        let at = toks[i].start;
        if let Some(bare) = vocab.unprefixed_stem(id) {
            c.affixed.push(bare);
        }
        if vocab.info(id).has(CARRIER) {
            c.carried.extend(clause(toks, i + 1, vocab).take(3));
        }
        let list = vocab.info(id).marks;
        let found = (list != NONE)
            .then(|| {
                lk.marks[list as usize]
                    .iter()
                    .find(|p| matches_at(toks, vocab, i, &p.words))
            })
            .flatten();
        let Some(phrase) = found else {
            // `nonrefundable`, `non-returnable`: a negation inside a word.
            if w.len() > 6 && w.starts_with("non") && !w.starts_with("none") {
                c.negation.push(at);
            }
            i += 1;
            continue;
        };
        let len = phrase.words.len();
        match phrase.what {
            Mark::Negation => {
                let next = word(i + 1).map(|n| vocab.info(n));
                if len == 1 && next.is_some_and(|n| n.has(NOT_NEGATION)) {
                    i += 2;
                    continue;
                }
                if c.negation.is_empty() {
                    c.negated = clause(toks, i + len, vocab).take(3).collect();
                }
                c.negation.push(at);
            }
            Mark::Obligation | Mark::Recommendation | Mark::Permission | Mark::Optional => {
                // `May 5` is a date, not a permission.
                if !matches!(toks.get(i + len).map(|t| t.tok), Some(Tok::Num(_))) {
                    c.modals.push(modal(toks, i, len, phrase.what, vocab));
                }
            }
            Mark::Only => c.only.push(at),
            Mark::OnlyWeak => c.only_weak.push(at),
            Mark::OnlyIf => {
                c.only.push(at);
                c.condition.push(at);
            }
            Mark::Exception => c.exception.push(at),
            Mark::Condition if hedge(toks, i + len, vocab) => {
                // `if at all possible`, `if appropriate`: a hedge, as `where possible`.
                c.partial.push(at);
            }
            Mark::Condition => {
                let whether = i > 0 && word(i - 1).is_some_and(|b| vocab.info(b).has(WHETHER));
                if !whether {
                    if c.condition.is_empty() {
                        c.clause = clause(toks, i + len, vocab).take(8).collect();
                    }
                    c.condition.push(at);
                }
            }
            Mark::Until => c.until.push(at),
            Mark::Universal => {
                // `at all` is emphasis, not a quantifier.
                let at_all =
                    w == "all" && i > 0 && word(i - 1).is_some_and(|b| vocab.word(b) == "at");
                if !at_all {
                    c.universal.push(at);
                }
            }
            Mark::Partial => c.partial.push(at),
        }
        i += len;
    }
    // A clause before a colon sets the condition for what follows it (`No movement for 7
    // days: escalate` = `If there is no movement for 7 days, escalate`).
    if let Some(colon) = toks.iter().position(|t| t.tok == Tok::Mark(':')) {
        c.carried.extend(
            toks[..colon]
                .iter()
                .filter_map(Token::id)
                .filter(|&w| vocab.info(w).has(CONTENT))
                .map(|w| vocab.stem(w))
                .take(8),
        );
    }
    c
}

/// Whether the clause after a condition word is only a hedge (`at all possible`, `it is
/// feasible`, `appropriate`): at most four words up to the clause's end, the last a hedge
/// word, the others stop words, `at`, `all` or hedges.
fn hedge(toks: &[Token], from: usize, vocab: &Vocab) -> bool {
    let clause: Vec<u32> = toks
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|t| !matches!(t.tok, Tok::Mark(_)))
        .take(5)
        .map_while(Token::id)
        .collect();
    let ends = toks
        .get(from + clause.len())
        .is_none_or(|t| matches!(t.tok, Tok::Mark(_)));
    ends && (1..=4).contains(&clause.len())
        && clause.last().is_some_and(|&w| vocab.info(w).has(HEDGE))
        && clause.iter().all(|&w| {
            let info = vocab.info(w);
            info.has(HEDGE) || info.has(STOP) || matches!(vocab.word(w), "all" | "at")
        })
}

/// The content stems of the clause starting at `toks[from]`, up to its punctuation.
fn clause<'a>(toks: &'a [Token], from: usize, vocab: &'a Vocab) -> impl Iterator<Item = u32> + 'a {
    toks.get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|t| !matches!(t.tok, Tok::Mark(_)))
        .filter_map(Token::id)
        .filter(|&w| vocab.info(w).has(CONTENT))
        .map(|w| vocab.stem(w))
}

/// A modal at `toks[i..i + len]`: negated by a `not`/`never` right before or after it,
/// governing the first word after it that is not skippable.
fn modal(toks: &[Token], i: usize, len: usize, mark: Mark, vocab: &Vocab) -> Modal {
    let negator = |t: Option<&Token>| {
        t.and_then(Token::id)
            .is_some_and(|w| matches!(vocab.word(w), "not" | "never" | "no"))
    };
    let negated = mark != Mark::Optional
        && (negator(toks.get(i + len))
            || negator(toks.get(i + len + 1))
            || (i > 0 && negator(toks.get(i - 1)))
            || (i > 1 && negator(toks.get(i - 2))));
    let verb = toks[i + len..]
        .iter()
        .take(4)
        .filter_map(Token::id)
        .find(|&w| !vocab.info(w).has(MODAL_SKIP))
        .map(|w| vocab.stem(w));
    Modal {
        mark,
        negated,
        verb,
        at: toks[i].start,
    }
}
