//! Compaction (seed 000's `compact_context`): a separate model call condenses the whole
//! of Tier 2 into a `CompactedState`, which, followed by the resume instruction, becomes
//! the new Tier 2. The old entries stay in the log.
//!
//! The bundled compaction brief (`briefs/compaction/`, embedded like the compressor), the
//! request, the checks of the answer and the whole flow ([`Session::compact`]) live here,
//! so that `brief session compact`, a turn whose model calls `compact_context` and the MCP
//! tool run the same code. The call goes through `crate::provider` and the ledger
//! (`command: "compact"`).

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::log::{Entry, Event, Kind};
use super::model::ModelChoice;
use super::render::{entry_line, entry_text, framework_entry};
use super::schema::Violation;
use super::{Session, envelope};
use crate::brief::Brief;
use crate::error::{Error, Result};
use crate::prompt::compose::{self, ComposeOptions};
use crate::provider::{CallOptions, Provider};
use crate::tokens;
use crate::wire::{Message, Prompt, Role};

const MANIFEST: &str = include_str!("../../../../briefs/compaction/brief.yaml");
const ITEMS: [(&str, &str); 3] = [
    (
        "role",
        include_str!("../../../../briefs/compaction/items/role.md"),
    ),
    (
        "keep",
        include_str!("../../../../briefs/compaction/items/keep.md"),
    ),
    (
        "answer",
        include_str!("../../../../briefs/compaction/items/answer.md"),
    ),
];

/// The compaction brief embedded in the binary, composed: (system text, prefix hash).
pub fn compaction_brief() -> Result<(String, String)> {
    let brief = Brief::embedded("briefs/compaction", MANIFEST, &ITEMS)?;
    let prefix = compose::prefix(&brief, ComposeOptions::default());
    Ok((prefix.static_system, prefix.hashes.prefix))
}

/// The compaction brief's manifest name, which its ledger rows carry (`compaction`).
pub const COMPACTION_BRIEF: &str = "compaction";

/// Tier 2 as the compaction call reads it: one line per entry, ids first.
pub fn transcript(tier2: &[&Entry]) -> String {
    tier2
        .iter()
        .map(|e| entry_line(e))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The background request: the compaction brief and the whole Tier 2. A retry adds the
/// rejected answer and what was wrong with it.
pub fn request(system: &str, transcript: &str, retry: Option<(&str, &[Violation])>) -> Prompt {
    let mut messages = vec![Message {
        role: Role::User,
        content: format!(
            "Condense this conversation history into the CompactedState JSON object.\n\n{transcript}"
        ),
    }];
    if let Some((answer, problems)) = retry {
        messages.push(Message {
            role: Role::Assistant,
            content: answer.to_string(),
        });
        let listed: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
        messages.push(Message {
            role: Role::User,
            content: format!(
                "That answer is not a valid CompactedState:\n{}\nAnswer again with the corrected JSON object only.",
                listed.join("\n")
            ),
        });
    }
    Prompt {
        static_system: system.to_string(),
        examples: Vec::new(),
        volatile_system: None,
        tools: Vec::new(),
        messages,
    }
}

/// The answer as a `CompactedState`, or every reason it is not one.
pub fn parse_state(answer: &str) -> std::result::Result<Value, Vec<Violation>> {
    envelope::parse_answer(answer, envelope::validate_compacted_state)
}

/// What a compaction did.
#[derive(Debug, Clone, Serialize)]
pub struct CompactReport {
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub state_id: String,
    pub resume_id: String,
    pub removed_ids: Vec<String>,
    /// Facts of the old Tier 2 the state does not hold (the guard's `dropped`).
    pub forgotten: Vec<crate::guard::Fact>,
    /// All of Tier 2 changed: the cache is rewritten from the first entry.
    pub tokens_rewritten: u64,
    /// The CCR hash the old Tier 2 is also kept under (`brief ccr get`).
    pub ccr: Option<String>,
    /// What the operator should know: a compaction that did not shrink Tier 2.
    pub warnings: Vec<String>,
}

impl CompactReport {
    /// One line: what was replaced and what the state forgot.
    pub fn summary(&self) -> String {
        let forgotten = self.forgotten.len();
        format!(
            "compacted {}: Tier 2 {} -> {} tokens ({} state, {} resume); {forgotten} fact{} of the old memory not in the state",
            crate::numbers::count(self.removed_ids.len() as u64, "entry", "entries"),
            super::budget::thousands(self.tokens_before),
            super::budget::thousands(self.tokens_after),
            self.state_id,
            self.resume_id,
            if forgotten == 1 { "" } else { "s" }
        )
    }
}

/// What `brief session compact` and the MCP `compact_context` tool answer: the
/// [`CompactReport`], whose document has its own key order after `status` and `summary`
/// (the keys and their order are the contract; a turn's report keeps the struct's).
#[derive(Debug, Clone)]
pub struct Compacted {
    pub report: CompactReport,
}

/// [`Compacted`]'s fields in the contract's order.
#[derive(Serialize)]
struct CompactedFields<'a> {
    tokens_before: u64,
    tokens_after: u64,
    state_id: &'a str,
    resume_id: &'a str,
    forgotten: &'a [crate::guard::Fact],
    removed_ids: &'a [String],
    tokens_rewritten: u64,
    ccr: Option<&'a str>,
    warnings: &'a [String],
}

