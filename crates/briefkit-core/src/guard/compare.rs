//! `brief guard` and the MCP `guard` tool as one operation: two texts in, one report out.
//! A text that is an item file (front matter, then a body) is compared as `review` and
//! `accept` compare an item: its body against the proposal's body, a conversation sample
//! message by message, with lines counted in the files.

use std::path::Path;

use super::{Report, check, check_item};
use crate::error::Result;

/// Compares `original` with `proposal`; the paths name the texts (an item file's id is
/// its file stem) and are not read. A conversation sample whose proposal lost a message
/// or a role is an input error.
pub fn compare(
    original_path: &Path,
    original: &str,
    proposal_path: &Path,
    proposal: &str,
) -> Result<Report> {
    let Some(item) = item_file(original_path, original) else {
        return Ok(check(original, proposal));
    };
    let proposed = item_file(proposal_path, proposal);
    let body = proposed
        .as_ref()
        .map_or(proposal, |p| &proposal[proposal.len() - p.body().len()..]);
    // Findings in the original come located in its file; the proposal's are moved here.
    let mut report = check_item(&item, body)?;
    shift(&mut report, 0, proposed.map_or(0, |p| p.body_line - 1));
    Ok(report)
}

/// Places the findings in `item`'s body (its dropped facts, changes and dropped
/// instructions) at their line in the item file, front matter counted, and names the
/// file: the one position every surface (`guard`, `compress`, `review`, `accept`, MCP)
/// shows. Findings inside a sample message keep their lines within the message, which
/// they name. The body starts a line of the file, so columns stay as they are.
pub fn locate_in_item(report: &mut Report, item: &crate::brief::Item) {
    shift(report, item.body_line - 1, 0);
    for fact in report.dropped.iter_mut().filter(|f| f.in_message.is_none()) {
        fact.file = Some(item.path.clone());
    }
    for change in report.changed.iter_mut().filter(|c| c.in_message.is_none()) {
        change.file = Some(item.path.clone());
    }
    for d in report
        .dropped_instructions
        .iter_mut()
        .filter(|d| d.in_message.is_none())
    {
        d.file = Some(item.path.clone());
    }
}

/// Moves the lines of a report on an item's body to the lines of its file: findings in
/// the original by `original`, in the proposal by `proposal` (findings inside a sample
/// message keep their lines within the message, which they name).
pub fn shift(report: &mut Report, original: usize, proposal: usize) {
    for fact in report.dropped.iter_mut().filter(|f| f.in_message.is_none()) {
        fact.line += original;
    }
    for fact in report
        .introduced
        .iter_mut()
        .filter(|f| f.in_message.is_none())
    {
        fact.line += proposal;
    }
    for change in report.changed.iter_mut().filter(|c| c.in_message.is_none()) {
        change.line += original;
        change.proposal_line += proposal;
    }
    for d in report
        .dropped_instructions
        .iter_mut()
        .filter(|d| d.in_message.is_none())
    {
        d.line += original;
    }
}

/// The text as an item file (front matter and body), when it is one.
fn item_file(path: &Path, text: &str) -> Option<crate::brief::Item> {
    if !text.starts_with("---") {
        return None;
    }
    let id = path
        .file_stem()
        .map_or("sample".into(), |s| s.to_string_lossy());
    let mut problems = Vec::new();
    crate::brief::parse_markdown(&id, path, text.to_string(), &mut problems)
}
