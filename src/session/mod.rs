//! Runtime sessions (seed 000): an agent's context in three strict tiers, kept so that the
//! provider's cache keeps hitting while the conversation grows.
//!
//! - **Tier 1**, static: the brief's tools and static system text, exactly as `brief
//!   compose` makes them, plus (with `framework_tools`) the framework's own tools.
//! - **Tier 2**, memory: every message, tool call and tool result, each with a visible id
//!   (`msg_N`, `tool_call_N`, `tool_res_N`, one counter, never reused) that the model sees
//!   at the start of the entry and uses to manage its memory.
//! - **Tier 3**, volatile: the brief's volatile items and the telemetry line, rebuilt for
//!   every render and always last.
//!
//! A session is a directory: `session.yaml` ([`config::Config`]) and `log.jsonl`, an
//! append-only event log ([`log`]). Tier 2 only ever grows, except through [`Session::purge`]
//! and a compaction: this module has no other way to change, remove or reorder an entry.
//! Every operation can be checked first by the budget gate ([`Session::gate`]).
//!
//! ```no_run
//! use briefkit::session::{NewEntry, NewSession, Session, render::Format};
//! # fn main() -> briefkit::error::Result<()> {
//! let session = Session::create("run/s1".as_ref(), NewSession::new("briefs/support".into()))?;
//! let ids = session.append(vec![NewEntry::User("Where is order 1234?".into())])?;
//! let body = session.render(Format::Openai, &Default::default())?;
//! # Ok(()) }
//! ```

pub mod budget;
mod cache;
pub mod compact;
pub mod config;
pub mod envelope;
mod framework;
mod gate;
pub mod journal;
mod keep;
pub mod log;
pub mod model;
pub mod ops;
mod purge;
pub mod render;
pub mod schema;
pub mod state;
pub mod status_report;
pub mod tools;
pub mod turn;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::brief::{Brief, Tier};
use crate::error::{Error, Result};
use crate::files::limits::SESSION_CONFIG;
use crate::prompt::compose::{self, ComposeOptions, Prefix};
use crate::tokens::Encoding;
use crate::wire::ToolDef;

pub use budget::{Level, Limits, OpKind};
pub use config::Config;
pub use log::{Entry, Event, Kind};
pub use ops::{GateReport, NewEntry, PurgeReport};
pub use state::State;

use cache::{Cache, Memo};

/// What `brief session new` takes.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    pub brief: PathBuf,
    pub vars: BTreeMap<String, String>,
    pub context_limit: Option<u64>,
    pub reserved_completion_tokens: Option<u64>,
    pub protocol_overhead_tokens: Option<u64>,
    pub safety_margin_tokens: Option<u64>,
    pub framework_tools: bool,
}

impl NewSession {
    pub fn new(brief: PathBuf) -> NewSession {
        NewSession {
            brief,
            ..NewSession::default()
        }
    }
}

/// An open session: its configuration, its brief and Tier 1.
#[derive(Debug)]
pub struct Session {
    pub dir: PathBuf,
    pub config: Config,
    pub brief: Brief,
    pub prefix: Prefix,
    /// Tier 1's tools: the brief's, then the framework's.
    pub tools: Vec<ToolDef>,
    pub encoding: Encoding,
    /// Things the operator should know (a torn line cut off, …); the CLI prints them.
    pub notices: RefCell<Vec<String>>,
}

/// The figures of one render: tokens per tier and the budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    pub tier1_tokens: u64,
    pub tier2_tokens: u64,
    pub tier3_tokens: u64,
    pub current_context_tokens: u64,
    pub context_limit: u64,
    pub reserved_completion_tokens: u64,
    pub protocol_overhead_tokens: u64,
    pub safety_margin_tokens: u64,
    pub available_operation_tokens: u64,
    pub percent: u64,
    pub level: Level,
    pub telemetry: String,
    /// The whole Tier 3 text: volatile items, telemetry line, advice.
    #[serde(skip)]
    pub tier3: String,
}

