//! `brief compose`: the brief as the model sees it, or as a provider request body.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::ValueEnum;
use serde::Serialize;

use crate::brief::Brief;
use crate::cli::output::{self, Outcome};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::prompt::compose::{ComposeOptions, Composed, PrefixHashes, compose, tools_json};
use crate::prompt::render::{self, RenderOptions, Rendered, render};
use crate::tokens;

/// Compose a brief into its system prompt or a provider request body
///
/// Static items come first in manifest order (the cacheable prefix), volatile items last;
/// bodies are compacted losslessly; one blank line between items.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief compose briefs/support --var date=2026-11-30 --var customer_name=Ada --var plan=Pro\n  brief compose briefs/support --format openai --cache-key --var date=2026-11-30 --var customer_name=Ada --var plan=Pro"
)]
pub struct Args {
    /// The brief directory (or its brief.yaml)
    pub brief: PathBuf,
    /// What to print: the system prompt as text, or a request body exactly as it is sent
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// A value for a `{{KEY}}` placeholder in a volatile item (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Use item bodies exactly as written, without lossless compaction
    #[arg(long)]
    pub no_compact: bool,
    /// Add `prompt_cache_key` (derived from the prefix hash) to an openai or responses body
    #[arg(long)]
    pub cache_key: bool,
    /// Print the stable prefix's hashes and sizes (in the printed body's wire format; for
    /// text, in the brief's) to stderr
    #[arg(long)]
    pub stats: bool,
    /// A wake digest (see `brief digest`) to place after the stable prefix and before the
    /// run-specific context; its backed originals go to the CCR store
    #[arg(long, value_name = "DIGEST.yaml")]
    pub digest: Option<PathBuf>,
    /// The CCR store for --digest [default: $BRIEF_CCR_PATH, else the state directory's ccr.sqlite]
    #[arg(long, value_name = "PATH", requires = "digest")]
    pub store: Option<PathBuf>,
    /// Print one JSON object: status, summary, the prefix's hashes, token counts and the
    /// composed text or body (as `body`, the exact text printed without --json)
    #[arg(long)]
    pub json: bool,
}

/// `compose --json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    brief: String,
    format: &'static str,
    prefix: PrefixReport<'a>,
    tokens: Tokens,
    unproven: &'a [String],
    unused_vars: &'a [String],
    /// Exactly what `compose` prints without --json (a request body's JSON text, byte for
    /// byte).
    body: &'a str,
}

#[derive(Debug, Serialize)]
struct PrefixReport<'a> {
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

/// In the brief's tokenizer: the stable prefix (static system text and tools) and the
/// volatile part after it.
#[derive(Debug, Serialize)]
struct Tokens {
    prefix: usize,
    volatile: usize,
    total: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Openai,
    /// OpenAI Responses: `instructions`, flat function tools, `input` items.
    Responses,
    Anthropic,
    /// Gemini generateContent: `systemInstruction`, `functionDeclarations`, `contents`.
    Gemini,
}

impl From<Format> for render::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Text => render::Format::Text,
            Format::Openai => render::Format::Openai,
            Format::Responses => render::Format::Responses,
            Format::Anthropic => render::Format::Anthropic,
            Format::Gemini => render::Format::Gemini,
        }
    }
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let vars: BTreeMap<String, String> = crate::cli::shared_args::var_map(&args.vars, ui);
    let options = ComposeOptions {
        compact: !args.no_compact,
    };
    let mut composed = compose(&brief, &vars, options)?;
    if let Some(path) = &args.digest {
        // The digest lives in the volatile zone: the stable prefix, and so its hash and the
        // provider's cache, do not change when only the digest does.
        let (digest, _) = super::digest::render_and_back(
            path,
            args.store.as_deref(),
            crate::ccr::digest::DEFAULT_MIN_BYTES,
        )?;
        crate::ccr::digest::place(&mut composed.prompt, &digest.text);
    }
    for id in &composed.unproven {
        ui.warn(&format!(
            "item `{id}`: compaction could not be proven lossless; composed as written"
        ));
    }
    for name in &composed.unused_vars {
        ui.warn(&format!("--var {name} is not used by any volatile item"));
    }
    if args.cache_key && !matches!(args.format, Format::Openai | Format::Responses) {
        ui.warn("--cache-key applies to --format openai and responses only; ignored");
    }
    // The prefix is serialised and hashed only for what prints its hash.
    let Rendered {
        output: text,
        hashes,
    } = render(
        &brief,
        &composed,
        RenderOptions {
            format: args.format.into(),
            cache_key: args.cache_key,
            hashes: args.json || args.stats,
        },
    );
    if let Some(hashes) = hashes.as_ref().filter(|_| args.json) {
        let report = report(&args, &brief, &composed, hashes, &text);
        let summary = format!(
            "composed {} ({}): {} tokens, prefix {} ({} tokens)",
            report.brief,
            report.format,
            report.tokens.total,
            &hashes.prefix[..12.min(hashes.prefix.len())],
            report.tokens.prefix
        );
        output::json(ui, "ok", &summary, &report)?;
    } else {
        ui.outln(&text)?;
    }
    if let Some(h) = hashes.as_ref().filter(|_| args.stats) {
        ui.err_line(&format!(
            "prefix  {}  {} bytes  ({} wire)",
            h.prefix,
            h.prefix_bytes(),
            h.wire
        ));
        ui.err_line(&format!("tools   {}  {} bytes", h.tools, h.tools_bytes));
        ui.err_line(&format!("system  {}  {} bytes", h.system, h.system_bytes));
        if let Some((hash, bytes)) = &h.examples {
            ui.err_line(&format!("examples  {hash}  {bytes} bytes"));
        }
    }
    Ok(Outcome::Ok)
}

fn report<'a>(
    args: &Args,
    brief: &Brief,
    composed: &'a Composed,
    hashes: &'a PrefixHashes,
    text: &'a str,
) -> Report<'a> {
    let encoding = brief.manifest.tokenizer;
    let prompt = &composed.prompt;
    let mut prefix =
        crate::prompt::compose::static_tokens(encoding, &prompt.static_system, &prompt.examples);
    if !prompt.tools.is_empty() {
        prefix += tokens::count(encoding, &tools_json(&prompt.tools));
    }
    let volatile = prompt
        .volatile_system
        .as_deref()
        .map_or(0, |v| tokens::count(encoding, v));
    Report {
        brief: brief.manifest.name.clone(),
        format: render::Format::from(args.format).as_str(),
        prefix: PrefixReport {
            hash: &hashes.prefix,
            bytes: hashes.prefix_bytes(),
            wire: hashes.wire.as_str(),
            tools_sha256: &hashes.tools,
            tools_bytes: hashes.tools_bytes,
            system_sha256: &hashes.system,
            system_bytes: hashes.system_bytes,
            examples_sha256: hashes.examples.as_ref().map(|(hash, _)| hash.as_str()),
            examples_bytes: hashes.examples.as_ref().map(|(_, bytes)| *bytes),
        },
        tokens: Tokens {
            prefix,
            volatile,
            total: prefix + volatile,
        },
        unproven: &composed.unproven,
        unused_vars: &composed.unused_vars,
        body: text,
    }
}
