//! The second half of a turn: the model's answer has arrived and is journaled; what of it
//! the log does not hold yet is appended (the user message and the answer in one write),
//! the framework's own tool calls are run and the rest handed back. An interrupted turn
//! comes back here when it is run again.

use super::{TurnReport, TurnRequest};
use crate::error::Result;
use crate::session::Session;
use crate::session::journal::{Journal, Received};
use crate::session::log::{Entry, Event, Kind};
use crate::session::ops::now;
use crate::session::render::entry_text;
use crate::session::subagent::Ran;
use crate::tokens;

impl Session {
    /// Appends what of the journaled turn the log does not hold yet, runs its framework
    /// tools, and removes the journal.
    pub(super) fn finish(
        &self,
        journal: Journal,
        interrupted: bool,
        request: &TurnRequest,
        progress: &mut dyn FnMut(&str),
    ) -> Result<TurnReport> {
        let choice = &request.model;
        let op = journal.op.clone();
        let received = journal.answer.clone().expect("only answered turns finish");
        let state = self.state()?;
        let in_log = state
            .entries
            .iter()
            .any(|e| e.op.as_deref() == Some(op.as_str()) && e.kind != Kind::User);
        if !in_log {
            self.append_answer(&journal, &received)?;
            crate::store::transaction::fault_point("session-turn-after-answer");
        }
        let state = self.state()?;
        let mine: Vec<Entry> = state
            .entries
            .iter()
            .filter(|e| e.op.as_deref() == Some(op.as_str()))
            .cloned()
            .collect();
        let user_id = mine
            .iter()
            .find(|e| e.kind == Kind::User)
            .map(|e| e.id.clone());
        let calls: Vec<&Entry> = mine.iter().filter(|e| e.kind == Kind::ToolCall).collect();
        let framework_tools = self.config.framework_tools;
        let is_framework = |e: &Entry| {
            framework_tools && matches!(e.name.as_deref(), Some("purge" | "compact_context"))
        };
        let mut framework = Vec::new();
        for call in calls.iter().filter(|c| c.name.as_deref() == Some("purge")) {
            if !is_framework(call)
                || !self.state()?.is_live(&call.id)
                || self.state()?.is_answered(&call.id)
            {
                continue;
            }
            framework.push(self.run_purge(call, &op)?);
        }
        for call in calls
            .iter()
            .filter(|c| c.name.as_deref() == Some("compact_context"))
        {
            let state = self.state()?;
            if !is_framework(call) || !state.is_live(&call.id) || state.is_answered(&call.id) {
                continue;
            }
            framework.push(self.run_compaction(call, &op, choice, progress)?);
        }
        let state = self.state()?;
        let waiting: Vec<&Entry> = calls
            .iter()
            .copied()
            .filter(|c| !is_framework(c) && state.is_live(&c.id) && !state.is_answered(&c.id))
            .collect();
        let mut subagents = Vec::new();
        let mut blocked = Vec::new();
        let waiting: Vec<&Entry> = if request.run_subagents {
            let mut rest = Vec::new();
            for call in waiting {
                let name = call.name.clone().unwrap_or_default();
                if !self.is_subagent(&name) {
                    rest.push(call);
                    continue;
                }
                match self.run_in_turn(call, request, progress)? {
                    Ran::Run(run) => subagents.push(run),
                    Ran::Blocked(held) => blocked.push(held),
                }
            }
            rest
        } else {
            waiting
        };
        let (tool_calls, mut held) =
            self.gate_calls(&waiting, request.tool_estimate, &request.vars)?;
        blocked.append(&mut held);
        Journal::remove(&self.dir, &op)?;
        Ok(TurnReport {
            operation_id: op,
            finished_interrupted: interrupted,
            user_id,
            appended_ids: mine
                .iter()
                .filter(|e| matches!(e.kind, Kind::Assistant | Kind::ToolCall))
                .map(|e| e.id.clone())
                .collect(),
            text: received.text,
            tool_calls,
            blocked,
            subagents,
            framework,
            model: received.model,
            finish_reason: received.finish_reason,
            usage: received.usage,
        })
    }

    /// The user message and the answer (text, then tool calls, one group) in one write.
    fn append_answer(&self, journal: &Journal, received: &Received) -> Result<()> {
        let op = journal.op.as_str();
        self.write(|state| {
            let mut events = Vec::new();
            let mut offset = 0;
            if let Some(text) = &journal.user {
                let entry = self.new_entry(state, Kind::User, 0, text.clone(), op);
                events.push(Event::Append {
                    at: now(),
                    entries: vec![entry],
                });
                offset = 1;
            }
            let mut entries = Vec::new();
            if !received.text.trim().is_empty() {
                entries.push(self.new_entry(
                    state,
                    Kind::Assistant,
                    offset,
                    received.text.clone(),
                    op,
                ));
            }
            for call in &received.tool_calls {
                let text = crate::wire::canonical::to_string(&call.arguments);
                let at = offset + entries.len() as u64;
                let mut entry = self.new_entry(state, Kind::ToolCall, at, text, op);
                entry.name = Some(call.name.clone());
                entry.call = Some(call.call_id.clone());
                entry.tokens = tokens::count(self.encoding, &entry_text(&entry)) as u64;
                entries.push(entry);
            }
            if entries.len() > 1 {
                let group = entries[0].id.clone();
                for entry in &mut entries {
                    entry.group = Some(group.clone());
                }
            }
            if !entries.is_empty() {
                events.push(Event::Append { at: now(), entries });
            }
            Ok((events, ()))
        })
    }
}
