//! `brief session new` and `brief session append`: arguments, [`api::new`] or
//! [`api::append`], and the human form.

use std::path::PathBuf;

use serde_json::Value;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::session::api;
use crate::session::reports::{Appended, Made};
use crate::session::{NewEntry, NewSession};

/// Make a session directory for a brief: session.yaml and an empty log.jsonl
///
/// Budget figures default to the brief's `budget.context_limit` (else 128,000), a 4,096
/// completion reservation, 512 tokens of protocol overhead and a 2,048 safety margin.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The session directory to make (must not exist, or be empty)
    pub dir: PathBuf,
    /// The brief that gives the session its Tier 1 and Tier 3
    #[arg(long, value_name = "BRIEF")]
    pub brief: PathBuf,
    /// A value for a volatile item's `{{KEY}}` (repeatable; render, status, gate and turn
    /// can override it)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// The model's context window in tokens
    #[arg(long, value_name = "N")]
    pub context_limit: Option<u64>,
    /// Tokens reserved for the model's answer
    #[arg(long, value_name = "N")]
    pub reserve: Option<u64>,
    /// Tokens of protocol overhead (message framing) per call
    #[arg(long, value_name = "N")]
    pub overhead: Option<u64>,
    /// Tokens of safety margin
    #[arg(long, value_name = "N")]
    pub margin: Option<u64>,
    /// Add the framework's tools to Tier 1: purge, compact_context, web_search_agent,
    /// fetch_url, delegate_task
    #[arg(long)]
    pub framework_tools: bool,
    /// The provider the session's turns, compactions and sub-agents call: `openai` (any
    /// OpenAI-compatible server) or `anthropic` [default: the brief's `model.provider`]
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// The model they call [default: the brief's `model.name`]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server they call [default: resolved per call from the environment, the brief, the official one]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Print the session's settings as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn new(args: NewArgs, ui: &Ui) -> Result<Outcome> {
    if args.context_limit == Some(0) {
        return Err(Error::input("--context-limit must be above 0"));
    }
    let provider = match args.provider {
        Some(name) => Some(
            name.parse::<crate::wire::Wire>()
                .map_err(|e| Error::input(format!("--provider: {e}")))?
                .as_str()
                .to_string(),
        ),
        None => None,
    };
    let settings = NewSession {
        brief: args.brief,
        vars: super::vars(args.vars),
        context_limit: args.context_limit,
        reserved_completion_tokens: args.reserve,
        protocol_overhead_tokens: args.overhead,
        safety_margin_tokens: args.margin,
        framework_tools: args.framework_tools,
        provider,
        model: args.model,
        base_url: args.base_url,
    };
    let made = api::new(&args.dir, settings, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &made)
}

impl Report for Made {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.confirm(&format!(
            "new session {} (brief {}, context limit {}, {} in Tier 1)",
            self.dir.display(),
            self.brief_name,
            self.context_limit,
            crate::numbers::count(self.tools as u64, "tool", "tools")
        ))
    }
}

/// Append one entry to Tier 2 and print its visible id
///
/// Exactly one of --user, --assistant, --tool-call, --tool-result or --subagent. TEXT
/// may be `-` to read it from stdin. A tool result must answer a live tool call that has
/// no result yet. A sub-agent result is validated against the envelope schema and
/// appended whole.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("entry").required(true).args(["user", "assistant", "tool_call", "tool_result", "subagent"]))]
pub struct AppendArgs {
    /// The session directory
    pub dir: PathBuf,
    /// A user message
    #[arg(long, value_name = "TEXT")]
    pub user: Option<String>,
    /// An assistant message
    #[arg(long, value_name = "TEXT")]
    pub assistant: Option<String>,
    /// A tool call by the assistant (with --args)
    #[arg(long, value_name = "NAME", requires = "args")]
    pub tool_call: Option<String>,
    /// The tool call's arguments: a JSON object (or - for stdin)
    #[arg(long, value_name = "JSON", requires = "tool_call")]
    pub args: Option<String>,
    /// A tool result answering TOOL_CALL_ID (with --text or --file)
    #[arg(long, value_name = "TOOL_CALL_ID")]
    pub tool_result: Option<String>,
    /// The tool result's text (or - for stdin)
    #[arg(
        long,
        value_name = "TEXT",
        conflicts_with = "file",
        requires = "tool_result"
    )]
    pub text: Option<String>,
    /// The tool result's text from a file
    #[arg(long, value_name = "PATH", requires = "tool_result")]
    pub file: Option<PathBuf>,
    /// A sub-agent's result envelope (a JSON file) answering TOOL_CALL_ID
    #[arg(long, num_args = 2, value_names = ["TOOL_CALL_ID", "FILE"])]
    pub subagent: Option<Vec<String>>,
    /// Print {"status", "summary", "id", "kind", "tokens"}
    #[arg(long)]
    pub json: bool,
}

fn entry(args: &mut AppendArgs) -> Result<NewEntry> {
    if let Some(text) = args.user.take() {
        return Ok(NewEntry::User(super::text_arg(text)?));
    }
    if let Some(text) = args.assistant.take() {
        return Ok(NewEntry::Assistant(super::text_arg(text)?));
    }
    if let Some(name) = args.tool_call.take() {
        let raw = super::text_arg(args.args.take().unwrap_or_default())?;
        let arguments: Value = serde_json::from_str(&raw)
            .map_err(|e| Error::input(format!("--args is not JSON: {e}")).with_source(e))?;
        return Ok(NewEntry::ToolCall {
            name,
            arguments,
            call_id: None,
        });
    }
    if let Some(call) = args.tool_result.take() {
        let (text, source) = match (args.text.take(), args.file.take()) {
            (Some(text), _) => (super::text_arg(text)?, "text"),
            (None, Some(path)) => (super::file_text(&path)?, "file"),
            (None, None) => {
                return Err(Error::input(
                    "--tool-result needs --text TEXT or --file PATH",
                ));
            }
        };
        return Ok(NewEntry::ToolResult {
            call,
            text,
            source: source.into(),
        });
    }
    if let Some(values) = args.subagent.take() {
        let text = super::file_text(&PathBuf::from(&values[1]))?;
        return NewEntry::subagent(values[0].clone(), &text);
    }
    Err(Error::input(
        "name what to append: --user, --assistant, --tool-call, --tool-result or --subagent",
    ))
}

pub fn run(mut args: AppendArgs, ui: &Ui) -> Result<Outcome> {
    let entry = entry(&mut args)?;
    let appended = api::append(&args.dir, entry, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &appended)
}

/// The human form is the new entry's visible id alone.
impl Report for Appended {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&self.id)?;
        if self.over_budget {
            ui.warn(&Document::summary(self));
        }
        Ok(())
    }
}
