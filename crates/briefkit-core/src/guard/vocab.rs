//! The words of one check, interned: every distinct lowercased word of both texts (and
//! every value key and stem) gets a small id, read once against the language's table.
//!
//! The second layer looks at each word many times (is it a stop word, a bound, a
//! negation; its stem; which sentences share it). Doing that per token with strings cost
//! an allocation and several hash lookups each; with ids it is one hash lookup per token,
//! the rest is indexing, and a word is only lowercased when it has capitals.

use std::borrow::Cow;

use super::hash::FxMap;
use super::lookup::{Info, Lookup};

pub type Id = u32;

#[derive(Default)]
pub struct Vocab<'t> {
    ids: FxMap<Cow<'t, str>, Id>,
    words: Vec<Cow<'t, str>>,
    info: Vec<Info>,
    stems: Vec<Id>,
    /// The word without a negative prefix (`unresolved` → `resolved`), or itself.
    unprefixed: Vec<Id>,
    /// The first word of the word's synonym group (`brief` → `concise`), if it has one.
    synonym: Vec<Option<Id>>,
    /// For a verb with a particle: the particle and the word they mean (`send` → `back`,
    /// `return`).
    phrasal: Vec<Option<(Id, Id)>>,
    /// The word's Snowball stem (`discussion`, `discussing` → `discuss`): what the third
    /// layer compares words as.
    snowball: Vec<Id>,
    /// Entries up to here have their info and stem.
    done: usize,
}

impl<'t> Vocab<'t> {
    /// The id of `word`, already lowercased.
    pub fn intern(&mut self, word: Cow<'t, str>) -> Id {
        if let Some(&id) = self.ids.get(word.as_ref()) {
            return id;
        }
        let id = self.words.len() as Id;
        self.words.push(word.clone());
        self.ids.insert(word, id);
        id
    }

    /// The id of a word of a text, lowercasing (and turning `’` into `'`) only when needed.
    pub fn intern_raw(&mut self, raw: &'t str) -> Id {
        let plain = raw
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'\'');
        if plain {
            self.intern(Cow::Borrowed(raw))
        } else {
            self.intern(Cow::Owned(raw.to_lowercase().replace('’', "'")))
        }
    }

    /// The id of a string built for the check (a value key), without copying it when it
    /// is already known.
    pub fn intern_str(&mut self, s: &str) -> Id {
        match self.ids.get(s) {
            Some(&id) => id,
            None => self.intern(Cow::Owned(s.to_string())),
        }
    }

    /// The id of a word already interned (lowercased), if it is.
    pub fn find(&self, word: &str) -> Option<Id> {
        self.ids.get(word).copied()
    }

    pub fn word(&self, id: Id) -> &str {
        &self.words[id as usize]
    }

    /// How often each word of `ids` occurs (for language detection).
    pub fn counts(&self, ids: impl Iterator<Item = Id>) -> Vec<(&str, usize)> {
        let mut n = vec![0usize; self.words.len()];
        for id in ids {
            n[id as usize] += 1;
        }
        n.iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(id, &n)| (self.word(id as Id), n))
            .collect()
    }

    /// Reads every entry not yet read against `lang` (no table: only [`Info::default`])
    /// and stems it; stems become entries of their own. Call again after interning more.
    pub fn finish(&mut self, lang: Option<&Lookup>) {
        while self.done < self.words.len() {
            let id = self.done;
            let info = lang.map_or_else(Info::default, |lk| lk.info(&self.words[id]));
            self.info.push(info);
            let stem = match stem(&self.words[id]) {
                Stem::Same => id as Id,
                Stem::Cut(len) => match &self.words[id] {
                    Cow::Borrowed(w) => self.intern(Cow::Borrowed(&w[..len])),
                    Cow::Owned(w) => {
                        let cut = w[..len].to_string();
                        self.intern(Cow::Owned(cut))
                    }
                },
                Stem::Y(len) => {
                    let with = format!("{}y", &self.words[id][..len]);
                    self.intern_str(&with)
                }
            };
            self.stems.push(stem);
            let bare = lang.and_then(|lk| {
                let w = &self.words[id];
                let p = lk.negative_prefixes.iter().find(|p| {
                    w.len() >= p.len() + 4
                        && w.starts_with(**p)
                        && w[p.len()..].bytes().all(|b| b.is_ascii_lowercase())
                })?;
                let rest = w[p.len()..].to_string();
                Some(self.intern_str(&rest))
            });
            self.unprefixed.push(bare.unwrap_or(id as Id));
            let synonym = lang.and_then(|lk| {
                let word: &str = &self.words[id];
                let stem_word: &str = &self.words[stem as usize];
                if let Some(group) = lk.synonyms.get(word).or_else(|| lk.synonyms.get(stem_word)) {
                    return Some(self.intern(Cow::Borrowed(group)));
                }
                // A unit word compares as what it measures (`MB` = `megabytes`).
                if word.bytes().all(|b| b.is_ascii_alphabetic())
                    && let Some((dimension, magnitude)) = super::units::unit_word(word)
                {
                    return Some(self.intern_str(&format!("unit:{dimension}:{magnitude}")));
                }
                self.derived_from(id)
            });
            self.synonym.push(synonym);
            let phrasal = lang.and_then(|lk| {
                let &(particle, means) = lk.phrasal.get(&*self.words[id])?;
                Some((
                    self.intern(Cow::Borrowed(particle)),
                    self.intern(Cow::Borrowed(means)),
                ))
            });
            self.phrasal.push(phrasal);
            let snowball = if lang.is_some() {
                self.snowball_of(id)
            } else {
                id as Id
            };
            self.snowball.push(snowball);
            self.done += 1;
        }
    }

    /// The Snowball stem of a word of letters (a value key, code or a number stays itself).
    fn snowball_of(&mut self, id: usize) -> Id {
        static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
        let w: &str = &self.words[id];
        if w.len() <= 3 || !w.chars().all(char::is_alphabetic) {
            return id as Id;
        }
        let stemmer = STEMMER
            .get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
        let stemmed = match stemmer.stem(w) {
            Cow::Owned(s) if s != w => Some(s),
            _ => None,
        };
        match stemmed {
            Some(s) => self.intern_str(&s),
            None => id as Id,
        }
    }

    /// The word a derived form comes from, when the check's texts use that word too
    /// (`forceful` → `force`, `politely` → `polite`, `kindness` → `kind`): looked up,
    /// never guessed, so `early` does not become `ear` unless `ear` is there.
    fn derived_from(&self, id: usize) -> Option<Id> {
        let w: &str = &self.words[id];
        for suffix in ["fully", "ful", "ness", "ly"] {
            if let Some(base) = w.strip_suffix(suffix)
                && base.len() >= 3
                && let Some(&found) = self.ids.get(base)
            {
                return Some(found);
            }
        }
        None
    }

    pub fn info(&self, id: Id) -> Info {
        self.info.get(id as usize).copied().unwrap_or_default()
    }

    /// The stem of the word without its negative prefix, if it has one.
    pub fn unprefixed_stem(&self, id: Id) -> Option<Id> {
        let bare = self.unprefixed.get(id as usize).copied()?;
        (bare != id).then(|| self.stem(bare))
    }

    pub fn stem(&self, id: Id) -> Id {
        self.stems.get(id as usize).copied().unwrap_or(id)
    }

    /// The particle of a phrasal verb and the word the two mean (`send … back` = `return`).
    pub fn phrasal(&self, id: Id) -> Option<(Id, Id)> {
        self.phrasal.get(id as usize).copied().flatten()
    }

    /// What the third layer compares a word as: the Snowball stem of its synonym group's
    /// first word (`briefer` = `concise`), else its own (`discussing` = `discussion`).
    pub fn key(&self, id: Id) -> Id {
        let word = self
            .synonym
            .get(id as usize)
            .copied()
            .flatten()
            .unwrap_or(id);
        self.snowball.get(word as usize).copied().unwrap_or(word)
    }
}

