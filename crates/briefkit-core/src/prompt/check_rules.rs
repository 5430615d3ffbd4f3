//! The lock's half of `brief check`: every rule item byte for byte as locked, no rule
//! missing from the lock, no locked rule gone, and a lock whose kept texts match their
//! hashes.

use crate::brief::{Brief, ItemType, Lock};
use crate::prompt::check::{Finding, Level, finding};
use crate::wire::canonical::sha256_hex;

pub(super) fn check_rules(brief: &Brief, lock: &Lock, findings: &mut Vec<Finding>) {
    for (id, locked) in &lock.rules {
        if sha256_hex(locked.text.as_bytes()) != locked.sha256 {
            let mut f = finding(
                Level::Error,
                "lock-inconsistent",
                brief.lock_path(),
                format!(
                    "brief.lock is inconsistent: the text kept for rule `{id}` does not match its sha256; it was edited by hand. Review the rule, then run `brief lock`"
                ),
            );
            f.item = Some(id.clone());
            findings.push(f);
        }
    }
    for item in brief.items.iter().filter(|i| i.kind == ItemType::Rule) {
        match lock.rules.get(&item.id) {
            None => {
                let mut f = finding(
                    Level::Error,
                    "rule-not-locked",
                    item.path.clone(),
                    format!(
                        "rule `{}` is not in brief.lock; review it, then run `brief lock`",
                        item.id
                    ),
                );
                f.item = Some(item.id.clone());
                findings.push(f);
            }
            Some(locked) if locked.sha256 != sha256_hex(item.raw.as_bytes()) => {
                let diff = similar::TextDiff::from_lines(&locked.text, &item.raw)
                    .unified_diff()
                    .context_radius(2)
                    .header("locked", "current")
                    .to_string();
                let first_change = first_changed_line(&locked.text, &item.raw)
                    .min(item.raw.lines().count().max(1));
                let only_line_endings =
                    locked.text.replace("\r\n", "\n") == item.raw.replace("\r\n", "\n");
                let mut f = finding(
                    Level::Error,
                    "rule-changed",
                    item.path.clone(),
                    format!(
                        "rule `{}` differs from brief.lock{}: rules change only by review; if this change is intended, run `brief lock`",
                        item.id,
                        if only_line_endings {
                            " (only its line endings changed: CRLF vs LF)"
                        } else {
                            ""
                        }
                    ),
                );
                f.item = Some(item.id.clone());
                f.line = first_change;
                f.diff = Some(diff);
                findings.push(f);
            }
            Some(_) => {}
        }
    }
    let by_id: std::collections::HashMap<&str, &crate::brief::Item> = brief
        .items
        .iter()
        .map(|item| (item.id.as_str(), item))
        .collect();
    for id in lock.rules.keys() {
        let item = by_id.get(id.as_str());
        let still_rule = item.is_some_and(|i| i.kind == ItemType::Rule);
        if !still_rule {
            let what = if item.is_some() {
                "is no longer a rule"
            } else {
                "is gone"
            };
            let mut f = finding(
                Level::Error,
                "rule-removed",
                brief.lock_path(),
                format!(
                    "brief.lock names rule `{id}`, which {what}; if intended, run `brief lock`"
                ),
            );
            f.item = Some(id.clone());
            findings.push(f);
        }
    }
}

/// 1-based line of the first line that differs.
fn first_changed_line(old: &str, new: &str) -> usize {
    let mut old_lines = old.split_inclusive('\n');
    let mut line = 1;
    for new_line in new.split_inclusive('\n') {
        if old_lines.next() != Some(new_line) {
            return line;
        }
        line += 1;
    }
    line
}
