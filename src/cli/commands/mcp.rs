//! `brief mcp`: the MCP server over stdio (see `crate::mcp`).

use crate::cli::output::Outcome;
use crate::cli::shared_args::ProviderArgs;
use crate::cli::ui::Ui;
use crate::error::Result;
use crate::wire::BaseUrl;

/// Serve briefkit's tools to an MCP client over stdio
///
/// Tools, in this fixed order: retrieve {hash}, compose {brief, vars?, format?},
/// guard {original, proposal}, and the session tools session_status {session},
/// gate {session, estimate?, kind?, high_volume?, resume?}, purge {session, ids, summary?},
/// compact_context {session, resume_instruction} (the model: the tool call's provider and
/// model, else these flags, the environment, the session brief's; keys only from the
/// environment), subagent {session, tool_call_id, estimate?}; then compress {brief, item,
/// provider?, model?} (a proposal only, never an accept), digest {digest, min_bytes?} and
/// ccr_put {original, compressed?, strategy?, source?, ttl?}. Each calls the same code as
/// the matching command. Relative paths are resolved against --root. Meant to be started
/// by an MCP client (its `command` is `brief`, its `args` `["mcp"]`); it runs until the
/// client closes stdin.
///
/// The key goes only to the base URL configured here (--base-url, OPENAI_BASE_URL /
/// ANTHROPIC_BASE_URL, the session brief's): a tool call that names another `base_url` is
/// refused unless that URL is given with --allow-base-url.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// A base URL a tool call may name in `base_url` (the key is sent there); repeatable.
    /// Without it, a tool call's `base_url` other than the configured one is refused
    #[arg(long, value_name = "URL", value_parser = BaseUrl::parse)]
    pub allow_base_url: Vec<BaseUrl>,
    /// The directory relative paths in tool arguments are resolved against [default: the
    /// directory the server was started in]
    #[arg(long, value_name = "DIR")]
    pub root: Option<std::path::PathBuf>,
}

pub fn run(args: Args, _ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let mut provider = args.provider.overrides();
    provider.allowed_base_urls = args.allow_base_url;
    let root = match args.root {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| crate::error::Error::io(std::path::Path::new("."), &e))?,
    };
    let root = std::fs::canonicalize(&root).map_err(|e| {
        crate::error::Error::io(&root, &e)
            .with_hint("--root names the directory relative paths are resolved against")
    })?;
    if !root.is_dir() {
        return Err(crate::error::Error::input(format!(
            "--root {}: not a directory",
            root.display()
        )));
    }
    crate::mcp::run(crate::mcp::tools::Options {
        provider,
        root,
        sinks: sinks.clone(),
    })?;
    Ok(Outcome::Ok)
}
