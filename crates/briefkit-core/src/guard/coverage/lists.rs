//! Lists inside a sentence (`medical, legal, financial or tax advice`): each item must
//! survive in the unit's counterpart, so a partly kept list can say which items went.
//!
//! A list is three or more short items (at most four tokens each) separated by commas,
//! the last joined by `and`/`or` or by a comma; the first item is the last word before
//! the first comma, the last item the first content word after the joiner.

use super::super::lookup::LIST_JOINER;
use super::super::vocab::{Id, Vocab};
use super::super::words::{Tok, Token};

/// One item: its key words (the first is the one that must survive) and its bytes.
#[derive(Debug, Clone)]
pub struct Item {
    pub keys: Vec<Id>,
    pub start: usize,
    pub end: usize,
}

/// The longest an item may be, in tokens.
const SHORT: usize = 4;

fn key(t: &Token, vocab: &Vocab) -> Option<Id> {
    let w = t.id()?;
    super::instruct::is_key(vocab.info(w)).then(|| vocab.key(w))
}

fn item(toks: &[Token], vocab: &Vocab) -> Option<Item> {
    let keys: Vec<Id> = toks.iter().filter_map(|t| key(t, vocab)).collect();
    if keys.is_empty() {
        return None;
    }
    let first = toks.iter().find(|t| key(t, vocab).is_some())?;
    let last = toks.iter().rev().find(|t| t.id().is_some())?;
    Some(Item {
        keys,
        start: first.start,
        end: last.end,
    })
}

/// The items of the first list in a unit's tokens, or none.
pub fn items(toks: &[Token], vocab: &Vocab) -> Vec<Item> {
    if !toks.iter().any(|t| matches!(t.tok, Tok::Mark(','))) {
        return Vec::new();
    }
    // Segments between commas.
    let mut segments: Vec<&[Token]> = Vec::new();
    let mut from = 0;
    for (i, t) in toks.iter().enumerate() {
        if matches!(t.tok, Tok::Mark(',')) {
            segments.push(&toks[from..i]);
            from = i + 1;
        }
    }
    segments.push(&toks[from..]);
    if segments.len() < 2 {
        return Vec::new();
    }
    let short = |s: &[Token]| {
        !s.is_empty() && s.len() <= SHORT && s.iter().all(|t| !matches!(t.tok, Tok::Mark(_)))
    };
    let joiner = |s: &[Token]| {
        s.iter()
            .position(|t| t.id().is_some_and(|w| vocab.info(w).has(LIST_JOINER)))
    };
    let mut start = 0;
    while start + 1 < segments.len() {
        // The first item: the last content word before the comma.
        let head = segments[start];
        let Some(first) = head.iter().rposition(|t| key(t, vocab).is_some()) else {
            start += 1;
            continue;
        };
        let mut out: Vec<Item> = item(&head[first..first + 1], vocab).into_iter().collect();
        let mut k = start + 1;
        while k < segments.len() {
            let seg = segments[k];
            // An order (`…, use TypeScript and follow the style`) is a clause, not a list
            // item: no list here.
            if super::instruct::imperative_at(seg, 0, vocab) {
                out.clear();
                break;
            }
            // An Oxford comma leaves the joiner at the start of the last segment.
            match joiner(seg) {
                Some(j) if j <= SHORT => {
                    if j > 0 {
                        if !short(&seg[..j]) {
                            break;
                        }
                        out.extend(item(&seg[..j], vocab));
                    }
                    let rest = &seg[j + 1..];
                    if let Some(first_key) = rest.iter().position(|t| key(t, vocab).is_some()) {
                        let end = (first_key + 2).min(rest.len());
                        out.extend(item(&rest[first_key..end], vocab));
                    }
                    break;
                }
                _ if short(seg) => out.extend(item(seg, vocab)),
                _ => break,
            }
            k += 1;
        }
        if out.len() >= 3 {
            return out;
        }
        start += 1;
    }
    Vec::new()
}
