//! What `brief check` holds a brief to, as data: rules byte-for-byte equal to the lock, no
//! placeholder or volatile-looking content in the cacheable prefix, the token budget, and
//! whether the prefix (and with it the provider's cache) changed since the lock.
//!
//! It composes the brief, so it lives here, above the brief's format, loader and lock
//! (`crate::brief`), which never depend on composition.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::brief::{Brief, ItemType, LineIndex, Lock, Problem, Tier};
use crate::error::{Error, Result};
use crate::prompt::compose::{ComposeOptions, prefix};
use crate::prompt::measure::{over_budget, prefix_tokens};
use crate::text::volatile;
use crate::wire::canonical::sha256_hex;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Note,
    Warning,
    Error,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub level: Level,
    /// A stable name: `no-lock`, `rule-changed`, `rule-not-locked`, `rule-removed`,
    /// `static-placeholder`, `budget`, `volatile-content`, `prefix-changed`,
    /// `lock-inconsistent`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    pub file: PathBuf,
    /// 1-based; 0 when the finding is about the whole file.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// For a changed rule: a unified diff from the locked text to the current file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub brief: PathBuf,
    pub findings: Vec<Finding>,
    pub prefix_hash: String,
    pub locked_prefix_hash: Option<String>,
}

impl Report {
    pub fn failed(&self, strict: bool) -> bool {
        self.findings
            .iter()
            .any(|f| f.level == Level::Error || (strict && f.level == Level::Warning))
    }
}

fn finding(level: Level, kind: &'static str, file: PathBuf, message: String) -> Finding {
    Finding {
        level,
        kind,
        item: None,
        file,
        line: 0,
        column: 0,
        message,
        diff: None,
    }
}

/// Checks one loaded brief (load it with [`Brief::load_for_check`]).
pub fn check(brief: &Brief) -> Result<Report> {
    let options = ComposeOptions::default();
    let prefix = prefix(brief, options);
    let lock_path = brief.lock_path();
    let lock = Lock::read(&lock_path)?;
    let mut findings = Vec::new();

    for problem in &brief.static_placeholders {
        let mut f = finding(
            Level::Error,
            "static-placeholder",
            problem.file.clone(),
            problem.message.clone(),
        );
        f.line = problem.line;
        f.column = problem.column;
        findings.push(f);
    }

    match &lock {
        None => findings.push(finding(
            Level::Error,
            "no-lock",
            lock_path.clone(),
            "no brief.lock: rules are not locked; run `brief lock` and commit brief.lock".into(),
        )),
        Some(lock) => check_rules(brief, lock, &mut findings),
    }

    for item in brief.items.iter().filter(|i| i.tier == Tier::Static) {
        let text = if item.is_tool() {
            &item.raw[..]
        } else {
            item.body()
        };
        let base = if item.is_tool() { 0 } else { item.body_offset };
        let lines = LineIndex::new(&item.raw);
        for hit in volatile::scan(text) {
            let (line, column) = lines.line_col(base + hit.start);
            let mut f = finding(
                Level::Warning,
                "volatile-content",
                item.path.clone(),
                format!(
                    "{} `{}` in the static tier: a value that changes between turns breaks the provider's prompt cache; move it to a context item",
                    hit.kind.describe(),
                    hit.sample
                ),
            );
            f.item = Some(item.id.clone());
            f.line = line;
            f.column = column;
            findings.push(f);
        }
    }

    if let Some(limit) = brief.manifest.budget.max_brief_tokens
        && let Some((true, tokens)) = over_budget(brief, &prefix, options, limit)
    {
        findings.push(finding(
            Level::Error,
            "budget",
            brief.manifest_path(),
            format!(
                "the brief is {tokens} tokens, over budget.max_brief_tokens ({limit}) by {} tokens",
                (tokens as u64).saturating_sub(limit)
            ),
        ));
    }

    let locked_prefix_hash = lock.as_ref().map(|l| l.prefix.hash.clone());
    if let Some(locked) = &locked_prefix_hash
        && *locked != prefix.hashes.prefix
    {
        let tokens = prefix_tokens(brief, &prefix);
        let vars = lock
            .as_ref()
            .map(|l| changed_vars(&l.vars, &brief.manifest.vars))
            .unwrap_or_default();
        findings.push(finding(
            Level::Note,
            "prefix-changed",
            lock_path,
            format!(
                "the prefix hash differs from the lock ({} → {}){vars}: this change invalidates the provider's prompt cache: {tokens} tokens will be written again",
                &locked[..locked.len().min(12)],
                &prefix.hashes.prefix[..12]
            ),
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    Ok(Report {
        brief: brief.dir.clone(),
        findings,
        prefix_hash: prefix.hashes.prefix,
        locked_prefix_hash,
    })
}

/// One brief's check, with the warnings its loading raised (e.g. an item file the manifest
/// does not name), which every output format shows.
#[derive(Debug, Clone)]
pub struct Checked {
    pub report: Report,
    pub load_warnings: Vec<Problem>,
}

/// Loads and checks one brief. A brief that cannot be loaded is an error whose located
/// details name every problem.
pub fn check_path(path: &Path) -> Result<Checked> {
    let brief = Brief::load_for_check(path)?;
    let report = check(&brief)?;
    Ok(Checked {
        report,
        load_warnings: brief.warnings,
    })
}

/// Checks briefs on all cores (they are independent) and returns the results in the order
/// given.
pub fn check_paths(paths: &[PathBuf]) -> Vec<Result<Checked>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| check_path(p)).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<Checked>>>> =
        paths.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    let result = check_path(path);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(Error::internal("a check worker stopped unexpectedly")))
        })
        .collect()
}

/// `; static vars changed: plan ("Pro" → "Team"), region (new)`, or nothing.
fn changed_vars(
    locked: &std::collections::BTreeMap<String, String>,
    now: &std::collections::BTreeMap<String, String>,
) -> String {
    // A lock written before vars were locked says nothing of them.
    if locked.is_empty() {
        return String::new();
    }
    let mut changes = Vec::new();
    for (name, value) in now {
        match locked.get(name) {
            None => changes.push(format!("{name} (new)")),
            Some(old) if old != value => changes.push(format!("{name} ({old:?} → {value:?})")),
            Some(_) => {}
        }
    }
    changes.extend(
        locked
            .keys()
            .filter(|name| !now.contains_key(*name))
            .map(|name| format!("{name} (removed)")),
    );
    if changes.is_empty() {
        String::new()
    } else {
        format!("; static vars changed: {}", changes.join(", "))
    }
}

fn check_rules(brief: &Brief, lock: &Lock, findings: &mut Vec<Finding>) {
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
