//! briefkit's caching proxy (`brief proxy`): tokio and hyper, with its live dashboard.
//!
//! The lower crates' modules are re-exported here, so `crate::wire::…` paths read as before
//! the split.

pub use briefkit_runtime::{
    brief, cache, call_status, ccr, clock, compact, compress, document, error, files, guard,
    numbers, paths, probe, prompt, provider, redact, session, store, sys, text, tokens, wire,
};

pub mod proxy;
