//! The one parser of a provider's base URL, for every entry point: the flags, the
//! environment, a brief's `model.base_url`, an MCP tool's `base_url`, the proxy's upstreams
//! and `--allow-base-url`.

use std::fmt;
use std::net::IpAddr;

/// An http(s) URL with a host and no query or fragment, kept in its normal form (scheme
/// and host in lower case, no default port, no trailing slash), so that two spellings of
/// one address compare equal and a path is appended to it as text.
#[derive(Clone, Debug)]
pub struct BaseUrl {
    text: String,
    url: url::Url,
}

impl BaseUrl {
    /// Parses `text`; `Err` says what is wrong in a few words (the caller names the
    /// setting it came from).
    pub fn parse(text: &str) -> Result<BaseUrl, String> {
        let trimmed = text.trim();
        let url = url::Url::parse(trimmed).map_err(|e| format!("not a URL ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("not http or https".into());
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("no host".into());
        }
        if url.query().is_some() || url.fragment().is_some() || trimmed.contains(['?', '#']) {
            return Err("a base URL takes no query or fragment".into());
        }
        let text = url.as_str().trim_end_matches('/').to_string();
        Ok(BaseUrl { text, url })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The host as written in a URL (an IPv6 address in brackets), lower case.
    pub fn host(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    /// The port, or the scheme's default.
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(80)
    }

    pub fn is_https(&self) -> bool {
        self.url.scheme() == "https"
    }

    /// `localhost` or a loopback address: this machine's own servers.
    pub fn is_loopback(&self) -> bool {
        match self.url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
    }

    /// The host as an IP address, when it is one.
    pub fn ip(&self) -> Option<IpAddr> {
        match self.url.host()? {
            url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            url::Host::Domain(_) => None,
        }
    }

    /// The URL of `path` (which starts with `/`) below this base.
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.text)
    }
}

/// Two base URLs are the same address when their normal forms are.
impl PartialEq for BaseUrl {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for BaseUrl {}

impl std::hash::Hash for BaseUrl {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn base_urls_are_kept_in_their_normal_form() {
        let url = BaseUrl::parse(" HTTPS://API.OpenAI.com:443/v1/ ").unwrap();
        assert_eq!(url.as_str(), "https://api.openai.com/v1");
        assert_eq!(url.host(), "api.openai.com");
        assert_eq!(url.port(), 443);
        assert_eq!(url, BaseUrl::parse("https://api.openai.com/v1").unwrap());
        assert_ne!(url, BaseUrl::parse("https://api.openai.com/V1").unwrap());
        let local = BaseUrl::parse("http://u:p@127.0.0.1:8080/x").unwrap();
        assert_eq!(local.host(), "127.0.0.1");
        assert!(local.is_loopback());
        let v6 = BaseUrl::parse("http://[::1]:11434/v1").unwrap();
        assert_eq!(v6.host(), "[::1]");
        assert!(v6.is_loopback() && v6.ip().is_some());
        assert!(BaseUrl::parse("http://localhost:1").unwrap().is_loopback());
        assert!(
            !BaseUrl::parse("http://gateway.example")
                .unwrap()
                .is_loopback()
        );
        assert_eq!(
            BaseUrl::parse("http://127.0.0.1:9")
                .unwrap()
                .join("/v1/messages"),
            "http://127.0.0.1:9/v1/messages"
        );
    }

    #[test]
    fn what_is_not_a_base_url_is_refused() {
        for bad in [
            "",
            "nope",
            "localhost:8080",
            "ftp://x",
            "not a url",
            "http://x/v1?a=b",
            "http://x/v1#top",
            "http://x/v1?",
            "https://",
            "file:///etc/passwd",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn parsing_never_panics_and_normal_forms_are_fixed_points(text in "\\PC{0,60}") {
            if let Ok(url) = BaseUrl::parse(&text) {
                let again = BaseUrl::parse(url.as_str()).unwrap();
                prop_assert_eq!(again.as_str(), url.as_str());
            }
        }
    }
}