impl Serialize for Compacted {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let r = &self.report;
        CompactedFields {
            tokens_before: r.tokens_before,
            tokens_after: r.tokens_after,
            state_id: &r.state_id,
            resume_id: &r.resume_id,
            forgotten: &r.forgotten,
            removed_ids: &r.removed_ids,
            tokens_rewritten: r.tokens_rewritten,
            ccr: r.ccr.as_deref(),
            warnings: &r.warnings,
        }
        .serialize(serializer)
    }
}

impl crate::document::Document for Compacted {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        self.report.summary()
    }
}

/// The longest state asked for.
const MAX_STATE_TOKENS: u32 = 8192;

/// How the background call ended when the provider answered: a valid state, or the
/// violations of the second invalid answer.
pub enum Obtained {
    State(Value),
    Invalid(Vec<Violation>),
}

impl Session {
    /// The seed's four steps: one background call (retried once with the violations of an
    /// invalid answer), then the replacement of Tier 2. Fails with exit 3 and nothing
    /// changed when the provider fails or the state is invalid twice. `progress` hears
    /// what happens on the way.
    pub fn compact(
        &self,
        resume: &str,
        choice: &ModelChoice,
        progress: &mut dyn FnMut(&str),
    ) -> Result<CompactReport> {
        if resume.trim().is_empty() {
            return Err(Error::input(
                "the resume instruction is empty: say what to do first after the reset",
            ));
        }
        let state = self.state()?;
        let expected: Vec<String> = state.tier2().map(|e| e.id.clone()).collect();
        if expected.is_empty() {
            return Err(Error::input("Tier 2 is empty: nothing to compact"));
        }
        // A file planted where the writer's lock or cache should be is refused before the
        // model call is paid for, not after.
        self.check_writable()?;
        match self.obtain_state(&state.tier2().collect::<Vec<_>>(), choice, progress)? {
            Obtained::State(value) => self.apply_compaction(&expected, &value, resume, None),
            Obtained::Invalid(violations) => Err(invalid_twice(&violations)),
        }
    }

