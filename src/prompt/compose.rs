//! Composing a brief into one prompt with a byte-stable, cacheable prefix.
//!
//! Order is what makes caching work: tools, then static items in manifest order, then the
//! volatile items. Only the volatile part may change between turns, so the prefix hash is
//! computed without it and two composes that differ only in `--var` values share it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::brief::{Brief, Item, LineIndex, Tier, fill_placeholders, unescape_braces};
use crate::compact::compact_markdown;
use crate::error::{Error, Result};
use crate::prompt::canonical;
use crate::prompt::wire::{Prompt, ToolDef};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComposeOptions {
    /// Compact item bodies (lossless, proven); off with `--no-compact`.
    pub compact: bool,
}

impl Default for ComposeOptions {
    fn default() -> Self {
        ComposeOptions { compact: true }
    }
}

/// The three prefix hashes (full sha256 hex) and their sizes in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixHashes {
    /// Over the canonical JSON of the tools array.
    pub tools: String,
    /// Over the static system text.
    pub system: String,
    /// Over the canonical JSON `{"system": <static text>, "tools": [...]}`: the whole
    /// cacheable prefix.
    pub prefix: String,
    pub tools_bytes: usize,
    pub system_bytes: usize,
}

impl PrefixHashes {
    pub fn prefix_bytes(&self) -> usize {
        self.tools_bytes + self.system_bytes
    }
}

/// The stable prefix of a brief: what the provider caches.
#[derive(Debug, Clone)]
pub struct Prefix {
    pub static_system: String,
    pub tools: Vec<ToolDef>,
    pub hashes: PrefixHashes,
    /// Items whose compaction could not be proven, used as written.
    pub unproven: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Composed {
    pub prompt: Prompt,
    pub hashes: PrefixHashes,
    pub unproven: Vec<String>,
    /// `--var` names no item uses.
    pub unused_vars: Vec<String>,
}

/// An item's body as it goes into the prompt: compacted when asked and proven, without
/// trailing newlines.
pub fn item_text(item: &Item, compact: bool, unproven: &mut Vec<String>) -> String {
    let body = item.body();
    let text = if compact {
        let compaction = compact_markdown(body);
        if !compaction.proven {
            unproven.push(item.id.clone());
        }
        compaction.text
    } else {
        body.to_string()
    };
    text.trim_end_matches(['\n', '\r']).to_string()
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts
        .filter(|p| !p.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The canonical JSON of a tools array as the prefix hash sees it (provider-neutral).
pub fn tools_json(tools: &[ToolDef]) -> String {
    let value = Value::Array(
        tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect(),
    );
    canonical::to_string(&value)
}

/// The stable prefix; needs no variables, since volatile items are not part of it.
pub fn prefix(brief: &Brief, options: ComposeOptions) -> Prefix {
    let mut unproven = Vec::new();
    let texts: Vec<String> = brief
        .items
        .iter()
        .filter(|item| item.tier == Tier::Static && !item.is_tool())
        .map(|item| item_text(item, options.compact, &mut unproven))
        .collect();
    prefix_of(brief, texts, unproven)
}

/// The stable prefix from the static items' texts as [`item_text`] makes them, in
/// manifest order: a caller that already compacted every item (`stats`) does not pay
/// for compacting and proving them again.
pub fn prefix_of(brief: &Brief, static_texts: Vec<String>, unproven: Vec<String>) -> Prefix {
    let static_system = join(static_texts.iter().map(|text| unescape_braces(text)));
    let tools: Vec<ToolDef> = brief
        .items
        .iter()
        .filter_map(|item| item.tool.clone())
        .collect();
    let tools_text = tools_json(&tools);
    let both = canonical::to_string(
        &json!({"system": static_system, "tools": serde_json::from_str::<Value>(&tools_text).unwrap_or(Value::Null)}),
    );
    let hashes = PrefixHashes {
        tools: canonical::sha256_hex(tools_text.as_bytes()),
        system: canonical::sha256_hex(static_system.as_bytes()),
        prefix: canonical::sha256_hex(both.as_bytes()),
        tools_bytes: tools_text.len(),
        system_bytes: static_system.len(),
    };
    Prefix {
        static_system,
        tools,
        hashes,
        unproven,
    }
}

/// Composes the whole brief, filling `{{var}}` placeholders of volatile items.
pub fn compose(
    brief: &Brief,
    vars: &BTreeMap<String, String>,
    options: ComposeOptions,
) -> Result<Composed> {
    let Prefix {
        static_system,
        tools,
        hashes,
        mut unproven,
    } = prefix(brief, options);
    let mut missing = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    let mut volatile_parts = Vec::new();
    for item in brief
        .items
        .iter()
        .filter(|item| item.tier == Tier::Volatile)
    {
        let text = item_text(item, options.compact, &mut unproven);
        for (name, _) in crate::brief::placeholders(&text) {
            used.insert(name);
        }
        let (filled, names) = fill_placeholders(&text, vars);
        // Where each name first stands in the body, from one pass (searching the body
        // once per missing name made many missing names quadratic).
        let mut first_at = std::collections::HashMap::new();
        if !names.is_empty() {
            for (name, range) in crate::brief::placeholders(item.body()) {
                first_at.entry(name).or_insert(range.start);
            }
        }
        let lines = LineIndex::new(&item.raw);
        for name in names {
            let offset = first_at.get(&name).copied().unwrap_or(0);
            let (line, _) = lines.line_col(item.body_offset + offset);
            let at = format!(
                "{}:{line}: `{{{{{name}}}}}` needs a value",
                item.path.display()
            );
            missing.push((name, at));
        }
        volatile_parts.push(filled);
    }
    if !missing.is_empty() {
        let mut names: Vec<&str> = missing.iter().map(|(name, _)| name.as_str()).collect();
        names.dedup();
        let listed: Vec<String> = names.iter().map(|n| format!("{{{{{n}}}}}")).collect();
        let flags: Vec<String> = names.iter().map(|n| format!("--var {n}=VALUE")).collect();
        return Err(Error::input(format!(
            "missing value for {} placeholder{}",
            listed.join(", "),
            if names.len() == 1 { "" } else { "s" }
        ))
        .with_details(missing.into_iter().map(|(_, at)| at).collect())
        .with_hint(format!("pass {}", flags.join(" "))));
    }
    let volatile = join(volatile_parts.into_iter());
    let unused_vars = vars
        .keys()
        .filter(|k| !used.contains(*k))
        .cloned()
        .collect();
    Ok(Composed {
        prompt: Prompt {
            static_system,
            volatile_system: (!volatile.is_empty()).then_some(volatile),
            tools,
            messages: Vec::new(),
        },
        hashes,
        unproven,
        unused_vars,
    })
}
