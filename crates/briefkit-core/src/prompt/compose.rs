//! Composing a brief into one prompt with a byte-stable, cacheable prefix.
//!
//! Order is what makes caching work: tools, then static items in manifest order (a
//! `format: messages` sample's turns lifted out as worked examples right after the static
//! system text, see `prompt::examples`), then the volatile items. Only the volatile part may change between turns; it lands in the live
//! zone of the request body, so two composes that differ only in `--var` values share their
//! stable prefix, whose identity `wire::prefix` takes from the body as sent.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::brief::{Brief, Item, LineIndex, Tier, fill_placeholders, unescape_braces};
use crate::compact::compact_markdown;
use crate::error::{Error, Result, Topic};
use crate::prompt::examples;
use crate::tokens::{self, Encoding};
use crate::wire::Wire;
use crate::wire::canonical;
pub use crate::wire::prefix::PrefixHashes;
use crate::wire::prefix::StablePrefix;
use crate::wire::{self, Message, Prompt, ToolDef};

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
    /// The static part as `--format text` shows it, when the brief has message samples
    /// (see [`Prefix::static_text`]).
    readable: Option<String>,
    pub tools: Vec<ToolDef>,
    /// In the brief's wire format ([`brief_wire`]).
    pub hashes: PrefixHashes,
    /// Items whose compaction could not be proven, used as written.
    pub unproven: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Composed {
    pub prompt: Prompt,
    /// The static part as `--format text` shows it, when the brief has message samples.
    readable: Option<String>,
    /// The brief's wire format ([`brief_wire`]), for [`Composed::hashes`].
    wire: Wire,
    /// Computed when first asked for: printing a prompt needs no hash, and serialising
    /// and hashing the whole static part was a tenth of composing a large brief.
    hashes: OnceLock<PrefixHashes>,
    pub unproven: Vec<String>,
    /// `--var` names no item uses.
    pub unused_vars: Vec<String>,
}

impl Prefix {
    /// The static part as `--format text` shows it: message samples as readable turns at
    /// their place (the system text itself when the brief has none).
    pub fn static_text(&self) -> &str {
        self.readable.as_deref().unwrap_or(&self.static_system)
    }

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
        let static_text = self.static_text();
        match self.prompt.volatile_system.as_deref() {
            Some(volatile) if !volatile.is_empty() && !static_text.is_empty() => {
                let mut text = String::with_capacity(static_text.len() + 2 + volatile.len());
                text.push_str(static_text);
                text.push_str("\n\n");
                text.push_str(volatile);
                text
            }
            Some(volatile) if !volatile.is_empty() => volatile.to_string(),
            _ => static_text.to_string(),
        }
    }

    /// The static part as `--format text` shows it (see [`Prefix::static_text`]).
    pub fn static_text(&self) -> &str {
        self.readable
            .as_deref()
            .unwrap_or(&self.prompt.static_system)
    }

    /// The stable prefix's hashes in the brief's wire format ([`brief_wire`]);
    /// [`Composed::stable_prefix`] for another format.
    pub fn hashes(&self) -> &PrefixHashes {
        self.hashes.get_or_init(|| {
            let stable = Prompt {
                static_system: self.prompt.static_system.clone(),
                examples: self.prompt.examples.clone(),
                tools: self.prompt.tools.clone(),
                ..Prompt::default()
            };
            PrefixHashes::of(&stable_prefix(&stable, self.wire))
        })
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
    brief
        .manifest
        .model
        .as_ref()
        .map_or(Wire::OpenAi, |m| m.provider)
}

/// An item's body as it goes into the prompt: without constant markers, compacted when
/// asked and proven, without trailing newlines.
pub fn item_text(item: &Item, compact: bool, unproven: &mut Vec<String>) -> String {
    // A deliberate constant's marker is for `brief check`, never for the model.
    let body = crate::text::constant::strip(item.body());
    let body = body.as_ref();
    let text = if compact {
        let compaction = compact_markdown(body);
        if !compaction.proven {
            unproven.push(item.id.clone());
        }
        compaction.text
    } else {
        body.to_string()
    };
    let mut text = text;
    text.truncate(text.trim_end_matches(['\n', '\r']).len());
    text
}