/// How a word's stem is made from it.
enum Stem {
    Same,
    /// The first `n` bytes.
    Cut(usize),
    /// The first `n` bytes and `y`.
    Y(usize),
}

/// A crude English stem, only ever compared with another stem: `refunds` = `refund`,
/// `verified` = `verify` = `verifies`, `shared` = `share` = `sharing`.
fn stem(w: &str) -> Stem {
    if w.chars().count() <= 3 {
        return Stem::Same;
    }
    for suffix in ["ies", "ied", "ying"] {
        if w.ends_with(suffix) {
            return Stem::Y(w.len() - suffix.len());
        }
    }
    for suffix in ["ing", "ed", "es", "s", "e"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            return Stem::Cut(base.trim_end_matches('e').len());
        }
    }
    Stem::Same
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stemmed(w: &'static str) -> String {
        let mut v = Vocab::default();
        let id = v.intern(Cow::Borrowed(w));
        v.finish(None);
        v.word(v.stem(id)).to_string()
    }

    #[test]
    fn stems_agree_across_inflections() {
        assert_eq!(stemmed("verified"), stemmed("verify"));
        assert_eq!(stemmed("verifies"), stemmed("verify"));
        assert_eq!(stemmed("shared"), stemmed("share"));
        assert_eq!(stemmed("sharing"), stemmed("share"));
        assert_eq!(stemmed("refunds"), stemmed("refund"));
        assert_eq!(stemmed("bags"), stemmed("bag"));
        assert_eq!(stemmed("class"), "class");
    }

    #[test]
    fn a_word_with_capitals_is_lowercased_once_and_shares_the_id() {
        let mut v = Vocab::default();
        let a = v.intern_raw("Refund");
        let b = v.intern_raw("refund");
        let c = v.intern_raw("REFUND");
        assert_eq!((a, b), (b, c));
        assert_eq!(v.word(a), "refund");
    }
}
