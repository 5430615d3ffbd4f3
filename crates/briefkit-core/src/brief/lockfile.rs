//! `brief.lock`: what CI holds a brief to. Every rule item's exact bytes (hash and text,
//! so a failed check can show what changed) and the stable prefix's hashes and size.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Brief;
use super::load::{MAX_LOCK_BYTES, read_text};
use super::problem::into_error;
use crate::error::{Error, Result};
use crate::wire::Wire;
use crate::wire::canonical::sha256_hex;
use crate::wire::prefix::PrefixHashes;

pub const LOCK_FILE: &str = "brief.lock";
const HEADER: &str = "# Written by `brief lock`; checked by `brief check`. Do not edit by hand.\n";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub version: u32,
    pub tokenizer: String,
    /// Rule items by id.
    pub rules: BTreeMap<String, LockedRule>,
    /// The manifest's static `vars:` by name, as locked: they are part of the prefix, so a
    /// changed value shows by name in the lock's diff and in `check`'s prefix note.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    pub prefix: LockedPrefix,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LockedRule {
    /// sha256 of the item file's exact bytes, front matter included.
    pub sha256: String,
    /// The file's text at lock time, for the diff a failing check shows.
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LockedPrefix {
    /// The wire format the hashes were taken in (`wire::prefix`); locks written before it
    /// was recorded were OpenAI's.
    #[serde(default = "default_wire")]
    pub wire: Wire,
    pub hash: String,
    pub tools: String,
    pub system: String,
    pub bytes: usize,
    pub tokens: usize,
}

fn default_wire() -> Wire {
    Wire::OpenAi
}

impl Lock {
    pub fn new(brief: &Brief, hashes: &PrefixHashes, prefix_tokens: usize) -> Lock {
        let rules = brief
            .items
            .iter()
            .filter(|item| item.kind == super::ItemType::Rule)
            .map(|item| {
                let rule = LockedRule {
                    sha256: sha256_hex(item.raw.as_bytes()),
                    text: item.raw.clone(),
                };
                (item.id.clone(), rule)
            })
            .collect();
        Lock {
            version: 1,
            tokenizer: brief.manifest.tokenizer.to_string(),
            rules,
            vars: brief.manifest.vars.clone(),
            prefix: LockedPrefix {
                wire: hashes.wire,
                hash: hashes.prefix.clone(),
                tools: hashes.tools.clone(),
                system: hashes.system.clone(),
                bytes: hashes.prefix_bytes(),
                tokens: prefix_tokens,
            },
        }
    }

    pub fn to_yaml(&self) -> Result<String> {
        let body = serde_yaml::to_string(self)
            .map_err(|e| Error::input(format!("cannot render the lock: {e}")).with_source(e))?;
        let text = format!("{HEADER}{body}");
        if text.len() as u64 > MAX_LOCK_BYTES {
            return Err(Error::input(format!(
                "the lock would be {} bytes, over the {} MiB that `brief check` reads",
                text.len(),
                MAX_LOCK_BYTES / (1024 * 1024)
            ))
            .with_hint("the lock holds every rule's text: keep the rules smaller or fewer"));
        }
        Ok(text)
    }

    /// Reads a lock file; `Ok(None)` when there is none.
    pub fn read(path: &Path) -> Result<Option<Lock>> {
        if !path.exists() {
            return Ok(None);
        }
        let mut problems = Vec::new();
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // A lock linked to a file outside the brief is not read (nor shown in errors).
        crate::files::inside::check_inside(dir, path)?;
        let text = read_text(path, MAX_LOCK_BYTES, &mut problems)
            .ok_or_else(|| into_error(dir, &problems))?;
        let lock: Lock = crate::text::yaml::from_str(&text).map_err(|err| {
            let at = err
                .location()
                .map_or(String::new(), |(line, column)| format!(":{line}:{column}"));
            let message = err.message();
            Error::input(format!(
                "{}{at}: invalid lock file: {message}",
                path.display()
            ))
            .with_hint("regenerate it with `brief lock`")
        })?;
        if lock.version != 1 {
            return Err(Error::input(format!(
                "{}: lock file version {} is not supported (this brief writes version 1)",
                path.display(),
                lock.version
            ))
            .with_hint("regenerate it with `brief lock`"));
        }
        Ok(Some(lock))
    }

    /// Line and column (1-based) of the prefix's `hash:` in the lock file at `path`, where
    /// `check` points a changed prefix (an annotation needs a line). Read again only then.
    pub fn prefix_hash_position(path: &Path) -> Option<(usize, usize)> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
        crate::files::inside::check_inside(dir, path).ok()?;
        let text = read_text(path, MAX_LOCK_BYTES, &mut Vec::new())?;
        let mut in_prefix = false;
        for (i, line) in text.lines().enumerate() {
            if !line.starts_with([' ', '\t']) {
                in_prefix = line.trim_end() == "prefix:";
            } else if in_prefix && line.starts_with("  hash:") {
                return Some((i + 1, 3));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_text_with_trailing_spaces_and_crlf_round_trips_exactly() {
        let mut rules = BTreeMap::new();
        let text = "---\r\ntype: rule\r\n---\r\nNever  \r\n\ttab\n\n".to_string();
        rules.insert(
            "r".to_string(),
            LockedRule {
                sha256: sha256_hex(text.as_bytes()),
                text: text.clone(),
            },
        );
        let lock = Lock {
            version: 1,
            tokenizer: "o200k_base".into(),
            rules,
            vars: BTreeMap::from([("plan".to_string(), "Pro: \"2\"".to_string())]),
            prefix: LockedPrefix {
                wire: Wire::Anthropic,
                hash: "h".into(),
                tools: "t".into(),
                system: "s".into(),
                bytes: 1,
                tokens: 1,
            },
        };
        let yaml = lock.to_yaml().unwrap();
        let back: Lock = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(back.rules["r"].text, text);
        assert_eq!(back.prefix.wire, Wire::Anthropic);
        assert_eq!(back.vars, lock.vars);
    }
}
