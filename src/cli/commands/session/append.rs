//! `brief session new` and `brief session append`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::session::{NewEntry, NewSession, Session};

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
    let session = Session::create(
        &args.dir,
        NewSession {
            brief: args.brief,
            vars: super::vars(args.vars),
            context_limit: args.context_limit,
            reserved_completion_tokens: args.reserve,
            protocol_overhead_tokens: args.overhead,
            safety_margin_tokens: args.margin,
            framework_tools: args.framework_tools,
            provider: match args.provider {
                Some(name) => Some(
                    name.parse::<crate::wire::Wire>()
                        .map_err(|e| Error::input(format!("--provider: {e}")))?
                        .as_str()
                        .to_string(),
                ),
                None => None,
            },
            model: args.model,
            base_url: args.base_url,
        },
    )?;
    super::notices(&session, ui);
    let c = &session.config;
    let made = Made {
        dir: &args.dir,
        brief: &c.brief,
        context_limit: c.context_limit,
        reserved_completion_tokens: c.reserved_completion_tokens,
        protocol_overhead_tokens: c.protocol_overhead_tokens,
        safety_margin_tokens: c.safety_margin_tokens,
        framework_tools: c.framework_tools,
        provider: c.provider.as_deref(),
        model: c.model.as_deref(),
        base_url: c.base_url.as_deref(),
        brief_name: &session.brief.manifest.name,
        tools: session.tools.len(),
    };
    output::print(ui, Form::json_if(args.json), &made)
}

/// `brief session new`: the session made and the settings it keeps.
#[derive(Serialize)]
struct Made<'a> {
    dir: &'a Path,
    brief: &'a Path,
    context_limit: u64,
    reserved_completion_tokens: u64,
    protocol_overhead_tokens: u64,
    safety_margin_tokens: u64,
    framework_tools: bool,
    provider: Option<&'a str>,
    model: Option<&'a str>,
    base_url: Option<&'a str>,
    #[serde(skip)]
    brief_name: &'a str,
    #[serde(skip)]
    tools: usize,
}

impl Report for Made<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "session {} for brief {}",
            self.dir.display(),
            self.brief_name
        )
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.confirm(&format!(
            "new session {} (brief {}, context limit {}, {} tools in Tier 1)",
            self.dir.display(),
            self.brief_name,
            self.context_limit,
            self.tools
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
    let session = super::open(&args.dir, ui)?;
    let new = entry(&mut args)?;
    let appended = session.append(vec![new]);
    super::notices(&session, ui);
    let entry = appended?.remove(0);
    let appended = Appended {
        id: &entry.id,
        kind: entry.kind.as_str(),
        tokens: entry.tokens,
    };
    output::print(ui, Form::json_if(args.json), &appended)
}

/// `brief session append`: the new entry's visible id (all the human form prints).
#[derive(Serialize)]
struct Appended<'a> {
    id: &'a str,
    kind: &'static str,
    tokens: u64,
}

impl Report for Appended<'_> {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!("appended {} ({} tokens)", self.id, self.tokens)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(self.id)
    }
}
