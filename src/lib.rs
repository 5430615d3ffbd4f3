//! briefkit: compose, check, measure and safely shrink an LLM agent's brief.
//!
//! Domain modules (`brief`, `compose`, `compact`, `guard`, `tokens`, …) know nothing of
//! clap, colour or the terminal; `commands` and `ui` are the only layers that do.

pub mod cli;
pub mod commands;
pub mod error;
pub mod guard;
pub mod ui;
