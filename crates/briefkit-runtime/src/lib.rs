//! briefkit's runtime: what calls a model or keeps state between calls: `provider` (the HTTP
//! clients, streamed, every wire), `compress` (proposals through a model), `probe` (does the
//! provider serve my prefix from cache?), `session` (runtime context in three tiers over an
//! append-only log) and `ccr` (reversible compression: the SQLite store of originals by hash
//! and the wake digest). Blocking code only: async lives in briefkit-proxy and briefkit-mcp.
//!
//! The core's and the ledger's modules are re-exported here, so `crate::cache::…` and
//! `crate::text::…` paths read as before the split.

pub use briefkit_core::{
    brief, call_status, clock, compact, document, error, files, guard, numbers, paths, prompt,
    redact, store, sys, text, tokens, wire,
};

/// The cache instruments: the ledger crate's, with the probe, which calls models.
pub mod cache {
    pub use crate::probe;
    pub use briefkit_ledger::cache::*;
}

pub mod ccr;
pub mod compress;
pub mod probe;
pub mod provider;
pub mod session;
