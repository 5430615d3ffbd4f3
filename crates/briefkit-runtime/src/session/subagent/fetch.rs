//! Fetching a page for a sub-agent: an HTTP(S) GET of an address the model chose, so it
//! is treated as untrusted input.
//!
//! - Nothing of ours goes with it: a client of its own, no API key, no cookie, no
//!   credentials in the address (refused), no provider header.
//! - Only `http` and `https`; at most [`MAX_REDIRECTS`] redirects, each checked as the
//!   first address was; a timeout per request; at most [`MAX_BYTES`] read (the rest cut,
//!   and the sub-agent told).
//! - Where it may go: public addresses. Loopback, private (RFC 1918, unique-local),
//!   link-local (cloud metadata services live there), CGNAT, multicast and unspecified
//!   addresses are refused unless the operator sets `BRIEF_FETCH_ALLOW_PRIVATE=1` (a local
//!   test server, an intranet). The host is resolved once, checked, and the connection
//!   pinned to the checked addresses, so a second DNS answer cannot redirect it.
//!
//! HTML becomes readable text through `html2text`; other text types are kept as they are;
//! anything else (images, PDFs, archives) is refused by its content type.

use std::io::Read;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

use reqwest::Url;

use crate::error::{Error, Result};

/// The most bytes read of one page.
pub const MAX_BYTES: u64 = 2 * 1024 * 1024;
/// Redirects followed, at most.
pub const MAX_REDIRECTS: usize = 5;
/// Connect and per-read timeout.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// Set to `1` to let a fetch reach loopback, private and link-local addresses.
pub const ENV_ALLOW_PRIVATE: &str = "BRIEF_FETCH_ALLOW_PRIVATE";

/// A fetched page, as text.
#[derive(Debug, Clone)]
pub struct Page {
    /// The address asked for.
    pub url: String,
    /// Where the page was found, after redirects.
    pub final_url: String,
    pub content_type: String,
    /// Bytes received (at most [`MAX_BYTES`]).
    pub bytes: u64,
    /// The page was longer than [`MAX_BYTES`] and was cut.
    pub cut: bool,
    pub text: String,
}

/// Who may be reached.
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    pub private: bool,
}

impl Reach {
    /// From `BRIEF_FETCH_ALLOW_PRIVATE`.
    pub fn from_env() -> Reach {
        let private = std::env::var(ENV_ALLOW_PRIVATE)
            .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        Reach { private }
    }
}

/// Whether an address is outside the public internet.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || (a == 100 && (64..128).contains(&b))
                || a == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_private(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

fn refused(url: &Url, why: String) -> Error {
    Error::input(format!("{url}: {why}"))
}

/// The address checked and resolved: the host and the addresses to connect to.
fn admit(url: &Url, reach: Reach) -> Result<(String, Vec<SocketAddr>)> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refused(
            url,
            format!("scheme `{}` is not http or https", url.scheme()),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refused(
            url,
            "an address with credentials is not fetched".into(),
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| refused(url, "no host".into()))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = url
        .port_or_known_default()
        .ok_or_else(|| refused(url, "no port".into()))?;
    let addrs: Vec<SocketAddr> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| Error::provider(format!("{url}: cannot resolve {host}: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(Error::provider(format!("{url}: {host} has no address")));
    }
    if !reach.private
        && let Some(addr) = addrs.iter().find(|a| is_private(a.ip()))
    {
        return Err(refused(
            url,
            format!(
                "{host} is {}, a loopback, private or link-local address: not fetched (the operator can allow it with {ENV_ALLOW_PRIVATE}=1)",
                addr.ip()
            ),
        ));
    }
    Ok((host, addrs))
}

fn client(host: &str, addrs: &[SocketAddr]) -> Result<reqwest::blocking::Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(TIMEOUT)
        .timeout(TIMEOUT)
        .user_agent(concat!(
            "briefkit/",
            env!("CARGO_PKG_VERSION"),
            " (fetch_url sub-agent)"
        ))
        .resolve_to_addrs(host, addrs);
    if addrs.iter().all(|a| a.ip().is_loopback()) {
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|e| Error::provider(format!("could not set up the HTTP client: {e}")))
}

/// GETs `address` under `reach`, following redirects, and returns its text.
pub fn fetch(address: &str, reach: Reach) -> Result<Page> {
    let mut url = Url::parse(address.trim())
        .map_err(|e| Error::input(format!("`{address}` is not an address: {e}")))?;
    for _ in 0..=MAX_REDIRECTS {
        let (host, addrs) = admit(&url, reach)?;
        let response = client(&host, &addrs)?
            .get(url.clone())
            .header("accept", "text/html, text/plain;q=0.9, */*;q=0.5")
            .send()
            .map_err(|e| Error::provider(format!("{url}: {}", without_url(e))))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    Error::provider(format!("{url}: HTTP {status} without a Location"))
                })?;
            url = url
                .join(location)
                .map_err(|e| Error::provider(format!("{url}: a bad redirect `{location}`: {e}")))?;
            continue;
        }
        if !status.is_success() {
            return Err(Error::provider(format!("{url}: HTTP {status}")));
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = Vec::new();
        response
            .take(MAX_BYTES + 1)
            .read_to_end(&mut body)
            .map_err(|e| Error::provider(format!("{url}: the body could not be read: {e}")))?;
        let cut = body.len() as u64 > MAX_BYTES;
        body.truncate(MAX_BYTES as usize);
        let text = to_text(&url, &content_type, &body)?;
        return Ok(Page {
            url: address.to_string(),
            final_url: url.to_string(),
            content_type,
            bytes: body.len() as u64,
            cut,
            text,
        });
    }
    Err(Error::provider(format!(
        "{address}: more than {MAX_REDIRECTS} redirects"
    )))
}

