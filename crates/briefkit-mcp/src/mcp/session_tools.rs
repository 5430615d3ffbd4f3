//! The session tools: an agent checks its own context budget and frees memory through the
//! same calls ([`crate::session::api`]) `brief session status|gate|purge|compact|subagent`
//! make, and gets the document those commands print with `--json`. A session is named by
//! its directory, as on the command line.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::session::api::{self, Note};
use crate::session::model::ModelChoice;
use crate::session::ops::GateRequest;
use crate::session::pending::ResumeRequest;
use crate::session::run::{DEFAULT_MAX_TURNS, DEFAULT_PARALLEL, RunRequest};
use crate::session::subagent::{SubagentOutcome, SubagentRequest};
use crate::session::{GateReport, OpKind};

use super::tools::{Context, Reply, Spec, ToolError, args};

pub fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "session_status",
            description: "The session's context figures: tokens per tier, the budget level \
                and telemetry line, what is available for operations, pending operations.",
            schema: super::schema::load(
                "session_status",
                include_str!("schemas/session_status.json"),
            ),
        },
        Spec {
            name: "gate",
            description: "Check an operation against the context budget before starting it. \
                Answers {status: ok, operation_id, …} or the context_budget_exceeded object \
                with a pending operation id to resume after a purge or compaction.",
            schema: super::schema::load("gate", include_str!("schemas/gate.json")),
        },
        Spec {
            name: "purge",
            description: "Remove Tier 2 entries by their visible ids (msg_N, tool_call_N, \
                tool_res_N), optionally leaving one dense summary in their place; reports \
                the tokens freed and the cache cost.",
            schema: super::schema::load("purge", include_str!("schemas/purge.json")),
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
            schema: super::schema::load(
                "compact_context",
                include_str!("schemas/compact_context.json"),
            ),
        },
        Spec {
            name: "subagent",
            description: "Run the framework sub-agent a tool call of the session asks for \
                (fetch_url, web_search_agent or delegate_task) and append its result \
                envelope as the call's result. Gated first: answers the \
                context_budget_exceeded object when it does not fit. A delegated task whose \
                own tool calls need running answers `waiting` with them and its session.",
            schema: super::schema::load("subagent", include_str!("schemas/subagent.json")),
        },
    ]
}

/// The session tools added after the work tools (new tools go at the end of the list, so a
/// client's cached prompt keeps its prefix).
pub fn loop_specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "session_run",
            description: "Run the agent loop on the session until the model answers without \
                tool calls: model call, the framework's purge and compact_context, its \
                sub-agents (in parallel, each gated), the next model call. The brief's own \
                tools are handed back (`waiting`, with the calls): append their results \
                and run again without `user`. A run interrupted anywhere goes on when run \
                again. Answers a report of every operation.",
            schema: super::schema::load("session_run", include_str!("schemas/session_run.json")),
        },
        Spec {
            name: "resume",
            description: "Run an operation the gate blocked (op_N) once a purge or \
                compaction made room: a blocked sub-agent runs, a blocked tool call is \
                handed back as a new call to run, a blocked model call runs its turn. \
                Answers the context_budget_exceeded object again when it still does not fit.",
            schema: super::schema::load("resume", include_str!("schemas/resume.json")),
        },
        Spec {
            name: "cancel",
            description: "Close an operation the gate blocked (op_N): it is no longer \
                pending and will not run.",
            schema: super::schema::load("cancel", include_str!("schemas/cancel.json")),
        },
    ]
}

pub fn call(ctx: &Context, name: &str, arguments: Value) -> Result<Reply, ToolError> {
    match name {
        "session_status" => status(ctx, args(arguments)?),
        "gate" => gate(ctx, args(arguments)?),
        "purge" => purge(ctx, args(arguments)?),
        "compact_context" => compact_context(ctx, args(arguments)?),
        "subagent" => subagent(ctx, args(arguments)?),
        "session_run" => session_run(ctx, args(arguments)?),
        "resume" => resume(ctx, args(arguments)?),
        "cancel" => cancel(ctx, args(arguments)?),
        other => Err(ToolError(format!("unknown tool `{other}`"))),
    }
}

