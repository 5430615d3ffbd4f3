//! `purge`: Tier 2 entries removed (a call and its result together), with an optional
//! summary in their place, and the report of what that costs the prompt cache.

use std::collections::HashSet;

use serde::Serialize;

use super::Session;
use super::budget;
use super::cache::Cache;
use super::flow;
use super::log::{Entry, Event, Kind};
use super::ops::{call_of, check_answerable, now};
use super::render::{entry_text, framework_entry};
use super::state::{State, is_tier2_id};
use crate::brief::Tier;
use crate::error::{Error, Result, Topic};
use crate::tokens;

/// What `purge` did.
#[derive(Debug, Clone, Serialize)]
pub struct PurgeReport {
    pub removed_ids: Vec<String>,
    pub removed_tokens: u64,
    pub summary_id: Option<String>,
    pub summary_tokens: u64,
    /// The first Tier 2 entry whose bytes changed: the cached prefix ends before it.
    pub cache_break_at: String,
    /// Tokens of the prefix still served from cache after the purge (Tier 1 and the
    /// entries before the break).
    pub cache_break_after_tokens: u64,
    /// Tokens after the break that the provider writes to its cache again.
    pub tokens_rewritten: u64,
    pub tier2_tokens_before: u64,
    pub tier2_tokens_after: u64,
    /// The CCR hash the removed entries are also kept under (`brief ccr get`).
    pub ccr: Option<String>,
}

impl PurgeReport {
    /// The one-line account of a purge, the same for the CLI and the MCP tool.
    pub fn summary_line(&self) -> String {
        use super::budget::thousands;
        format!(
            "purged {} ({} tokens){}; cache breaks at {}: {} tokens written to the cache again",
            self.removed_ids.join(", "),
            thousands(self.removed_tokens),
            self.summary_id
                .as_ref()
                .map(|id| format!(", summary {id} ({} tokens)", thousands(self.summary_tokens)))
                .unwrap_or_default(),
            self.cache_break_at,
            thousands(self.tokens_rewritten)
        )
    }
}

/// `session purge --json` and the MCP `purge` tool: `status`, the one-line summary, then
/// every field of the report.
impl crate::document::Document for PurgeReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        self.summary_line()
    }
}

impl Session {
    /// Removes entries from Tier 2, with an optional summary in the first one's place.
    pub fn purge(&self, ids: &[String], summary: Option<&str>) -> Result<PurgeReport> {
        self.purge_answering(ids, summary, None)
            .map(|(report, _)| report)
    }

    /// [`Session::purge`] asked for by the model's `purge` call `answering = (tool_call_N,
    /// op_N)`: its result is appended in the same write as the purge, so a crash leaves
    /// both or neither.
    pub fn purge_answering(
        &self,
        ids: &[String],
        summary: Option<&str>,
        answering: Option<(&str, &str)>,
    ) -> Result<(PurgeReport, Option<Entry>)> {
        if let Some((call, _)) = answering
            && ids.iter().any(|id| id == call)
        {
            return Err(Error::input(format!(
                "`{call}` is this purge's own call; it cannot remove itself"
            )));
        }
        if ids.is_empty() {
            return Err(Error::input("no entry named to purge"));
        }
        if summary.is_some_and(|s| s.trim().is_empty()) {
            return Err(Error::input("the summary is empty"));
        }
        for id in ids {
            self.refuse_non_tier2(id)?;
        }
        tokens::count(self.encoding, "warm");
        let encoding = self.encoding;
        let tier1 = {
            let mut memo = Cache::read(&self.dir)?.memo;
            self.tier1_tokens(&mut memo)
        };
        self.write(|state| {
            let set = check_removable(state, ids)?;
            let removed: Vec<&Entry> = state
                .tier2()
                .filter(|e| set.contains(e.id.as_str()))
                .collect();
            let summary_entry = summary.map(|text| {
                let id = state.next_id(Kind::Summary, 0);
                framework_entry(id, Kind::Summary, text.to_string(), None, encoding)
            });
            let old: Vec<&Entry> = state.tier2().collect();
            let remaining: Vec<&Entry> = old
                .iter()
                .copied()
                .filter(|e| !set.contains(e.id.as_str()))
                .collect();
            let wanted = old
                .iter()
                .position(|e| set.contains(e.id.as_str()))
                .expect("ids were checked live");
            let position = summary_entry
                .as_ref()
                .map(|_| flow::summary_position(&remaining, wanted));
            if summary_entry.is_none()
                && let Some(first) = remaining.first().filter(|e| flow::is_assistant(e.kind))
            {
                return Err(Error::input(format!(
                    "the purge would leave Tier 2 opening with {}, an assistant message; providers require the conversation to open with the user's message",
                    first.id
                ))
                .with_hint("give a summary (it takes the place of the first purged entry), or purge fewer entries"));
            }
            let mut new: Vec<&str> = remaining.iter().map(|e| e.id.as_str()).collect();
            if let (Some(p), Some(entry)) = (position, &summary_entry) {
                new.insert(p, entry.id.as_str());
            }
            // The first entry whose place changed; an assistant message changes as a whole.
            let mut first = old
                .iter()
                .zip(&new)
                .position(|(a, b)| a.id != *b)
                .unwrap_or(new.len().min(old.len()))
                .min(old.len() - 1);
            while first > 0
                && flow::is_assistant(old[first - 1].kind)
                && flow::is_assistant(old[first].kind)
            {
                first -= 1;
            }
            let removed_tokens: u64 = removed.iter().map(|e| e.tokens).sum();
            let before: u64 = old[..first].iter().map(|e| e.tokens).sum();
            let summary_tokens = summary_entry.as_ref().map_or(0, |e| e.tokens);
            let after = state.tier2_tokens - removed_tokens + summary_tokens;
            let report = PurgeReport {
                removed_ids: removed.iter().map(|e| e.id.clone()).collect(),
                removed_tokens,
                summary_id: summary_entry.as_ref().map(|e| e.id.clone()),
                summary_tokens,
                cache_break_at: old[first].id.clone(),
                cache_break_after_tokens: tier1 + before,
                tokens_rewritten: after - before,
                tier2_tokens_before: state.tier2_tokens,
                tier2_tokens_after: after,
                ccr: None,
            };
            let mut report = report;
            report.ccr = self.keep_originals(
                crate::ccr::Strategy::SessionPurge,
                &removed,
                summary.unwrap_or_default(),
            );
            let offset = u64::from(summary_entry.is_some());
            let event = Event::Purge {
                at: now(),
                ids: report.removed_ids.clone(),
                before: position.and_then(|p| remaining.get(p).map(|e| e.id.clone())),
                summary: summary_entry,
                ccr: report.ccr.clone(),
            };
            let mut events = vec![event];
            let result = answering.map(|(call, op)| {
                let mut entry = Entry {
                    id: state.next_id(Kind::ToolResult, offset),
                    kind: Kind::ToolResult,
                    text: purge_result_text(&report),
                    tokens: 0,
                    name: None,
                    call: Some(call.to_string()),
                    group: None,
                    source: Some("framework".into()),
                    op: Some(op.to_string()),
                    over_budget: false,
                };
                entry.tokens = tokens::count(encoding, &entry_text(&entry)) as u64;
                entry
            });
            if let Some(entry) = &result {
                check_answerable(state, call_of(entry))?;
                events.push(Event::Append {
                    at: now(),
                    entries: vec![entry.clone()],
                });
            }
            Ok((events, (report, result)))
        })
    }