/// A transport error in words, without the address (the caller names it) and with its
/// causes.
fn without_url(err: reqwest::Error) -> String {
    let err = err.without_url();
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// A page's bytes as text: HTML made readable, other text kept, the rest refused.
pub fn to_text(url: &Url, content_type: &str, body: &[u8]) -> Result<String> {
    let html = content_type.contains("html")
        || (content_type.is_empty() && {
            let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
            head.contains("<html") || head.contains("<!doctype html")
        });
    if html {
        return html2text::from_read(body, 100)
            .map_err(|e| Error::provider(format!("{url}: the HTML could not be read: {e}")));
    }
    let textual = content_type.is_empty()
        || content_type.starts_with("text/")
        || content_type.contains("json")
        || content_type.contains("xml")
        || content_type.contains("javascript");
    if !textual {
        return Err(Error::input(format!(
            "{url}: `{content_type}` is not text; only HTML and text pages are read"
        )));
    }
    Ok(String::from_utf8_lossy(body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_and_link_local_addresses_are_told_apart_from_public_ones() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in ["93.184.216.34", "1.1.1.1", "2606:4700::1111"] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn only_http_addresses_without_credentials_and_public_hosts_are_admitted() {
        let closed = Reach { private: false };
        for bad in [
            "ftp://example.org/x",
            "file:///etc/passwd",
            "http://user:pw@example.org/",
            "http://127.0.0.1:9/",
            "http://[::1]:9/",
            "http://169.254.169.254/latest/meta-data",
        ] {
            let err = admit(&Url::parse(bad).unwrap(), closed).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}: {}", err.message);
        }
        assert!(
            admit(
                &Url::parse("http://127.0.0.1:9/").unwrap(),
                Reach { private: true }
            )
            .is_ok()
        );
    }

    #[test]
    fn html_becomes_readable_text_and_binary_types_are_refused() {
        let url = Url::parse("http://example.org/").unwrap();
        let text = to_text(
            &url,
            "text/html; charset=utf-8",
            b"<html><head><script>var x=1;</script></head><body><h1>Pricing</h1><p>Pro costs <b>$12</b> a month.</p></body></html>",
        )
        .unwrap();
        assert!(text.contains("Pricing") && text.contains("$12"), "{text}");
        assert!(!text.contains("<p>"));
        assert!(to_text(&url, "image/png", b"\x89PNG").is_err());
        assert_eq!(to_text(&url, "text/plain", b"plain").unwrap(), "plain");
    }
}