/// What an operation noticed on the way is for the server's operator, not the model.
fn quiet(_: Note<'_>) {}

/// The gate's answer as `brief session gate|turn|subagent` print it: the seed's object on
/// one line.
fn gate_line(report: &GateReport) -> Result<Reply, ToolError> {
    let answer = report.answer();
    let render = |e: serde_json::Error| ToolError(format!("cannot render the answer: {e}"));
    let mut text = serde_json::to_string(&answer).map_err(render)?;
    text.push('\n');
    Ok(Reply {
        value: serde_json::to_value(&answer).map_err(render)?,
        text,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusArgs {
    session: PathBuf,
}

fn status(ctx: &Context, a: StatusArgs) -> Result<Reply, ToolError> {
    Reply::of(&api::status(
        &ctx.path(&a.session),
        &BTreeMap::new(),
        &mut quiet,
    )?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateArgs {
    session: PathBuf,
    #[serde(default)]
    estimate: Option<u64>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    high_volume: bool,
    #[serde(default)]
    resume: Option<String>,
}

fn gate(ctx: &Context, a: GateArgs) -> Result<Reply, ToolError> {
    let kind = match a.kind.as_deref() {
        None => OpKind::Model,
        Some(text) => OpKind::parse(text).ok_or_else(|| {
            ToolError(format!(
                "bad arguments: kind `{text}` is not one of model, tool, subagent"
            ))
        })?,
    };
    let request = match (a.resume, a.estimate) {
        (Some(op), estimate) => GateRequest::resume(op, estimate),
        (None, Some(estimate)) => GateRequest::new(estimate, kind, a.high_volume),
        (None, None) => {
            return Err(ToolError(
                "bad arguments: give `estimate` (a new operation) or `resume` (a pending operation's id)".into(),
            ));
        }
    };
    let report = api::gate(&ctx.path(&a.session), request, &BTreeMap::new(), &mut quiet)?;
    gate_line(&report)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PurgeArgs {
    session: PathBuf,
    ids: Vec<String>,
    #[serde(default)]
    summary: Option<String>,
}

fn purge(ctx: &Context, a: PurgeArgs) -> Result<Reply, ToolError> {
    Reply::of(&api::purge(
        &ctx.path(&a.session),
        &a.ids,
        a.summary.as_deref(),
        &mut quiet,
    )?)
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
fn compact_context(ctx: &Context, a: CompactArgs) -> Result<Reply, ToolError> {
    let mut provider = ctx.caller_provider(a.provider.as_deref(), a.model)?;
    provider.caller_base_url = a.base_url.clone();
    let choice = ModelChoice {
        provider,
        ledger: None,
        sinks: ctx.sinks.clone(),
    };
    Reply::of(&api::compact(
        &ctx.path(&a.session),
        &a.resume_instruction,
        &choice,
        &mut quiet,
    )?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubagentArgs {
    session: PathBuf,
    tool_call_id: String,
    #[serde(default)]
    estimate: Option<u64>,
}

/// The same run as `brief session subagent`, answering what its `--json` prints; the
/// model is the session's (no base URL from the caller: a key goes only where the operator
/// configured).
fn subagent(ctx: &Context, a: SubagentArgs) -> Result<Reply, ToolError> {
    let request = SubagentRequest {
        estimate: a.estimate,
        ..SubagentRequest::default()
    };
    match api::subagent(&ctx.path(&a.session), &a.tool_call_id, &request, &mut quiet)? {
        SubagentOutcome::Blocked(gate) => gate_line(&gate),
        SubagentOutcome::Waiting(waiting) => Reply::of(&waiting),
        SubagentOutcome::Done(report) => Reply::of(&*report),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    session: PathBuf,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    max_turns: Option<u32>,
    #[serde(default)]
    parallel: Option<usize>,
    #[serde(default)]
    tool_estimate: Option<u64>,
    #[serde(default)]
    subagent_estimate: Option<u64>,
}

/// The same loop as `brief session run`, answering what its `--json` prints. No
/// `--tool-exec`: which command runs is the operator's choice, never a client's; the
/// brief's tools are handed back.
fn session_run(ctx: &Context, a: RunArgs) -> Result<Reply, ToolError> {
    let request = RunRequest {
        user: a.user,
        max_turns: a.max_turns.unwrap_or(DEFAULT_MAX_TURNS),
        parallel: a.parallel.unwrap_or(DEFAULT_PARALLEL).clamp(1, 64),
        tool_estimate: a.tool_estimate,
        subagent_estimate: a.subagent_estimate,
        ..RunRequest::default()
    };
    Reply::of(&api::run(&ctx.path(&a.session), &request, &mut quiet)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PendingArgs {
    session: PathBuf,
    operation_id: String,
    #[serde(default)]
    estimate: Option<u64>,
}

/// The same as `brief session resume --json` (without `--tool-exec`).
fn resume(ctx: &Context, a: PendingArgs) -> Result<Reply, ToolError> {
    let request = ResumeRequest {
        estimate: a.estimate,
        ..ResumeRequest::default()
    };
    Reply::of(&api::resume(
        &ctx.path(&a.session),
        &a.operation_id,
        &request,
        &mut quiet,
    )?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CancelArgs {
    session: PathBuf,
    operation_id: String,
}

fn cancel(ctx: &Context, a: CancelArgs) -> Result<Reply, ToolError> {
    Reply::of(&api::cancel(
        &ctx.path(&a.session),
        &a.operation_id,
        &mut quiet,
    )?)
}
