//! A sub-agent's conversation with its model: the bundled brief, the material, and an
//! answer that must be a valid result envelope, sent back once with its violations. Every
//! call is a ledger row (`command: "subagent"`).

use std::time::Instant;

use serde_json::Value;

use super::bundled_brief;
use crate::error::{Error, Result};
use crate::provider::{CallOptions, Provider, Settings};
use crate::session::Session;
use crate::session::envelope;
use crate::session::model::ModelChoice;
use crate::session::schema::Violation;
use crate::wire::{Message, Prompt, Role};

/// The longest envelope asked of a sub-agent's model.
const MAX_ENVELOPE_TOKENS: u32 = 4096;

/// The sub-agent's conversation with its model: the answer as a valid envelope, or after
/// one retry the violations.
pub(super) struct Conversation<'a> {
    session: &'a Session,
    choice: &'a ModelChoice,
    provider: Provider,
    settings: Settings,
    pub calls: u32,
}

impl<'a> Conversation<'a> {
    pub fn new(session: &'a Session, choice: &'a ModelChoice) -> Result<Conversation<'a>> {
        let settings = session.settings(choice)?;
        Ok(Conversation {
            session,
            choice,
            provider: Provider::new(settings.clone())?,
            settings,
            calls: 0,
        })
    }

    /// Asks `name`'s model about `material`, once more with the violations of an invalid
    /// answer. `Err(violations)` after the second.
    pub fn envelope(
        &mut self,
        name: &str,
        material: String,
        progress: &mut dyn FnMut(&str),
    ) -> Result<std::result::Result<Value, Vec<Violation>>> {
        let (system, hash) = bundled_brief(name)?;
        let mut messages = vec![Message {
            role: Role::User,
            content: material,
        }];
        let mut last = Vec::new();
        for attempt in 1..=2 {
            progress(&format!(
                "{name}: asking {} for the result envelope (call {attempt} of at most 2)",
                self.settings.model
            ));
            let prompt = Prompt {
                static_system: system.clone(),
                examples: Vec::new(),
                volatile_system: None,
                tools: Vec::new(),
                messages: messages.clone(),
            };
            let started = Instant::now();
            let result = self
                .provider
                .call(&prompt, &CallOptions::text(MAX_ENVELOPE_TOKENS));
            self.calls += 1;
            self.session.record_call(
                self.choice,
                "subagent",
                &self.settings,
                (Some(name), &hash),
                started,
                &result,
            );
            let answer = result?;
            if answer.contains_key {
                return Err(Error::provider(format!(
                    "{}'s answer contains the API key: nothing was appended",
                    answer.model
                )));
            }
            match parse_envelope(&answer.text) {
                Ok(value) => return Ok(Ok(value)),
                Err(violations) => {
                    for v in &violations {
                        progress(&format!("  invalid envelope: {v}"));
                    }
                    messages.push(Message {
                        role: Role::Assistant,
                        content: answer.text,
                    });
                    messages.push(Message {
                        role: Role::User,
                        content: retry_message(&violations),
                    });
                    last = violations;
                }
            }
        }
        Ok(Err(last))
    }
}

/// What a model is told about its invalid envelope.
pub fn retry_message(violations: &[Violation]) -> String {
    let listed: Vec<String> = violations.iter().map(|v| format!("- {v}")).collect();
    format!(
        "That answer is not a valid result envelope:\n{}\nAnswer again with the corrected JSON object only.",
        listed.join("\n")
    )
}

/// An answer as a result envelope (an outer code fence and control characters removed),
/// or every reason it is not one.
pub fn parse_envelope(answer: &str) -> std::result::Result<Value, Vec<Violation>> {
    envelope::parse_answer(answer, envelope::validate)
}
