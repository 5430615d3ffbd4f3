//! ClickHouse's HTTP interface, blocking: a query, an `INSERT … FORMAT JSONEachRow`, and
//! what the server can do (its version; whether it knows `insert_deduplication_token`).
//!
//! The credentials travel in the `X-ClickHouse-User` / `X-ClickHouse-Key` headers (marked
//! sensitive), never in the URL: reqwest quotes the URL in its errors. What the server says
//! back is cut to one line and passed through the one redactor, with the password, before
//! it reaches a message, `/stats` or stderr.

use std::time::Duration;

use reqwest::blocking::Client as Http;
use reqwest::header::{HeaderMap, HeaderValue};

use super::target::Target;
use crate::error::{CallStatus, Error};
use crate::redact::Redactor;

/// What went wrong talking to ClickHouse, as data for the writer's retry decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// No connection (refused, reset, DNS) or no answer in time.
    Unreachable,
    /// The server refused the user or the password.
    Auth,
    /// The database or the table does not exist.
    NoTable,
    /// Any other error the server answered with.
    Server,
}

/// A failed request: its kind and a message fit to show (credentials removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    /// ClickHouse's error code (`Code: 60`), when it gave one.
    pub code: Option<u32>,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    /// As the toolkit's error: a network or server failure (exit 3).
    pub fn into_error(self) -> Error {
        let class = match self.kind {
            FailureKind::Unreachable => CallStatus::Connect,
            _ => CallStatus::Error,
        };
        let err = Error::provider(self.message).with_call_status(class);
        match self.hint {
            Some(hint) => err.with_hint(hint),
            None => err,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the server supports, asked once per connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub version: String,
    /// `insert_deduplication_token` is a setting there (ClickHouse 22.2 and later).
    pub dedup_token: bool,
    /// `non_replicated_deduplication_window` is a MergeTree setting there, so a table can
    /// be made to remember recent insert tokens.
    pub dedup_window: bool,
}

impl ServerInfo {
    /// Table TTL came with ClickHouse 19.6.
    pub fn supports_ttl(&self) -> bool {
        let mut parts = self
            .version
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (major, minor) >= (19, 6)
    }
}

pub struct Client {
    http: Http,
    target: Target,
    headers: HeaderMap,
    redactor: Redactor,
}

impl Client {
    pub fn new(target: &Target) -> Result<Client, Failure> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = Http::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(target.options.timeout.min(Duration::from_secs(5)))
            .timeout(target.options.timeout)
            .user_agent(concat!("briefkit/", env!("CARGO_PKG_VERSION")));
        if target.is_loopback() {
            builder = builder.no_proxy();
        }
        let http = builder.build().map_err(|e| Failure {
            kind: FailureKind::Unreachable,
            code: None,
            message: format!("could not set up the HTTP client: {e}"),
            hint: None,
        })?;
        let mut headers = HeaderMap::new();
        let bad_header = |what: &str| Failure {
            kind: FailureKind::Auth,
            code: None,
            message: format!("the ClickHouse {what} has characters a header cannot carry"),
            hint: None,
        };
        headers.insert(
            "x-clickhouse-user",
            HeaderValue::from_str(&target.user).map_err(|_| bad_header("user"))?,
        );
        if let Some(password) = &target.password {
            let mut value =
                HeaderValue::from_str(password.expose()).map_err(|_| bad_header("password"))?;
            value.set_sensitive(true);
            headers.insert("x-clickhouse-key", value);
        }
        let redactor = Redactor::with_secrets(target.password.as_ref().map(|p| p.expose()));
        Ok(Client {
            http,
            target: target.clone(),
            headers,
            redactor,
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Runs one statement and returns the body. `params` are extra URL parameters
    /// (settings, or `query` for an insert whose body is data).
    fn post(&self, params: &[(&str, &str)], body: Vec<u8>) -> Result<String, Failure> {
        let mut url =
            reqwest::Url::parse(&format!("{}/", self.target.base)).map_err(|e| Failure {
                kind: FailureKind::Unreachable,
                code: None,
                message: format!("{}: {e}", self.target.display()),
                hint: None,
            })?;
        {
            let mut query = url.query_pairs_mut();
            for (name, value) in &self.target.settings {
                query.append_pair(name, value);
            }
            for (name, value) in params {
                query.append_pair(name, value);
            }
        }
        let response = self
            .http
            .post(url)
            .headers(self.headers.clone())
            .body(body)
            .send()
            .map_err(|e| self.unreachable(&e))?;
        let status = response.status();
        let code_header = response
            .headers()
            .get("x-clickhouse-exception-code")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u32>().ok());
        let text = response.text().map_err(|e| self.unreachable(&e))?;
        if status.is_success() && code_header.is_none() {
            return Ok(text);
        }
        Err(self.server_failure(status.as_u16(), code_header, &text))
    }

    fn unreachable(&self, err: &reqwest::Error) -> Failure {
        // The error's own text quotes the URL; ours has no credentials in it anyway.
        let why = if err.is_timeout() {
            format!("no answer within {:?}", self.target.options.timeout)
        } else if err.is_connect() {
            let mut source: Option<&dyn std::error::Error> = Some(err);
            let mut last = String::new();
            while let Some(cause) = source {
                last = cause.to_string();
                source = cause.source();
            }
            format!("cannot connect ({last})")
        } else {
            err.to_string()
        };
        Failure {
            kind: FailureKind::Unreachable,
            code: None,
            message: self.clean(&format!("ClickHouse at {}: {why}", self.target.base)),
            hint: Some(format!(
                "is ClickHouse running and listening for HTTP at {}?",
                self.target.base
            )),
        }
    }

    fn server_failure(&self, status: u16, code: Option<u32>, body: &str) -> Failure {
        let code = code.or_else(|| {
            let at = body.find("Code: ")? + 6;
            let digits: String = body[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        });
        let said = exception_text(body);
        let target = &self.target;
        let (kind, message, hint) = match (status, code) {
            (401 | 403, _) | (_, Some(192 | 193 | 194 | 516)) => (
                FailureKind::Auth,
                format!(
                    "ClickHouse at {} refused user `{}`: {said}",
                    target.base, target.user
                ),
                Some(format!(
                    "check the user in the URL and the password (in the URL or {})",
                    super::target::PASSWORD_VAR
                )),
            ),
            (_, Some(60 | 81)) => (
                FailureKind::NoTable,
                format!(
                    "ClickHouse at {}: no table {}: {said}",
                    target.base,
                    target.table_name()
                ),
                Some(format!(
                    "create it with `brief ledger init {}` (or run the CREATE TABLE of `brief ledger schema --clickhouse`)",
                    target.display()
                )),
            ),
            _ => (
                FailureKind::Server,
                format!(
                    "ClickHouse at {} answered HTTP {status}: {said}",
                    target.base
                ),
                None,
            ),
        };
        Failure {
            kind,
            code,
            message: self.clean(&message),
            hint,
        }
    }

    /// One line, bounded, credentials removed.
    fn clean(&self, text: &str) -> String {
        crate::text::sanitize::one_line(&self.redactor.redact(text), 400)
    }

    /// Runs a statement (DDL, or a query whose answer is read as text).
    pub fn execute(&self, sql: &str) -> Result<String, Failure> {
        self.post(&[], sql.as_bytes().to_vec())
    }

    /// Runs a read-only query: every 64-bit integer unquoted in JSON, whatever the
    /// server's default.
    pub fn select(&self, sql: &str) -> Result<String, Failure> {
        self.post(
            &[("output_format_json_quote_64bit_integers", "0")],
            sql.as_bytes().to_vec(),
        )
    }

    /// Inserts JSON lines into the target table as one `INSERT` (one block, so all of it
    /// or none) named by its batch (the query id, see [`Client::still_running`]), with the
    /// deduplication token when the server knows the setting.
    pub fn insert(&self, rows: Vec<u8>, batch_id: &str, token: bool) -> Result<(), Failure> {
        let query = format!("INSERT INTO {} FORMAT JSONEachRow", self.target.table_sql());
        let query_id = insert_query_id(batch_id);
        let mut params = vec![
            ("query", query.as_str()),
            ("query_id", query_id.as_str()),
            // Rows from a newer briefkit may carry columns an older table lacks.
            ("input_format_skip_unknown_fields", "1"),
        ];
        if token {
            params.push(("insert_deduplication_token", batch_id));
        }
        self.post(&params, rows).map(|_| ())
    }

    /// Whether the server is still running an insert of this batch. An insert whose
    /// answer never came (a timeout, a frozen server, a killed sender) goes on inside
    /// ClickHouse: until it ends, looking for its rows says "not there" although they are
    /// about to be, and sending the batch again would store it twice.
    pub fn still_running(&self, batch_id: &str) -> Result<bool, Failure> {
        let sql = format!(
            "SELECT count() FROM system.processes WHERE query_id = '{}' FORMAT TabSeparated",
            super::usage::escape(&insert_query_id(batch_id))
        );
        Ok(self.select(&sql)?.trim().parse::<u64>().unwrap_or(0) > 0)
    }

    /// The server's version and the deduplication settings it knows.
    pub fn server_info(&self) -> Result<ServerInfo, Failure> {
        let text = self.execute(
            "SELECT version(), \
             (SELECT count() FROM system.settings WHERE name = 'insert_deduplication_token'), \
             (SELECT count() FROM system.merge_tree_settings WHERE name = 'non_replicated_deduplication_window') \
             FORMAT TabSeparated",
        )?;
        let mut fields = text.trim().split('\t');
        let version = fields.next().unwrap_or_default().to_string();
        let flag = |f: Option<&str>| f.is_some_and(|v| v.trim() != "0");
        Ok(ServerInfo {
            version,
            dedup_token: flag(fields.next()),
            dedup_window: flag(fields.next()),
        })
    }
}

/// The exception's words out of an error body: 18.16 writes `Code: 60,
/// e.displayText() = DB::Exception: Table x doesn't exist., e.what() = DB::Exception`,
/// current releases `Code: 60. DB::Exception: Table x does not exist. (UNKNOWN_TABLE)
/// (version 24.8)`.
fn exception_text(body: &str) -> String {
    let text = body.trim();
    let text = text
        .split_once("DB::Exception: ")
        .map_or(text, |(_, rest)| rest);
    let text = text.split(", e.what() = ").next().unwrap_or(text);
    let text = text.split(" (version ").next().unwrap_or(text);
    if text.is_empty() {
        "(no message)".to_string()
    } else {
        text.to_string()
    }
}

/// The query id an insert of `batch_id` runs under: the same for every attempt, so that a
/// running attempt can be found ([`Client::still_running`]) and a second one started while
/// it runs is refused by the server.
pub fn insert_query_id(batch_id: &str) -> String {
    format!("briefkit-insert:{batch_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_text_is_read_from_old_and_new_bodies() {
        assert_eq!(
            exception_text(
                "Code: 60, e.displayText() = DB::Exception: Table default.nosuch doesn't exist., e.what() = DB::Exception\n"
            ),
            "Table default.nosuch doesn't exist."
        );
        assert_eq!(
            exception_text(
                "Code: 60. DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE) (version 24.8.1.1)"
            ),
            "Table default.x does not exist. (UNKNOWN_TABLE)"
        );
    }

    #[test]
    fn ttl_support_follows_the_version() {
        let info = |v: &str| ServerInfo {
            version: v.into(),
            dedup_token: false,
            dedup_window: false,
        };
        assert!(!info("18.16.1").supports_ttl());
        assert!(info("19.6.2.11").supports_ttl());
        assert!(info("24.8.1.1").supports_ttl());
    }
}
