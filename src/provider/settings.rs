//! Which provider, model, address and key a call uses, and where each came from.
//!
//! Precedence is flags, then the environment, then the brief's `model:`. Keys come only
//! from the environment and live in [`ApiKey`], which cannot be printed: every `Debug`,
//! `Display` and error message that could carry it shows `[redacted]` instead.

use std::fmt;
use std::time::Duration;

use super::ProviderKind;
use crate::clock::parse_duration;
use crate::error::{Error, Result, Topic};

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
/// `kind`, `model`, `base_url` and `timeout` are the operator's (command-line flags, a
/// server's own flags). `caller_base_url` is a base URL named by a caller the operator does
/// not control (an MCP tool call's argument, which a prompt-injected model can write): the
/// key is sent there only when it is the operator's own base URL or one of
/// `allowed_base_urls`; any other is refused, so model-reachable input can never carry the
/// key to a host of its choosing.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub kind: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub timeout: Option<Duration>,
    pub caller_base_url: Option<String>,
    /// The base URLs the operator lets a caller name (`brief mcp --allow-base-url`).
    pub allowed_base_urls: Vec<String>,
}

/// A brief's `model: { provider, name, base_url }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BriefModel {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub kind: ProviderKind,
    pub model: String,
    /// Without a trailing slash.
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

