//! `web_search_agent`: a search through the operator's search backend, the top results
//! fetched as `fetch_url` fetches a page, and one synthesis by the sub-agent's model.
//!
//! The backend is any SearxNG-compatible JSON API named by `BRIEF_SEARCH_URL` (an
//! instance's address; `/search?q=…&format=json` is asked of it): the operator chose it,
//! so it may be a local or private address. The result pages are the web's choice and go
//! through `fetch_url`'s rules.
//!
//! The backend is trusted with an address, not with our memory: its answer is read within
//! [`MAX_ANSWER_BYTES`] and the fetch deadline (a longer one is refused, exit 3), and only
//! its first [`MAX_HITS`] results, each title and snippet cut to [`MAX_HIT_TEXT`] bytes,
//! go on to the sub-agent's model.

use std::io::Read;

use reqwest::Url;
use serde_json::Value;

use super::fetch::{self, Reach};
use super::{Conversation, cite, completed_empty, failed, invalid_twice};
use crate::error::{Error, Result};
use crate::session::log::Entry;
use crate::session::{Session, tools};

/// The search backend.
pub const ENV_SEARCH_URL: &str = "BRIEF_SEARCH_URL";
/// Results whose pages are fetched.
pub const TOP_RESULTS: usize = 3;
/// Bytes of each page's text the synthesis reads.
const PAGE_TEXT: usize = 48 * 1024;
/// The most bytes of the backend's answer read (a SearxNG page of results is tens of KiB).
pub const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;
/// Results of the backend's answer kept, in its order; the rest are never read.
pub const MAX_HITS: usize = 10;
/// Bytes kept of each result's title and snippet.
pub const MAX_HIT_TEXT: usize = 1024;

/// One search result.
#[derive(Debug, Clone)]
pub struct Hit {
    pub url: String,
    pub title: String,
    pub snippet: String,
}

/// The backend's address for `query`.
fn search_url(base: &str, query: &str) -> Result<Url> {
    let mut url = Url::parse(base.trim())
        .map_err(|e| Error::input(format!("{ENV_SEARCH_URL}=`{base}` is not an address: {e}")))?;
    if !url.path().trim_end_matches('/').ends_with("/search") {
        let path = format!("{}/search", url.path().trim_end_matches('/'));
        url.set_path(&path);
    }
    url.query_pairs_mut()
        .append_pair("q", query)
        .append_pair("format", "json");
    Ok(url)
}

/// Asks the backend; its top results.
pub fn search(query: &str) -> Result<Vec<Hit>> {
    let base = std::env::var(ENV_SEARCH_URL).ok().filter(|v| !v.trim().is_empty()).ok_or_else(|| {
        Error::input(format!("web_search_agent needs a search backend: {ENV_SEARCH_URL} is not set"))
            .with_hint(format!(
                "set {ENV_SEARCH_URL} to a SearxNG-compatible instance (its JSON API must be enabled: search.formats includes json)"
            ))
    })?;
    let url = search_url(&base, query)?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let deadline = fetch::deadline_from_env();
    let client = reqwest::blocking::Client::builder()
        .timeout(deadline)
        .redirect(reqwest::redirect::Policy::limited(fetch::MAX_REDIRECTS))
        .user_agent(concat!(
            "briefkit/",
            env!("CARGO_PKG_VERSION"),
            " (web_search_agent)"
        ))
        .build()
        .map_err(|e| Error::provider(format!("could not set up the HTTP client: {e}")))?;
    let response = client
        .get(url)
        .header("accept", "application/json")
        // The whole answer, body included, within the deadline.
        .timeout(deadline)
        .send()
        .map_err(|e| {
            Error::provider(format!(
                "the search backend did not answer: {}",
                e.without_url()
            ))
        })?;
    let status = response.status();
    if !status.is_success() {
        return Err(Error::provider(format!(
            "the search backend answered HTTP {status}"
        )));
    }
    if response
        .content_length()
        .is_some_and(|n| n > MAX_ANSWER_BYTES)
    {
        return Err(too_long());
    }
    let mut bytes = Vec::new();
    response
        .take(MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            Error::provider(format!(
                "the search backend's answer could not be read within {:.1} s: {e}",
                deadline.as_secs_f64()
            ))
        })?;
    if bytes.len() as u64 > MAX_ANSWER_BYTES {
        return Err(too_long());
    }
    hits_of(&bytes)
}

