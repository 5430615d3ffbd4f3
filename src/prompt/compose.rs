//! Composing a brief into one prompt with a byte-stable, cacheable prefix.
//!
//! Order is what makes caching work: tools, then static items in manifest order, then the
//! volatile items. Only the volatile part may change between turns; it lands in the live
//! zone of the request body, so two composes that differ only in `--var` values share their
//! stable prefix, whose identity `prompt::prefix` takes from the body as sent.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::brief::{Brief, Item, LineIndex, Tier, fill_placeholders, unescape_braces};
use crate::compact::compact_markdown;
use crate::error::{Error, Result};
use crate::prompt::canonical;
pub use crate::prompt::prefix::PrefixHashes;
use crate::prompt::prefix::{StablePrefix, Wire};
use crate::prompt::wire::{self, Prompt, ToolDef};

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

/// The stable prefix of a brief: what the provider caches.
#[derive(Debug, Clone)]
pub struct Prefix {
    pub static_system: String,
    pub tools: Vec<ToolDef>,
    /// In the brief's wire format ([`brief_wire`]).
    pub hashes: PrefixHashes,
    /// Items whose compaction could not be proven, used as written.
    pub unproven: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Composed {
    pub prompt: Prompt,
    /// In the brief's wire format ([`brief_wire`]); [`Composed::stable_prefix`] for another.
    pub hashes: PrefixHashes,
    pub unproven: Vec<String>,
    /// `--var` names no item uses.
    pub unused_vars: Vec<String>,
}

impl Composed {
    /// The request body in `wire`, exactly as it is printed and sent.
    pub fn body(&self, wire: Wire, model: Option<&str>, cache_key: Option<&str>) -> Value {
        wire::body(&self.prompt, wire, model, cache_key)
    }

    /// The stable prefix of this prompt's body in `wire`.
    pub fn stable_prefix(&self, wire: Wire) -> StablePrefix {
        stable_prefix(&self.prompt, wire)
    }
}

/// The stable prefix of a prompt's body in `wire` (model, cache key and conversation are
/// not part of it).
pub fn stable_prefix(prompt: &Prompt, wire: Wire) -> StablePrefix {
    let body = wire::body(prompt, wire, None, None);
    StablePrefix::of_body(&body).expect("a composed body is a request body")
}

/// The wire format a brief's prefix identity (lock, check, stats, `compose --stats` for
/// text) is taken in: the manifest's `model.provider` when it is `anthropic`, else OpenAI's
/// chat completions, which every other provider speaks.
pub fn brief_wire(brief: &Brief) -> Wire {
    match brief.manifest.model.as_ref().map(|m| m.provider.as_str()) {
        Some("anthropic") => Wire::Anthropic,
        _ => Wire::OpenAi,
    }
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

/// The tools as canonical JSON (name, description, input schema; keys sorted), for counting
/// their tokens independently of a provider's wrapper.
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
    // Static items may use the manifest's build-time `vars` (the loader refused any other
    // placeholder there); filling them here makes their values part of the prefix hash.
    let static_system = join(static_texts.iter().map(|text| {
        if brief.manifest.vars.is_empty() {
            unescape_braces(text)
        } else {
            fill_placeholders(text, &brief.manifest.vars).0
        }
    }));
    let tools: Vec<ToolDef> = brief
        .items
        .iter()
        .filter_map(|item| item.tool.clone())
        .collect();
    let prompt = Prompt {
        static_system,
        tools,
        ..Prompt::default()
    };
    let hashes = PrefixHashes::of(&stable_prefix(&prompt, brief_wire(brief)));
    let Prompt {
        static_system,
        tools,
        ..
    } = prompt;
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
    // Volatile items see the build-time `vars` too; `--var` overrides them.
    let given = vars;
    let merged;
    let vars = if brief.manifest.vars.is_empty() {
        vars
    } else {
        let mut all = brief.manifest.vars.clone();
        all.extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged = all;
        &merged
    };
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
    let unused_vars = given
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
