//! Which provider, model, address and key a call uses, and where each came from: the one
//! resolution every entry point uses (the commands, sessions, the MCP server, and the
//! proxy for its upstreams).
//!
//! Precedence is the operator's flags, then the environment, then the brief's `model:`.
//! Keys come only from the environment and live in [`ApiKey`], which cannot be printed:
//! every `Debug`, `Display` and error message that could carry it shows `[redacted]`
//! instead. A key goes only to the base URL the operator configured: a base URL named by a
//! caller that may be a model (an MCP tool argument) is honoured only when the operator
//! allowed it (see [`Overrides`]).

use std::fmt;
use std::time::Duration;

use crate::brief::ModelConfig;
use crate::clock::parse_timeout;
use crate::error::{Error, Origin, Result, Topic};
use crate::wire::{BaseUrl, Wire};

/// An API key. It never prints: only the request builder reads it, through `expose`.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// What an entry point asks for on top of the environment and the brief; `None` where it
/// says nothing.
///
/// `wire`, `model`, `base_url` and `timeout` are the operator's (command-line flags, a
/// server's own flags). `caller_base_url` is a base URL named by a caller the operator does
/// not control (an MCP tool call's argument, which a prompt-injected model can write): the
/// key is sent there only when it is the operator's own base URL or one of
/// `allowed_base_urls`; any other is refused, so model-reachable input can never carry the
/// key to a host of its choosing.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub wire: Option<Wire>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub timeout: Option<Duration>,
    pub caller_base_url: Option<String>,
    /// The base URLs the operator lets a caller name (`brief mcp --allow-base-url`).
    pub allowed_base_urls: Vec<BaseUrl>,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub wire: Wire,
    pub model: String,
    /// In its normal form, without a trailing slash ([`BaseUrl`]).
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// The idle timeout: the longest wait for the next byte (for the answer's head, then
    /// between reads of the stream). A slow but live stream is never cut off; a silent
    /// server is.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Requests per call, the first included; retries happen only on connection errors,
    /// 429 and 5xx.
    pub max_attempts: u32,
    /// The first backoff; it doubles with each retry.
    pub retry_base: Duration,
    /// The longest wait between attempts; a server asking for more ends the call instead.
    pub max_retry_wait: Duration,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The variable the idle timeout comes from when no flag sets it.
pub const TIMEOUT_VAR: &str = "BRIEF_TIMEOUT";

/// The wire and model a call would use, without the environment: the flags, then the
/// brief's `model:` (whose name is for its own wire only). For what needs no key or
/// address (counting, pricing).
pub fn choice(flags: &Overrides, brief: Option<&ModelConfig>) -> (Wire, Option<String>) {
    let wire = flags
        .wire
        .or(brief.map(|b| b.provider))
        .unwrap_or(Wire::OpenAi);
    let model = flags
        .model
        .clone()
        .or(brief.filter(|b| b.provider == wire).map(|b| b.name.clone()));
    (wire, model)
}

