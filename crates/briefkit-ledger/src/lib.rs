//! briefkit's ledger: the cache instruments that need no model call: what providers promise
//! about caching (`cache::facts`), the rows of every call (`cache::ledger`, its file and
//! ClickHouse sinks), usage and prices, the HTML report, and the align and volatile analysis.
//!
//! Uses only `briefkit-core`, whose modules are re-exported here so `crate::text::…` paths
//! read as in the core.

pub use briefkit_core::{
    brief, call_status, clock, compact, document, error, files, guard, numbers, paths, prompt,
    redact, store, sys, text, tokens, wire,
};

pub mod cache;
