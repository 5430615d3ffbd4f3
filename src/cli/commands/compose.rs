//! `brief compose`: the brief as the model sees it, or as a provider request body:
//! arguments, one call to [`composition`], and its report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::cli::format_arg::FormatParser;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::prompt::composition::{Composition, Request, WakeDigest, composition};
use crate::prompt::render::Format;
use crate::wire::Wire;

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
    #[arg(long, value_parser = FormatParser::new(format_help), default_value = Format::Text.as_str())]
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

/// `--help`'s words for a body format, beside its name.
fn format_help(format: Format) -> Option<&'static str> {
    match format {
        Format::Responses => {
            Some("OpenAI Responses: `instructions`, flat function tools, `input` items")
        }
        Format::Gemini => {
            Some("Gemini generateContent: `systemInstruction`, `functionDeclarations`, `contents`")
        }
        Format::Text | Format::Openai | Format::Anthropic => None,
    }
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let vars: BTreeMap<String, String> = crate::cli::shared_args::var_map(&args.vars, ui);
    let composition = composition(&Request {
        brief: &brief,
        vars: &vars,
        format: args.format,
        compact: !args.no_compact,
        cache_key: args.cache_key,
        digest: args.digest.as_deref().map(|path| WakeDigest {
            path,
            place: crate::ccr::digest::place_backed,
        }),
        store: args.store.as_deref(),
    })?;
    let shown = Shown {
        composition,
        cache_key: args.cache_key,
        stats: args.stats,
    };
    output::print(ui, Form::json_if(args.json), &shown)
}

/// `brief compose`'s report: the composition's document, printed as the text or body
/// alone without --json; the warnings and `--stats` lines on stderr.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a> {
    composition: Composition<'a>,
    #[serde(skip)]
    cache_key: bool,
    #[serde(skip)]
    stats: bool,
}

impl Report for Shown<'_> {
    fn status(&self) -> &str {
        self.composition.status()
    }

    fn summary(&self) -> String {
        self.composition.summary()
    }

    fn notes(&self, ui: &Ui) {
        let composed = &self.composition.composed;
        for id in &composed.unproven {
            ui.warn(&format!(
                "item `{id}`: compaction could not be proven lossless; composed as written"
            ));
        }
        for name in &composed.unused_vars {
            ui.warn(&format!("--var {name} is not used by any volatile item"));
        }
        let wire = self.composition.format.wire();
        if self.cache_key && !matches!(wire, Some(Wire::OpenAi | Wire::Responses)) {
            ui.warn("--cache-key applies to --format openai and responses only; ignored");
        }
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.composition.output)
    }

    fn after(&self, ui: &Ui) {
        if !self.stats {
            return;
        }
        let h = self.composition.hashes();
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
}
