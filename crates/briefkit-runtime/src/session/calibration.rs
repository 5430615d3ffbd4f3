//! Provider-calibrated counts: the local tokenizer (o200k / cl100k) is not the provider's,
//! so every answered model call of a session records the provider's input tokens beside
//! the local count of the same render, and the session keeps, per provider and model, the
//! ratio of the two (`calibration.json`, written under the session lock).
//!
//! The rule: the first call sets the ratio; each later one moves it by `1/n` of the
//! difference, `n` the calls seen, at most [`WINDOW`] (a running mean that follows a
//! change within a few calls); a ratio stays within [`MIN_RATIO`]..=[`MAX_RATIO`]. The
//! gate, Tier 3's telemetry line and `session status` count `local × ratio` for the
//! session's provider and model, and never less than the local count: a provider that
//! counts fewer tokens than the local tokenizer leaves the local figure (the cautious
//! one). A provider that reports no usage leaves the calibration as it was.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::config::Config;
use super::log::Locked;
use crate::error::{Error, Result};
use crate::files::limits::SESSION_JOURNAL;

pub const CALIBRATION_FILE: &str = "calibration.json";
/// The most calls the running ratio averages over.
pub const WINDOW: u64 = 8;
pub const MIN_RATIO: f64 = 0.1;
pub const MAX_RATIO: f64 = 10.0;
/// The most provider/model pairs kept (the oldest goes).
const MAX_MODELS: usize = 16;

/// A session's calibrations, one per provider and model.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Calibration {
    pub models: Vec<ModelRatio>,
}

/// The ratio of the provider's input tokens to the local count, for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRatio {
    /// The wire (`openai`, `responses`, `anthropic`, `gemini`).
    pub provider: String,
    pub model: String,
    /// Provider tokens per local token.
    pub ratio: f64,
    /// Answered calls that reported usage.
    pub calls: u64,
    /// The last call's figures: the local count of its render and the provider's.
    pub last_local_tokens: u64,
    pub last_provider_tokens: u64,
}

impl ModelRatio {
    /// `local` as this provider counts it, never below `local`.
    pub fn apply(&self, local: u64) -> u64 {
        ((local as f64 * self.ratio).ceil() as u64).max(local)
    }
}

impl Calibration {
    /// The session's calibrations (none yet: empty; a damaged file is ignored, since it
    /// only ever makes figures more accurate).
    pub fn read(dir: &Path) -> Result<Calibration> {
        let path = dir.join(CALIBRATION_FILE);
        let Some(bytes) = crate::files::policy::read_owned(&path, SESSION_JOURNAL)? else {
            return Ok(Calibration::default());
        };
        Ok(serde_json::from_slice(&bytes).unwrap_or_default())
    }

    /// The ratio the session's figures use: its provider and model's, else the one last
    /// updated (a session whose turns name their model with flags).
    pub fn for_session(&self, config: &Config) -> Option<&ModelRatio> {
        let wanted = |m: &&ModelRatio| {
            config
                .provider
                .as_deref()
                .is_none_or(|p| wire_of(p) == m.provider)
                && config.model.as_deref().is_none_or(|n| n == m.model)
        };
        self.models
            .iter()
            .rev()
            .find(wanted)
            .or_else(|| self.models.last())
    }

    /// Records one answered call: `local` tokens counted for the render, `provider` as the
    /// provider reported them. The pair updated moves to the end (the latest).
    pub fn record(
        dir: &Path,
        provider: &str,
        model: &str,
        local: u64,
        provider_tokens: u64,
    ) -> Result<ModelRatio> {
        if local == 0 || provider_tokens == 0 {
            return Err(Error::input("no figures to calibrate with"));
        }
        let _locked = Locked::acquire(dir)?;
        let mut all = Calibration::read(dir)?;
        let seen = (provider_tokens as f64 / local as f64).clamp(MIN_RATIO, MAX_RATIO);
        let at = all
            .models
            .iter()
            .position(|m| m.provider == provider && m.model == model);
        let mut entry = match at {
            Some(i) => all.models.remove(i),
            None => ModelRatio {
                provider: provider.into(),
                model: model.into(),
                ratio: seen,
                calls: 0,
                last_local_tokens: 0,
                last_provider_tokens: 0,
            },
        };
        entry.calls += 1;
        let weight = entry.calls.min(WINDOW) as f64;
        entry.ratio = (entry.ratio + (seen - entry.ratio) / weight).clamp(MIN_RATIO, MAX_RATIO);
        entry.last_local_tokens = local;
        entry.last_provider_tokens = provider_tokens;
        all.models.push(entry.clone());
        if all.models.len() > MAX_MODELS {
            all.models.remove(0);
        }
        let bytes = serde_json::to_vec_pretty(&all)
            .map_err(|e| Error::internal(format!("cannot encode the calibration: {e}")))?;
        crate::files::write_atomic(&dir.join(CALIBRATION_FILE), &bytes)?;
        Ok(entry)
    }
}

/// The wire a session's `provider` setting speaks, as the calibration names it.
fn wire_of(provider: &str) -> String {
    provider
        .parse::<crate::wire::Wire>()
        .map(|w| w.as_str().to_string())
        .unwrap_or_else(|_| provider.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_follows_the_provider_within_its_bounds_and_never_counts_below_local() {
        let dir = tempfile::tempdir().unwrap();
        let first = Calibration::record(dir.path(), "openai", "m", 1000, 3000).unwrap();
        assert_eq!(first.ratio, 3.0);
        assert_eq!(first.apply(1000), 3000);
        let second = Calibration::record(dir.path(), "openai", "m", 1000, 2000).unwrap();
        assert_eq!(second.ratio, 2.5);
        let wild = Calibration::record(dir.path(), "openai", "m", 1, 1_000_000).unwrap();
        assert!(wild.ratio <= MAX_RATIO);
        let fewer = Calibration::record(dir.path(), "anthropic", "c", 1000, 500).unwrap();
        assert_eq!(fewer.apply(1000), 1000, "never below the local count");
        let all = Calibration::read(dir.path()).unwrap();
        assert_eq!(all.models.len(), 2);
        assert_eq!(all.models.last().unwrap().provider, "anthropic");
    }
}
