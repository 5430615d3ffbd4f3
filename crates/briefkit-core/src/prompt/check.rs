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

use crate::brief::{Brief, LineIndex, Lock, Problem, Tier};
use crate::error::{Error, Result};
use crate::prompt::compose::{ComposeOptions, prefix};
use crate::prompt::measure::{over_budget, prefix_tokens};
use crate::prompt::tool_schema::{self, RejectedBy};
use crate::text::volatile;
use crate::wire::Wire;

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
    /// `lock-inconsistent`, `tool-schema`.
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
    /// When the prefix differs from the lock: the tokens of the new prefix, which the
    /// provider writes to its cache again on the next call.
    pub tokens_rewritten: Option<usize>,
}

/// How strictly a brief is held to its lock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Warnings fail too, and so does a prefix that differs from the lock (a change that
    /// breaks the provider's prompt cache), unless `allow_prefix_change`.
    pub strict: bool,
    /// A prefix change is intended: reported as a note even under `strict`.
    pub allow_prefix_change: bool,
}

impl Report {
    pub fn failed(&self, strict: bool) -> bool {
        self.findings
            .iter()
            .any(|f| f.level == Level::Error || (strict && f.level == Level::Warning))
    }
}

pub(super) fn finding(level: Level, kind: &'static str, file: PathBuf, message: String) -> Finding {
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

/// Checks one loaded brief (load it with [`Brief::load_for_check`]) with the default
/// [`Options`]: a prefix change is a note.
pub fn check(brief: &Brief) -> Result<Report> {
    check_with(brief, Options::default())
}

/// Checks one loaded brief; under `strict` a prefix that moved since the lock is an error.
pub fn check_with(brief: &Brief, check_options: Options) -> Result<Report> {
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
        Some(lock) => super::check_rules::check_rules(brief, lock, &mut findings),
    }

    tool_schemas(brief, prefix.hashes.wire, &mut findings);

    for item in brief.items.iter().filter(|i| i.tier == Tier::Static) {
        let text = if item.is_tool() {
            &item.raw[..]
        } else {
            item.body()
        };
        let base = if item.is_tool() { 0 } else { item.body_offset };
        let lines = LineIndex::new(&item.raw);
        for hit in volatile::scan(text) {
            // A line marked as a deliberate constant keeps its value (it is not composed).
            if crate::text::constant::line_is_marked(text, hit.start) {
                continue;
            }
            let (line, column) = lines.line_col(base + hit.start);
            let mut f = finding(
                Level::Warning,
                "volatile-content",
                item.path.clone(),
                format!(
                    "{} `{}` in the static tier: a value that changes between turns breaks the provider's prompt cache; move it to a context item, or if it is meant to stay, end its line with `{}`",
                    hit.kind.describe(),
                    hit.sample,
                    crate::text::constant::MARKER
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
    let mut tokens_rewritten = None;
    if let Some(lock) = &lock
        && lock.prefix.hash != prefix.hashes.prefix
    {
        let tokens = prefix_tokens(brief, &prefix);
        tokens_rewritten = Some(tokens);
        findings.push(prefix_changed(
            brief,
            lock,
            &prefix.hashes,
            tokens,
            check_options,
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    Ok(Report {
        brief: brief.dir.clone(),
        findings,
        prefix_hash: prefix.hashes.prefix,
        locked_prefix_hash,
        tokens_rewritten,
    })
}

/// The finding for a prefix that differs from the lock, located at the lock's prefix hash:
/// a note, or under `--strict` (without `--allow-prefix-change`) an error, since the change
/// makes the provider write the whole prefix to its cache again.
fn prefix_changed(
    brief: &Brief,
    lock: &Lock,
    now: &crate::wire::prefix::PrefixHashes,
    tokens: usize,
    options: Options,
) -> Finding {
    let locked = &lock.prefix;
    let vars = changed_vars(&lock.vars, &brief.manifest.vars);
    let mut parts = Vec::new();
    if locked.tools != now.tools {
        parts.push("tools");
    }
    if locked.system != now.system {
        parts.push("system text");
    }
    let what = if locked.wire != now.wire {
        format!(
            "; the lock was written for the {} wire format, the brief is composed for {}",
            locked.wire.as_str(),
            now.wire.as_str()
        )
    } else if parts.is_empty() {
        String::new()
    } else {
        format!("; changed: {}", parts.join(" and "))
    };
    let fails = options.strict && !options.allow_prefix_change;
    let advice = if fails {
        "; if the change is intended, run `brief lock` and commit brief.lock (or pass --allow-prefix-change)"
    } else {
        ""
    };
    let mut f = finding(
        if fails { Level::Error } else { Level::Note },
        "prefix-changed",
        brief.lock_path(),
        format!(
            "the prefix hash differs from the lock ({} → {}){what}{vars}: this change invalidates the provider's prompt cache: {tokens} tokens will be written again{advice}",
            &locked.hash[..locked.hash.len().min(12)],
            &now.prefix[..12]
        ),
    );
    (f.line, f.column) = Lock::prefix_hash_position(&brief.lock_path()).unwrap_or((0, 0));
    f
}

/// Every tool's definition as the providers will judge it (`crate::prompt::tool_schema`):
/// what every provider rejects, or the brief's own provider, is an error; what only
/// another provider rejects is a warning.
fn tool_schemas(brief: &Brief, wire: Wire, findings: &mut Vec<Finding>) {
    for item in brief.items.iter().filter(|i| i.is_tool()) {
        let Some(tool) = &item.tool else { continue };
        let mut found = Vec::new();
        for problem in tool_schema::problems(tool) {
            let (level, who) = match (problem.rejected_by, wire) {
                (RejectedBy::Every, _) => (Level::Error, ""),
                (RejectedBy::OpenAi, Wire::OpenAi) | (RejectedBy::Anthropic, Wire::Anthropic) => {
                    (Level::Error, "")
                }
                (RejectedBy::OpenAi, _) => {
                    (Level::Warning, " (if this brief is also sent to OpenAI)")
                }
                (RejectedBy::Anthropic, _) => {
                    (Level::Warning, " (if this brief is also sent to Anthropic)")
                }
            };
            let mut f = finding(
                level,
                "tool-schema",
                item.path.clone(),
                format!("tool `{}`: {}{who}", tool.name, problem.message),
            );
            f.item = Some(item.id.clone());
            (f.line, f.column) = tool_schema::locate(&item.raw, &problem.path).unwrap_or((1, 1));
            found.push(f);
        }
        // In the order of the file, as an editor walks them.
        found.sort_by_key(|f| (f.line, f.column));
        findings.extend(found);
    }
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
pub fn check_path(path: &Path, options: Options) -> Result<Checked> {
    let brief = Brief::load_for_check(path)?;
    let report = check_with(&brief, options)?;
    Ok(Checked {
        report,
        load_warnings: brief.warnings,
    })
}

/// Checks briefs on all cores (they are independent) and returns the results in the order
/// given.
pub fn check_paths(paths: &[PathBuf], options: Options) -> Vec<Result<Checked>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    if workers <= 1 {
        return paths.iter().map(|p| check_path(p, options)).collect();
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
                    let result = check_path(path, options);
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
