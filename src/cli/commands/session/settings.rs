//! `brief session digest` and `brief session model`: what a session carries besides its
//! memory — the wake digest at the start of Tier 3, and the model its turns call.

use std::path::PathBuf;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_kind;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::api;
use crate::session::follow::{ModelChange, ModelChanged};
use crate::session::wake_digest::DigestSet;
use crate::wire::Wire;

/// Keep a wake digest (see `brief digest`) at the start of Tier 3, before the brief's
/// volatile items and the telemetry line, from the next render on
///
/// Seed 002's layout: the stable prefix (Tier 1, then the memory of Tier 2) stays cached
/// while the digest changes with every wake. Run it again with the next wake's digest to
/// replace it; --clear removes it.
#[derive(Debug, clap::Args)]
pub struct DigestArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The digest file (YAML, as `brief digest` reads it)
    #[arg(value_name = "DIGEST.yaml", required_unless_present = "clear")]
    pub digest: Option<PathBuf>,
    /// Remove the session's digest
    #[arg(long, conflicts_with = "digest")]
    pub clear: bool,
    /// The CCR store for the digest's bulky sections [default: $BRIEF_CCR_PATH, else the user's state directory]
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Compress tool outputs, notes and JSON arrays larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = crate::ccr::digest::DEFAULT_MIN_BYTES)]
    pub min_bytes: usize,
    /// Print {"status", "summary", "digest", "tokens", "sections", "store"}
    #[arg(long)]
    pub json: bool,
}

/// Change the provider, model or server the session's turns call: follow the brief's
/// `model:` as it is now (--from-brief), or name them
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["from_brief", "provider", "model", "base_url"]))]
pub struct ModelArgs {
    /// The session directory
    pub dir: PathBuf,
    /// Take provider and model from the brief's `model:` again (a stored base URL is dropped)
    #[arg(long)]
    pub from_brief: bool,
    /// `openai`, `responses`, `anthropic` or `gemini`
    #[arg(long, value_name = "NAME", value_parser = parse_kind)]
    pub provider: Option<Wire>,
    /// The model
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Print {"status", "summary", "provider", "model", "base_url", "previous_provider", "previous_model", "previous_base_url"}
    #[arg(long)]
    pub json: bool,
}

pub fn digest(args: DigestArgs, ui: &Ui) -> Result<Outcome> {
    let report = api::digest(
        &args.dir,
        args.digest.as_deref().filter(|_| !args.clear),
        args.store.as_deref(),
        args.min_bytes,
        &mut super::listen(ui, true),
    )?;
    output::print(ui, Form::json_if(args.json), &report)
}

pub fn model(args: ModelArgs, ui: &Ui) -> Result<Outcome> {
    let change = ModelChange {
        from_brief: args.from_brief,
        provider: args.provider.map(|w| w.as_str().to_string()),
        model: args.model,
        base_url: args.base_url,
    };
    let report = api::model(&args.dir, &change, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &report)
}

output::summary_report!(DigestSet);

impl Report for ModelChanged {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.info(&super::shown(&Document::summary(self)));
        Ok(())
    }
}
