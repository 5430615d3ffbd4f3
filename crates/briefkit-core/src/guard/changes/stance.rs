//! How a sentence is put rather than what it says: a list intro or context (no rule of its
//! own), a heading, and a rule the rewrite turned into a statement (`Implement as an enum`
//! → `Implemented as an enum`).

use super::super::lexicon::{ENGLISH, data};
use super::super::reading::Reading;
use super::ChangeKind;

/// Whether sentence `s` introduces what follows (`Merge:`, a list intro) or is context
/// (`Here's a recommended pattern`): no rule of its own to weaken.
pub(super) fn intro_or_context(r: &Reading, s: usize) -> bool {
    let (start, end) = (r.sentences[s].start, r.sentences[s].end);
    let text = r.text[start..end].trim_end_matches(['*', '_', ' ']);
    text.ends_with(':')
        || r.text[end..]
            .trim_start_matches(['*', '_'])
            .starts_with(':')
        || data::context_role(text.trim_start_matches(['*', '_', '-', ' '])).is_some()
}

/// Whether sentence `q` is a heading (its line starts with `#`).
pub(super) fn heading(r: &Reading, q: usize) -> bool {
    let start = r.sentences[q].start;
    let line = r.text[..start].rfind('\n').map_or(0, |n| n + 1);
    r.text[line..].trim_start().starts_with('#')
}

/// A rule of original sentence `text` that its counterpart `q` no longer gives as one: its imperative verb now in
/// the past (`Implement` → `Implemented`: done, not to do).
pub(super) fn turned(text: &str, p: &Reading, q: usize) -> Option<(ChangeKind, String)> {
    let first = |t: &str| -> String {
        t.split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .unwrap_or("")
            .to_string()
    };
    let (start, end) = (p.sentences[q].start, p.sentences[q].end);
    let verb = first(text).to_lowercase();
    let theirs = first(&p.text[start..end]);
    let past = |v: &str| [format!("{v}ed"), format!("{v}d")].contains(&theirs.to_lowercase());
    if ENGLISH
        .instructions
        .imperative_verbs
        .contains(&verb.as_str())
        && past(&verb)
    {
        return Some((
            ChangeKind::Strength,
            format!(
                "`{}` became `{theirs}`: an instruction became a statement",
                first(text)
            ),
        ));
    }
    None
}
