use super::*;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

fn model_config() -> ModelConfig {
    ModelConfig {
        provider: Wire::OpenAi,
        name: "brief-model".into(),
        base_url: Some("https://gateway.example/compat".into()),
    }
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
        Some(&model_config()),
        env(&[("OPENAI_BASE_URL", "http://env.example/v1")]),
    )
    .unwrap();
    assert_eq!(s.model, "flag-model");
    assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(s.endpoint(), "http://127.0.0.1:9/v1/chat/completions");

    let s = Settings::resolve_with_env(
        Overrides::default(),
        Some(&model_config()),
        env(&[("OPENAI_BASE_URL", "http://env.example/v1")]),
    )
    .unwrap();
    assert_eq!(s.model, "brief-model");
    assert_eq!(s.base_url, "http://env.example/v1");

    let s =
        Settings::resolve_with_env(Overrides::default(), Some(&model_config()), env(&[])).unwrap();
    assert_eq!(s.base_url, "https://gateway.example/compat");
    assert!(s.api_key.is_none());
}

#[test]
fn the_brief_model_is_ignored_for_another_provider() {
    let flags = Overrides {
        wire: Some(Wire::Anthropic),
        ..Overrides::default()
    };
    let err = Settings::resolve_with_env(flags, Some(&model_config()), env(&[])).unwrap_err();
    assert_eq!(err.kind, crate::error::ErrorKind::Input);
    assert_eq!(
        err.topic(),
        Some(&Topic::NoModel {
            wire: Wire::Anthropic
        })
    );
}

#[test]
fn the_official_endpoint_needs_a_key_and_the_hint_names_the_variable() {
    let flags = Overrides {
        wire: Some(Wire::Anthropic),
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
    let s = Settings::resolve_with_env(flags, None, env(&[("BRIEF_RETRY_BASE_MS", "1")])).unwrap();
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
    let s = Settings::resolve_with_env(flags.clone(), None, env(&[("BRIEF_TIMEOUT", "1500ms")]))
        .unwrap();
    assert_eq!(s.timeout, Duration::from_millis(1500));
    let err = Settings::resolve_with_env(flags.clone(), None, env(&[("BRIEF_TIMEOUT", "soon")]))
        .unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.message.contains("BRIEF_TIMEOUT"), "{}", err.message);
    let flags = Overrides {
        timeout: Some(Duration::from_secs(7)),
        ..flags
    };
    let s = Settings::resolve_with_env(flags, None, env(&[("BRIEF_TIMEOUT", "1500ms")])).unwrap();
    assert_eq!(s.timeout, Duration::from_secs(7));
}

#[test]
fn a_caller_base_url_is_refused_unless_configured_or_allowed() {
    let flags = |caller: &str, allowed: &[&str]| Overrides {
        model: Some("m".into()),
        caller_base_url: Some(caller.into()),
        allowed_base_urls: allowed.iter().map(|u| BaseUrl::parse(u).unwrap()).collect(),
        ..Overrides::default()
    };
    let with_key = env(&[
        ("OPENAI_API_KEY", "sk-test-SECRET123"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    ]);
    let err = Settings::resolve_with_env(flags("http://evil.example/v1", &[]), None, &with_key)
        .unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.message.contains("refused"), "{}", err.message);
    assert_eq!(
        err.topic(),
        Some(&Topic::BaseUrlNotAllowed {
            url: "http://evil.example/v1".into()
        })
    );
    let same =
        Settings::resolve_with_env(flags("HTTP://127.0.0.1:9/v1/", &[]), None, &with_key).unwrap();
    assert_eq!(same.base_url, "http://127.0.0.1:9/v1");
    let allowed = Settings::resolve_with_env(
        flags("http://gateway.example/v1", &["http://GATEWAY.example/v1/"]),
        None,
        &with_key,
    )
    .unwrap();
    assert_eq!(allowed.base_url, "http://gateway.example/v1");
    assert!(
        Settings::resolve_with_env(
            flags("http://gateway.example/v2", &["http://gateway.example/v1"]),
            None,
            &with_key
        )
        .is_err(),
        "another path on an allowed host is another base URL"
    );
}

#[test]
fn official_and_loopback_hosts_are_recognised() {
    let official = Settings::new(Wire::OpenAi, "m", "https://API.openai.com/v1");
    assert!(official.is_official_endpoint() && !official.is_loopback());
    let local = Settings::new(Wire::Anthropic, "m", "http://[::1]:11434");
    assert!(!local.is_official_endpoint() && local.is_loopback());
}
