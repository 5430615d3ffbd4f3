//! `brief compose`: the brief as the model sees it, or as a provider request body.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::ValueEnum;

use crate::cli::output::Outcome;
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::prompt::compose::{ComposeOptions, compose};
use crate::prompt::{canonical, wire};

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
    /// What to print: the system prompt as text, or a chat request body as canonical JSON
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// A value for a `{{KEY}}` placeholder in a volatile item (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Use item bodies exactly as written, without lossless compaction
    #[arg(long)]
    pub no_compact: bool,
    /// Add `prompt_cache_key` (derived from the prefix hash) to an openai body
    #[arg(long)]
    pub cache_key: bool,
    /// Print the three prefix hashes and sizes to stderr
    #[arg(long)]
    pub stats: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Openai,
    Anthropic,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let vars: BTreeMap<String, String> = args.vars.into_iter().collect();
    let options = ComposeOptions {
        compact: !args.no_compact,
    };
    let composed = compose(&brief, &vars, options)?;
    for id in &composed.unproven {
        ui.warn(&format!(
            "item `{id}`: compaction could not be proven lossless; composed as written"
        ));
    }
    for name in &composed.unused_vars {
        ui.warn(&format!("--var {name} is not used by any volatile item"));
    }
    if args.cache_key && args.format != Format::Openai {
        ui.warn("--cache-key applies to --format openai only; ignored");
    }
    let model_for = |provider: &str| {
        brief
            .manifest
            .model
            .as_ref()
            .filter(|m| m.provider == provider)
            .map(|m| m.name.as_str())
    };
    match args.format {
        Format::Text => {
            let text = composed.prompt.system_text();
            ui.outln(&text)?;
        }
        Format::Openai => {
            let key = args.cache_key.then(|| cache_key(&composed.hashes.prefix));
            let body = wire::openai_body(&composed.prompt, model_for("openai"), key.as_deref());
            ui.outln(&canonical::to_string(&body))?;
        }
        Format::Anthropic => {
            let body = wire::anthropic_body(&composed.prompt, model_for("anthropic"));
            ui.outln(&canonical::to_string(&body))?;
        }
    }
    if args.stats {
        let h = &composed.hashes;
        ui.err_line(&format!("prefix  {}  {} bytes", h.prefix, h.prefix_bytes()));
        ui.err_line(&format!("tools   {}  {} bytes", h.tools, h.tools_bytes));
        ui.err_line(&format!("system  {}  {} bytes", h.system, h.system_bytes));
    }
    Ok(Outcome::Ok)
}

/// OpenAI's `prompt_cache_key`: the same for every request that shares the prefix.
pub fn cache_key(prefix_hash: &str) -> String {
    format!("brief-{}", &prefix_hash[..prefix_hash.len().min(32)])
}