    /// The background call for `tier2`: provider failures are errors (exit 3); an invalid
    /// state twice is [`Obtained::Invalid`], for the caller to report.
    pub fn obtain_state(
        &self,
        tier2: &[&Entry],
        choice: &ModelChoice,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Obtained> {
        let settings = self.settings(choice)?;
        let provider = Provider::new(settings.clone())?;
        let (system, hash) = compaction_brief()?;
        let transcript = transcript(tier2);
        let options = CallOptions::text(MAX_STATE_TOKENS);
        let mut retry: Option<(String, Vec<Violation>)> = None;
        for attempt in 1..=2 {
            let prompt = request(
                &system,
                &transcript,
                retry.as_ref().map(|(a, v)| (a.as_str(), v.as_slice())),
            );
            progress(&format!(
                "asking {} for the compacted state (call {attempt} of at most 2)",
                settings.model
            ));
            let started = Instant::now();
            let result = provider.call(&prompt, &options);
            self.record_call(
                choice,
                "compact",
                &settings,
                (Some(COMPACTION_BRIEF), &hash),
                started,
                &result,
            );
            let answer = result?;
            match parse_state(&answer.text) {
                Ok(value) => return Ok(Obtained::State(value)),
                Err(violations) => {
                    for v in &violations {
                        progress(&format!("  invalid CompactedState: {v}"));
                    }
                    retry = Some((answer.text, violations));
                }
            }
        }
        Ok(Obtained::Invalid(retry.map(|(_, v)| v).unwrap_or_default()))
    }

    /// Replaces Tier 2 with the state and the resume instruction. `expected` are the live
    /// ids the state was made from: if Tier 2 changed meanwhile, nothing is written
    /// (a conflict), since the state would not describe the entries it removes.
    pub fn apply_compaction(
        &self,
        expected: &[String],
        state: &Value,
        resume: &str,
        op: Option<&str>,
    ) -> Result<CompactReport> {
        if resume.trim().is_empty() {
            return Err(Error::input("the resume instruction is empty"));
        }
        tokens::count(self.encoding, "warm");
        let encoding = self.encoding;
        self.write(|current| {
            let live: Vec<String> = current.tier2().map(|e| e.id.clone()).collect();
            if live != expected {
                return Err(Error::conflict(
                    "Tier 2 changed while the compaction ran: nothing was replaced",
                )
                .with_hint("run the compaction again"));
            }
            let old: Vec<&Entry> = current.tier2().collect();
            // The facts the state should keep are the conversation's, not the framework's
            // own reports (a purge's token counts, a refusal): those are left out of the
            // guard's original, so they are never listed as forgotten.
            let old_text = old
                .iter()
                .filter(|e| !is_framework_report(e))
                .map(|e| entry_text(e))
                .collect::<Vec<_>>()
                .join("\n");
            let make = |kind: Kind, offset: u64, text: String| {
                let id = current.next_id(kind, offset);
                framework_entry(id, kind, text, op.map(str::to_string), encoding)
            };
            let state_entry = make(
                Kind::State,
                0,
                serde_json::to_string_pretty(state).unwrap_or_default(),
            );
            let resume_entry = make(Kind::Resume, 1, resume.trim().to_string());
            let guard = crate::guard::check(&old_text, &state_entry.text);
            let after = state_entry.tokens + resume_entry.tokens;
            let mut warnings = Vec::new();
            if after >= current.tier2_tokens {
                warnings.push(format!(
                    "Tier 2 did not shrink: {} tokens before, {} after (state and resume); the compacted state is no smaller than the memory it replaced",
                    super::budget::thousands(current.tier2_tokens),
                    super::budget::thousands(after)
                ));
            }
            let report = CompactReport {
                tokens_before: current.tier2_tokens,
                tokens_after: after,
                state_id: state_entry.id.clone(),
                resume_id: resume_entry.id.clone(),
                removed_ids: live.clone(),
                forgotten: guard
                    .dropped
                    .into_iter()
                    .filter(|fact| !super::tools::is_framework_name(&fact.value))
                    .collect(),
                tokens_rewritten: after,
                ccr: self.keep_originals(
                    crate::ccr::Strategy::SessionCompact,
                    &old,
                    &state_entry.text,
                ),
                warnings,
            };
            let event = Event::Compact {
                at: crate::clock::format_rfc3339(crate::clock::now_ms()),
                ids: live,
                state: state_entry,
                resume: resume_entry,
                ccr: report.ccr.clone(),
            };
            Ok((vec![event], report))
        })
    }
}

/// A tool result the framework wrote itself (a model's `purge` or `compact_context`
/// answered with its report, or a refusal): not part of what the conversation knows.
fn is_framework_report(entry: &Entry) -> bool {
    entry.kind == Kind::ToolResult && entry.source.as_deref() == Some("framework")
}

/// The error of a compaction whose state was invalid twice (exit 3, nothing changed).
pub fn invalid_twice(violations: &[Violation]) -> Error {
    Error::provider("the model answered with an invalid CompactedState twice: nothing changed")
        .with_details(violations.iter().map(ToString::to_string).collect())
}
