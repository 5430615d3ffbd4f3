//! Prompt composition: a loaded brief becomes the system prompt, or the provider-neutral
//! [`crate::wire::Prompt`] whose request body (`crate::wire`) is sent; the checks `brief
//! check` runs on it, and its measures.

pub mod check;
mod check_rules;
pub mod check_run;
pub mod compose;
pub mod composition;
pub mod examples;
pub mod lock;
pub mod measure;
pub mod relock;
pub mod render;
pub mod tool_schema;
