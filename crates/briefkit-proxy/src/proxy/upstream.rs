//! Where calls go: the upstream base URL of each provider, the HTTP client, and what the
//! proxy must not forward (hop-by-hop headers, and the `Host` the client addressed the
//! proxy with).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName};
use http::{Uri, uri::PathAndQuery};
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::error::{Error, Result};

use crate::wire::{BaseUrl, Wire};

pub type Client = HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Connecting to an upstream gives up after this long.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One upstream base URL, e.g. `https://api.openai.com/v1`.
#[derive(Debug, Clone)]
pub struct Upstream {
    base: BaseUrl,
    wire: Wire,
}

impl Upstream {
    pub fn new(base: BaseUrl, wire: Wire) -> Upstream {
        Upstream { base, wire }
    }

    pub fn as_str(&self) -> &str {
        self.base.as_str()
    }

    /// The upstream URL for a request the client sent to `path_and_query` on the proxy.
    /// OpenAI base URLs end in the version (`…/v1`), so the proxy's `/v1` is dropped (a
    /// path outside `/v1` goes below the base without its `/v1`); Anthropic and Gemini base
    /// URLs stop before the version, as their SDKs expect.
    ///
    /// A `key=` query parameter (Gemini's way to pass its key) is dropped on the way to any
    /// other provider: a key never leaves for another provider's host.
    pub fn target(&self, path_and_query: &PathAndQuery) -> Result<Uri, String> {
        let kept;
        let full = match (self.wire, path_and_query.query()) {
            (Wire::Gemini, _) | (_, None) => path_and_query.as_str(),
            (_, Some(query)) => {
                kept = without_query_key(path_and_query.path(), query);
                kept.as_str()
            }
        };
        let url = match self.wire {
            Wire::OpenAi | Wire::Responses => match full.strip_prefix("/v1") {
                Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
                    self.base.join(rest)
                }
                _ => {
                    let base = self.base.as_str();
                    format!("{}{full}", base.strip_suffix("/v1").unwrap_or(base))
                }
            },
            Wire::Anthropic | Wire::Gemini => self.base.join(full),
        };
        url.parse()
            .map_err(|e| format!("cannot build the upstream URL: {e}"))
    }

    /// True when this upstream is the proxy's own address: the agent's `OPENAI_BASE_URL`
    /// inherited by the proxy would send every call around in a circle.
    pub fn points_at(&self, listen: SocketAddr) -> bool {
        let same_host = match self.base.ip() {
            Some(ip) => ip == listen.ip() || (ip.is_loopback() && listen.ip().is_unspecified()),
            None => self.base.host() == "localhost" && listen.ip().is_loopback(),
        };
        same_host && self.base.port() == listen.port()
    }
}

/// The pooled HTTP/1.1 client, TLS through the platform's certificate verifier. Header
/// name case is kept as the client wrote it.
pub fn client() -> Result<Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    use rustls_platform_verifier::ConfigVerifierExt;
    let tls = rustls::ClientConfig::with_platform_verifier()
        .map_err(|e| Error::provider(format!("cannot set up TLS: {e}")).with_source(e))?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(CONNECT_TIMEOUT));
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(HyperClient::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .http1_preserve_header_case(true)
        .build(connector))
}

/// `path?query` without its `key` parameters (the `?` goes too when nothing is left). A
/// parameter's name is read as the server reads it, percent-decoded (`k%65y=` is `key=`);
/// the pairs kept are forwarded as the client wrote them.
fn without_query_key(path: &str, query: &str) -> String {
    let rest: Vec<&str> = query.split('&').filter(|pair| !names_key(pair)).collect();
    if rest.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", rest.join("&"))
    }
}

/// Whether one `name=value` pair of a query is named `key` once decoded.
fn names_key(pair: &str) -> bool {
    url::form_urlencoded::parse(pair.as_bytes())
        .next()
        .is_some_and(|(name, _)| name == "key")
}

/// Removes the credential headers that belong to another provider than `wire`'s: Gemini's
/// `x-goog-api-key` goes to Gemini's upstream and nowhere else. (The other providers'
/// headers are shared by compatible servers: `authorization` and `x-api-key` are both
/// spoken by Anthropic and by OpenAI-compatible gateways, so they stay.)
pub fn strip_foreign_keys(wire: Wire, headers: &mut HeaderMap) {
    if wire != Wire::Gemini {
        headers.remove("x-goog-api-key");
    }
}

/// Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus any the
/// `Connection` header names.
pub fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        header::CONNECTION,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
        header::PROXY_AUTHORIZATION,
        header::PROXY_AUTHENTICATE,
    ] {
        headers.remove(name);
    }
    headers.remove("keep-alive");
    headers.remove("proxy-connection");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream(url: &str, wire: Wire) -> Upstream {
        Upstream::new(BaseUrl::parse(url).unwrap(), wire)
    }

    #[test]
    fn targets_follow_each_sdks_base_url_convention() {
        let openai = upstream("https://api.openai.com/v1/", Wire::OpenAi);
        let pq: PathAndQuery = "/v1/chat/completions?api-version=1".parse().unwrap();
        assert_eq!(
            openai.target(&pq).unwrap().to_string(),
            "https://api.openai.com/v1/chat/completions?api-version=1"
        );
        let anthropic = upstream("http://127.0.0.1:9/", Wire::Anthropic);
        let pq: PathAndQuery = "/v1/messages".parse().unwrap();
        assert_eq!(
            anthropic.target(&pq).unwrap().to_string(),
            "http://127.0.0.1:9/v1/messages"
        );
        let gemini = upstream("https://generativelanguage.googleapis.com", Wire::Gemini);
        let pq: PathAndQuery = "/v1beta/models/g:streamGenerateContent?alt=sse"
            .parse()
            .unwrap();
        assert_eq!(
            gemini.target(&pq).unwrap().to_string(),
            "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse"
        );
        let pq: PathAndQuery = "/api/hello".parse().unwrap();
        assert_eq!(
            openai.target(&pq).unwrap().to_string(),
            "https://api.openai.com/api/hello"
        );
        let pq: PathAndQuery = "/v1x".parse().unwrap();
        assert_eq!(
            openai.target(&pq).unwrap().to_string(),
            "https://api.openai.com/v1x"
        );
    }

    #[test]
    fn a_gemini_key_never_goes_to_another_provider() {
        let openai = upstream("http://127.0.0.1:9/v1", Wire::OpenAi);
        let pq: PathAndQuery = "/v1/models?key=AIzaSECRET&limit=2".parse().unwrap();
        assert_eq!(
            openai.target(&pq).unwrap().to_string(),
            "http://127.0.0.1:9/v1/models?limit=2"
        );
        let anthropic = upstream("http://127.0.0.1:9", Wire::Anthropic);
        let pq: PathAndQuery = "/v1/messages?key=AIzaSECRET".parse().unwrap();
        assert_eq!(
            anthropic.target(&pq).unwrap().to_string(),
            "http://127.0.0.1:9/v1/messages"
        );
        let gemini = upstream("http://127.0.0.1:9", Wire::Gemini);
        let pq: PathAndQuery = "/v1beta/models?key=AIzaSECRET".parse().unwrap();
        assert_eq!(
            gemini.target(&pq).unwrap().to_string(),
            "http://127.0.0.1:9/v1beta/models?key=AIzaSECRET"
        );
        let mut headers = HeaderMap::new();
        headers.insert("x-goog-api-key", "AIzaSECRET".parse().unwrap());
        headers.insert("x-api-key", "sk-ant".parse().unwrap());
        strip_foreign_keys(Wire::Gemini, &mut headers);
        assert_eq!(headers.len(), 2);
        strip_foreign_keys(Wire::Anthropic, &mut headers);
        assert!(!headers.contains_key("x-goog-api-key") && headers.contains_key("x-api-key"));
    }

    #[test]
    fn a_percent_encoded_gemini_key_is_stripped_too() {
        let openai = upstream("http://127.0.0.1:9/v1", Wire::OpenAi);
        for query in [
            "k%65y=AIzaSECRET",
            "%6B%65%79=AIzaSECRET",
            "key",
            "key=a%26b",
        ] {
            let pq: PathAndQuery = format!("/v1/models?a=%41+b&{query}&limit=2")
                .parse()
                .unwrap();
            assert_eq!(
                openai.target(&pq).unwrap().to_string(),
                "http://127.0.0.1:9/v1/models?a=%41+b&limit=2",
                "{query}"
            );
        }
        let pq: PathAndQuery = "/v1/models?keys=1&monkey=2&key%3D=3".parse().unwrap();
        assert_eq!(
            openai.target(&pq).unwrap().to_string(),
            "http://127.0.0.1:9/v1/models?keys=1&monkey=2&key%3D=3"
        );
    }

    #[test]
    fn an_upstream_that_is_the_proxy_itself_is_recognised() {
        let listen: SocketAddr = "127.0.0.1:8787".parse().unwrap();
        let me = upstream("http://localhost:8787/v1", Wire::OpenAi);
        let other = upstream("http://127.0.0.1:8788/v1", Wire::OpenAi);
        assert!(me.points_at(listen));
        assert!(!other.points_at(listen));
    }

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_removed() {
        let mut headers = HeaderMap::new();
        headers.insert("connection", "keep-alive, x-hop".parse().unwrap());
        headers.insert("x-hop", "1".parse().unwrap());
        headers.insert("keep-alive", "timeout=5".parse().unwrap());
        headers.insert("authorization", "Bearer k".parse().unwrap());
        strip_hop_by_hop(&mut headers);
        assert_eq!(headers.len(), 1);
        assert!(headers.contains_key("authorization"));
    }
}
