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
//! use briefkit_runtime::session::{NewEntry, NewSession, Session, render::Format};
//! # fn main() -> briefkit_runtime::error::Result<()> {
//! let session = Session::create("run/s1".as_ref(), NewSession::new("briefs/support".into()))?;
//! let ids = session.append(vec![NewEntry::User("Where is order 1234?".into())])?;
//! let body = session.render(Format::Openai, &Default::default())?;
//! # Ok(()) }
//! ```

pub mod api;
pub mod budget;
mod cache;
pub mod calibration;
pub mod calls;
pub mod compact;
pub mod config;
pub mod envelope;
mod figures;
pub mod flow;
pub mod follow;
mod framework;
mod gate;
pub mod journal;
mod keep;
pub mod log;
pub mod log_check;
pub mod model;
pub mod notice;
pub mod ops;
pub mod pending;
mod purge;
pub mod render;
pub mod reports;
pub mod run;
pub mod schema;
pub mod state;
pub mod status_report;
pub mod subagent;
pub mod tool_exec;
pub mod tools;
pub mod turn;
pub mod wake_digest;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::brief::{Brief, Tier};
use crate::error::{Error, Result, Topic};
use crate::files::limits::SESSION_CONFIG;
use crate::prompt::compose::{self, ComposeOptions, Prefix};
use crate::tokens::Encoding;
use crate::wire::ToolDef;

pub use budget::{Level, Limits, OpKind};
pub use config::Config;
pub use figures::{Figures, Status};
pub use log::{Entry, Event, Kind};
pub use notice::Notice;
pub use ops::{GateReport, NewEntry, PurgeReport};
pub use state::State;

use cache::Cache;

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
    pub notices: RefCell<Vec<Notice>>,
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
        // Tier 1 alone (the static text and the brief's tools) must fit: a smaller limit
        // makes every turn over budget from the start.
        let tier1 = crate::prompt::measure::prefix_tokens(
            &brief,
            &compose::prefix(&brief, ComposeOptions::default()),
        ) as u64;
        if limit < tier1 {
            return Err(Error::input(format!(
                "the context limit {limit} is below Tier 1 alone ({tier1} tokens: the brief's static text and tools)"
            ))
            .with_hint(format!(
                "give --context-limit at least {tier1} plus room for the conversation (the model's context window); nothing was written"
            )));
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
            session.notice(Notice::UnusedVar { name });
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

    fn notice(&self, notice: impl Into<Notice>) {
        let notice = notice.into();
        let mut notices = self.notices.borrow_mut();
        if !notices.contains(&notice) {
            notices.push(notice);
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
        wake_digest::with_items(&self.dir, self.volatile_items(vars)?)
    }

    fn volatile_items(&self, vars: &BTreeMap<String, String>) -> Result<String> {
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
            self.notice(Notice::UnusedVar { name: name.clone() });
        }
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
        let wire = format.wire();
        let model = self
            .brief
            .manifest
            .model
            .as_ref()
            .filter(|m| Some(m.provider) == wire)
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
