//! `brief mcp`: the MCP server over stdio (see `crate::mcp`).

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::Result;

/// Serve briefkit's tools to an MCP client over stdio
///
/// Tools, in this fixed order: retrieve {hash}, compose {brief, vars?, format?},
/// guard {original, proposal}, and the session tools session_status {session},
/// gate {session, estimate, kind?}, purge {session, ids, summary?}, compact_context
/// {session, resume_instruction} (the model: the session brief's, else the optional
/// provider, model and base_url arguments; keys from the environment). Each calls the same
/// code as the matching command. Meant to be started by an MCP client (its `command` is
/// `brief`, its `args` `["mcp"]`); it runs until the client closes stdin.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _ui: &Ui) -> Result<Outcome> {
    crate::mcp::run()?;
    Ok(Outcome::Ok)
}
