//! Compact summaries of prose, without a model: whitespace compaction, and for bulky notes
//! the lead sentence of each paragraph within a byte budget.
//!
//! Learnings and note summaries only inform the next wake, so exact wording is not needed
//! there; what the summary leaves out stays one `brief ccr get` away.

/// Collapses runs of spaces and tabs to one space, trims each line, empties blank-only
/// lines and keeps at most one blank line in a row, without leading or trailing blanks.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_pending = false;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            blank_pending = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank_pending {
                out.push('\n');
            }
        }
        blank_pending = false;
        out.push_str(&words.join(" "));
    }
    out
}

/// Whitespace-separated words.
pub fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The lead sentence of each paragraph of (compacted) `text`, in order, one per line, while
/// they fit in `budget` bytes; a first lead longer than the budget is cut at a word
/// boundary with `…`; a lead already taken is not repeated. Returns the summary, never longer than the text.
pub fn lead_summary(text: &str, budget: usize) -> String {
    let mut out = String::new();
    for paragraph in text.split("\n\n") {
        let paragraph = paragraph.trim();
        if paragraph.is_empty() {
            continue;
        }
        let lead = first_sentence(paragraph);
        // A lead already taken says nothing new (notes often repeat a paragraph).
        if out.split('\n').any(|taken| taken == lead) {
            continue;
        }
        let needed = lead.len() + usize::from(!out.is_empty());
        if out.len() + needed <= budget {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(lead);
        } else {
            if out.is_empty() {
                out.push_str(&cut_at_word(lead, budget));
            }
            break;
        }
    }
    out
}

/// The text up to and including the first `.`, `!` or `?` followed by whitespace (or a
/// line break), or the whole paragraph.
fn first_sentence(paragraph: &str) -> &str {
    let bytes = paragraph.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        let ends = matches!(b, b'.' | b'!' | b'?')
            && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
        // "e.g. " and "v1.2" are not sentence ends worth stopping at this early.
        if ends && i >= 24 {
            return &paragraph[..=i];
        }
        if *b == b'\n' && i >= 24 {
            return &paragraph[..i];
        }
    }
    paragraph
}

fn cut_at_word(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    let mut cut = budget.saturating_sub(3);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &text[..cut];
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > 0 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_collapses_whitespace_and_blank_runs() {
        assert_eq!(compact("  a   b\t c  \n\n\n\n d \n"), "a b c\n\nd");
        assert_eq!(compact("\n\n x"), "x");
        assert_eq!(compact(""), "");
    }

    #[test]
    fn the_summary_takes_paragraph_leads_within_the_budget() {
        let text = "The cache missed on every wake since Tuesday. It was the timestamp.\n\nWe moved the date to the volatile tail of the prompt. Hits are back.\n\nA third paragraph that will not fit in the budget at all. Really.";
        let summary = lead_summary(text, 110);
        assert_eq!(
            summary,
            "The cache missed on every wake since Tuesday.\nWe moved the date to the volatile tail of the prompt."
        );
        let one = lead_summary("word ".repeat(100).trim(), 40);
        assert!(one.len() <= 40 && one.ends_with('…'), "{one}");
    }
}
