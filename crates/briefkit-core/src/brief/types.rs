//! Item types, tiers and policies: what each kind of item is and what may happen to it.
//!
//! This table is the product's safety routing. A rule is never sent to a model, whatever
//! any flag or front matter says: the policy comes from the type, and the only override
//! an item can make is to opt *out* of model compression.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemType {
    Identity,
    Instruction,
    Rule,
    Sample,
    Constant,
    Tool,
    Context,
}

impl ItemType {
    pub const ALL: [ItemType; 7] = [
        ItemType::Identity,
        ItemType::Instruction,
        ItemType::Rule,
        ItemType::Sample,
        ItemType::Constant,
        ItemType::Tool,
        ItemType::Context,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemType::Identity => "identity",
            ItemType::Instruction => "instruction",
            ItemType::Rule => "rule",
            ItemType::Sample => "sample",
            ItemType::Constant => "constant",
            ItemType::Tool => "tool",
            ItemType::Context => "context",
        }
    }

    pub fn default_tier(self) -> Tier {
        match self {
            ItemType::Context => Tier::Volatile,
            _ => Tier::Static,
        }
    }

    /// Whether a model may ever propose a new body for this type.
    pub fn model_compressible(self) -> bool {
        matches!(
            self,
            ItemType::Identity | ItemType::Instruction | ItemType::Sample
        )
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `static`: part of the cacheable prefix. `volatile`: rebuilt every turn, after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Static,
    Volatile,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Static => "static",
            Tier::Volatile => "volatile",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What may happen to an item's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// The wording is never changed by any tool: rules (bytes locked) and tools.
    Verbatim,
    /// Lossless whitespace compaction only; never sent to a model for rewording.
    CompactOnly,
    /// A model may propose a shorter body, which a human reviews and accepts or not.
    Reviewable,
}

impl Policy {
    pub fn of(kind: ItemType, compress_never: bool) -> Policy {
        match kind {
            ItemType::Rule | ItemType::Tool => Policy::Verbatim,
            ItemType::Constant | ItemType::Context => Policy::CompactOnly,
            _ if compress_never => Policy::CompactOnly,
            _ => Policy::Reviewable,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Verbatim => "verbatim",
            Policy::CompactOnly => "compact-only",
            Policy::Reviewable => "reviewable",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[a-z0-9][a-z0-9_-]{0,63}`: the only names that can become a file name.
pub fn valid_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_never_model_compressible_even_without_opt_out() {
        assert!(!ItemType::Rule.model_compressible());
        assert_eq!(Policy::of(ItemType::Rule, false), Policy::Verbatim);
        assert_eq!(Policy::of(ItemType::Sample, true), Policy::CompactOnly);
        assert_eq!(Policy::of(ItemType::Sample, false), Policy::Reviewable);
    }

    #[test]
    fn ids_that_could_leave_the_directory_are_invalid() {
        for bad in ["", "../x", "a/b", "A", "-a", "_a", "a.b", &"a".repeat(65)] {
            assert!(!valid_id(bad), "{bad}");
        }
        for good in ["a", "0", "refund-policy", "tone_2", &"a".repeat(64)] {
            assert!(valid_id(good), "{good}");
        }
    }
}
