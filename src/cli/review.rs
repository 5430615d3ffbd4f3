//! Shared screens of the review commands (compress, proposals, accept, diff): a coloured
//! word diff and guard findings. Not a subcommand.

use std::path::Path;

use crate::brief::Item;
use crate::error::Result;
use crate::guard;

use crate::cli::output::Report;
use crate::cli::ui::{Tone, Ui};
use crate::cli::worddiff::{Segment, words};
use crate::store::change::{ChangeReport, Money, Relock};
use crate::store::proposals::Proposal;

/// Unchanged lines kept around a change; longer unchanged stretches are folded.
const CONTEXT: usize = 1;

/// A word diff for stdout: `[-removed-]` and `{+added+}` (also coloured when colour is
/// on, so the markers survive copy and paste), with long unchanged stretches folded.
pub fn word_diff(ui: &Ui, old: &str, new: &str) -> String {
    let mut lines: Vec<(String, bool)> = vec![(String::new(), false)];
    let mut emit = |text: &str, tone: Option<Tone>| {
        let (open, close) = match tone {
            Some(Tone::Removed) => ("[-", "-]"),
            Some(_) => ("{+", "+}"),
            None => ("", ""),
        };
        let marked = format!("{open}{text}{close}");
        for (i, piece) in marked.split('\n').enumerate() {
            if i > 0 {
                lines.push((String::new(), false));
            }
            let line = lines.last_mut().expect("never empty");
            match tone {
                Some(tone) => {
                    line.1 = true;
                    if !piece.is_empty() {
                        line.0.push_str(&ui.paint(piece, tone));
                    }
                }
                None => line.0.push_str(piece),
            }
        }
    };
    for segment in words(old, new) {
        match segment {
            Segment::Same(text) => emit(&text, None),
            Segment::Removed(text) => emit(&text, Some(Tone::Removed)),
            Segment::Added(text) => emit(&text, Some(Tone::Added)),
        }
    }
    if lines
        .last()
        .is_some_and(|(text, changed)| text.is_empty() && !changed)
    {
        lines.pop();
    }
    let mut keep: Vec<bool> = (0..lines.len())
        .map(|i| {
            let from = i.saturating_sub(CONTEXT);
            let to = (i + CONTEXT).min(lines.len() - 1);
            lines[from..=to].iter().any(|(_, changed)| *changed)
        })
        .collect();
    // Folding fewer than three lines hides more than it saves.
    let mut start = 0;
    while start < keep.len() {
        let end = (start..keep.len())
            .find(|&i| keep[i] != keep[start])
            .unwrap_or(keep.len());
        if !keep[start] && end - start < 3 {
            keep[start..end].fill(true);
        }
        start = end;
    }
    let mut out = String::new();
    let mut folded = 0;
    for (i, (text, _)) in lines.iter().enumerate() {
        if keep[i] {
            if folded > 0 {
                out.push_str(&fold(ui, folded));
                folded = 0;
            }
            out.push_str(text);
            out.push('\n');
        } else {
            folded += 1;
        }
    }
    if folded > 0 {
        out.push_str(&fold(ui, folded));
    }
    out
}

/// The review screen's diff: [`word_diff`] of the two bodies with whitespace at line ends
/// left out (trailing spaces and tabs, runs of blank lines as one), so the words that
/// changed stand out; a closing note counts the lines that differed only there.
pub fn review_diff(ui: &Ui, old: &str, new: &str) -> String {
    let (old_lines, old_collapsed) = line_ends_trimmed(old);
    let (new_lines, new_collapsed) = line_ends_trimmed(new);
    let (old_text, new_text) = (joined(&old_lines), joined(&new_lines));
    let raw_old: Vec<&str> = old.split('\n').collect();
    let raw_new: Vec<&str> = new.split('\n').collect();
    // Lines the trimmed texts share but the bodies wrote with other trailing whitespace.
    let mut hidden = old_collapsed.abs_diff(new_collapsed);
    let diff = similar::TextDiff::from_lines(&old_text, &new_text);
    for op in diff.ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            hidden += (0..len)
                .filter(|k| {
                    let a = old_lines.get(old_index + k).map_or(0, |l| l.raw);
                    let b = new_lines.get(new_index + k).map_or(0, |l| l.raw);
                    raw_old.get(a) != raw_new.get(b)
                })
                .count();
        }
    }
    let mut out = word_diff(ui, &old_text, &new_text);
    if hidden > 0 {
        let note = if hidden == 1 {
            "(1 line differs only in whitespace at the line end; not shown)".to_string()
        } else {
            format!("({hidden} lines differ only in whitespace at the line end; not shown)")
        };
        out.push_str(&ui.paint(&note, Tone::Dim));
        out.push('\n');
    }
    out
}

/// One line of a body with its trailing whitespace removed, and its index in the body.
struct Trimmed<'a> {
    text: &'a str,
    raw: usize,
}

