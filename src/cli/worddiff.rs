//! Word-level differences between two bodies, for review screens.
//!
//! A proposal usually rewords inside lines, so a line diff would show whole paragraphs as
//! removed and added; a word diff shows what actually changed.

use similar::{Algorithm, DiffOp};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Same(String),
    Removed(String),
    Added(String),
}

/// The words of `old` and `new` as runs of same, removed and added text; in a changed
/// run the removed text comes first.
///
/// Whitespace is whitespace: a line break that became a space (a reflowed paragraph) is
/// not a change, and the new text's spacing is shown. The bodies are first matched block
/// by block (a paragraph, a list item), so a changed word is never aligned with a word of
/// another list item; changed blocks are then compared word by word, each with its
/// partner when as many blocks went as came.
pub fn words(old: &str, new: &str) -> Vec<Segment> {
    let (old_blocks, new_blocks) = (blocks(old), blocks(new));
    let key = |b: &&str| normalised(b);
    let old_keys: Vec<String> = old_blocks.iter().map(key).collect();
    let new_keys: Vec<String> = new_blocks.iter().map(key).collect();
    let mut segments: Vec<Segment> = Vec::new();
    let mut gone: Vec<&str> = Vec::new();
    let mut came: Vec<&str> = Vec::new();
    let ops = similar::capture_diff_slices(Algorithm::Patience, &old_keys, &new_keys);
    for op in ops {
        match op {
            DiffOp::Equal { new_index, len, .. } => {
                changed_blocks(&mut gone, &mut came, &mut segments);
                for block in &new_blocks[new_index..new_index + len] {
                    push(&mut segments, Segment::Same(block.to_string()));
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => gone.extend(&old_blocks[old_index..old_index + old_len]),
            DiffOp::Insert {
                new_index, new_len, ..
            } => came.extend(&new_blocks[new_index..new_index + new_len]),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                gone.extend(&old_blocks[old_index..old_index + old_len]);
                came.extend(&new_blocks[new_index..new_index + new_len]);
            }
        }
    }
    changed_blocks(&mut gone, &mut came, &mut segments);
    segments
}

/// Compares the blocks that went with those that came, pairwise when their numbers match.
fn changed_blocks<'a>(gone: &mut Vec<&'a str>, came: &mut Vec<&'a str>, out: &mut Vec<Segment>) {
    if gone.len() == came.len() {
        for (old, new) in gone.iter().zip(came.iter()) {
            word_level(old, new, out);
        }
    } else {
        word_level(&gone.concat(), &came.concat(), out);
    }
    gone.clear();
    came.clear();
}

/// Word by word, whitespace runs compared as one space.
fn word_level(old: &str, new: &str, out: &mut Vec<Segment>) {
    let (old_tokens, new_tokens) = (tokens(old), tokens(new));
    fn key<'t>(t: &&'t str) -> &'t str {
        if t.starts_with(char::is_whitespace) {
            " "
        } else {
            t
        }
    }
    let old_keys: Vec<&str> = old_tokens.iter().map(key).collect();
    let new_keys: Vec<&str> = new_tokens.iter().map(key).collect();
    for op in similar::capture_diff_slices(Algorithm::Patience, &old_keys, &new_keys) {
        let (_, old_range, new_range) = op.as_tag_tuple();
        match op {
            DiffOp::Equal { .. } => push(out, Segment::Same(new_tokens[new_range].concat())),
            _ => {
                push(out, Segment::Removed(old_tokens[old_range].concat()));
                push(out, Segment::Added(new_tokens[new_range].concat()));
            }
        }
    }
}

/// Appends `segment`, joined to the last one when they are of a kind; empty text is dropped.
fn push(out: &mut Vec<Segment>, segment: Segment) {
    match (out.last_mut(), &segment) {
        (_, Segment::Same(t) | Segment::Removed(t) | Segment::Added(t)) if t.is_empty() => {}
        (Some(Segment::Same(last)), Segment::Same(t))
        | (Some(Segment::Removed(last)), Segment::Removed(t))
        | (Some(Segment::Added(last)), Segment::Added(t)) => last.push_str(t),
        _ => out.push(segment),
    }
}

/// The text cut before each list item and after each blank line: paragraphs and list items,
/// each with the line ends that follow it (the blocks joined are the text).
fn blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut after_blank = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        let starts_block = !blank && (after_blank || is_list_item(line));
        if offset > start && starts_block {
            out.push(&text[start..offset]);
            start = offset;
        }
        after_blank = blank;
        offset += line.len();
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `- x`, `* x`, `+ x`, `1. x`, `1) x`, indented or not.
fn is_list_item(line: &str) -> bool {
    let line = line.trim_start();
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &line[digits..];
    if digits > 0 {
        return rest.starts_with(". ") || rest.starts_with(") ");
    }
    ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m))
}

/// A block's words with each whitespace run as one space, and none at its ends.
fn normalised(block: &str) -> String {
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs of whitespace, runs of letters and digits, and every other character alone.
fn tokens(text: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_whitespace() {
            0
        } else if c.is_alphanumeric() || c == '_' {
            1
        } else {
            2
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut previous: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if previous.is_some_and(|p| p != k || k == 2) {
            out.push(&text[start..i]);
            start = i;
        }
        previous = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
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

    #[test]
    fn a_reflowed_paragraph_is_no_change_and_shows_the_new_spacing() {
        let old = "Answer in plain words\nand keep it short.\n";
        let new = "Answer in plain words and keep it short.\n";
        let segments = words(old, new);
        assert!(!changed(&segments), "{segments:?}");
        let reworded = words(old, "Answer in simple words and keep it short.\n");
        assert_eq!(
            reworded,
            vec![
                Segment::Same("Answer in ".into()),
                Segment::Removed("plain".into()),
                Segment::Added("simple".into()),
                Segment::Same(" words and keep it short.\n".into()),
            ]
        );
    }

    #[test]
    fn a_change_stays_inside_its_list_item() {
        let old = "- refunds within 30 days\n- exchanges within 60 days\n- no cash\n";
        let new = "- refunds: 30 days\n- exchanges within 60 days\n- no cash back\n";
        let segments = words(old, new);
        let new_again: String = segments
            .iter()
            .filter_map(|s| match s {
                Segment::Same(t) | Segment::Added(t) => Some(t.as_str()),
                Segment::Removed(_) => None,
            })
            .collect();
        assert_eq!(new_again, new);
        // The untouched item is shown as it was, inside one unchanged stretch.
        assert!(
            segments.iter().any(
                |s| matches!(s, Segment::Same(t) if t.contains("\n- exchanges within 60 days\n"))
            ),
            "{segments:?}"
        );
        // Every change lies within one item: no removed or added text spans a line break.
        for s in &segments {
            if let Segment::Removed(t) | Segment::Added(t) = s {
                assert!(!t.trim_end().contains('\n'), "{segments:?}");
            }
        }
    }
}
