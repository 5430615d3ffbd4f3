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

pub mod api;
pub mod budget;
mod cache;
pub mod calls;
pub mod compact;
pub mod config;
pub mod envelope;
pub mod flow;
mod framework;
mod gate;
pub mod journal;
mod keep;
pub mod log;
pub mod model;
pub mod ops;
mod purge;
pub mod render;
pub mod reports;
pub mod schema;
pub mod state;
pub mod status_report;
pub mod subagent;
pub mod tools;
pub mod turn;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::brief::{Brief, Tier};
use crate::error::{Error, Result, Topic};
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
    /// The provider turns call [default: the brief's `model.provider`].
    pub provider: Option<String>,
    /// The model turns call [default: the brief's `model.name`].
    pub model: Option<String>,
    /// The server turns call [default: resolved per call: environment, brief, official].
    pub base_url: Option<String>,
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
        // Volatile values may come now or with each render; a value no item uses is
        // probably a typo (the same warning as compose's).
        let names = volatile_names(&brief);
        let unknown: Vec<String> = new
            .vars
            .keys()
            .filter(|k| !names.contains(*k))
            .cloned()
            .collect();
        let brief_dir = std::fs::canonicalize(&brief.dir).map_err(|e| Error::io(&brief.dir, &e))?;
        let limit = new
            .context_limit
            .or(brief.manifest.budget.context_limit)
            .unwrap_or(config::DEFAULT_CONTEXT_LIMIT);
        if limit == 0 {
            return Err(Error::input("the context limit must be above 0"));
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
            provider: new.provider.or_else(|| {
                brief
                    .manifest
                    .model
                    .as_ref()
                    .map(|m| m.provider.to_string())
            }),
            model: new
                .model
                .or_else(|| brief.manifest.model.as_ref().map(|m| m.name.clone())),
            base_url: new.base_url,
        };
        let yaml = config.to_yaml();
        if yaml.len() as u64 > SESSION_CONFIG.bytes {
            return Err(Error::input(format!(
                "the session's settings take {} bytes, over the {SESSION_CONFIG} limit for {}",
                yaml.len(),
                SESSION_CONFIG.what
            ))
            .with_hint("nothing was written")
            .with_topic(Topic::SessionSettingsTooLarge));
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
        let session = Session::open(dir)?;
        for name in unknown {
            session.notice(format!("--var {name} is not used by any volatile item"));
        }
        Ok(session)
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
        let mut notices = self.notices.borrow_mut();
        if !notices.contains(&text) {
            notices.push(text);
        }
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
        Ok(State::replay_owned(read.events))
    }

    /// The session's values with `overrides` on top.
    pub fn vars(&self, overrides: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut vars = self.config.vars.clone();
        vars.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        vars
    }

    /// The brief's volatile items, filled. A placeholder without a value (none given at
    /// `new` nor with this call) stays as written: figures are counted with it, and only a
    /// render, which sends Tier 3, needs every value ([`Session::check_vars`]).
    fn volatile_text(&self, vars: &BTreeMap<String, String>) -> Result<String> {
        if !self.brief.items.iter().any(|i| i.tier == Tier::Volatile) {
            return Ok(String::new());
        }
        let mut vars = vars.clone();
        for name in volatile_names(&self.brief) {
            vars.entry(name.clone())
                .or_insert_with(|| format!("{{{{{name}}}}}"));
        }
        let composed = compose::compose(&self.brief, &vars, ComposeOptions::default())?;
        Ok(composed.prompt.volatile_system.unwrap_or_default())
    }

    /// Every volatile value a render needs, given at `new` or with this call; a value no
    /// volatile item uses is a notice (as `compose` warns).
    pub fn check_vars(&self, overrides: &BTreeMap<String, String>) -> Result<()> {
        self.warn_unknown_vars(overrides);
        if self.brief.items.iter().any(|i| i.tier == Tier::Volatile) {
            // A missing value's error has its topic: each edge says how to give one.
            compose::compose(
                &self.brief,
                &self.vars(overrides),
                ComposeOptions::default(),
            )?;
        }
        Ok(())
    }

    /// Notices for `--var` values no volatile item uses.
    pub fn warn_unknown_vars(&self, overrides: &BTreeMap<String, String>) {
        let names = volatile_names(&self.brief);
        for name in overrides.keys().filter(|k| !names.contains(*k)) {
            self.notice(format!("--var {name} is not used by any volatile item"));
        }
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
        self.warn_unknown_vars(vars);
        let mut cache = Cache::read(&self.dir)?;
        let summary = match cache.fresh_summary(&self.log_path()).cloned() {
            Some(summary) => summary,
            None => cache::Summary::of(&self.state()?, 0, String::new()),
        };
        let figures = self.figures_with(summary.tier2_tokens, vars, &mut cache.memo)?;
        Ok(Status {
            over_budget: self.limits().over(figures.current_context_tokens),
            figures,
            live_entries: summary.live_entries,
            pending: summary.pending.iter().map(|p| p.id.clone()).collect(),
            reserved_operation_tokens: summary.reserved(),
            over_budget_entries: summary.over_budget.clone(),
            open_calls: summary.flow.open.iter().map(|c| c.id.clone()).collect(),
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
        if format != render::Format::Text {
            self.check_vars(vars)?;
        } else {
            self.warn_unknown_vars(vars);
        }
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
        if format != render::Format::Text
            && let Some(call) = state.flow.open.first()
        {
            return Err(Error::input(format!(
                "{} (`{}`) has no result yet: every provider refuses a request with a tool call and no result",
                call.id, call.name
            ))
            .with_hint("answer it first")
            .with_topic(Topic::RenderUnanswered {
                session: self.dir.clone(),
                call: call.id.clone(),
            }));
        }
        let parts = render::Parts {
            static_system: &self.prefix.static_system,
            examples: &self.prefix.examples,
            tools: &self.tools,
            tier2: state.tier2().collect(),
            tier3: &figures.tier3,
            model,
        };
        let body = match render::body(format, &parts) {
            Some(body) => {
                let violations = render::check(format, &body);
                if !violations.is_empty() {
                    return Err(Error::input(format!(
                        "{}: the session renders a request its provider would refuse",
                        self.log_path().display()
                    ))
                    .with_details(violations.iter().map(ToString::to_string).collect())
                    .with_hint("the log was written by an older brief or by hand; purge the entries named, or start a new session"));
                }
                RenderedBody::Json(body)
            }
            None => RenderedBody::Text(render::text(&parts)),
        };
        Ok(Rendered { body, figures })
    }
}

/// The `{{placeholders}}` of a brief's volatile items.
pub fn volatile_names(brief: &Brief) -> std::collections::BTreeSet<String> {
    brief
        .items
        .iter()
        .filter(|i| i.tier == Tier::Volatile)
        .flat_map(|i| crate::brief::placeholders(i.body()))
        .map(|(name, _)| name)
        .collect()
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    #[serde(flatten)]
    pub figures: Figures,
    pub live_entries: u64,
    /// Operations the gate blocked that were not resumed yet.
    pub pending: Vec<String>,
    /// Estimates of tool calls the gate let through whose results are still to come.
    pub reserved_operation_tokens: u64,
    /// The context leaves nothing for operations: the next model call waits for a purge or
    /// a compaction.
    pub over_budget: bool,
    /// Live results appended over the budget (kept whole).
    pub over_budget_entries: Vec<String>,
    /// Live tool calls waiting for their result.
    pub open_calls: Vec<String>,
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
