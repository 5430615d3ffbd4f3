//! Model compression of one item, minus the network: who may be compressed, the
//! compressor brief that asks for it, and the cleaning of the answer.
//!
//! The refusal comes first and from the item's type alone, so a rule (or a constant, a
//! tool, a context item, an item with `compress: never`) is refused before any prompt is
//! built: its text can never reach a model, not even as context. Only the one item's body
//! is ever sent.

mod sanitize;

use std::path::Path;

pub use sanitize::{one_line, sanitize, strip_controls};

use crate::brief::{Brief, Item, ItemType, Manifest, Policy, parse_markdown};
use crate::error::{Error, Result};
use crate::prompt::compose::{self, ComposeOptions};
use crate::prompt::wire::{Message, Prompt, Role};

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
        .with_hint(format!(
            "compress an identity, instruction or sample item; `brief stats {}` lists them",
            brief_dir.display()
        )),
    )
}

const MANIFEST: &str = include_str!("../../briefs/compressor/brief.yaml");
const ITEMS: [(&str, &str); 4] = [
    (
        "role",
        include_str!("../../briefs/compressor/items/role.md"),
    ),
    (
        "keep",
        include_str!("../../briefs/compressor/items/keep.md"),
    ),
    (
        "remove",
        include_str!("../../briefs/compressor/items/remove.md"),
    ),
    (
        "answer",
        include_str!("../../briefs/compressor/items/answer.md"),
    ),
];

/// The built-in compressor brief, composed.
#[derive(Debug, Clone)]
pub struct Compressor {
    /// The system prompt.
    pub system: String,
    /// Prefix hash of the composed compressor brief (full hex), recorded in proposals.
    pub hash: String,
}

/// The compressor brief embedded in the binary (`briefs/compressor/`), loaded and
/// composed like any brief.
pub fn compressor() -> Result<Compressor> {
    let dir = Path::new("briefs/compressor");
    let manifest: Manifest = serde_yaml::from_str(MANIFEST)
        .map_err(|e| Error::input(format!("built-in compressor brief: {e}")))?;
    let mut problems = Vec::new();
    let mut items = Vec::new();
    for id in &manifest.items {
        let (_, text) = ITEMS.iter().find(|(name, _)| name == id).ok_or_else(|| {
            Error::input(format!(
                "built-in compressor brief: item `{id}` is not embedded"
            ))
        })?;
        let path = dir.join("items").join(format!("{id}.md"));
        items.extend(parse_markdown(
            id,
            &path,
            (*text).to_string(),
            &mut problems,
        ));
    }
    if let Some(problem) = problems.first() {
        return Err(Error::input(format!(
            "built-in compressor brief: {problem}"
        )));
    }
    let brief = Brief {
        dir: dir.to_path_buf(),
        manifest,
        items,
        warnings: Vec::new(),
        static_placeholders: Vec::new(),
    };
    let prefix = compose::prefix(&brief, ComposeOptions::default());
    Ok(Compressor {
        system: prefix.static_system,
        hash: prefix.hashes.prefix,
    })
}

/// The request for a shorter body of `item`: the compressor brief as system prompt, the
/// item's body (and nothing else of the brief) as the one user message.
pub fn prompt(compressor: &Compressor, item: &Item) -> Prompt {
    let content = format!(
        "Shorten this section (a `{}` item of an agent's system prompt). Answer with the shortened section only.\n\n{}",
        item.kind,
        item.body()
    );
    Prompt {
        static_system: compressor.system.clone(),
        volatile_system: None,
        tools: Vec::new(),
        messages: vec![Message {
            role: Role::User,
            content,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_compressor_is_the_compressor_brief_on_disk() {
        let on_disk = Brief::load(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/briefs/compressor"
        )))
        .unwrap();
        let embedded = compressor().unwrap();
        let prefix = compose::prefix(&on_disk, ComposeOptions::default());
        assert_eq!(embedded.system, prefix.static_system);
        assert_eq!(embedded.hash, prefix.hashes.prefix);
        assert!(embedded.system.contains("every URL"));
    }

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