fn too_long() -> Error {
    Error::provider(format!(
        "the search backend's answer is longer than {} MiB; refused without reading the rest",
        MAX_ANSWER_BYTES / (1024 * 1024)
    ))
}

/// The first [`MAX_HITS`] results of a backend's answer, their texts cut.
pub fn hits_of(bytes: &[u8]) -> Result<Vec<Hit>> {
    let body: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::provider(format!("the search backend's answer is not JSON: {e}")))?;
    let hits = body
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::provider("the search backend's answer has no `results` list"))?
        .iter()
        .filter_map(|r| {
            let url = r.get("url")?.as_str()?;
            if url.len() > MAX_HIT_TEXT * 8 {
                return None;
            }
            let text = |k: &str| cut(r.get(k).and_then(Value::as_str).unwrap_or(""));
            Some(Hit {
                url: url.to_string(),
                title: text("title"),
                snippet: text("content"),
            })
        })
        .take(MAX_HITS)
        .collect();
    Ok(hits)
}

/// `text`'s first [`MAX_HIT_TEXT`] bytes, cut at a character boundary.
fn cut(text: &str) -> String {
    let mut end = text.len().min(MAX_HIT_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

impl Session {
    pub(super) fn web_search(
        &self,
        call: &Entry,
        conversation: &mut Conversation,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Value> {
        let args = call.arguments();
        let Some(query) = super::text_argument(&args, "query") else {
            return Ok(failed(
                "web_search_agent needs a `query`".into(),
                Vec::new(),
            ));
        };
        let focus = args.get("focus").and_then(Value::as_str).unwrap_or("");
        progress(&format!("web_search_agent: searching for {query}"));
        let hits = search(query)?;
        if hits.is_empty() {
            return Ok(completed_empty(format!(
                "The search for `{query}` found nothing."
            )));
        }
        let mut material = format!(
            "Query: {query}\nFocus: {}\n\nSearch results:\n",
            if focus.trim().is_empty() {
                "none given: answer the query generally"
            } else {
                focus
            }
        );
        for (i, hit) in hits.iter().enumerate() {
            material.push_str(&format!(
                "{}. {} <{}>\n   {}\n",
                i + 1,
                hit.title,
                hit.url,
                hit.snippet
            ));
        }
        let mut read = Vec::new();
        for hit in hits.iter().take(TOP_RESULTS) {
            progress(&format!("web_search_agent: fetching {}", hit.url));
            match fetch::fetch(&hit.url, Reach::from_env()) {
                Ok(page) => {
                    let mut text = page.text;
                    let cut = text.len() > PAGE_TEXT;
                    if cut {
                        let end = (0..=PAGE_TEXT)
                            .rev()
                            .find(|&i| text.is_char_boundary(i))
                            .unwrap_or(0);
                        text.truncate(end);
                    }
                    material.push_str(&format!(
                        "\n--- Page {} ({}){}\n{}\n",
                        hit.url,
                        page.content_type,
                        if cut || page.cut {
                            ", only its beginning"
                        } else {
                            ""
                        },
                        text
                    ));
                    read.push(hit.url.clone());
                }
                Err(err) => material.push_str(&format!(
                    "\n--- Page {}: not read ({})\n",
                    hit.url, err.message
                )),
            }
        }
        let mut envelope = match conversation.envelope(tools::WEB_SEARCH, material, progress)? {
            Ok(envelope) => envelope,
            Err(violations) => invalid_twice(&violations),
        };
        cite(&mut envelope, &read);
        Ok(envelope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_is_asked_for_json_at_its_search_path() {
        let url = search_url("http://127.0.0.1:8888", "react lists").unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:8888/search?q=react+lists&format=json"
        );
        let url = search_url("https://searx.example/search", "x").unwrap();
        assert_eq!(url.path(), "/search");
    }
}
