//! The reading subcommands: `render`, `status`, `log`, `show` and `tools`; each is
//! arguments, one call into [`api`] and the human form.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::cli::format_arg::FormatParser;
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::shared_args::parse_var;
use crate::cli::table::{Align, Table};
use crate::cli::ui::Ui;
use crate::document::Document;
use crate::error::Result;
use crate::session::RenderedBody;
use crate::session::api;
use crate::session::budget::thousands;
use crate::session::render::{self, Format};
use crate::session::reports::{EntryReport, LogReport};
use crate::session::status_report::StatusReport;
use crate::session::tools::framework_tools_array;
use crate::text::sanitize::terminal_line;
use crate::wire::{Wire, canonical};

use super::shown;

/// `--help`'s words for a body format, beside its name.
fn format_help(format: Format) -> Option<&'static str> {
    match format {
        Format::Responses => Some(
            "An OpenAI Responses request (tool calls as function_call / function_call_output items)",
        ),
        Format::Gemini => {
            Some("A Gemini generateContent request (functionCall / functionResponse parts)")
        }
        Format::Text | Format::Openai | Format::Anthropic => None,
    }
}

/// Print the request body (or text) for the next model call: Tier 1, Tier 2, Tier 3 last
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The wire format of the body: a chat-completions request, a Responses request, a
    /// messages request, a Gemini request, or text
    #[arg(
        long,
        value_parser = FormatParser::new(format_help).text_last(),
        default_value = Format::Openai.as_str()
    )]
    pub format: Format,
    /// Override a volatile item's value for this render (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

pub fn render(args: RenderArgs, ui: &Ui) -> Result<Outcome> {
    let vars = super::vars(args.vars);
    match api::render(&args.dir, args.format, &vars, &mut super::listen(ui, true))? {
        RenderedBody::Json(body) => ui.outln(&canonical::to_string(&body))?,
        // The text form is for people (the request bodies are the JSON forms): through
        // the sanitiser, as every other rendering of entries.
        RenderedBody::Text(text) => ui.out(&shown(&text))?,
    }
    Ok(Outcome::Ok)
}

/// Print the telemetry line and the figures: tokens per tier, budget, pending operations
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// The session directory
    pub dir: PathBuf,
    /// Override a volatile item's value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn status(args: StatusArgs, ui: &Ui) -> Result<Outcome> {
    let vars = super::vars(args.vars);
    let report = api::status(&args.dir, &vars, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &report)
}

/// The document is the one the MCP `session_status` tool returns too.
impl Report for StatusReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let (status, f) = (&self.status, &self.status.figures);
        let mut out = format!("{}\n", f.telemetry);
        if let Some(advice) = f.level.advice() {
            out.push_str(advice);
            out.push('\n');
        }
        let mut table = Table::new(&[Align::Left, Align::Right]);
        let figures = [
            ("tier 1 (static)", f.tier1_tokens),
            ("tier 2 (memory)", f.tier2_tokens),
            ("tier 3 (volatile)", f.tier3_tokens),
            ("current context", f.current_context_tokens),
            ("reserved completion", f.reserved_completion_tokens),
            ("protocol overhead", f.protocol_overhead_tokens),
            ("safety margin", f.safety_margin_tokens),
            ("available for operations", f.available_operation_tokens),
            ("live entries", status.live_entries),
        ];
        for (label, n) in figures {
            table.row([label.to_string(), thousands(n)]);
            if label == "current context" {
                // Both figures: the provider's (calibrated) one counts, the local one shows
                // how far the local tokenizer is from it.
                let counted = match &f.calibration {
                    Some(c) => format!(
                        "{} (ratio {:.2} from {} call{} of {})",
                        thousands(f.local_context_tokens),
                        c.ratio,
                        c.calls,
                        if c.calls == 1 { "" } else { "s" },
                        terminal_line(&c.model)
                    ),
                    None => format!(
                        "{} (no provider count yet)",
                        thousands(f.local_context_tokens)
                    ),
                };
                table.row(["local count".to_string(), counted]);
            }
        }
        let over = status.over_budget || !status.over_budget_entries.is_empty();
        if over {
            let word = if status.over_budget { "yes" } else { "no" };
            table.row(["over budget", word]);
        }
        let pending = if status.pending.is_empty() {
            "none".to_string()
        } else {
            terminal_line(&status.pending.join(", "))
        };
        table.row(["pending operations".to_string(), pending]);
        out.push_str(&table.render());
        if !status.over_budget_entries.is_empty() {
            out.push_str(&format!(
                "appended over the budget: {}{}\n",
                terminal_line(&status.over_budget_entries.join(", ")),
                if status.over_budget {
                    "; the next model call waits for a purge or a compaction"
                } else {
                    ""
                }
            ));
        }
        ui.out(&out)
    }
}

