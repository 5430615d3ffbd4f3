//! The proxy's dashboard: a page at `/` that shows, live, what `/stats` says — totals, per
//! model and per session, input and cached share call by call, every drift and where it
//! was — on the proxy's own listener, from its own memory.
//!
//! The page is rendered on the server (`cache::dashboard`), so it reads the same with
//! scripts off; its one script (`/dashboard/app.js`) repaints it from `/dashboard.json`
//! every two seconds. Every asset is compiled into the binary: the page needs nothing
//! from anywhere, and its Content-Security-Policy lets it ask nothing of anyone but the
//! proxy. The figures are one snapshot ([`Snapshot`]), the one `/stats` serves too, so the
//! page and `/stats` agree.
//!
//! The page shows what clients sent (model and session names, excerpts of their prompts),
//! so it is for this machine: besides the loopback-only listener, a request whose `Host`
//! names anything but `localhost` or an IP address is refused (a DNS-rebinding page could
//! otherwise read it from the browser), unless the proxy was started with `--allow-remote`.

mod recent;
mod view;

use std::sync::{Arc, Mutex};

use http::{HeaderMap, HeaderValue, Request, Response, StatusCode, header};

use crate::cache::dashboard::html;

pub use recent::{CallPoint, DriftEvent, MAX_DRIFT_EVENTS, MAX_RECENT_CALLS, Recent};
pub use view::{Context, Snapshot};

use super::{App, ProxyBody, reply};

/// Where the page's script, stylesheet and icon are served.
const ASSETS: &str = "/dashboard";

/// Where the page's script reads the view.
const SOURCE: &str = "/dashboard.json";

/// How often the page repaints.
const EVERY_MS: u64 = 2000;

/// The dashboard's routes and the figures (`/stats`, `/metrics`), under the same rules;
/// `None` for any other request.
pub fn route<B>(app: &Arc<App>, request: &Request<B>) -> Option<Response<ProxyBody>> {
    if request.method() != http::Method::GET {
        return None;
    }
    let path = request.uri().path();
    let answer: (&str, String) = match path {
        "/" | "/dashboard" => {
            let snapshot = Snapshot::take(app);
            let mode = html::Mode::Live {
                assets: ASSETS,
                source: SOURCE,
                every_ms: EVERY_MS,
            };
            let footer = footer();
            let page = html::page(&snapshot.view(&app.page), mode, &footer);
            ("text/html; charset=utf-8", page)
        }
        // The figures hold what clients named: data, never a page, whatever opens them.
        "/stats" => ("application/json", Snapshot::take(app).stats_json()),
        "/metrics" => {
            let backlog = app.backlog();
            let text = app
                .stats
                .lock()
                .map(|s| s.metrics(&backlog))
                .unwrap_or_default();
            ("text/plain; version=0.0.4; charset=utf-8", text)
        }
        SOURCE => {
            let view = Snapshot::take(app).view(&app.page);
            let json = serde_json::to_string(&view).unwrap_or_else(|_| "{}".into());
            ("application/json", json)
        }
        "/dashboard/app.js" => ("text/javascript; charset=utf-8", html::SCRIPT.into()),
        "/dashboard/style.css" => ("text/css; charset=utf-8", html::STYLE.into()),
        "/dashboard/icon.svg" | "/favicon.ico" => ("image/svg+xml", html::ICON.into()),
        _ => return None,
    };
    if !host_allowed(request.headers(), app.page.allow_remote) {
        return Some(refuse_host());
    }
    let mut response = reply::full(StatusCode::OK, answer.0, answer.1);
    guard_headers(response.headers_mut());
    Some(response)
}

/// Whether a request for figures may be answered: its `Host` is `localhost` or an IP
/// address (a DNS-rebinding page reaches the proxy under a name of its own), or the proxy
/// was told to serve other machines.
pub fn host_allowed(headers: &HeaderMap, allow_remote: bool) -> bool {
    if allow_remote {
        return true;
    }
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        // Not a browser: HTTP/1.1 browsers always send one.
        return true;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

/// `403` for a request whose `Host` names another site.
pub fn refuse_host() -> Response<ProxyBody> {
    let mut response = reply::full(
        StatusCode::FORBIDDEN,
        "text/plain; charset=utf-8",
        "brief proxy: this page is served to localhost only; the Host header names another \
         site (start the proxy with --allow-remote to serve other names)\n",
    );
    guard_headers(response.headers_mut());
    response
}

/// What every answer of the dashboard and the figures carries: its policy, and no caching,
/// sniffing, framing or referrer.
fn guard_headers(headers: &mut HeaderMap) {
    for (name, value) in [
        ("content-security-policy", html::LIVE_CSP),
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
        ("cross-origin-resource-policy", "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

fn footer() -> String {
    format!(
        "briefkit {} · page made {} · figures since the proxy started; the whole history \
         is in the ledger (brief usage --html)",
        env!("CARGO_PKG_VERSION"),
        crate::clock::format_rfc3339(crate::clock::now_ms())
    )
}

/// The recent calls and drift events, shared by the rows' outlet and the pages.
pub fn recent() -> Arc<Mutex<Recent>> {
    Arc::new(Mutex::new(Recent::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn only_local_names_and_addresses_reach_the_figures() {
        for ok in [
            "127.0.0.1:8787",
            "localhost:8787",
            "LOCALHOST",
            "[::1]:8787",
            "app.localhost:1",
            "10.0.0.5:8787",
        ] {
            assert!(host_allowed(&host(ok), false), "{ok}");
        }
        for bad in [
            "evil.example:8787",
            "evil.example",
            "localhost.evil.example:80",
        ] {
            assert!(!host_allowed(&host(bad), false), "{bad}");
            assert!(host_allowed(&host(bad), true), "{bad}");
        }
        assert!(host_allowed(&HeaderMap::new(), false));
    }
}
