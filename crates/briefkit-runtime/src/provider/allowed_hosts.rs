//! Which hosts a brief may name as `model.base_url` and still receive the operator's key.
//!
//! Briefs arrive in pull requests: a `base_url` in `brief.yaml` is the author's choice,
//! not the operator's, and the key in the operator's environment must not follow it to a
//! host of the author's choosing. So a key goes to a base URL that came from a brief only
//! when its host is one of:
//! - the provider's official hosts (always);
//! - the hosts in `BRIEF_ALLOWED_HOSTS` (comma- or space-separated; `*` allows every host);
//! - the hosts in the operator's own file, `$XDG_CONFIG_HOME/briefkit/allowed_hosts`
//!   (`~/.config/briefkit/allowed_hosts`): one a line, `#` starts a comment;
//! - a base URL the operator allowed on the command line (`brief mcp --allow-base-url`).
//!
//! An entry is a host (`llm.internal`, `127.0.0.1`, `[::1]`), which allows every port, or
//! `host:port`, which allows that port only. Anything else is refused before a request is
//! made, with the host named (exit 2); without a key in the environment nothing is at
//! stake and the call goes on without one. A base URL from a flag or the environment
//! (`OPENAI_BASE_URL`, …) is the operator's and needs no allowance.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::limits::Limit;
use crate::wire::{BaseUrl, Wire};

/// The variable of hosts a brief may name.
pub const ENV_ALLOWED_HOSTS: &str = "BRIEF_ALLOWED_HOSTS";
/// The file of hosts a brief may name, under the user's configuration directory.
pub const ALLOWED_HOSTS_FILE: &str = "briefkit/allowed_hosts";
/// The most of that file read: a list of hosts.
const FILE_LIMIT: Limit = Limit::mib(1, "the allowed_hosts file");

/// The operator's allowed-hosts file, from `XDG_CONFIG_HOME` or `HOME`.
pub fn allowed_hosts_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| env("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(base.join(ALLOWED_HOSTS_FILE))
}

/// Whether `entry` (`host` or `host:port`) allows `url`.
fn entry_allows(entry: &str, url: &BaseUrl) -> bool {
    let entry = entry.trim().to_ascii_lowercase();
    if entry == "*" {
        return true;
    }
    if entry == url.host() {
        return true;
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && !host.ends_with(':') => {
            host == url.host() && port.parse::<u16>().is_ok_and(|p| p == url.port())
        }
        _ => false,
    }
}

/// Whether the operator allowed a brief to name `url` (see the module documentation).
pub fn brief_host_allowed(
    url: &BaseUrl,
    allowed_base_urls: &[BaseUrl],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<bool> {
    if Wire::official_hosts().contains(&url.host()) || allowed_base_urls.contains(url) {
        return Ok(true);
    }
    if env(ENV_ALLOWED_HOSTS).is_some_and(|list| {
        list.split([',', ' ', '\n', '\t'])
            .filter(|e| !e.trim().is_empty())
            .any(|e| entry_allows(e, url))
    }) {
        return Ok(true);
    }
    let Some(path) = allowed_hosts_path(env) else {
        return Ok(false);
    };
    let Some(bytes) = crate::files::policy::read_owned(&path, FILE_LIMIT)? else {
        return Ok(false);
    };
    Ok(String::from_utf8_lossy(&bytes).lines().any(|line| {
        let entry = line.split('#').next().unwrap_or("").trim();
        !entry.is_empty() && entry_allows(entry, url)
    }))
}

/// The refusal for a brief-named base URL the operator did not allow.
pub fn refusal(url: &BaseUrl, wire: Wire, env: &dyn Fn(&str) -> Option<String>) -> Error {
    let file = allowed_hosts_path(env).map_or_else(
        || format!("~/.config/{ALLOWED_HOSTS_FILE}"),
        |p| p.display().to_string(),
    );
    Error::input(format!(
        "the brief's model.base_url names the host {} ({url}): {} is sent to a host a brief names only when the operator allows it; no request was made",
        url.host(),
        wire.key_var()
    ))
    .with_hint(format!(
        "if you trust that host, add it to {ENV_ALLOWED_HOSTS} (e.g. {ENV_ALLOWED_HOSTS}={}) or to {file}, or pass the address with --base-url; see docs/security.md",
        url.host()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> BaseUrl {
        BaseUrl::parse(text).unwrap()
    }

    #[test]
    fn entries_allow_a_host_or_one_of_its_ports() {
        assert!(entry_allows(
            "llm.internal",
            &url("https://llm.internal/v1")
        ));
        assert!(entry_allows(
            "LLM.internal:8443",
            &url("https://llm.internal:8443/v1")
        ));
        assert!(!entry_allows(
            "llm.internal:8443",
            &url("https://llm.internal/v1")
        ));
        assert!(!entry_allows("internal", &url("https://llm.internal/v1")));
        assert!(entry_allows("[::1]:9", &url("http://[::1]:9/v1")));
        assert!(entry_allows("*", &url("http://evil.example/v1")));
    }

    #[test]
    fn official_hosts_the_variable_and_the_file_allow_and_nothing_else_does() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().to_path_buf();
        let env_with = |list: Option<&str>| {
            let list = list.map(str::to_string);
            let config = config.clone();
            move |name: &str| match name {
                ENV_ALLOWED_HOSTS => list.clone(),
                "XDG_CONFIG_HOME" => Some(config.display().to_string()),
                _ => None,
            }
        };
        let evil = url("http://evil.example:8080/v1");
        let none = env_with(None);
        assert!(brief_host_allowed(&url("https://api.openai.com/v1"), &[], &none).unwrap());
        assert!(!brief_host_allowed(&evil, &[], &none).unwrap());
        let listed = env_with(Some("a.example, evil.example:8080"));
        assert!(brief_host_allowed(&evil, &[], &listed).unwrap());
        std::fs::create_dir_all(dir.path().join("briefkit")).unwrap();
        std::fs::write(
            dir.path().join(ALLOWED_HOSTS_FILE),
            "# mine\nevil.example # the lab\n",
        )
        .unwrap();
        assert!(brief_host_allowed(&evil, &[], &none).unwrap());
        let err = refusal(&evil, Wire::OpenAi, &none);
        assert!(err.message.contains("evil.example"), "{}", err.message);
        assert_eq!(err.exit_code(), 2);
    }
}
