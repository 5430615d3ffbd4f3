//! Finding an item by the id a user typed, with a suggestion when it is not there.

use crate::brief::{Brief, Item};
use crate::error::{Error, Result};

impl Brief {
    /// The item `id`, or bad input naming the closest id (a typo is the usual cause).
    pub fn require_item(&self, id: &str) -> Result<&Item> {
        self.item(id).ok_or_else(|| {
            let ids: Vec<&str> = self.items.iter().map(|i| i.id.as_str()).collect();
            let err = Error::input(format!(
                "no item `{id}` in {}",
                self.manifest_path().display()
            ));
            match closest(id, &ids) {
                Some(near) => {
                    err.with_hint(format!("did you mean `{near}`? items: {}", ids.join(", ")))
                }
                None => err.with_hint(format!("items: {}", ids.join(", "))),
            }
        })
    }
}

/// The candidate nearest to `typed` by edit distance, when it is near enough to be a typo
/// (at most a third of the longer id, and never more than 3 edits).
pub fn closest<'a>(typed: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let typed_lower = typed.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&typed_lower, c), *c))
        .filter(|(d, c)| {
            *d > 0 && *d <= 3 && *d * 3 <= c.chars().count().max(typed.chars().count())
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
        .or_else(|| candidates.iter().find(|c| **c == typed_lower).copied())
}

/// Levenshtein distance; ids are at most 64 characters, so two rows suffice.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            row[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_suggests_the_nearest_id() {
        let ids = ["persona", "booking", "cancellations"];
        assert_eq!(closest("bookin", &ids), Some("booking"));
        assert_eq!(closest("cancelations", &ids), Some("cancellations"));
        assert_eq!(closest("Booking", &ids), Some("booking"));
        assert_eq!(closest("refunds", &ids), None);
    }
}
