//! briefkit's MCP server (`brief mcp`, rmcp) over the same operations as the CLI.
//!
//! The lower crates' modules are re-exported here, so `crate::session::…` paths read as
//! before the split.

pub use briefkit_runtime::{
    brief, cache, call_status, ccr, clock, compact, compress, document, error, files, guard,
    numbers, paths, probe, prompt, provider, redact, session, store, text, tokens, wire,
};

pub mod mcp;
