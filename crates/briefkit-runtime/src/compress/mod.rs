//! Model compression of one item, minus the network: who may be compressed, the
//! compressor brief that asks for it, and the cleaning of the answer.
//!
//! The refusal comes first and from the item's type alone, so a rule (or a constant, a
//! tool, a context item, an item with `compress: never`) is refused before any prompt is
//! built: its text can never reach a model, not even as context. Only the one item's body
//! is ever sent.

mod compressor;
mod estimate;
mod figures;
mod proposal;
mod propose;
pub mod review;
mod sanitize;

use std::path::Path;

pub use compressor::{Compressor, bundled, compressor, from_dir, prompt};

use crate::wire::{Message, Prompt, Role};
pub use estimate::{Estimate, EstimateRequest, Estimates, Prices, estimate, estimate_run, prices};
pub use figures::{Batch, BatchItem, ProposalFigures, RefusedItem};
pub use proposal::{CallSettings, build, rejudge, status, token_change};
pub use propose::{
    ACCEPT, Event, Job, PendingCall, Proposed, Ran, Request, Unwatched, Watch, propose,
    propose_all, run,
};
pub use sanitize::sanitize;

use crate::brief::{Brief, Item, ItemType, Policy};
use crate::error::Error;

/// Why `item` may not be sent to a model, as an input error (exit 2) naming the policy;
/// `None` when it may.
pub fn refusal(item: &Item, brief_dir: &Path) -> Option<Error> {
    if item.policy == Policy::Reviewable {
        return None;
    }
    let why = match item.kind {
        ItemType::Rule => "rules are never sent to a model: their wording is a limit the agent must not cross, so it changes only by hand and `brief lock`".to_string(),
        ItemType::Tool => "tools are never sent to a model for rewording: their schema is part of the cacheable prefix".to_string(),
        ItemType::Constant | ItemType::Context => format!(
            "{} items are never sent to a model for rewording; `brief compact` is their only rewrite",
            item.kind
        ),
        _ if item.compress_never => "its front matter says `compress: never`".to_string(),
        _ => format!("its policy is {}", item.policy),
    };
    Some(
        Error::input(format!(
            "`{}` ({}, policy: {}) cannot be compressed: {why}",
            item.id, item.kind, item.policy
        ))
        .with_details(vec![format!("{}", item.path.display())])
        .with_hint("compress an identity, instruction or sample item")
        .with_topic(crate::error::Topic::NotCompressible {
            brief: brief_dir.to_path_buf(),
        }),
    )
}

/// The requests for a shorter `item`: [`prompt`] for a Markdown body; for a conversation
/// sample one per message, each asking for that message's content alone (roles and count
/// never reach the model, so the proposal keeps them by construction).
pub fn prompts(compressor: &Compressor, item: &Item) -> Vec<Prompt> {
    let Some(messages) = item.messages() else {
        return vec![prompt(compressor, item)];
    };
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| Prompt {
            static_system: compressor.system.clone(),
            examples: compressor.examples.clone(),
            messages: vec![Message {
                role: Role::User,
                content: format!(
                    "Shorten this message (the `{}` turn, message {} of {}, of a worked example in an agent's system prompt). Answer with the shortened message only.\n\n{}",
                    m.role.as_str(),
                    i + 1,
                    messages.len(),
                    m.content
                ),
            }],
            ..Prompt::default()
        })
        .collect()
}

/// The items a compress run asks about: the item `id` (refused with why when it may not
/// be sent, before any prompt is built), or every eligible item when `id` is `None`.
pub fn targets<'b>(brief: &'b Brief, id: Option<&str>) -> Result<Vec<&'b Item>, Error> {
    let Some(id) = id else {
        return Ok(eligible(brief).0);
    };
    let item = brief.require_item(id)?;
    match refusal(item, &brief.dir) {
        Some(refused) => Err(refused),
        None => Ok(vec![item]),
    }
}

/// The brief's items split into those a model may be asked about (in manifest order) and
/// the refused ones with why, for `compress --all`.
pub fn eligible(brief: &Brief) -> (Vec<&Item>, Vec<(&Item, Error)>) {
    let mut eligible = Vec::new();
    let mut refused = Vec::new();
    for item in &brief.items {
        match refusal(item, &brief.dir) {
            None => eligible.push(item),
            Some(err) => refused.push((item, err)),
        }
    }
    (eligible, refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brief::parse_markdown;

    #[test]
    fn only_reviewable_items_may_be_sent() {
        let mut problems = Vec::new();
        for (front, allowed) in [
            ("type: instruction", true),
            ("type: sample", true),
            ("type: identity", true),
            ("type: rule", false),
            ("type: constant", false),
            ("type: context", false),
            ("type: instruction\ncompress: never", false),
        ] {
            let raw = format!("---\n{front}\n---\nBody.\n");
            let item = parse_markdown("x", Path::new("x.md"), raw, &mut problems).unwrap();
            let refused = refusal(&item, Path::new("b"));
            assert_eq!(refused.is_none(), allowed, "{front}");
            if let Some(err) = refused {
                assert_eq!(err.exit_code(), 2);
                assert!(err.message.contains("policy:"), "{}", err.message);
            }
        }
    }
}
