//! `session.yaml`: which brief a session runs, the values of its volatile items and the
//! budget figures of the gate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Topic};
use crate::files::limits::SESSION_CONFIG;

pub const CONFIG_FILE: &str = "session.yaml";

/// A context window when neither the flag nor the brief's `budget.context_limit` names one.
pub const DEFAULT_CONTEXT_LIMIT: u64 = 128_000;
/// Room kept for the model's answer.
pub const DEFAULT_RESERVE: u64 = 4_096;
/// Message framing, tool-call wrappers and other tokens a provider adds around the text.
pub const DEFAULT_OVERHEAD: u64 = 512;
/// Slack for the difference between our count and the provider's.
pub const DEFAULT_MARGIN: u64 = 2_048;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The brief's directory, absolute.
    pub brief: PathBuf,
    /// Values for the brief's volatile `{{placeholders}}`; `--var` overrides per call.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    pub context_limit: u64,
    pub reserved_completion_tokens: u64,
    pub protocol_overhead_tokens: u64,
    pub safety_margin_tokens: u64,
    /// Tier 1 carries the framework's own tools (`purge`, `compact_context`, …).
    #[serde(default)]
    pub framework_tools: bool,
    pub created: String,
    /// The provider turns, compactions and sub-agents call, unless a flag says otherwise
    /// (given at `new`, else the brief's `model.provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model they call (given at `new`, else the brief's `model.name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The server they call (given at `new`; else resolved per call as for every command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

impl Config {
    pub fn read(dir: &Path) -> Result<Config> {
        let path = dir.join(CONFIG_FILE);
        if !dir.is_dir() {
            return Err(
                Error::input(format!("{}: no such session directory", dir.display()))
                    .with_topic(Topic::NoSession),
            );
        }
        let bytes = crate::files::policy::read_owned(&path, SESSION_CONFIG)?.ok_or_else(|| {
            Error::input(format!(
                "{}: not a session (no {CONFIG_FILE})",
                dir.display()
            ))
            .with_topic(Topic::NoSession)
        })?;
        let text = crate::files::input::utf8(&path.display().to_string(), bytes)?;
        let config: Config = crate::text::yaml::from_str(&text).map_err(|e| {
            let at = e
                .location()
                .map(|(line, column)| format!(":{line}:{column}"))
                .unwrap_or_default();
            Error::input(format!("{}{at}: {}", path.display(), e.message()))
        })?;
        if config.context_limit == 0 {
            return Err(Error::input(format!(
                "{}: context_limit must be above 0",
                path.display()
            )));
        }
        Ok(config)
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).unwrap_or_default()
    }
}
