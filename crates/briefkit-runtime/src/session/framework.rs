//! The framework's own memory tools inside a turn: a model's `purge` and
//! `compact_context` calls are run here, not handed back, and their results are appended
//! as the calls' answers; a call that cannot run is answered with why.

use serde_json::Value;

use super::Session;
use super::compact::Obtained;
use super::log::{Entry, Event, Kind};
use super::model::ModelChoice;
use super::ops::now;
use super::render::entry_text;
use super::turn::FrameworkRun;
use crate::error::{Error, Result, Topic};
use crate::tokens;

impl Session {
    pub(super) fn run_purge(&self, call: &Entry, op: &str) -> Result<FrameworkRun> {
        let args = call.arguments();
        let ids: Option<Vec<String>> = args
            .get("ids")
            .and_then(Value::as_array)
            .and_then(|ids| ids.iter().map(|i| i.as_str().map(str::to_string)).collect());
        let summary = args.get("summary").and_then(Value::as_str);
        let attempt = match ids {
            Some(ids) if !ids.is_empty() => {
                self.purge_answering(&ids, summary, Some((&call.id, op)))
            }
            _ => Err(Error::input("`ids` must be a non-empty list of entry ids")),
        };
        match attempt {
            Ok((report, result)) => Ok(FrameworkRun {
                id: call.id.clone(),
                name: "purge".into(),
                outcome: "ok",
                result_id: result.as_ref().map(|r| r.id.clone()),
                text: result.map(|r| r.text).unwrap_or_default(),
                purge: Some(report),
                compact: None,
            }),
            Err(err) if err.exit_code() == 2 => self.refused(
                call,
                op,
                "refused",
                format!("purge refused, nothing removed: {}", err.message),
            ),
            Err(err) => Err(err),
        }
    }

    pub(super) fn run_compaction(
        &self,
        call: &Entry,
        op: &str,
        choice: &ModelChoice,
        progress: &mut dyn FnMut(&str),
    ) -> Result<FrameworkRun> {
        let resume = call
            .arguments()
            .get("resume_instruction")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default()
            .to_string();
        if resume.is_empty() {
            return self.refused(
                call,
                op,
                "refused",
                "compact_context refused, nothing compacted: `resume_instruction` must be a non-empty string".into(),
            );
        }
        let state = self.state()?;
        let tier2: Vec<&Entry> = state.tier2().collect();
        let expected: Vec<String> = tier2.iter().map(|e| e.id.clone()).collect();
        let obtained = self.obtain_state(&tier2, choice, progress).map_err(|err| {
            let err =
                err.with_hint("the model's answer is kept; run the same turn again to finish it");
            // A topic the error has already (a missing key, …) says more than this one.
            if err.topic().is_some() {
                err
            } else {
                err.with_topic(Topic::TurnAnswerKept {
                    session: self.dir.clone(),
                })
            }
        })?;
        match obtained {
            Obtained::State(value) => {
                let report = self.apply_compaction(&expected, &value, &resume, Some(op))?;
                Ok(FrameworkRun {
                    id: call.id.clone(),
                    name: "compact_context".into(),
                    outcome: "ok",
                    result_id: None,
                    text: format!(
                        "Compacted {} entries into {} (state) and {} (resume): Tier 2 {} -> {} tokens.",
                        report.removed_ids.len(),
                        report.state_id,
                        report.resume_id,
                        super::budget::thousands(report.tokens_before),
                        super::budget::thousands(report.tokens_after)
                    ),
                    purge: None,
                    compact: Some(report),
                })
            }
            Obtained::Invalid(violations) => {
                let listed: Vec<String> = violations.iter().map(ToString::to_string).collect();
                self.refused(
                    call,
                    op,
                    "failed",
                    format!(
                        "compact_context failed, nothing compacted: the compaction model answered with an invalid CompactedState twice ({})",
                        listed.join("; ")
                    ),
                )
            }
        }
    }

    /// Answers a framework call that did nothing with why, so the model can react.
    pub(super) fn refused(
        &self,
        call: &Entry,
        op: &str,
        outcome: &'static str,
        text: String,
    ) -> Result<FrameworkRun> {
        let appended = self.write(|state| {
            let mut entry = self.new_entry(state, Kind::ToolResult, 0, text.clone(), op);
            entry.call = Some(call.id.clone());
            entry.source = Some("framework".into());
            entry.tokens = tokens::count(self.encoding, &entry_text(&entry)) as u64;
            Ok((
                vec![Event::Append {
                    at: now(),
                    entries: vec![entry.clone()],
                }],
                entry,
            ))
        })?;
        Ok(FrameworkRun {
            id: call.id.clone(),
            name: call.name.clone().unwrap_or_default(),
            outcome,
            result_id: Some(appended.id),
            text,
            purge: None,
            compact: None,
        })
    }
}