/// The lines of `text` without trailing spaces, tabs or carriage returns, a run of blank
/// lines kept as one (the text's last line, empty after a final newline, always kept);
/// and how many blank lines were left out.
fn line_ends_trimmed(text: &str) -> (Vec<Trimmed<'_>>, usize) {
    let raw: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<Trimmed> = Vec::with_capacity(raw.len());
    let mut collapsed = 0;
    for (i, line) in raw.iter().enumerate() {
        let text = line.trim_end_matches([' ', '\t', '\r']);
        if text.is_empty() && i + 1 < raw.len() && out.last().is_some_and(|l| l.text.is_empty()) {
            collapsed += 1;
            continue;
        }
        out.push(Trimmed { text, raw: i });
    }
    (out, collapsed)
}

fn joined(lines: &[Trimmed]) -> String {
    lines.iter().map(|l| l.text).collect::<Vec<_>>().join("\n")
}

fn fold(ui: &Ui, lines: usize) -> String {
    let text = format!(
        "⋮ {lines} unchanged line{}",
        if lines == 1 { "" } else { "s" }
    );
    format!("{}\n", ui.paint(&text, Tone::Dim))
}

/// `42 → 30 tokens (−28.6%)`
pub fn token_change(before: usize, after: usize) -> String {
    crate::compress::token_change(before, after)
}

/// The review screen on stdout: tokens before → after, guard findings, the word diff.
pub fn show_proposal(ui: &Ui, item: &Item, proposal: &Proposal, summary: &str) -> Result<()> {
    ui.outln(&ui.paint(
        &format!("proposal {} for `{}`", proposal.id, item.id),
        Tone::Strong,
    ))?;
    ui.outln(&token_change(proposal.tokens_before, proposal.tokens_after))?;
    ui.outln("")?;
    ui.out(&render_guard(ui, item, &proposal.guard))?;
    ui.outln("")?;
    ui.out(&review_diff(ui, item.body(), &proposal.body))?;
    ui.outln("")?;
    ui.info(summary);
    Ok(())
}

/// The guard's report with dropped facts and changes placed at their line in the item
/// file (changes after drops).
pub fn render_guard(ui: &Ui, item: &Item, report: &guard::Report) -> String {
    // The guard placed the findings in the item file already (`check_item`).
    let original = item.path.display().to_string();
    crate::cli::commands::guard::render(report, &original, "proposal", ui)
}

/// The exact commands that act on a proposal later, ready to paste; a flagged proposal's
/// accept carries `--allow-flags`, since without it `brief accept` refuses.
pub fn print_commands(ui: &Ui, brief: &Path, id: &str, flagged: bool) -> Result<()> {
    let dir = crate::cli::ui::shell_quote(&brief.display().to_string());
    let allow = if flagged { " --allow-flags" } else { "" };
    ui.outln(&format!("proposal: {id}"))?;
    ui.outln(&format!("review:   brief review {dir} {id}"))?;
    ui.outln(&format!("accept:   brief accept {dir} {id}{allow}"))?;
    ui.outln(&format!("discard:  brief discard {dir} {id}"))
}

/// The report of every body-changing command (`accept`, `record`, `restore`): its summary.
impl Report for ChangeReport {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.info(&self.summary);
        if let Some(relock) = &self.relock {
            ui.info(&relock_line(relock));
        }
        Ok(())
    }
}

/// `next: brief lock BRIEF (the cached prefix moved: 1,234 tokens written to the provider's
/// cache again on the next call, 0.0046 USD)`.
pub fn relock_line(relock: &Relock) -> String {
    let mut why = Vec::new();
    match (relock.prefix_changed, relock.tokens_rewritten) {
        (true, Some(tokens)) => why.push(format!(
            "the cached prefix moved: {} written to the provider's cache again on the next call",
            crate::numbers::count(tokens as u64, "token", "tokens")
        )),
        (true, None) => why.push("the cached prefix moved".to_string()),
        (false, _) => why.push("brief.lock no longer matches the brief".to_string()),
    }
    if let Some(cost) = &relock.cache_write_cost {
        why.push(money(cost));
    }
    format!("next: {} ({})", relock.next, why.join(", "))
}

/// An amount with its currency: cents for a cent or more, else four decimals.
pub fn money(money: &Money) -> String {
    if money.amount >= 0.01 || money.amount == 0.0 {
        format!("{:.2} {}", money.amount, money.currency)
    } else {
        format!("{:.4} {}", money.amount, money.currency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_at_line_ends_is_left_out_of_the_review_diff_and_counted() {
        let ui = Ui::plain();
        let old = "Keep answers short.   \nUse plain language.\n\n\n\nQuote prices.\n";
        let new = "Keep answers short.\nUse simple language.\n\nQuote prices.\n";
        let diff = review_diff(&ui, old, new);
        assert!(diff.contains("[-plain-]{+simple+}"), "{diff}");
        assert!(!diff.contains("[-   -]"), "{diff}");
        assert!(
            diff.contains("(3 lines differ only in whitespace at the line end; not shown)"),
            "{diff}"
        );
        let same = review_diff(&ui, "a  \nb\n", "a\nb\n");
        assert!(same.contains("(1 line differs only"), "{same}");
        assert!(!same.contains("[-"), "{same}");
    }
}
