//! briefkit: compose, check, measure and safely shrink an LLM agent's brief.
//!
//! The crates name the architecture, and their dependency graph is its only allowed arrows
//! (README, "Workspace"): core <- ledger <- runtime <- {proxy, mcp} <- this crate.
//! - `briefkit-core`: `brief` (format, loader, lock), `prompt` (composition, wire bodies,
//!   the one prefix identity), `guard`, `compact`, `store`, `tokens`, `wire`, and the
//!   leaves every layer uses (`text`: the one sanitiser and YAML reader; `files`: the one
//!   policy for odd files, links and bounded reads; `document`, `error`, `clock`, ...);
//! - `briefkit-ledger`: `cache` without the probe: facts, ledger rows and sinks, usage,
//!   prices, the HTML report, align and the volatile detector;
//! - `briefkit-runtime`: `provider`, `compress`, `cache::probe`, `session` (runtime context
//!   in three tiers over an append-only log) and `ccr` (the store of originals by hash);
//! - `briefkit-proxy` and `briefkit-mcp`: the only async code;
//! - `cli` (this crate): argument parsing, the terminal UI, renderers and one file per
//!   subcommand. Domain modules know nothing of clap, colour or the terminal; only `cli` does.
//!
//! Every module is re-exported here, so `briefkit::guard::…` paths are as before the split.

pub use briefkit_mcp::mcp;
pub use briefkit_proxy::proxy;
pub use briefkit_runtime::{
    brief, cache, call_status, ccr, clock, compact, compress, document, error, files, guard,
    numbers, paths, probe, prompt, provider, redact, session, store, sys, text, tokens, wire,
};

pub mod cli;
