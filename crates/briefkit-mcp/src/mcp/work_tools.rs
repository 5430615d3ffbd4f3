//! The MCP tools for a brief's and a digest's work: `compress` (a proposal, never an
//! accept), `digest` and `ccr_put`, each the library operation its command calls.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::tools::{Context, Reply, Spec, ToolError, args};
use crate::brief::Brief;
use crate::ccr::{Original, Strategy};
use crate::compress::{Job, Ran};
use crate::provider::CallOptions;

pub fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "compress",
            description: "Ask a model for a shorter body of one item of a brief and save it as a \
                proposal for a human to review: the item itself never changes (there is no \
                accept here). Rule, constant, tool and volatile items are refused. Answers \
                with the proposal id, tokens before and after, and the guard's findings \
                (facts dropped, introduced or changed). The model is the brief's `model:`, \
                else the optional provider and model; keys come from the server's \
                environment.",
            schema: super::schema::load("compress", include_str!("schemas/compress.json")),
        },
        Spec {
            name: "digest",
            description: "Render a wake digest file field by field by declared type (verbatim, \
                summary with its original kept in the CCR store, or CCR-compressed) and \
                report each section's bytes and tokens before and after.",
            schema: super::schema::load("digest", include_str!("schemas/digest.json")),
        },
        Spec {
            name: "ccr_put",
            description: "Keep an original text in the CCR store under its hash (what a \
                `[ccr:HASH …]` marker names), with the compressed text that stands in its \
                place and the strategy that made it; `retrieve` gives it back.",
            schema: super::schema::load("ccr_put", include_str!("schemas/ccr_put.json")),
        },
    ]
}

pub fn call(ctx: &Context, name: &str, arguments: Value) -> Result<Reply, ToolError> {
    match name {
        "compress" => compress(ctx, args(arguments)?),
        "digest" => digest(ctx, args(arguments)?),
        "ccr_put" => ccr_put(args(arguments)?),
        other => Err(ToolError(format!("unknown tool `{other}`"))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompressArgs {
    brief: PathBuf,
    item: String,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

/// `brief compress BRIEF ITEM --json`'s document: [`crate::compress::propose`] with the
/// bundled compressor, the server's provider settings and the default ledger.
fn compress(ctx: &Context, a: CompressArgs) -> Result<Reply, ToolError> {
    let brief = Brief::load(&ctx.path(&a.brief))?;
    // The operator's settings with the caller's provider and model; never a base URL of
    // the caller's: the server's key goes only where its operator said.
    let provider = ctx.caller_provider(a.provider.as_deref(), a.model)?;
    let job = Job {
        brief: &brief,
        item: Some(&a.item),
        compressor: None,
        provider,
        options: CallOptions::text(8192),
        ledger: crate::cache::ledger::Destination::resolve(None, None)?,
        sinks: &ctx.sinks,
    };
    match crate::compress::run(job, &crate::compress::Unwatched)? {
        Ran::One(proposed) => Reply::of(proposed.as_ref()),
        Ran::All(_) => Err(ToolError("compress names one item".into())),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DigestArgs {
    digest: PathBuf,
    #[serde(default)]
    min_bytes: Option<usize>,
}

/// `brief digest --json`'s document, backed in the store `brief digest` uses by default.
fn digest(ctx: &Context, a: DigestArgs) -> Result<Reply, ToolError> {
    let backed = crate::ccr::digest::render_and_back(
        &ctx.path(&a.digest),
        None,
        a.min_bytes.unwrap_or(crate::ccr::digest::DEFAULT_MIN_BYTES),
    )?;
    Reply::of(&crate::ccr::digest::Report::of(&backed.digest))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutArgs {
    original: String,
    #[serde(default)]
    compressed: Option<String>,
    #[serde(default)]
    strategy: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    ttl: Option<String>,
}

/// `brief ccr put --json`'s document, in the store `brief ccr put` uses by default.
fn ccr_put(a: PutArgs) -> Result<Reply, ToolError> {
    let strategy: Strategy = a.strategy.as_deref().unwrap_or("manual").parse()?;
    // The caller's `ttl` argument, named as this edge names it (the command says `--ttl`).
    if let Some(Err(why)) = a.ttl.as_deref().map(crate::ccr::ttl::parse) {
        return Err(ToolError(format!(
            "bad arguments: ttl: {why}\nhint: {}",
            crate::ccr::ttl::HINT
        )));
    }
    let (ttl_seconds, _) = crate::ccr::ttl::resolve(a.ttl.as_deref())?;
    let compressed = a.compressed.unwrap_or_default();
    let source = a.source.unwrap_or_else(|| "mcp".into());
    let path = crate::ccr::path::resolve(None)?;
    let original = Original {
        bytes: a.original.as_bytes(),
        compressed: &compressed,
        strategy,
        source: &source,
        ttl_seconds,
    };
    Reply::of(&crate::ccr::put(&path, original)?)
}
