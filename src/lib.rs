//! briefkit: compose, check, measure and safely shrink an LLM agent's brief.
//!
//! Domain modules (`brief`, `compose`, `compact`, `guard`, `tokens`, …) know nothing of
//! clap, colour or the terminal; `commands` and `ui` are the only layers that do.

pub mod align;
pub mod brief;
pub mod cache_facts;
pub mod canonical;
pub mod check;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod compact;
pub mod compose;
pub mod compress;
pub mod error;
pub mod guard;
pub mod ledger;
pub mod measure;
pub mod probe;
pub mod provider;
pub mod store;
pub mod tokens;
pub mod ui;
pub mod volatile;
pub mod wire;
pub mod worddiff;