impl Settings {
    /// Settings with the defaults for everything but what names the endpoint.
    pub fn new(kind: ProviderKind, model: impl Into<String>, base_url: impl Into<String>) -> Self {
        Settings {
            kind,
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

    /// Resolves flags over the process environment over the brief.
    pub fn resolve(flags: Overrides, brief: Option<BriefModel>) -> Result<Settings> {
        Self::resolve_with_env(flags, brief, |name| std::env::var(name).ok())
    }

    /// [`Settings::resolve`] with the environment given as a lookup, so it can be tested
    /// without touching the process environment. Empty variables count as unset.
    ///
    /// `BRIEF_RETRY_BASE_MS` sets the first backoff; tests use it to stay fast.
    pub fn resolve_with_env(
        flags: Overrides,
        brief: Option<BriefModel>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings> {
        let env = |name: &str| env(name).filter(|value| !value.trim().is_empty());
        let kind = flags
            .kind
            .or(brief.as_ref().map(|b| b.kind))
            .unwrap_or(ProviderKind::OpenAi);
        // The brief's model and address are for its own provider only.
        let brief = brief.filter(|b| b.kind == kind);
        let model = match flags.model.or(brief.as_ref().map(|b| b.model.clone())) {
            Some(model) if !model.trim().is_empty() => model.trim().to_string(),
            _ => {
                return Err(Error::input(format!("no model named for provider {kind}"))
                    .with_hint(format!(
                        "pass --model NAME, or set `model: {{ provider: {kind}, name: NAME }}` in brief.yaml"
                    )));
            }
        };
        let configured = flags
            .base_url
            .or_else(|| env(kind.base_url_var()))
            .or(brief.and_then(|b| b.base_url))
            .unwrap_or_else(|| kind.default_base_url().to_string());
        let configured = check_base_url(&configured, kind)?;
        let base_url = match flags.caller_base_url {
            None => configured,
            Some(asked) => caller_base_url(&asked, configured, &flags.allowed_base_urls, kind)?,
        };
        let mut settings = Settings::new(kind, model, base_url);
        settings.api_key = env(kind.key_var()).map(|key| ApiKey::new(key.trim()));
        if settings.api_key.is_none() && settings.is_official_endpoint() {
            return Err(Error::input(format!(
                "no API key for {kind}: {} is not set",
                kind.key_var()
            ))
            .with_hint(format!(
                "export {}=...; keys are read only from the environment",
                kind.key_var()
            )));
        }
        if let Some(timeout) = flags.timeout {
            if timeout.is_zero() {
                return Err(Error::input("--timeout must be more than zero"));
            }
            settings.timeout = timeout;
        } else if let Some(text) = env("BRIEF_TIMEOUT") {
            settings.timeout =
                parse_duration(&text).map_err(|e| Error::input(format!("BRIEF_TIMEOUT: {e}")))?;
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
        match self.kind {
            ProviderKind::OpenAi => format!("{}/chat/completions", self.base_url),
            ProviderKind::Anthropic => format!("{}/v1/messages", self.base_url),
        }
    }

    /// The provider's own service, where a call without a key cannot succeed. Other
    /// servers (a local llama.cpp, Ollama, vLLM) often need none.
    pub fn is_official_endpoint(&self) -> bool {
        matches!(
            host_of(&self.base_url),
            Some("api.openai.com" | "api.anthropic.com")
        )
    }

    pub(crate) fn is_loopback(&self) -> bool {
        matches!(
            host_of(&self.base_url),
            Some("localhost" | "127.0.0.1" | "[::1]")
        )
    }
}

fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if host_port.starts_with('[') {
        return host_port.split_inclusive(']').next();
    }
    host_port.split(':').next()
}

pub fn check_base_url(url: &str, kind: ProviderKind) -> Result<String> {
    let url = url.trim().trim_end_matches('/');
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    if !scheme_ok || host_of(url).is_none_or(str::is_empty) {
        return Err(
            Error::input(format!("base URL `{url}` is not an http(s) URL")).with_hint(format!(
                "pass --base-url https://host/path or fix {}",
                kind.base_url_var()
            )),
        );
    }
    Ok(url.to_string())
}

/// The base URL a caller named, when the operator configured or allowed it; refused
/// otherwise (exit 2), before any request is made.
fn caller_base_url(
    asked: &str,
    configured: String,
    allowed: &[String],
    kind: ProviderKind,
) -> Result<String> {
    let asked = check_base_url(asked, kind)?;
    if same_base_url(&asked, &configured) {
        return Ok(configured);
    }
    for allowed in allowed {
        if same_base_url(&asked, &check_base_url(allowed, kind)?) {
            return Ok(asked);
        }
    }
    Err(Error::input(format!(
        "base_url `{asked}` is refused: the {kind} key is sent only to the base URL the operator configured ({configured}){}",
        if allowed.is_empty() {
            " and no other base URL is allowed".to_string()
        } else {
            format!(" or allowed ({})", allowed.join(", "))
        }
    ))
    .with_topic(Topic::BaseUrlNotAllowed { url: asked }))
}

/// Scheme and host compare without case, the path with it.
fn same_base_url(a: &str, b: &str) -> bool {
    let split = |url: &str| -> (String, String) {
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        let at = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        (
            format!("{}://{}", scheme, &rest[..at]).to_ascii_lowercase(),
            rest[at..].to_string(),
        )
    };
    split(a) == split(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn brief() -> Option<BriefModel> {
        Some(BriefModel {
            kind: ProviderKind::OpenAi,
            model: "brief-model".into(),
            base_url: Some("https://gateway.example/compat".into()),
        })
    }

    #[test]
    fn flags_beat_env_beat_brief() {
        let flags = Overrides {
            base_url: Some("http://127.0.0.1:9/v1/".into()),
            model: Some("flag-model".into()),
            ..Overrides::default()
        };
        let s = Settings::resolve_with_env(
            flags,
            brief(),
            env(&[("OPENAI_BASE_URL", "http://env.example/v1")]),
        )
        .unwrap();
        assert_eq!(s.model, "flag-model");
        assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/chat/completions");

        let s = Settings::resolve_with_env(
            Overrides::default(),
            brief(),
            env(&[("OPENAI_BASE_URL", "http://env.example/v1")]),
        )
        .unwrap();
        assert_eq!(s.model, "brief-model");
        assert_eq!(s.base_url, "http://env.example/v1");

        let s = Settings::resolve_with_env(Overrides::default(), brief(), env(&[])).unwrap();
        assert_eq!(s.base_url, "https://gateway.example/compat");
        assert!(s.api_key.is_none());
    }

    #[test]
    fn the_brief_model_is_ignored_for_another_provider() {
        let flags = Overrides {
            kind: Some(ProviderKind::Anthropic),
            ..Overrides::default()
        };
        let err = Settings::resolve_with_env(flags, brief(), env(&[])).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::Input);
        assert!(err.hint.unwrap().contains("--model"));
    }

    #[test]
    fn the_official_endpoint_needs_a_key_and_the_hint_names_the_variable() {
        let flags = Overrides {
            kind: Some(ProviderKind::Anthropic),
            model: Some("claude-x".into()),
            ..Overrides::default()
        };
        let err = Settings::resolve_with_env(flags.clone(), None, env(&[])).unwrap_err();
        assert!(err.message.contains("ANTHROPIC_API_KEY"));
        let s = Settings::resolve_with_env(
            flags,
            None,
            env(&[("ANTHROPIC_API_KEY", "sk-test-SECRET123")]),
        )
        .unwrap();
        assert_eq!(s.endpoint(), "https://api.anthropic.com/v1/messages");
        assert_eq!(s.api_key.as_ref().unwrap().expose(), "sk-test-SECRET123");
        let shown = format!("{s:?} {}", s.api_key.as_ref().unwrap());
        assert!(!shown.contains("SECRET123"), "{shown}");
        assert!(shown.contains("[redacted]"));
    }

    #[test]
    fn a_bad_base_url_is_bad_input() {
        let flags = Overrides {
            model: Some("m".into()),
            base_url: Some("localhost:8080".into()),
            ..Overrides::default()
        };
        let err = Settings::resolve_with_env(flags, None, env(&[])).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn retry_base_comes_from_the_environment() {
        let flags = Overrides {
            model: Some("m".into()),
            base_url: Some("http://localhost:1".into()),
            timeout: Some(Duration::from_secs(5)),
            ..Overrides::default()
        };
        let s =
            Settings::resolve_with_env(flags, None, env(&[("BRIEF_RETRY_BASE_MS", "1")])).unwrap();
        assert_eq!(s.retry_base, Duration::from_millis(1));
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert!(s.is_loopback());
    }

    #[test]
    fn the_idle_timeout_comes_from_the_flag_else_brief_timeout() {
        let flags = Overrides {
            model: Some("m".into()),
            base_url: Some("http://localhost:1".into()),
            ..Overrides::default()
        };
        let s =
            Settings::resolve_with_env(flags.clone(), None, env(&[("BRIEF_TIMEOUT", "1500ms")]))
                .unwrap();
        assert_eq!(s.timeout, Duration::from_millis(1500));
        let err =
            Settings::resolve_with_env(flags.clone(), None, env(&[("BRIEF_TIMEOUT", "soon")]))
                .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.message.contains("BRIEF_TIMEOUT"), "{}", err.message);
        let flags = Overrides {
            timeout: Some(Duration::from_secs(7)),
            ..flags
        };
        let s =
            Settings::resolve_with_env(flags, None, env(&[("BRIEF_TIMEOUT", "1500ms")])).unwrap();
        assert_eq!(s.timeout, Duration::from_secs(7));
    }

    #[test]
    fn hosts_are_found_in_urls() {
        assert_eq!(host_of("https://api.openai.com/v1"), Some("api.openai.com"));
        assert_eq!(host_of("http://u:p@127.0.0.1:8080/x"), Some("127.0.0.1"));
        assert_eq!(host_of("http://[::1]:11434/v1"), Some("[::1]"));
        assert_eq!(host_of("nope"), None);
    }
}
