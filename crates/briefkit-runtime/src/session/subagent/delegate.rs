//! `delegate_task`: a child session that carries out one task in isolation.
//!
//! The child lives under the parent's directory (`subagents/<tool_call_N>/`): its brief
//! (`brief/`: the bundled `delegate_task` brief plus the parent brief's own tools) and its
//! session (`session/`), whose Tier 2 starts with the goal and constraints alone; the
//! parent's Tier 2 is never read. It runs turns with the parent's model until it answers
//! with a valid result envelope, at most [`TURN_CAP`] turns and [`TOKEN_CAP`] tokens (input
//! and output as the provider reported them), both reported in the envelope's `delegate`
//! field. The child's own tool calls are handed to the caller as the parent's are: answer
//! them in the child session, then run the sub-agent again, which goes on where it stopped.
//! Its turns are ledger rows with `command: "subagent"`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{SubagentRequest, failed, parse_envelope, retry_message};
use crate::error::{Error, Result};
use crate::session::log::Entry;
use crate::session::turn::{PendingCall, TurnOutcome, TurnRequest};
use crate::session::{NewSession, Session};

/// Turns a delegated task may take.
pub const TURN_CAP: u32 = 8;
/// Tokens (input and output) a delegated task may spend.
pub const TOKEN_CAP: u64 = 200_000;

const PROGRESS_FILE: &str = "delegate.json";

/// Where a delegated task stands.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DelegateReport {
    /// The child session's directory.
    pub session: PathBuf,
    pub turns: u32,
    pub turn_cap: u32,
    pub tokens: u64,
    pub token_cap: u64,
    pub model_calls: u32,
    /// What the next turn says (the violations of an invalid envelope), if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_user: Option<String>,
}

/// The envelope's `delegate` field: where the task ran and what it spent of its caps.
#[derive(Serialize)]
struct DelegateLimits<'a> {
    session: &'a Path,
    turns: u32,
    turn_cap: u32,
    tokens: u64,
    token_cap: u64,
}

pub enum Delegated {
    Done(Value, DelegateReport),
    Waiting(DelegateReport, Vec<PendingCall>),
}

fn write_yaml_item(dir: &Path, name: &str, text: &str) -> Result<()> {
    crate::files::write_atomic(&dir.join("items").join(name), text.as_bytes())
}

