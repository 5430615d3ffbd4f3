//! briefkit: compose, check, measure and safely shrink an LLM agent's brief.
//!
//! The folders name the architecture:
//! - `cli`: argument parsing, the terminal UI, renderers and one file per subcommand;
//! - `call_status`: how a model call ended, as the ledger records it (a leaf);
//! - `wire`: which provider wire format a request speaks, and its base URL (a leaf);
//! - `prompt`: composition, wire bodies and the one prefix identity;
//! - `cache`: the cache instruments (provider facts, probe, align, volatile detector, ledger);
//! - `brief`: the on-disk format, loader, lock and check;
//! - `session`: runtime context in three tiers (seed 000), over an append-only log;
//! - `ccr`: reversible compression, the store of originals by hash and the wake digest;
//! - `compact`, `guard`, `compress`, `store`, `provider`, `tokens`: as named;
//! - `document`: the one JSON form of a report, which the CLI prints and MCP returns (a leaf);
//! - `text` and `files`: leaves every layer uses: the one sanitiser and the one YAML reader
//!   with limits; the one policy for odd files, links, temporaries and bounded reads.
//!
//! Domain modules know nothing of clap, colour or the terminal; only `cli` does.

pub mod brief;
pub mod cache;
pub mod call_status;
pub mod ccr;
pub mod cli;
pub mod clock;
pub mod compact;
pub mod compress;
pub mod document;
pub mod error;
pub mod files;
pub mod guard;
pub mod mcp;
pub mod numbers;
pub mod paths;
pub mod prompt;
pub mod provider;
pub mod proxy;
pub mod session;
pub mod store;
pub mod text;
pub mod tokens;
pub mod wire;
