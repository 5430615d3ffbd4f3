//! Prompt composition and wire bodies: a loaded brief becomes the text or the request body
//! that is sent, and the stable prefix gets its one identity.

pub mod canonical;
pub mod check;
mod check_rules;
pub mod compose;
pub mod examples;
pub mod measure;
pub mod prefix;
pub mod tool_schema;
pub mod wire;
