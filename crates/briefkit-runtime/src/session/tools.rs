//! The framework's own tools, added to Tier 1 with `--framework-tools`: the two memory
//! tools the model manages its context with, and the three sub-agent tools that keep raw
//! web pages and long tasks out of the orchestrator's context.

use serde_json::{Value, json};

use crate::wire::{Prompt, ToolDef, Wire};

pub const PURGE: &str = "purge";
pub const COMPACT: &str = "compact_context";
pub const WEB_SEARCH: &str = "web_search_agent";
pub const FETCH_URL: &str = "fetch_url";
pub const DELEGATE: &str = "delegate_task";
/// The framework's sub-agents: each runs in isolation and answers with a result envelope.
pub const SUBAGENTS: [&str; 3] = [WEB_SEARCH, FETCH_URL, DELEGATE];

fn tool(name: &str, description: &str, schema: Value) -> ToolDef {
    ToolDef {
        name: name.to_string(),
        description: description.to_string(),
        input_schema: schema,
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The five framework tools, in a fixed order (they are part of the cached prefix).
pub fn framework_tools() -> Vec<ToolDef> {
    vec![
        tool(
            PURGE,
            "Remove entries from your memory (Tier 2) by their visible ids, e.g. msg_12, tool_call_13, tool_res_14, optionally leaving one dense summary in their place. A tool call and its result go together. This changes the cached history once, so use it when the tokens saved clearly outweigh one cache rebuild: a finished sub-task, bulky output you no longer need, a dead end.",
            object(
                json!({
                    "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Visible ids of the entries to remove."},
                    "summary": {"type": "string", "description": "A dense summary of what the removed entries established."}
                }),
                &["ids"],
            ),
        ),
        tool(
            COMPACT,
            "Reset your whole memory when the context is close to its limit: a separate call condenses it into a structured state (summary, decisions, tasks, blockers, files), which replaces the history, followed by your resume instruction.",
            object(
                json!({"resume_instruction": {"type": "string", "description": "What to do first after the reset."}}),
                &["resume_instruction"],
            ),
        ),
        tool(
            "web_search_agent",
            "Have a sub-agent search the web, read the pages and return a structured result envelope instead of raw pages.",
            object(
                json!({
                    "query": {"type": "string"},
                    "focus": {"type": "string", "description": "What to look for; recommended."}
                }),
                &["query"],
            ),
        ),
        tool(
            "fetch_url",
            "Have a sub-agent fetch one URL and return what it means for the given focus as a structured result envelope, not its markup.",
            object(
                json!({
                    "url": {"type": "string"},
                    "focus": {"type": "string", "description": "What to extract; recommended."}
                }),
                &["url"],
            ),
        ),
        tool(
            "delegate_task",
            "Hand a multi-step task to an isolated sub-agent; its complete structured result envelope comes back into your memory.",
            object(
                json!({
                    "goal": {"type": "string"},
                    "constraints": {"type": "string"}
                }),
                &["goal"],
            ),
        ),
    ]
}

/// The framework's tools as `wire`'s `tools` array (`brief session tools`).
pub fn framework_tools_array(wire: Wire) -> Value {
    let prompt = Prompt {
        tools: framework_tools(),
        messages: Vec::new(),
        ..Prompt::default()
    };
    crate::wire::body(&prompt, wire, None, None)["tools"].clone()
}