/// The non-blank parts, separated by blank lines.
fn join<S: AsRef<str>>(parts: impl IntoIterator<Item = S>) -> String {
    let parts: Vec<S> = parts
        .into_iter()
        .filter(|p| !p.as_ref().trim().is_empty())
        .collect();
    let len = parts.iter().map(|p| p.as_ref().len() + 2).sum::<usize>();
    let mut joined = String::with_capacity(len.saturating_sub(2));
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            joined.push_str("\n\n");
        }
        joined.push_str(part.as_ref());
    }
    joined
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
    let (texts, unproven) = static_texts(brief, options);
    prefix_with(brief, texts, unproven, options.compact)
}

/// The static items' texts as [`item_text`] makes them (empty for a message sample), and
/// the items whose compaction could not be proven.
fn static_texts(brief: &Brief, options: ComposeOptions) -> (Vec<String>, Vec<String>) {
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
    (texts, unproven)
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
    unproven: Vec<String>,
    compact: bool,
) -> Prefix {
    let part = static_part(brief, static_texts, unproven, compact);
    let prompt = Prompt {
        static_system: part.static_system,
        examples: part.examples,
        tools: part.tools,
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
        readable: part.readable,
        tools,
        hashes,
        unproven: part.unproven,
    }
}

/// The stable prefix before it is hashed.
struct StaticPart {
    static_system: String,
    examples: Vec<Message>,
    readable: Option<String>,
    tools: Vec<ToolDef>,
    unproven: Vec<String>,
}

fn static_part(
    brief: &Brief,
    static_texts: Vec<String>,
    mut unproven: Vec<String>,
    compact: bool,
) -> StaticPart {
    let vars = &brief.manifest.vars;
    // Static items may use the manifest's build-time `vars` (the loader refused any other
    // placeholder there); filling them here makes their values part of the prefix hash.
    // A text with neither is kept as it is, not copied.
    let fill = |text: String| {
        if !vars.is_empty() {
            fill_placeholders(&text, vars).0
        } else if text.contains("\\{{") {
            unescape_braces(&text)
        } else {
            text
        }
    };
    let mut system_parts = Vec::new();
    // Only with message samples: the parts of the readable static text.
    let mut text_parts: Vec<Option<String>> = Vec::new();
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
                text_parts.push(Some(examples::readable(&messages)));
                examples.extend(messages);
            }
            None => {
                // `None` stands for the system part pushed alongside.
                text_parts.push(None);
                system_parts.push(fill(text));
            }
        }
    }
    let readable = (!examples.is_empty()).then(|| {
        let mut system = system_parts.iter();
        join(text_parts.iter().map(|part| match part {
            Some(readable) => readable.as_str(),
            None => system.next().map_or("", String::as_str),
        }))
    });
    let static_system = join(system_parts);
    let tools: Vec<ToolDef> = brief
        .items
        .iter()
        .filter_map(|item| item.tool.clone())
        .collect();
    StaticPart {
        static_system,
        examples,
        readable,
        tools,
        unproven,
    }
}

/// Composes the whole brief, filling `{{var}}` placeholders of volatile items.
pub fn compose(
    brief: &Brief,
    vars: &BTreeMap<String, String>,
    options: ComposeOptions,
) -> Result<Composed> {
    let (texts, unproven) = static_texts(brief, options);
    let StaticPart {
        static_system,
        examples,
        readable,
        tools,
        mut unproven,
    } = static_part(brief, texts, unproven, options.compact);
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
        let mut names: Vec<String> = missing.iter().map(|(name, _)| name.clone()).collect();
        names.dedup();
        let listed: Vec<String> = names.iter().map(|n| format!("{{{{{n}}}}}")).collect();
        return Err(Error::input(format!(
            "missing value for {} placeholder{}",
            listed.join(", "),
            if names.len() == 1 { "" } else { "s" }
        ))
        .with_details(missing.into_iter().map(|(_, at)| at).collect())
        .with_topic(Topic::MissingVars { names }));
    }
    let volatile = join(volatile_parts);
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
        readable,
        wire: brief_wire(brief),
        hashes: OnceLock::new(),
        unproven,
        unused_vars,
    })
}
