//! One call per session operation, for every edge alike: the CLI's `brief session`
//! subcommands, the MCP session tools and the library's users. Each call opens the
//! session, runs the operation and returns its typed answer ([`crate::document::Document`]);
//! what the operator should hear on the way (the brief's warnings, the session's notices,
//! progress) goes to `notes`, which an edge prints or drops. Notices are handed over
//! whether the operation succeeded or not.

use std::collections::BTreeMap;
use std::path::Path;

use super::compact::Compacted;
use super::model::ModelChoice;
use super::ops::{GateReport, GateRequest, NewEntry, PurgeReport};
use super::pending::{CancelReport, ResumeReport, ResumeRequest};
use super::render::Format;
use super::reports::{Appended, EntryReport, LogReport, Made};
use super::run::{RunReport, RunRequest};
use super::status_report::StatusReport;
use super::subagent::{SubagentOutcome, SubagentRequest};
use super::turn::{TurnOutcome, TurnRequest};
use super::{NewSession, Notice, RenderedBody, Session};
use crate::error::{Error, Result, Topic};

/// Something the operator should hear while an operation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note<'a> {
    /// The brief's warnings.
    Warning(&'a str),
    /// What the session noticed (a torn line cut off, a value no item uses, …).
    Notice(&'a Notice),
    /// A step of a long operation (a model call, a retry).
    Progress(&'a str),
}

/// Where an operation's [`Note`]s go.
pub type Notes<'a> = &'a mut dyn FnMut(Note<'_>);

/// Opens a session and hands over the brief's warnings.
fn open(dir: &Path, notes: Notes) -> Result<Session> {
    let session = Session::open(dir)?;
    for warning in &session.brief.warnings {
        notes(Note::Warning(&warning.to_string()));
    }
    Ok(session)
}

/// `result`, after the session's notices were handed over.
fn heard<T>(session: &Session, notes: Notes, result: Result<T>) -> Result<T> {
    for notice in session.notices.borrow_mut().drain(..) {
        notes(Note::Notice(&notice));
    }
    result
}

/// Runs `operation` on the open session at `dir`, handing over what it noticed.
fn with_session<T>(
    dir: &Path,
    notes: Notes,
    operation: impl FnOnce(&Session, Notes) -> Result<T>,
) -> Result<T> {
    let session = open(dir, notes)?;
    let result = operation(&session, notes);
    heard(&session, notes, result)
}

/// Makes a session directory for a brief (`brief session new`).
pub fn new(dir: &Path, settings: NewSession, notes: Notes) -> Result<Made> {
    let session = Session::create(dir, settings)?;
    let c = &session.config;
    let made = Made {
        dir: dir.to_path_buf(),
        brief: c.brief.clone(),
        context_limit: c.context_limit,
        reserved_completion_tokens: c.reserved_completion_tokens,
        protocol_overhead_tokens: c.protocol_overhead_tokens,
        safety_margin_tokens: c.safety_margin_tokens,
        framework_tools: c.framework_tools,
        provider: c.provider.clone(),
        model: c.model.clone(),
        base_url: c.base_url.clone(),
        brief_name: session.brief.manifest.name.clone(),
        tools: session.tools.len(),
    };
    heard(&session, notes, Ok(made))
}

/// Appends one entry to Tier 2.
pub fn append(dir: &Path, entry: NewEntry, notes: Notes) -> Result<Appended> {
    with_session(dir, notes, |session, _| {
        // A call the operator appends names one of Tier 1's tools: the model could not
        // have called another.
        if let NewEntry::ToolCall { name, .. } = &entry
            && super::ops::valid_tool_name(name)
            && !session.tools.iter().any(|t| &t.name == name)
        {
            let names: Vec<&str> = session.tools.iter().map(|t| t.name.as_str()).collect();
            return Err(Error::input(format!(
                "--tool-call `{}`: the session has no such tool (its tools: {})",
                crate::text::sanitize::one_line(name, 80),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
            .with_hint("nothing was appended"));
        }
        let entry = session.append(vec![entry])?.remove(0);
        Ok(Appended {
            id: entry.id,
            kind: entry.kind.as_str(),
            tokens: entry.tokens,
            over_budget: entry.over_budget,
        })
    })
}

/// The request body (or text) of the next model call.
pub fn render(
    dir: &Path,
    format: Format,
    vars: &BTreeMap<String, String>,
    notes: Notes,
) -> Result<RenderedBody> {
    with_session(dir, notes, |session, _| {
        Ok(session.render(format, vars)?.body)
    })
}

/// The figures: tokens per tier, the budget, pending operations.
pub fn status(dir: &Path, vars: &BTreeMap<String, String>, notes: Notes) -> Result<StatusReport> {
    with_session(dir, notes, |session, _| {
        Ok(StatusReport {
            status: session.status(vars)?,
        })
    })
}

/// Every entry ever appended, with its state.
pub fn log(dir: &Path, notes: Notes) -> Result<LogReport> {
    with_session(dir, notes, |session, _| {
        Ok(LogReport::of(&session.state()?))
    })
}

/// One entry, live or not, and the event that removed it from Tier 2.
pub fn show(dir: &Path, id: &str, notes: Notes) -> Result<EntryReport> {
    let state = with_session(dir, notes, |session, _| session.state())?;
    let entry = state.entry(id).ok_or_else(|| {
        Error::input(format!("`{id}`: no such entry in this session")).with_topic(Topic::NoEntry)
    })?;
    Ok(EntryReport {
        entry: entry.clone(),
        state: state.entry_state(id),
        removed_by: state.removed.get(id).cloned(),
    })
}

/// Checks an operation against the budget before it starts.
pub fn gate(
    dir: &Path,
    request: GateRequest,
    vars: &BTreeMap<String, String>,
    notes: Notes,
) -> Result<GateReport> {
    with_session(dir, notes, |session, _| session.gate(request, vars))
}

/// Removes entries from Tier 2 (ids trimmed, empty ones left out), with an optional
/// summary in their place.
pub fn purge(
    dir: &Path,
    ids: &[String],
    summary: Option<&str>,
    notes: Notes,
) -> Result<PurgeReport> {
    let ids: Vec<String> = ids
        .iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    with_session(dir, notes, |session, _| session.purge(&ids, summary))
}

/// Condenses Tier 2 into a CompactedState with a separate model call.
pub fn compact(dir: &Path, resume: &str, choice: &ModelChoice, notes: Notes) -> Result<Compacted> {
    with_session(dir, notes, |session, notes| {
        let report = session.compact(resume, choice, &mut |m| notes(Note::Progress(m)))?;
        Ok(Compacted { report })
    })
}

/// One orchestrator step.
pub fn turn(dir: &Path, request: &TurnRequest, notes: Notes) -> Result<TurnOutcome> {
    with_session(dir, notes, |session, notes| {
        session.turn(request, &mut |m| notes(Note::Progress(m)))
    })
}

/// Runs the sub-agent a tool call asks for and appends its result envelope.
pub fn subagent(
    dir: &Path,
    call: &str,
    request: &SubagentRequest,
    notes: Notes,
) -> Result<SubagentOutcome> {
    with_session(dir, notes, |session, notes| {
        session.run_subagent(call, request, &mut |m| notes(Note::Progress(m)))
    })
}

/// Runs pending operation `op` once it fits (`brief session resume`).
pub fn resume(dir: &Path, op: &str, request: &ResumeRequest, notes: Notes) -> Result<ResumeReport> {
    with_session(dir, notes, |session, notes| {
        session.resume(op, request, &mut |m| notes(Note::Progress(m)))
    })
}

/// Closes pending operation `op` (`brief session cancel`).
pub fn cancel(dir: &Path, op: &str, notes: Notes) -> Result<CancelReport> {
    with_session(dir, notes, |session, _| session.cancel(op))
}

/// The orchestrator's loop until the model's final answer (`brief session run`).
pub fn run(dir: &Path, request: &RunRequest, notes: Notes) -> Result<RunReport> {
    with_session(dir, notes, |session, notes| {
        session.run(request, &mut |m| notes(Note::Progress(m)))
    })
}

/// Keeps a rendered wake digest at the start of Tier 3 (`brief session digest`).
pub fn digest(
    dir: &Path,
    file: Option<&Path>,
    store: Option<&Path>,
    min_bytes: usize,
    notes: Notes,
) -> Result<super::wake_digest::DigestSet> {
    with_session(dir, notes, |session, _| {
        session.set_digest(file, store, min_bytes)
    })
}

/// Changes the provider, model or server a session's turns call (`brief session model`).
pub fn model(
    dir: &Path,
    change: &super::follow::ModelChange,
    notes: Notes,
) -> Result<super::follow::ModelChanged> {
    with_session(dir, notes, |session, _| session.change_model(change))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clinic_session(root: &Path) -> std::path::PathBuf {
        let brief = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/briefs/clinic");
        let dir = root.join("s");
        let mut settings = NewSession::new(brief);
        settings.vars.insert("patient".into(), "Ada".into());
        settings.vars.insert("typo".into(), "x".into());
        let mut heard = Vec::new();
        new(&dir, settings, &mut |n| heard.push(format!("{n:?}"))).unwrap();
        assert!(heard.iter().any(|n| n.contains("UnusedVar")), "{heard:?}");
        dir
    }

    #[test]
    fn notices_are_handed_over_when_the_operation_fails_too() {
        let root = tempfile::tempdir().unwrap();
        let dir = clinic_session(root.path());
        append(&dir, NewEntry::User("Book Ada.".into()), &mut |_| {}).unwrap();
        // A torn last line, as a crash while writing leaves it.
        let log = dir.join(super::super::log::LOG_FILE);
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str("{\"event\":\"app");
        std::fs::write(&log, text).unwrap();
        let mut heard = Vec::new();
        let missing = show(&dir, "msg_9", &mut |n| {
            if let Note::Notice(notice) = n {
                heard.push(notice.to_string());
            }
        });
        let err = missing.unwrap_err();
        assert_eq!(err.topic(), Some(&Topic::NoEntry));
        assert!(
            heard.iter().any(|n| n.contains("unfinished last line")),
            "{heard:?}"
        );
    }

    #[test]
    fn a_purge_trims_its_ids_and_reports_through_the_one_document() {
        let root = tempfile::tempdir().unwrap();
        let dir = clinic_session(root.path());
        append(&dir, NewEntry::User("Book Ada.".into()), &mut |_| {}).unwrap();
        append(&dir, NewEntry::Assistant("Booked.".into()), &mut |_| {}).unwrap();
        let ids = [" msg_1 ".to_string(), String::new()];
        let purged = purge(&dir, &ids, Some("Ada wants a booking."), &mut |_| {}).unwrap();
        assert_eq!(purged.removed_ids, ["msg_1"]);
        let text = crate::document::render(&purged).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().take(3).collect();
        assert_eq!(keys, ["status", "summary", "removed_ids"]);
        let none = purge(&dir, &[" ".into()], None, &mut |_| {}).unwrap_err();
        assert!(!none.message.contains("--"), "{}", none.message);
    }
}
