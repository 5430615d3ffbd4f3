//! `brief session run`: the orchestrator's loop in one command. Arguments, [`api::run`]
//! and the human form: progress on stderr, the model's final answer on stdout.

use std::path::PathBuf;
use std::time::Duration;

use super::compact::ModelArgs;
use super::shown;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::session::api;
use crate::session::run::{DEFAULT_MAX_TURNS, DEFAULT_PARALLEL, RunReport, RunRequest};
use crate::session::tool_exec::ToolExec;

/// Run the agent loop until the model's final answer: model call, then the tools it asked
/// for, then the next model call
///
/// Each model call is a turn (gated, streamed, recorded in the ledger). The framework's
/// `purge` and `compact_context` run in the turn; its sub-agents run in process, at most
/// --parallel at once, each gated; the brief's own tools run by --tool-exec CMD (`sh -c
/// CMD` reads one JSON object {"id", "name", "arguments"} on stdin and writes the result
/// on stdout; a non-zero exit is an error result; killed after --tool-timeout; stdout over
/// 1 MiB is an error result), or without it are printed as JSON lines for you to answer
/// with `brief session append DIR --tool-result ID`, then run this again (exit 0, status
/// `waiting`). A call the gate blocks is answered in the conversation with the
/// `context_budget_exceeded` object, so the model can purge or compact. Stops when the
/// model answers without tool calls (its answer on stdout) or after --max-turns model
/// calls. Every step is appended as it happens: a run killed anywhere goes on when it is
/// run again (the same --user, or none).
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The user's request (or - for stdin); leave out to continue an interrupted run
    #[arg(long, value_name = "TEXT")]
    pub user: Option<String>,
    /// The most model calls this run makes
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURNS, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
    /// Run the brief's tools with this shell command (one call per process, JSON on stdin)
    #[arg(long, value_name = "CMD")]
    pub tool_exec: Option<String>,
    /// Seconds a --tool-exec call may take before it is stopped [default: 120]
    #[arg(long, value_name = "SECS", requires = "tool_exec", value_parser = clap::value_parser!(u64).range(1..))]
    pub tool_timeout: Option<u64>,
    /// Sub-agents run at once
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PARALLEL as u64, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub parallel: u64,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Each answer's length cap, also the gate's estimate for a model call [default: the session's reserved_completion_tokens]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,
    /// The gate's estimate for a tool call whose tool item declares no `result_estimate` [default: 1000]
    #[arg(long, value_name = "N")]
    pub tool_estimate: Option<u64>,
    /// The gate's estimate for a sub-agent's envelope [default: learned from this session's envelopes of that kind, else 2000]
    #[arg(long, value_name = "N")]
    pub subagent_estimate: Option<u64>,
    /// Print {"status", "summary", "outcome", "continued", "turns", "answer", "ops":
    /// [{"operation_id", "kind", "name", "call", "outcome", "result_id", "tokens",
    /// "millis"}], "waiting", "gate"?}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: RunArgs, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    let user = args.user.map(super::text_arg).transpose()?;
    if user.as_deref().is_some_and(|u| u.trim().is_empty()) {
        return Err(Error::input("--user is empty"));
    }
    let tool_exec = args
        .tool_exec
        .map(|cmd| ToolExec::new(cmd, args.tool_timeout.map(Duration::from_secs)))
        .transpose()?;
    let request = RunRequest {
        user,
        vars: super::vars(args.vars),
        model: args.model.choice(sinks)?,
        max_turns: args.max_turns,
        max_tokens: args.max_tokens,
        tool_exec,
        parallel: usize::try_from(args.parallel).unwrap_or(DEFAULT_PARALLEL),
        tool_estimate: args.tool_estimate,
        subagent_estimate: args.subagent_estimate,
    };
    // Progress goes to stderr in both forms: --json keeps stdout for the report.
    let mut notes = super::listen(ui, true);
    let report = api::run(&args.dir, &request, &mut notes)?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for RunReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        match self.outcome {
            "waiting" => {
                for call in &self.waiting {
                    ui.outln(&serde_json::to_string(call).unwrap_or_default())?;
                }
            }
            "blocked" => {
                if let Some(gate) = &self.gate {
                    ui.outln(&super::one_line_json(&gate.answer())?)?;
                }
            }
            _ => {
                if !self.answer.is_empty() {
                    ui.outln(shown(&self.answer).trim_end_matches('\n'))?;
                }
            }
        }
        ui.info(&shown(&Document::summary(self)));
        Ok(())
    }

    fn outcome(&self) -> Outcome {
        match self.outcome {
            "answered" | "waiting" => Outcome::Ok,
            _ => Outcome::Failed,
        }
    }
}