impl Session {
    /// The child's brief: the bundled one and the parent's tools.
    fn child_brief(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir.join("items")).map_err(|e| Error::io(dir, &e))?;
        let mut ids = vec!["role".to_string(), "answer".to_string()];
        write_yaml_item(
            dir,
            "role.md",
            include_str!("../../../../../briefs/delegate_task/items/role.md"),
        )?;
        write_yaml_item(
            dir,
            "answer.md",
            include_str!("../../../../../briefs/delegate_task/items/answer.md"),
        )?;
        for item in self.brief.items.iter().filter(|i| i.is_tool()) {
            if ids.contains(&item.id) {
                continue;
            }
            write_yaml_item(dir, &format!("{}.tool.yaml", item.id), &item.raw)?;
            ids.push(item.id.clone());
        }
        let manifest = format!(
            "name: delegate_task\ndescription: A task delegated by the session {}\ntokenizer: {}\nitems: [{}]\n",
            self.dir.display().to_string().replace(['\n', '\r'], " "),
            self.encoding.name(),
            ids.join(", ")
        );
        crate::files::write_atomic(&dir.join("brief.yaml"), manifest.as_bytes())
    }

    pub(super) fn delegate(
        &self,
        call: &Entry,
        request: &SubagentRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Delegated> {
        let args = call.arguments();
        let goal = args
            .get("goal")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if goal.is_empty() {
            return Ok(Delegated::Done(
                failed("delegate_task needs a `goal`".into(), Vec::new()),
                DelegateReport::default(),
            ));
        }
        let root = self.dir.join("subagents").join(&call.id);
        let session_dir = root.join("session");
        let progress_path = root.join(PROGRESS_FILE);
        let (child, mut report, mut user) = if session_dir.join("session.yaml").exists() {
            let bytes = crate::files::policy::read_owned(
                &progress_path,
                crate::files::limits::SESSION_JOURNAL,
            )?
            .ok_or_else(|| Error::input(format!("{}: missing", progress_path.display())))?;
            let report: DelegateReport = serde_json::from_slice(&bytes)
                .map_err(|e| Error::input(format!("{}: {e}", progress_path.display())))?;
            let user = report.next_user.clone();
            (Session::open(&session_dir)?, report, user)
        } else {
            self.child_brief(&root.join("brief"))?;
            let mut new = NewSession::new(root.join("brief"));
            new.context_limit = Some(self.config.context_limit);
            new.reserved_completion_tokens = Some(self.config.reserved_completion_tokens);
            new.protocol_overhead_tokens = Some(self.config.protocol_overhead_tokens);
            new.safety_margin_tokens = Some(self.config.safety_margin_tokens);
            // The child calls the parent's model: a session made with its provider, model
            // and server needs no flags for its delegated tasks either.
            new.provider = self.config.provider.clone();
            new.model = self.config.model.clone();
            new.base_url = self.config.base_url.clone();
            let child = Session::create(&session_dir, new)?;
            let mut first = format!("Task: {goal}");
            if let Some(constraints) = args
                .get("constraints")
                .and_then(Value::as_str)
                .filter(|c| !c.trim().is_empty())
            {
                first.push_str(&format!("\nConstraints: {constraints}"));
            }
            let report = DelegateReport {
                session: session_dir.clone(),
                turn_cap: TURN_CAP,
                token_cap: TOKEN_CAP,
                ..DelegateReport::default()
            };
            (child, report, Some(first))
        };
        loop {
            if report.turns >= report.turn_cap || report.tokens >= report.token_cap {
                let which = if report.turns >= report.turn_cap {
                    format!("its turn cap ({} turns)", report.turn_cap)
                } else {
                    format!("its token cap ({} tokens)", report.token_cap)
                };
                let envelope = failed(
                    format!("The delegated task stopped at {which} without a result."),
                    vec![format!(
                        "the child session {} keeps what it did",
                        report.session.display()
                    )],
                );
                return self.delegated(envelope, report, &progress_path);
            }
            progress(&format!(
                "delegate_task: turn {} of at most {}",
                report.turns + 1,
                report.turn_cap
            ));
            let turn = TurnRequest {
                user: user.take(),
                model: request.model.clone(),
                ledger_command: Some("subagent"),
                ..TurnRequest::default()
            };
            let outcome = child.turn(&turn, progress);
            for notice in child.notices.borrow_mut().drain(..) {
                progress(&notice.to_string());
            }
            report.turns += 1;
            report.model_calls += 1;
            let done = match outcome? {
                TurnOutcome::Done(done) => done,
                TurnOutcome::Blocked(gate) => {
                    let envelope = failed(
                        "The delegated task ran out of context before it finished.".into(),
                        vec![serde_json::to_string(&gate.answer()).unwrap_or_default()],
                    );
                    return self.delegated(envelope, report, &progress_path);
                }
                TurnOutcome::Released(_) => unreachable!("a delegated turn resumes no call"),
            };
            if let Some(usage) = &done.usage {
                report.tokens += usage.input_tokens + usage.output_tokens;
            }
            if !done.tool_calls.is_empty() || !done.blocked.is_empty() {
                report.next_user = None;
                self.save_progress(&report, &progress_path)?;
                return Ok(Delegated::Waiting(report, done.tool_calls));
            }
            match parse_envelope(&done.text) {
                Ok(envelope) => return self.delegated(envelope, report, &progress_path),
                Err(violations) => user = Some(retry_message(&violations)),
            }
        }
    }

    fn save_progress(&self, report: &DelegateReport, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(report)
            .map_err(|e| Error::internal(format!("cannot encode the delegation: {e}")))?;
        crate::files::write_atomic(path, &bytes)
    }

    fn delegated(
        &self,
        mut envelope: Value,
        report: DelegateReport,
        path: &Path,
    ) -> Result<Delegated> {
        self.save_progress(&report, path)?;
        if let Some(map) = envelope.as_object_mut() {
            let limits = DelegateLimits {
                session: &report.session,
                turns: report.turns,
                turn_cap: report.turn_cap,
                tokens: report.tokens,
                token_cap: report.token_cap,
            };
            map.insert(
                "delegate".into(),
                serde_json::to_value(limits).unwrap_or(Value::Null),
            );
        }
        Ok(Delegated::Done(envelope, report))
    }
}
