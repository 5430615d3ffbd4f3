//! Word-level differences between two bodies, for review screens.
//!
//! A proposal usually rewords inside lines, so a line diff would show whole paragraphs as
//! removed and added; a word diff shows what actually changed.

use similar::{Algorithm, ChangeTag};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Same(String),
    Removed(String),
    Added(String),
}

/// The words of `old` and `new` as runs of same, removed and added text; in a changed
/// run the removed text comes first.
pub fn words(old: &str, new: &str) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    for (tag, text) in similar::utils::diff_unicode_words(Algorithm::Patience, old, new) {
        match (segments.last_mut(), tag) {
            (Some(Segment::Same(last)), ChangeTag::Equal)
            | (Some(Segment::Removed(last)), ChangeTag::Delete)
            | (Some(Segment::Added(last)), ChangeTag::Insert) => last.push_str(text),
            _ if text.is_empty() => {}
            _ => segments.push(match tag {
                ChangeTag::Equal => Segment::Same(text.to_string()),
                ChangeTag::Delete => Segment::Removed(text.to_string()),
                ChangeTag::Insert => Segment::Added(text.to_string()),
            }),
        }
    }
    segments
}

/// Whether anything changed.
pub fn changed(segments: &[Segment]) -> bool {
    segments.iter().any(|s| !matches!(s, Segment::Same(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rebuild(segments: &[Segment], keep: fn(&Segment) -> Option<&str>) -> String {
        segments.iter().filter_map(keep).collect()
    }

    #[test]
    fn a_reworded_sentence_shows_only_the_changed_words() {
        let old = "A first visit takes 45 minutes and costs €80.\n";
        let new = "A first visit: 45 minutes, €80.\n";
        let segments = words(old, new);
        assert!(changed(&segments));
        let old_again = rebuild(&segments, |s| match s {
            Segment::Same(t) | Segment::Removed(t) => Some(t.as_str()),
            Segment::Added(_) => None,
        });
        let new_again = rebuild(&segments, |s| match s {
            Segment::Same(t) | Segment::Added(t) => Some(t.as_str()),
            Segment::Removed(_) => None,
        });
        assert_eq!((old_again.as_str(), new_again.as_str()), (old, new));
        assert!(segments.contains(&Segment::Same("A first visit".to_string())));
        assert!(!changed(&words(old, old)));
    }
}
