//! `brief session model`: the provider, model and server a session's turns call, changed
//! after `new` — set with flags, or taken again from the brief's `model:` (`--from-brief`),
//! so a session follows a later change of its brief. `session.yaml` is rewritten whole,
//! atomically, under the session lock; the log is not touched.

use serde::Serialize;

use super::Session;
use super::config::CONFIG_FILE;
use super::log::Locked;
use crate::document::Document;
use crate::error::{Error, Result};

/// What to set.
#[derive(Debug, Clone, Default)]
pub struct ModelChange {
    /// Take provider and model from the brief's `model:` as it is now (and drop a stored
    /// base URL: it is resolved per call, the brief's first).
    pub from_brief: bool,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
}

/// The settings before and after.
#[derive(Debug, Clone, Serialize)]
pub struct ModelChanged {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub previous_provider: Option<String>,
    pub previous_model: Option<String>,
    pub previous_base_url: Option<String>,
}

impl Document for ModelChanged {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        let show = |p: &Option<String>, m: &Option<String>| {
            format!(
                "{}/{}",
                p.as_deref().unwrap_or("-"),
                m.as_deref().unwrap_or("-")
            )
        };
        format!(
            "the session's turns call {} (was {})",
            show(&self.provider, &self.model),
            show(&self.previous_provider, &self.previous_model)
        )
    }
}

impl Session {
    pub fn change_model(&self, change: &ModelChange) -> Result<ModelChanged> {
        let mut config = self.config.clone();
        let before = config.clone();
        if change.from_brief {
            let brief = crate::brief::Brief::load(&config.brief)?;
            let Some(model) = &brief.manifest.model else {
                return Err(Error::input(format!(
                    "{}: the brief has no `model:` to follow",
                    config.brief.display()
                )));
            };
            config.provider = Some(model.provider.to_string());
            config.model = Some(model.name.clone());
            config.base_url = None;
        }
        if change.provider.is_some() {
            config.provider = change.provider.clone();
        }
        if change.model.is_some() {
            config.model = change.model.clone();
        }
        if change.base_url.is_some() {
            config.base_url = change.base_url.clone();
        }
        if config.provider == before.provider
            && config.model == before.model
            && config.base_url == before.base_url
            && !change.from_brief
            && change.provider.is_none()
            && change.model.is_none()
            && change.base_url.is_none()
        {
            return Err(Error::input(
                "nothing to change: pass --from-brief, or --provider, --model or --base-url",
            ));
        }
        if let Some(provider) = &config.provider
            && provider.parse::<crate::wire::Wire>().is_err()
        {
            return Err(Error::input(format!("`{provider}` is not a provider")));
        }
        {
            let _locked = Locked::acquire(&self.dir)?;
            crate::files::write_atomic(&self.dir.join(CONFIG_FILE), config.to_yaml().as_bytes())?;
        }
        Ok(ModelChanged {
            provider: config.provider,
            model: config.model,
            base_url: config.base_url,
            previous_provider: before.provider,
            previous_model: before.model,
            previous_base_url: before.base_url,
        })
    }
}
