//! `brief compose`: the brief as the model sees it, or as a provider request body.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::ValueEnum;

use crate::cli::output::Outcome;
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::prompt::compose::{ComposeOptions, PrefixHashes, compose};
use crate::prompt::prefix::{Wire, as_sent};

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
    /// Add `prompt_cache_key` (derived from the prefix hash) to an openai body
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Openai,
    Anthropic,
}

impl Format {
    fn wire(self) -> Option<Wire> {
        match self {
            Format::Text => None,
            Format::Openai => Some(Wire::OpenAi),
            Format::Anthropic => Some(Wire::Anthropic),
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
    let hashes = match args.format.wire() {
        None => {
            ui.outln(&composed.prompt.system_text())?;
            composed.hashes.clone()
        }
        Some(wire) => {
            let stable = composed.stable_prefix(wire);
            let key = (args.cache_key && wire == Wire::OpenAi).then(|| cache_key(&stable.hash));
            let body = composed.body(wire, model_for(wire.as_str()), key.as_deref());
            // The body's own serialisation: the bytes the provider layer sends.
            ui.outln(&as_sent(&body))?;
            PrefixHashes::of(&stable)
        }
    };
    if args.stats {
        let h = &hashes;
        ui.err_line(&format!(
            "prefix  {}  {} bytes  ({} wire)",
            h.prefix,
            h.prefix_bytes(),
            h.wire
        ));
        ui.err_line(&format!("tools   {}  {} bytes", h.tools, h.tools_bytes));
        ui.err_line(&format!("system  {}  {} bytes", h.system, h.system_bytes));
    }
    Ok(Outcome::Ok)
}

/// OpenAI's `prompt_cache_key`: the same for every request that shares the prefix.
pub fn cache_key(prefix_hash: &str) -> String {
    format!("brief-{}", &prefix_hash[..prefix_hash.len().min(32)])
}