impl Session {
    /// Makes a session directory (which must not exist or be empty) for a brief.
    pub fn create(dir: &Path, new: NewSession) -> Result<Session> {
        let brief = Brief::load(&new.brief)?;
        if dir.exists() {
            crate::files::policy::check_not_link(dir)?;
            let empty = std::fs::read_dir(dir)
                .map_err(|e| Error::io(dir, &e))?
                .next()
                .is_none();
            if !empty {
                return Err(Error::input(format!(
                    "{}: already exists and is not empty",
                    dir.display()
                ))
                .with_hint("name a new directory for the session"));
            }
        }
        // Tier 3 must render: every volatile placeholder needs a value now.
        compose::compose(&brief, &new.vars, ComposeOptions::default())?;
        let brief_dir = std::fs::canonicalize(&brief.dir).map_err(|e| Error::io(&brief.dir, &e))?;
        let limit = new
            .context_limit
            .or(brief.manifest.budget.context_limit)
            .unwrap_or(config::DEFAULT_CONTEXT_LIMIT);
        if limit == 0 {
            return Err(Error::input("--context-limit must be above 0"));
        }
        let config = Config {
            brief: brief_dir,
            vars: new.vars,
            context_limit: limit,
            reserved_completion_tokens: new
                .reserved_completion_tokens
                .unwrap_or(config::DEFAULT_RESERVE),
            protocol_overhead_tokens: new
                .protocol_overhead_tokens
                .unwrap_or(config::DEFAULT_OVERHEAD),
            safety_margin_tokens: new.safety_margin_tokens.unwrap_or(config::DEFAULT_MARGIN),
            framework_tools: new.framework_tools,
            created: crate::clock::format_rfc3339(crate::clock::now_ms()),
        };
        let yaml = config.to_yaml();
        if yaml.len() as u64 > SESSION_CONFIG.bytes {
            return Err(Error::input(format!(
                "the session's settings take {} bytes, over the {SESSION_CONFIG} limit for {}",
                yaml.len(),
                SESSION_CONFIG.what
            ))
            .with_hint("pass fewer or shorter --var values; nothing was written"));
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
        {
            // Under the lock like every writer of the directory, so a sweep of orphaned
            // temporary files never takes one of these.
            let _locked = log::Locked::acquire(dir)?;
            // The log first: a directory with session.yaml is a session, and it needs a log.
            crate::files::write_atomic(&dir.join(log::LOG_FILE), b"")?;
            crate::files::write_atomic(&dir.join(config::CONFIG_FILE), yaml.as_bytes())?;
        }
        Session::open(dir)
    }

    pub fn open(dir: &Path) -> Result<Session> {
        let config = Config::read(dir)?;
        let log_path = dir.join(log::LOG_FILE);
        log::refuse_odd(&log_path)?;
        if std::fs::symlink_metadata(&log_path).is_err() {
            return Err(Error::input(format!("{}: missing", log_path.display())));
        }
        let brief = Brief::load(&config.brief)?;
        let prefix = compose::prefix(&brief, ComposeOptions::default());
        let mut tools = prefix.tools.clone();
        if config.framework_tools {
            tools.extend(tools::framework_tools());
        }
        Ok(Session {
            dir: dir.to_path_buf(),
            encoding: brief.manifest.tokenizer,
            config,
            brief,
            prefix,
            tools,
            notices: RefCell::new(Vec::new()),
        })
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.join(log::LOG_FILE)
    }

    pub fn limits(&self) -> Limits {
        Limits {
            context_limit: self.config.context_limit,
            reserved_completion_tokens: self.config.reserved_completion_tokens,
            protocol_overhead_tokens: self.config.protocol_overhead_tokens,
            safety_margin_tokens: self.config.safety_margin_tokens,
        }
    }

    fn notice(&self, text: String) {
        self.notices.borrow_mut().push(text);
    }

    /// Replays the whole log (a torn last line is skipped with a notice).
    pub fn state(&self) -> Result<State> {
        let read = log::read(&self.log_path())?;
        if read.torn {
            self.notice(format!(
                "{}: ignored an unfinished last line (a crash while writing; it was never acknowledged)",
                self.log_path().display()
            ));
        }
        Ok(State::replay(&read.events))
    }

    /// The session's values with `overrides` on top.
    pub fn vars(&self, overrides: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut vars = self.config.vars.clone();
        vars.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        vars
    }

    /// The brief's volatile items, filled.
    fn volatile_text(&self, vars: &BTreeMap<String, String>) -> Result<String> {
        if !self.brief.items.iter().any(|i| i.tier == Tier::Volatile) {
            return Ok(String::new());
        }
        let composed = compose::compose(&self.brief, vars, ComposeOptions::default())?;
        Ok(composed.prompt.volatile_system.unwrap_or_default())
    }

    fn tier3_text(volatile: &str, current: u64, limit: u64) -> String {
        let level = Level::of(current, limit);
        let mut parts = vec![];
        if !volatile.is_empty() {
            parts.push(volatile.to_string());
        }
        let mut status = budget::telemetry_line(current, limit);
        if let Some(advice) = level.advice() {
            status.push('\n');
            status.push_str(advice);
        }
        parts.push(status);
        parts.join("\n\n")
    }

    /// Tokens of Tier 1 as counted for the budget: the static text and the tools' JSON.
    fn tier1_tokens(&self, memo: &mut Memo) -> u64 {
        memo.count(self.encoding, &self.prefix.static_system)
            + self
                .prefix
                .examples
                .iter()
                .map(|m| memo.count(self.encoding, &m.content))
                .sum::<u64>()
            + memo.count(self.encoding, &compose::tools_json(&self.tools))
    }

    /// The figures for a Tier 2 of `tier2_tokens`. The telemetry line reports a total that
    /// includes its own tokens, found by counting until the figure stops changing.
    fn figures_with(
        &self,
        tier2_tokens: u64,
        vars: &BTreeMap<String, String>,
        memo: &mut Memo,
    ) -> Result<Figures> {
        let volatile = self.volatile_text(&self.vars(vars))?;
        let limit = self.config.context_limit;
        let tier1 = self.tier1_tokens(memo);
        let mut tier3 = memo.count(self.encoding, &volatile);
        let mut text = String::new();
        for _ in 0..4 {
            text = Self::tier3_text(&volatile, tier1 + tier2_tokens + tier3, limit);
            let counted = memo.count(self.encoding, &text);
            if counted == tier3 {
                break;
            }
            tier3 = counted;
        }
        let current = tier1 + tier2_tokens + tier3;
        let text = if memo.count(self.encoding, &text) == tier3 {
            text
        } else {
            Self::tier3_text(&volatile, current, limit)
        };
        let limits = self.limits();
        Ok(Figures {
            tier1_tokens: tier1,
            tier2_tokens,
            tier3_tokens: tier3,
            current_context_tokens: current,
            context_limit: limit,
            reserved_completion_tokens: limits.reserved_completion_tokens,
            protocol_overhead_tokens: limits.protocol_overhead_tokens,
            safety_margin_tokens: limits.safety_margin_tokens,
            available_operation_tokens: limits.available(current, limits.safety_margin_tokens),
            percent: (current as u128 * 100 / limit as u128) as u64,
            level: Level::of(current, limit),
            telemetry: budget::telemetry_line(current, limit),
            tier3: text,
        })
    }

    /// Figures from the derived cache when it is fresh, else from a replay.
    pub fn status(&self, vars: &BTreeMap<String, String>) -> Result<Status> {
        let mut cache = Cache::read(&self.dir)?;
        if let Some(summary) = cache.fresh_summary(&self.log_path()).cloned() {
            let figures = self.figures_with(summary.tier2_tokens, vars, &mut cache.memo)?;
            return Ok(Status {
                figures,
                live_entries: summary.live_entries,
                pending: summary.pending.iter().map(|p| p.id.clone()).collect(),
            });
        }
        let state = self.state()?;
        let figures = self.figures_with(state.tier2_tokens, vars, &mut cache.memo)?;
        Ok(Status {
            figures,
            live_entries: state.live.len() as u64,
            pending: state.pending().iter().map(|p| p.id.clone()).collect(),
        })
    }

    /// The request body (or text) for the next model call.
    pub fn render(
        &self,
        format: render::Format,
        vars: &BTreeMap<String, String>,
    ) -> Result<Rendered> {
        let state = self.state()?;
        self.render_state(&state, format, vars)
    }

    pub fn render_state(
        &self,
        state: &State,
        format: render::Format,
        vars: &BTreeMap<String, String>,
    ) -> Result<Rendered> {
        let mut cache = Cache::read(&self.dir)?;
        let figures = self.figures_with(state.tier2_tokens, vars, &mut cache.memo)?;
        let provider = match format {
            render::Format::Openai => "openai",
            render::Format::Responses => "responses",
            render::Format::Anthropic => "anthropic",
            render::Format::Gemini => "gemini",
            render::Format::Text => "",
        };
        let model = self
            .brief
            .manifest
            .model
            .as_ref()
            .filter(|m| m.provider.as_str() == provider)
            .map(|m| m.name.as_str());
        let parts = render::Parts {
            static_system: &self.prefix.static_system,
            examples: &self.prefix.examples,
            tools: &self.tools,
            tier2: state.tier2().collect(),
            tier3: &figures.tier3,
            model,
        };
        let body = match format {
            render::Format::Openai => RenderedBody::Json(render::openai(&parts)),
            render::Format::Responses => RenderedBody::Json(render::responses(&parts)),
            render::Format::Gemini => RenderedBody::Json(render::gemini(&parts)),
            render::Format::Anthropic => RenderedBody::Json(render::anthropic(&parts)),
            render::Format::Text => RenderedBody::Text(render::text(&parts)),
        };
        Ok(Rendered { body, figures })
    }
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    #[serde(flatten)]
    pub figures: Figures,
    pub live_entries: u64,
    /// Operations the gate blocked that were not resumed yet.
    pub pending: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum RenderedBody {
    Json(Value),
    Text(String),
}

#[derive(Debug, Clone)]
pub struct Rendered {
    pub body: RenderedBody,
    pub figures: Figures,
}