    /// An id that names something of Tier 1 or Tier 3, or nothing at all, is refused by
    /// name before the log is read.
    fn refuse_non_tier2(&self, id: &str) -> Result<()> {
        if is_tier2_id(id) {
            return Ok(());
        }
        let tier = self
            .brief
            .items
            .iter()
            .find(|i| i.id == id)
            .map(|i| i.tier)
            .or_else(|| {
                self.tools
                    .iter()
                    .any(|t| t.name == id)
                    .then_some(Tier::Static)
            });
        let why = match tier {
            Some(Tier::Static) => "is part of Tier 1 (the brief's static prefix)".to_string(),
            Some(Tier::Volatile) => "is part of Tier 3 (rebuilt on every render)".to_string(),
            None if ["status", "telemetry", "tier3"].contains(&id) => {
                "is part of Tier 3 (rebuilt on every render)".to_string()
            }
            None => "is not a Tier 2 id (msg_N, tool_call_N or tool_res_N)".to_string(),
        };
        Err(Error::input(format!(
            "`{id}` {why}; only Tier 2 entries can be purged"
        )))
    }
}

/// What the model reads back from its own `purge`.
pub fn purge_result_text(report: &PurgeReport) -> String {
    let mut text = format!(
        "Purged {} ({} tokens).",
        report.removed_ids.join(", "),
        budget::thousands(report.removed_tokens)
    );
    if let Some(id) = &report.summary_id {
        text.push_str(&format!(
            " Summary {id} ({} tokens) stands in their place.",
            budget::thousands(report.summary_tokens)
        ));
    }
    text.push_str(&format!(
        " Tier 2: {} -> {} tokens. The cache breaks at {}: {} tokens are written to the cache again on the next call.",
        budget::thousands(report.tier2_tokens_before),
        budget::thousands(report.tier2_tokens_after),
        report.cache_break_at,
        budget::thousands(report.tokens_rewritten)
    ));
    text
}

/// The ids as a set, once each is known, live, and purged together with its partner.
fn check_removable<'a>(state: &State, ids: &'a [String]) -> Result<HashSet<&'a str>> {
    let set: HashSet<&str> = ids.iter().map(String::as_str).collect();
    for id in ids {
        match state.entry(id) {
            None => {
                return Err(Error::input(format!(
                    "`{id}`: no such entry in this session"
                )));
            }
            Some(_) if !state.is_live(id) => {
                return Err(Error::input(format!(
                    "`{id}` was already {}",
                    state.entry_state(id)
                )));
            }
            Some(entry) if entry.kind == Kind::ToolCall => {
                if let Some(result) = state.live_result_of(id)
                    && !set.contains(result.id.as_str())
                {
                    return Err(Error::input(format!(
                        "`{id}` is a tool call whose result {} stays: providers reject a result without its call",
                        result.id
                    ))
                    .with_topic(Topic::PurgeBoth {
                        ids: [id.to_string(), result.id.clone()],
                    }));
                }
            }
            Some(entry) if entry.kind == Kind::ToolResult => {
                if let Some(call) = entry.call.as_deref()
                    && state.is_live(call)
                    && !set.contains(call)
                {
                    return Err(Error::input(format!(
                        "`{id}` is the result of {call}, which stays: providers reject a call without its result"
                    ))
                    .with_topic(Topic::PurgeBoth {
                        ids: [call.to_string(), id.to_string()],
                    }));
                }
            }
            Some(_) => {}
        }
    }
    Ok(set)
}
