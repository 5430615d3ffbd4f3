//! `align` as one operation: read the bodies (files, JSON lines, stdin) in order, compare
//! each with the previous wake (or a state file's), save the last wake back to the state
//! file, and return the typed [`Report`] with its status word and one-sentence summary.
//! `brief align` is this call and its rendering.

use crate::numbers::noun;
use std::path::PathBuf;

use super::{Aligner, Options, Part, Report, State, bad_request};
use crate::error::{Error, Result};

/// What to check.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Request body files in order; `-` is stdin, and a `.jsonl` file holds one body a line.
    pub payloads: Vec<PathBuf>,
    /// Compare the first wake with the last one saved here, then save this run's last.
    pub state: Option<PathBuf>,
    pub options: Options,
}

/// Checks the bodies `request` names. Errors: a body that is not a provider request
/// (input, naming its source), no bodies at all (input), an unreadable or foreign state
/// file (input).
pub fn check(request: &Request) -> Result<Report> {
    let baseline = match &request.state {
        Some(path) => State::load(path)?,
        None => None,
    };
    let mut aligner = Aligner::new(request.options, baseline);
    super::read::for_each_body(&request.payloads, |source, body| {
        aligner
            .push(source, &body)
            .map(|_| ())
            .map_err(|e| bad_request(source, &e))
    })?;
    let report = aligner.finish().ok_or_else(|| {
        Error::input("no request bodies to check")
            .with_hint("pass request body files, or JSON lines on stdin with `-`")
    })?;
    if let Some(path) = &request.state {
        report.state.save(path)?;
    }
    Ok(report)
}

impl Report {
    /// `ok` when nothing drifted and nothing was flagged, else `failed`.
    pub fn status(&self) -> &'static str {
        if self.clean() { "ok" } else { "failed" }
    }

    /// One sentence across the wakes: how many could reuse the cache and what broke the
    /// rest.
    pub fn summary(&self) -> String {
        self.summary_naming("a state file")
    }

    /// [`Report::summary`], naming the state file in the caller's words when no wake
    /// could be compared (the command line says `--state`).
    pub fn summary_naming(&self, state_file: &str) -> String {
        let t = &self.totals;
        let mut text = format!("{} {}", t.wakes, noun(t.wakes as u64, "wake", "wakes"));
        if t.compared == 0 {
            text.push_str(&format!(
                ", none compared (pass more wakes or {state_file})"
            ));
        } else {
            text.push_str(&format!(
                ": {} of {} could have been served from cache",
                t.cacheable, t.compared
            ));
        }
        if t.drifted > 0 {
            let broken: Vec<String> = [
                (Part::Tools, t.broken_by_tools),
                (Part::System, t.broken_by_system),
                (Part::Examples, t.broken_by_examples),
                (Part::Messages, t.broken_by_messages),
            ]
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(part, n)| format!("{} {n}", part.as_str()))
            .collect();
            text.push_str(&format!("; broken by {}", broken.join(", ")));
        }
        text.push_str(&format!(
            "; {} {}",
            t.warnings,
            noun(t.warnings as u64, "warning", "warnings")
        ));
        if t.constant_values > 0 {
            text.push_str(&format!(
                " ({} volatile-looking {} identical in every wake, not flagged)",
                t.constant_values,
                noun(t.constant_values as u64, "value", "values")
            ));
        }
        text
    }
}
