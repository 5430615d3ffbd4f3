//! Composing a brief into one prompt with a byte-stable, cacheable prefix.
//!
//! Order is what makes caching work: tools, then static items in manifest order (a
//! `format: messages` sample's turns lifted out as worked examples right after the static
//! system text, see `prompt::examples`), then the volatile items. Only the volatile part may change between turns; it lands in the live
//! zone of the request body, so two composes that differ only in `--var` values share their
//! stable prefix, whose identity `prompt::prefix` takes from the body as sent.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::brief::{Brief, Item, LineIndex, Tier, fill_placeholders, unescape_braces};
use crate::compact::compact_markdown;
use crate::error::{Error, Result};
use crate::prompt::canonical;
use crate::prompt::examples;
pub use crate::prompt::prefix::PrefixHashes;
use crate::prompt::prefix::{StablePrefix, Wire};
use crate::prompt::wire::{self, Message, Prompt, ToolDef};
use crate::tokens::{self, Encoding};

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
    /// The static system text (message samples are not in it: they are `examples`).
    pub static_system: String,
    /// The worked examples of `format: messages` samples, in manifest order.
    pub examples: Vec<Message>,
    /// The static part as `--format text` shows it: message samples as readable turns at
    /// their place (equal to `static_system` when the brief has none).
    pub static_text: String,
    pub tools: Vec<ToolDef>,
    /// In the brief's wire format ([`brief_wire`]).
    pub hashes: PrefixHashes,
    /// Items whose compaction could not be proven, used as written.
    pub unproven: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Composed {
    pub prompt: Prompt,
    /// The static part as `--format text` shows it (see [`Prefix::static_text`]).
    pub static_text: String,
    /// In the brief's wire format ([`brief_wire`]); [`Composed::stable_prefix`] for another.
    pub hashes: PrefixHashes,
    pub unproven: Vec<String>,
    /// `--var` names no item uses.
    pub unused_vars: Vec<String>,
}

impl Prefix {
    /// Tokens of the static system text and of the examples' contents (not the tools).
    pub fn static_tokens(&self, encoding: Encoding) -> usize {
        static_tokens(encoding, &self.static_system, &self.examples)
    }
}

/// Tokens of a static system text and of worked examples' contents.
pub fn static_tokens(encoding: Encoding, static_system: &str, examples: &[Message]) -> usize {
    tokens::count(encoding, static_system)
        + examples
            .iter()
            .map(|m| tokens::count(encoding, &m.content))
            .sum::<usize>()
}

impl Composed {
    /// The prompt as `--format text` prints it: the static part (message samples as
    /// readable turns at their place), a blank line, the volatile part.
    pub fn text(&self) -> String {
        Prompt {
            static_system: self.static_text.clone(),
            examples: Vec::new(),
            ..self.prompt.clone()
        }
        .system_text()
    }

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
        .map(|item| match item.messages() {
            // Compacted message by message in `prefix_with`.
            Some(_) => String::new(),
            None => item_text(item, options.compact, &mut unproven),
        })
        .collect();
    prefix_with(brief, texts, unproven, options.compact)
}

/// The stable prefix from the static items' texts as [`item_text`] makes them, in
/// manifest order: a caller that already compacted every item (`stats`) does not pay
/// for compacting and proving them again. A message sample's text is not used: its
/// messages are compacted one by one.
pub fn prefix_of(brief: &Brief, static_texts: Vec<String>, unproven: Vec<String>) -> Prefix {
    prefix_with(brief, static_texts, unproven, true)
}

fn prefix_with(
    brief: &Brief,
    static_texts: Vec<String>,
    mut unproven: Vec<String>,
    compact: bool,
) -> Prefix {
    let vars = &brief.manifest.vars;
    // Static items may use the manifest's build-time `vars` (the loader refused any other
    // placeholder there); filling them here makes their values part of the prefix hash.
    let fill = |text: &str| {
        if vars.is_empty() {
            unescape_braces(text)
        } else {
            fill_placeholders(text, vars).0
        }
    };
    let mut system_parts = Vec::new();
    let mut text_parts = Vec::new();
    let mut examples = Vec::new();
    let statics = brief
        .items
        .iter()
        .filter(|item| item.tier == Tier::Static && !item.is_tool());
    for (item, text) in statics.zip(static_texts) {
        if item.messages().is_some() {
            unproven.retain(|id| *id != item.id);
        }
        match examples::item_messages(item, compact, vars, &mut unproven) {
            Some(messages) => {
                text_parts.push(examples::readable(&messages));
                examples.extend(messages);
            }
            None => {
                let text = fill(&text);
                text_parts.push(text.clone());
                system_parts.push(text);
            }
        }
    }
    let static_text = join(text_parts.into_iter());
    let static_system = if examples.is_empty() {
        static_text.clone()
    } else {
        join(system_parts.into_iter())
    };
    let tools: Vec<ToolDef> = brief
        .items
        .iter()
        .filter_map(|item| item.tool.clone())
        .collect();
    let prompt = Prompt {
        static_system,
        examples,
        tools,
        ..Prompt::default()
    };
    let hashes = PrefixHashes::of(&stable_prefix(&prompt, brief_wire(brief)));
    let Prompt {
        static_system,
        examples,
        tools,
        ..
    } = prompt;
    Prefix {
        static_system,
        examples,
        static_text,
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
        examples,
        static_text,
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
            examples,
            volatile_system: (!volatile.is_empty()).then_some(volatile),
            tools,
            messages: Vec::new(),
        },
        static_text,
        hashes,
        unproven,
        unused_vars,
    })
}
