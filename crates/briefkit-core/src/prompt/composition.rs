//! `brief compose` and the MCP `compose` tool as one operation: a brief, its variables and
//! a format in; the text or the request body exactly as sent out, with the stable prefix's
//! hash in that body's wire. Both edges print the same [`Composition`] document.
//!
//! The prefix is serialised and hashed, and the prompt's tokens counted, only when
//! something reads them (the document, `--stats`): printing a prompt needs neither.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

use super::compose::{ComposeOptions, Composed, compose, static_tokens, tools_json};
use super::render::{Format, RenderOptions, render};
use crate::brief::Brief;
use crate::document::Document;
use crate::error::Result;
use crate::wire::Prompt;
use crate::wire::prefix::PrefixHashes;

/// What to compose.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub brief: &'a Brief,
    /// Values for the volatile items' `{{KEY}}` placeholders.
    pub vars: &'a BTreeMap<String, String>,
    pub format: Format,
    /// Compact item bodies losslessly (`--no-compact` turns it off).
    pub compact: bool,
    /// Add `prompt_cache_key` to an OpenAI (Chat Completions or Responses) body.
    pub cache_key: bool,
    /// A wake digest file placed after the stable prefix and before the run-specific
    /// context; its backed originals go to `store` (else the configured CCR store).
    pub digest: Option<WakeDigest<'a>>,
    pub store: Option<&'a Path>,
}

/// A wake digest file, and the step that renders it, backs its originals up and places it in
/// the prompt: the runtime's `ccr::digest::place_backed` (the CCR store is SQLite, which the
/// core does not link).
#[derive(Debug, Clone, Copy)]
pub struct WakeDigest<'a> {
    pub path: &'a Path,
    pub place: PlaceDigest,
}

/// Renders the digest file at `path`, backs its originals up in `store` and places the digest
/// in `prompt`'s volatile zone.
pub type PlaceDigest = fn(prompt: &mut Prompt, path: &Path, store: Option<&Path>) -> Result<()>;

/// Composes and renders `request`'s brief.
pub fn composition<'a>(request: &Request<'a>) -> Result<Composition<'a>> {
    let brief = request.brief;
    let options = ComposeOptions {
        compact: request.compact,
    };
    let mut composed = compose(brief, request.vars, options)?;
    if let Some(digest) = request.digest {
        // The digest lives in the volatile zone: the stable prefix, and so its hash and the
        // provider's cache, do not change when only the digest does.
        (digest.place)(&mut composed.prompt, digest.path, request.store)?;
    }
    let rendered = render(
        brief,
        &composed,
        RenderOptions {
            format: request.format,
            cache_key: request.cache_key,
            hashes: false,
        },
    );
    Ok(Composition {
        brief,
        composed,
        format: request.format,
        output: rendered.output,
        hashes: OnceLock::new(),
        tokens: OnceLock::new(),
    })
}

/// What [`composition`] made: the output, and the prefix's figures when read.
#[derive(Debug)]
pub struct Composition<'a> {
    pub brief: &'a Brief,
    pub composed: Composed,
    pub format: Format,
    /// The text, or the request body's JSON exactly as the provider layer sends it.
    pub output: String,
    hashes: OnceLock<PrefixHashes>,
    tokens: OnceLock<Tokens>,
}

/// In the brief's tokenizer: the stable prefix (static system text and tools) and the
/// volatile part after it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tokens {
    pub prefix: usize,
    pub volatile: usize,
    pub total: usize,
}

impl Composition<'_> {
    /// The stable prefix's hashes: in the body's wire for a body, in the brief's wire for
    /// text.
    pub fn hashes(&self) -> &PrefixHashes {
        self.hashes.get_or_init(|| match self.format.wire() {
            Some(wire) => PrefixHashes::of(&self.composed.stable_prefix(wire)),
            None => self.composed.hashes().clone(),
        })
    }

    pub fn tokens(&self) -> Tokens {
        *self.tokens.get_or_init(|| {
            let encoding = self.brief.manifest.tokenizer;
            let prompt = &self.composed.prompt;
            let mut prefix = static_tokens(encoding, &prompt.static_system, &prompt.examples);
            if !prompt.tools.is_empty() {
                prefix += crate::tokens::count(encoding, &tools_json(&prompt.tools));
            }
            let volatile = prompt
                .volatile_system
                .as_deref()
                .map_or(0, |v| crate::tokens::count(encoding, v));
            Tokens {
                prefix,
                volatile,
                total: prefix + volatile,
            }
        })
    }
}

/// The prefix's hashes and sizes, in the printed body's wire.
#[derive(Debug, Serialize)]
struct PrefixShown<'a> {
    hash: &'a str,
    bytes: usize,
    wire: &'static str,
    tools_sha256: &'a str,
    tools_bytes: usize,
    system_sha256: &'a str,
    system_bytes: usize,
    /// Only for a brief with `format: messages` samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    examples_sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    examples_bytes: Option<usize>,
}

/// The document: `brief compose --json`'s keys with the MCP tool's (`prefix_hash`,
/// `output`) at their places, so neither edge lost a key when they became one.
impl Serialize for Composition<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            brief: &'a str,
            format: &'static str,
            prefix_hash: &'a str,
            prefix: PrefixShown<'a>,
            tokens: Tokens,
            unproven: &'a [String],
            unused_vars: &'a [String],
            /// Exactly what `compose` prints without --json.
            body: &'a str,
            /// The same bytes, under the name the MCP tool always gave them.
            output: &'a str,
        }
        let h = self.hashes();
        Shown {
            brief: &self.brief.manifest.name,
            format: self.format.as_str(),
            prefix_hash: &h.prefix,
            prefix: PrefixShown {
                hash: &h.prefix,
                bytes: h.prefix_bytes(),
                wire: h.wire.as_str(),
                tools_sha256: &h.tools,
                tools_bytes: h.tools_bytes,
                system_sha256: &h.system,
                system_bytes: h.system_bytes,
                examples_sha256: h.examples.as_ref().map(|(hash, _)| hash.as_str()),
                examples_bytes: h.examples.as_ref().map(|(_, bytes)| *bytes),
            },
            tokens: self.tokens(),
            unproven: &self.composed.unproven,
            unused_vars: &self.composed.unused_vars,
            body: &self.output,
            output: &self.output,
        }
        .serialize(serializer)
    }
}

impl Document for Composition<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        let hash = &self.hashes().prefix;
        let tokens = self.tokens();
        format!(
            "composed {} ({}): {} tokens, prefix {} ({} tokens)",
            self.brief.manifest.name,
            self.format.as_str(),
            tokens.total,
            &hash[..12.min(hash.len())],
            tokens.prefix
        )
    }
}
