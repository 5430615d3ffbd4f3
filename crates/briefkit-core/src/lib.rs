//! briefkit's core: what a brief is and what can be done to it without a network, a database
//! or an async runtime (its dependency tree has no tokio, hyper, rmcp, rusqlite or reqwest).
//!
//! - `wire`: which provider wire format a request speaks, its base URL, usage and prefix;
//! - `prompt`: composition, wire bodies, `brief check`, and the one prefix identity;
//! - `brief`: the on-disk format, loader, lock and import;
//! - `guard`: whether a change keeps what the agent does; `compact`: lossless compaction;
//! - `store`: versions, proposals and their transactions; `tokens`: the tokenizers;
//! - `call_status`: how a model call ended, as the ledger records it (a leaf);
//! - `document`: the one JSON form of a report, which the CLI prints and MCP returns (a leaf);
//! - `text` and `files`: leaves every layer uses: the one sanitiser and the one YAML reader
//!   with limits; the one policy for odd files, links, temporaries and bounded reads;
//! - `redact`: API keys scrubbed from every message; `clock`, `numbers`, `paths`, `error`;
//! - `sys`: the system calls std lacks, behind safe functions (the one module with `unsafe`).
//!
//! Crates above this one re-export these modules at their roots, so `crate::text::…` reads
//! the same in every crate of the workspace.

pub mod brief;
pub mod call_status;
pub mod clock;
pub mod compact;
pub mod document;
pub mod error;
pub mod files;
pub mod guard;
pub mod numbers;
pub mod paths;
pub mod prompt;
pub mod redact;
pub mod store;
pub mod sys;
pub mod text;
pub mod tokens;
pub mod wire;
