//! The session tools (`session_status`, `gate`, `purge`, `compact_context`), listed after
//! the others once the session runtime is part of the crate.

use serde_json::Value;

use super::tools::{Spec, ToolError};

pub fn specs() -> Vec<Spec> {
    Vec::new()
}

pub fn call(name: &str, _arguments: Value) -> Result<Value, ToolError> {
    Err(ToolError(format!("unknown tool `{name}`")))
}