/// The base URL the operator configured for `wire`: the flag, else the wire's variable,
/// else the brief's, else the official one. `env` is the environment as a lookup.
pub fn configured_base_url(
    wire: Wire,
    flag: Option<&str>,
    brief: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<BaseUrl> {
    let (text, from) = match (flag, env(wire.base_url_var()), brief) {
        (Some(flag), _, _) => (flag.to_string(), Origin::Flag),
        (None, Some(var), _) => (var, Origin::Environment),
        (None, None, Some(brief)) => (brief.to_string(), Origin::Brief),
        (None, None, None) => (wire.default_base_url().to_string(), Origin::Flag),
    };
    parse_base_url(&text, wire, from)
}

/// Parses a base URL given in `from`; a bad one is bad input naming what is wrong.
pub fn parse_base_url(text: &str, wire: Wire, from: Origin) -> Result<BaseUrl> {
    BaseUrl::parse(text).map_err(|why| {
        Error::input(format!("base URL `{}` is not usable: {why}", text.trim()))
            .with_topic(Topic::BadBaseUrl { wire, from })
    })
}

impl Settings {
    /// Settings with the defaults for everything but what names the endpoint.
    pub fn new(wire: Wire, model: impl Into<String>, base_url: impl Into<String>) -> Self {
        Settings {
            wire,
            model: model.into(),
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_attempts: 3,
            retry_base: Duration::from_millis(500),
            max_retry_wait: Duration::from_secs(30),
        }
    }

    /// Resolves flags over the process environment over the brief's `model:`.
    pub fn resolve(flags: Overrides, brief: Option<&ModelConfig>) -> Result<Settings> {
        Self::resolve_with_env(flags, brief, |name| std::env::var(name).ok())
    }

    /// [`Settings::resolve`] with the environment given as a lookup, so it can be tested
    /// without touching the process environment. Empty variables count as unset.
    ///
    /// `BRIEF_RETRY_BASE_MS` sets the first backoff; tests use it to stay fast.
    pub fn resolve_with_env(
        flags: Overrides,
        brief: Option<&ModelConfig>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let env = |name: &str| env(name).filter(|value| !value.trim().is_empty());
        let (wire, model) = choice(&flags, brief);
        // The brief's model and address are for its own provider only.
        let brief = brief.filter(|b| b.provider == wire);
        let model = match model {
            Some(model) if !model.trim().is_empty() => model.trim().to_string(),
            _ => {
                return Err(Error::input(format!("no model named for provider {wire}"))
                    .with_topic(Topic::NoModel { wire }));
            }
        };
        let configured = configured_base_url(
            wire,
            flags.base_url.as_deref(),
            brief.and_then(|b| b.base_url.as_deref()),
            &env,
        )?;
        let base_url = match &flags.caller_base_url {
            None => configured,
            Some(asked) => caller_base_url(asked, configured, &flags.allowed_base_urls, wire)?,
        };
        let mut settings = Settings::new(wire, model, base_url.as_str());
        settings.api_key = env(wire.key_var()).map(|key| ApiKey::new(key.trim()));
        if settings.api_key.is_none() && settings.is_official_endpoint() {
            return Err(Error::input(format!(
                "no API key for {wire}: {} is not set",
                wire.key_var()
            ))
            .with_topic(Topic::NoApiKey { wire }));
        }
        if let Some(timeout) = flags.timeout {
            if timeout.is_zero() {
                return Err(Error::input("the timeout must be more than zero"));
            }
            settings.timeout = timeout;
        } else if let Some(text) = env(TIMEOUT_VAR) {
            settings.timeout =
                parse_timeout(&text).map_err(|e| Error::input(format!("{TIMEOUT_VAR}: {e}")))?;
        }
        if let Some(ms) = env("BRIEF_RETRY_BASE_MS") {
            let ms: u64 = ms.trim().parse().map_err(|_| {
                Error::input(format!(
                    "BRIEF_RETRY_BASE_MS must be a whole number of milliseconds, not `{ms}`"
                ))
            })?;
            settings.retry_base = Duration::from_millis(ms);
        }
        Ok(settings)
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        format!("{}{}", self.base_url, self.wire.call_path(&self.model))
    }

    fn parsed_base_url(&self) -> Option<BaseUrl> {
        BaseUrl::parse(&self.base_url).ok()
    }

    /// The provider's own service, where a call without a key cannot succeed. Other
    /// servers (a local llama.cpp, Ollama, vLLM) often need none.
    pub fn is_official_endpoint(&self) -> bool {
        self.parsed_base_url()
            .is_some_and(|url| Wire::official_hosts().contains(&url.host()))
    }

    pub(crate) fn is_loopback(&self) -> bool {
        self.parsed_base_url().is_some_and(|url| url.is_loopback())
    }
}

/// The base URL a caller named, when the operator configured or allowed it; refused
/// otherwise (exit 2), before any request is made.
fn caller_base_url(
    asked: &str,
    configured: BaseUrl,
    allowed: &[BaseUrl],
    wire: Wire,
) -> Result<BaseUrl> {
    let asked = parse_base_url(asked, wire, Origin::Caller)?;
    if asked == configured || allowed.contains(&asked) {
        return Ok(asked);
    }
    // The caller may be a model following injected text: the refusal does not tell it which
    // addresses would be accepted.
    Err(Error::input(format!(
        "base_url `{asked}` is refused: it is not allowed; the {wire} key is sent only to \
         the base URL the operator configured or allowed"
    ))
    .with_topic(Topic::BaseUrlNotAllowed {
        url: asked.to_string(),
    }))
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