/// List every entry ever appended: id, kind, tokens and state (live, purged, compacted)
#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// The session directory
    pub dir: PathBuf,
    /// Print {"status", "summary", "entries": [{"id", "kind", "tokens", "state"}]}
    #[arg(long)]
    pub json: bool,
}

pub fn log(args: LogArgs, ui: &Ui) -> Result<Outcome> {
    let report = api::log(&args.dir, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for LogReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        use Align::{Left, Right};
        let mut table =
            Table::new(&[Left, Left, Right, Left]).header(["ID", "KIND", "TOKENS", "STATE"]);
        for e in &self.entries {
            let mut notes = Vec::new();
            if e.source.as_deref() == Some("subagent") {
                notes.push("sub-agent result");
            }
            if e.over_budget.is_some() {
                notes.push("appended over budget");
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!("  ({})", notes.join(", "))
            };
            table.row([
                terminal_line(&e.id),
                e.kind.to_string(),
                thousands(e.tokens),
                format!("{}{notes}", e.state),
            ]);
        }
        let mut out = table.render();
        out.push_str(&Document::summary(self));
        out.push('\n');
        ui.out(&out)
    }
}

/// Print one entry, live or not, and the event that removed it from Tier 2
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The session directory
    pub dir: PathBuf,
    /// The entry's visible id (msg_N, tool_call_N, tool_res_N)
    pub id: String,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

pub fn show(args: ShowArgs, ui: &Ui) -> Result<Outcome> {
    let report = api::show(&args.dir, &args.id, &mut super::listen(ui, true))?;
    output::print(ui, Form::json_if(args.json), &report)
}

impl Report for EntryReport {
    fn status(&self) -> &str {
        Document::status(self)
    }

    fn summary(&self) -> String {
        Document::summary(self)
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        let mut out = format!(
            "{}  {}  {} tokens  {}\n",
            terminal_line(&self.entry.id),
            self.entry.kind.as_str(),
            thousands(self.entry.tokens),
            self.state
        );
        if let Some(r) = &self.removed_by {
            out.push_str(&terminal_line(&format!(
                "removed by {} at {} (with {})",
                r.event,
                r.at,
                r.ids.join(", ")
            )));
            if let Some(by) = &r.replaced_by {
                out.push_str(&format!("; replaced by {}", terminal_line(by)));
            }
            out.push('\n');
        }
        out.push('\n');
        // The entry's text as the log keeps it, made safe for a terminal.
        out.push_str(&shown(&render::entry_line(&self.entry)));
        out.push('\n');
        ui.out(&out)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolsFormat {
    Openai,
    Anthropic,
}

/// Print the framework's tool definitions (purge, compact_context, web_search_agent,
/// fetch_url, delegate_task) as a provider's tools array
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    /// Whose tools array to print: OpenAI's `{"type":"function",…}` or Anthropic's `input_schema` form
    #[arg(long, value_enum, default_value_t = ToolsFormat::Openai)]
    pub format: ToolsFormat,
    /// Print one JSON object (format, count, tools) instead of the bare tools array
    #[arg(long)]
    pub json: bool,
}

pub fn tools(args: ToolsArgs, ui: &Ui) -> Result<Outcome> {
    let (wire, format) = match args.format {
        ToolsFormat::Openai => (Wire::OpenAi, "openai"),
        ToolsFormat::Anthropic => (Wire::Anthropic, "anthropic"),
    };
    let tools = framework_tools_array(wire);
    let count = tools.as_array().map_or(0, Vec::len);
    let report = ToolsReport {
        format,
        count,
        tools,
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `brief session tools --json`: the tools array for the wire, as sent in a request.
#[derive(serde::Serialize)]
struct ToolsReport {
    format: &'static str,
    count: usize,
    tools: serde_json::Value,
}

impl Report for ToolsReport {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        format!(
            "{} in the {} form",
            crate::numbers::count(self.count as u64, "framework tool", "framework tools"),
            self.format
        )
    }

    /// The bare array, on one line, exactly as before `--json` existed.
    fn human(&self, ui: &Ui) -> Result<()> {
        ui.outln(&canonical::to_string(&self.tools))
    }
}
