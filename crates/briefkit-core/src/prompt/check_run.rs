//! `brief check` over many briefs as one operation: each is loaded and checked (on every
//! core), a brief that cannot be loaded is kept as its error beside the others, and the
//! run knows its status word, its summary and each brief's result with the levels the
//! strictness gives them. A front end renders it; it never re-decides what failed.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::Problem;
use crate::error::{Error, Location};
use crate::prompt::check::{Checked, Finding, Level, Options, check_paths};

/// Every brief named, checked.
#[derive(Debug)]
pub struct CheckRun {
    /// The briefs that loaded, in the order named.
    pub checked: Vec<Checked>,
    /// The briefs that could not be loaded, in the order named.
    pub unreadable: Vec<Error>,
    /// Warnings count as failures.
    pub strict: bool,
}

/// Checks the briefs at `paths` (directories or their brief.yaml).
pub fn check_all(paths: &[PathBuf], options: Options) -> CheckRun {
    let mut run = CheckRun {
        checked: Vec::new(),
        unreadable: Vec::new(),
        strict: options.strict,
    };
    for result in check_paths(paths, options) {
        match result {
            Ok(one) => run.checked.push(one),
            Err(err) => run.unreadable.push(err),
        }
    }
    run
}

/// A finding's level under `strict`: warnings are errors.
pub fn level_of(finding: &Finding, strict: bool) -> Level {
    if strict && finding.level == Level::Warning {
        Level::Error
    } else {
        finding.level
    }
}

/// One brief's result as reported.
#[derive(Debug, Serialize)]
pub struct BriefResult<'a> {
    pub brief: &'a Path,
    /// `ok` or `failed`.
    pub status: &'static str,
    pub prefix_hash: &'a str,
    pub locked_prefix_hash: Option<&'a str>,
    pub prefix_changed: Option<bool>,
    /// When the prefix changed: the tokens the provider writes to its cache again.
    pub tokens_rewritten: Option<usize>,
    /// With the levels `strict` gives them.
    pub findings: Vec<Finding>,
    /// Problems loading raised that do not stop the check (e.g. an unlisted item file).
    pub load_warnings: Vec<Location>,
}

impl CheckRun {
    /// Briefs that loaded and did not pass.
    pub fn failed(&self) -> usize {
        self.checked
            .iter()
            .filter(|c| c.report.failed(self.strict))
            .count()
    }

    /// `error` when a brief could not be loaded, else `failed` when one did not pass, else
    /// `ok`.
    pub fn status(&self) -> &'static str {
        if !self.unreadable.is_empty() {
            "error"
        } else if self.failed() > 0 {
            "failed"
        } else {
            "ok"
        }
    }

    pub fn summary(&self) -> String {
        let total = self.checked.len() + self.unreadable.len();
        let mut summary = format!(
            "{total} brief{} checked, {} failed",
            if total == 1 { "" } else { "s" },
            self.failed()
        );
        if !self.unreadable.is_empty() {
            summary.push_str(&format!(", {} unreadable", self.unreadable.len()));
        }
        summary
    }

    /// Each loaded brief's result, in the order named.
    pub fn briefs(&self) -> Vec<BriefResult<'_>> {
        self.checked
            .iter()
            .map(|c| brief_result(c, self.strict))
            .collect()
    }
}

fn brief_result(checked: &Checked, strict: bool) -> BriefResult<'_> {
    let report = &checked.report;
    BriefResult {
        brief: &report.brief,
        status: if report.failed(strict) {
            "failed"
        } else {
            "ok"
        },
        prefix_hash: &report.prefix_hash,
        locked_prefix_hash: report.locked_prefix_hash.as_deref(),
        prefix_changed: report
            .locked_prefix_hash
            .as_ref()
            .map(|h| *h != report.prefix_hash),
        tokens_rewritten: report.tokens_rewritten,
        findings: report
            .findings
            .iter()
            .map(|f| Finding {
                level: level_of(f, strict),
                ..f.clone()
            })
            .collect(),
        load_warnings: checked
            .load_warnings
            .iter()
            .map(Problem::to_location)
            .collect(),
    }
}
