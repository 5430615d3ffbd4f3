//! The session tools: an agent checks its own context budget and frees memory through the
//! same `Session` methods `brief session status|gate|purge|compact` call. A session is named by
//! its directory, as on the command line.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::session::model::ModelChoice;
use crate::session::ops::GateRequest;
use crate::session::{OpKind, Session};

use super::tools::{Options, Spec, ToolError, args};

pub fn specs() -> Vec<Spec> {
    let session = json!({"type": "string", "description": "The session directory"});
    vec![
        Spec {
            name: "session_status",
            description: "The session's context figures: tokens per tier, the budget level \
                and telemetry line, what is available for operations, pending operations.",
            schema: json!({
                "type": "object",
                "properties": {"session": session},
                "required": ["session"],
                "additionalProperties": false
            }),
        },
        Spec {
            name: "gate",
            description: "Check an operation against the context budget before starting it. \
                Answers {status: ok, operation_id, …} or the context_budget_exceeded object \
                with a pending operation id to resume after a purge or compaction.",
            schema: json!({
                "type": "object",
                "properties": {
                    "session": session,
                    "estimate": {"type": "integer", "minimum": 0, "description": "The operation's estimated result size in tokens"},
                    "kind": {"type": "string", "enum": ["model", "tool", "subagent"], "default": "model"}
                },
                "required": ["session", "estimate"],
                "additionalProperties": false
            }),
        },
        Spec {
            name: "purge",
            description: "Remove Tier 2 entries by their visible ids (msg_N, tool_call_N, \
                tool_res_N), optionally leaving one dense summary in their place; reports \
                the tokens freed and the cache cost.",
            schema: json!({
                "type": "object",
                "properties": {
                    "session": session,
                    "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "summary": {"type": "string"}
                },
                "required": ["session", "ids"],
                "additionalProperties": false
            }),
        },
        Spec {
            name: "compact_context",
            description: "Condense the whole of Tier 2 into a CompactedState with a separate \
                model call, then replace Tier 2 with the state and the resume instruction \
                (the old entries stay in the session's log). Reports tokens before and \
                after and the facts of the old memory the state no longer holds. The model \
                is provider/model if given, else the server's and the session brief's; keys \
                come from the server's environment and go only to the base URL its operator \
                configured: a base_url the server was not started to allow is refused.",
            schema: json!({
                "type": "object",
                "properties": {
                    "session": session,
                    "resume_instruction": {"type": "string", "minLength": 1, "description": "What to do first after the reset"},
                    "provider": {"type": "string", "enum": ["openai", "anthropic"]},
                    "model": {"type": "string"},
                    "base_url": {"type": "string"}
                },
                "required": ["session", "resume_instruction"],
                "additionalProperties": false
            }),
        },
    ]
}

pub fn call(options: &Options, name: &str, arguments: Value) -> Result<Value, ToolError> {
    match name {
        "session_status" => status(args(arguments)?),
        "gate" => gate(args(arguments)?),
        "purge" => purge(args(arguments)?),
        "compact_context" => compact_context(options, args(arguments)?),
        other => Err(ToolError(format!("unknown tool `{other}`"))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusArgs {
    session: PathBuf,
}

fn status(a: StatusArgs) -> Result<Value, ToolError> {
    let session = Session::open(&a.session)?;
    let status = session.status(&BTreeMap::new())?;
    // The document `brief session status --json` prints.
    serde_json::to_value(status.report())
        .map_err(|e| ToolError(format!("cannot render the status: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateArgs {
    session: PathBuf,
    estimate: u64,
    #[serde(default)]
    kind: Option<String>,
}

fn gate(a: GateArgs) -> Result<Value, ToolError> {
    let kind = match a.kind.as_deref() {
        None => OpKind::Model,
        Some(text) => OpKind::parse(text).ok_or_else(|| {
            ToolError(format!(
                "bad arguments: kind `{text}` is not one of model, tool, subagent"
            ))
        })?,
    };
    let session = Session::open(&a.session)?;
    let report = session.gate(
        GateRequest::New {
            estimate: a.estimate,
            kind,
            high_volume: false,
        },
        &BTreeMap::new(),
    )?;
    Ok(report.to_json())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PurgeArgs {
    session: PathBuf,
    ids: Vec<String>,
    #[serde(default)]
    summary: Option<String>,
}

fn purge(a: PurgeArgs) -> Result<Value, ToolError> {
    let session = Session::open(&a.session)?;
    let ids: Vec<String> = a
        .ids
        .iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let r = session.purge(&ids, a.summary.as_deref())?;
    Ok(r.reply())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompactArgs {
    session: PathBuf,
    resume_instruction: String,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
}

/// The tool's provider and model are the caller's to choose; its base URL is not: the key
/// goes only to the base URL the server's operator configured or allowed.
fn compact_context(options: &Options, a: CompactArgs) -> Result<Value, ToolError> {
    let kind = a
        .provider
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| ToolError(format!("bad arguments: provider: {e}")))?;
    let mut provider = options.provider.clone();
    provider.wire = kind.or(provider.wire);
    provider.model = a.model.or(provider.model);
    provider.caller_base_url = a.base_url.clone();
    let choice = ModelChoice {
        provider,
        ledger: None,
    };
    let session = Session::open(&a.session)?;
    let report = session.compact(&a.resume_instruction, &choice, &mut |_| {})?;
    Ok(report.to_json())
}
