//! Which ClickHouse table a fleet's rows go to, parsed from `--ledger` / `BRIEF_LEDGER`:
//! `clickhouse://[user[:password]@]host[:port]/[database.]table?option=value&…`, or the
//! same after `http://` / `https://` with `--ledger-format clickhouse`.
//!
//! The password (from the URL, else `BRIEF_CLICKHOUSE_PASSWORD`) is kept apart from
//! everything that is ever shown: [`Target::display`] and `Debug` leave it out, requests
//! carry it in a header (never in the URL, which error messages quote), and every message
//! from the server goes through the one redactor with it.

use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};

/// The port of ClickHouse's HTTP interface (`https`: 8443).
pub const DEFAULT_PORT: u16 = 8123;
pub const DEFAULT_TLS_PORT: u16 = 8443;
pub const DEFAULT_DATABASE: &str = "default";

/// Rows per `INSERT` at most (`?batch_rows=`).
pub const DEFAULT_BATCH_ROWS: usize = 10_000;
/// How long a row may wait for more to share its `INSERT` (`?batch_interval=`).
pub const DEFAULT_BATCH_INTERVAL: Duration = Duration::from_secs(1);
/// The spool's size past which rows go to the overflow file (`?spool_limit=`).
pub const DEFAULT_SPOOL_LIMIT: u64 = 1 << 30;
/// One HTTP request's time limit (`?timeout=`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a command (or a stopping proxy) waits at its end for its rows to be taken
/// (`?exit_wait=`); what is not taken by then stays in the spool.
pub const DEFAULT_EXIT_WAIT: Duration = Duration::from_secs(3);

/// The environment variables a URL's missing user and password come from.
pub const PASSWORD_VAR: &str = "BRIEF_CLICKHOUSE_PASSWORD";
pub const USER_VAR: &str = "BRIEF_CLICKHOUSE_USER";

/// The options of a ClickHouse destination: how rows are batched and spooled.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub batch_rows: usize,
    pub batch_interval: Duration,
    pub spool_limit: u64,
    pub timeout: Duration,
    pub exit_wait: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            batch_rows: DEFAULT_BATCH_ROWS,
            batch_interval: DEFAULT_BATCH_INTERVAL,
            spool_limit: DEFAULT_SPOOL_LIMIT,
            timeout: DEFAULT_TIMEOUT,
            exit_wait: DEFAULT_EXIT_WAIT,
        }
    }
}

/// A password: never displayed, never in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password([redacted])")
    }
}

/// One ClickHouse table reached over HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// `http://host:port` or `https://host:port`: no user, no password, no path.
    pub base: String,
    pub database: String,
    pub table: String,
    pub user: String,
    pub password: Option<Password>,
    pub options: Options,
    /// Further `?name=value` pairs: ClickHouse settings sent with every query.
    pub settings: Vec<(String, String)>,
}

const OPTIONS_HELP: &str = "options: batch_rows, batch_interval, spool_limit, timeout, exit_wait, \
     secure, user, password; any other name=value is passed to ClickHouse as a setting";

fn bad(value: &str, why: impl fmt::Display) -> Error {
    Error::input(format!(
        "--ledger {}: {why}",
        crate::text::sanitize::one_line(&strip_userinfo(value), 200)
    ))
    .with_hint(
        "a ClickHouse ledger is clickhouse://[user[:password]@]host[:8123]/[database.]table, \
         or http(s)://… with --ledger-format clickhouse",
    )
}

/// The URL as given, with any `user:password@` cut down to `user@`, for messages.
pub fn strip_userinfo(value: &str) -> String {
    let Some(scheme_end) = value.find("://") else {
        return value.to_string();
    };
    let rest = &value[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = rest[..at].split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &value[..scheme_end + 3], &rest[at + 1..])
        }
        None => value.to_string(),
    }
}

/// A ClickHouse identifier we accept for a database or a table: letters, digits and `_`,
/// not starting with a digit. (Quoted with backticks in every query anyway.)
fn identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && text.len() <= 128
}

/// `1073741824`, `512MiB`, `1GiB`, `100MB`, `64k`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let text = text.trim();
    let at = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(at);
    let value: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (try 512MiB or 1GiB)"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "kib" => 1 << 10,
        "m" | "mb" => 1_000_000,
        "mib" => 1 << 20,
        "g" | "gb" => 1_000_000_000,
        "gib" => 1 << 30,
        _ => return Err(format!("`{text}` is not a size (try 512MiB or 1GiB)")),
    };
    value
        .checked_mul(scale)
        .filter(|v| *v > 0)
        .ok_or_else(|| format!("`{text}` is not a size of more than zero bytes"))
}

impl Target {
    /// Parses a ClickHouse URL. `clickhouse://` is ClickHouse's HTTP interface (plain HTTP
    /// unless `?secure=1`); `http://` and `https://` are taken as they are. The password
    /// comes from `env(PASSWORD_VAR)` when the URL has none.
    pub fn parse(value: &str, env: impl Fn(&str) -> Option<String>) -> Result<Target> {
        let url = reqwest::Url::parse(value).map_err(|e| bad(value, e))?;
        let scheme = url.scheme().to_ascii_lowercase();
        let mut secure = match scheme.as_str() {
            "clickhouse" => false,
            "http" => false,
            "https" => true,
            other => return Err(bad(value, format!("`{other}://` is not a ClickHouse URL"))),
        };
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad(value, "no host"))?
            .to_string();
        if url.fragment().is_some() {
            return Err(bad(value, "a ClickHouse URL has no #fragment"));
        }
        let decode = |text: &str| {
            percent_decode(text).ok_or_else(|| bad(value, "the user or password is not UTF-8"))
        };
        let mut user = (!url.username().is_empty())
            .then(|| decode(url.username()))
            .transpose()?;
        let mut password = url.password().map(decode).transpose()?;
        let mut options = Options::default();
        let mut settings = Vec::new();
        let mut port_explicit = url.port();
        for (name, val) in url.query_pairs() {
            let (name, val) = (name.into_owned(), val.into_owned());
            let duration = |what: &str| {
                crate::clock::parse_duration(&val).map_err(|e| bad(value, format!("{what}: {e}")))
            };
            match name.as_str() {
                "batch_rows" => {
                    options.batch_rows = val
                        .parse()
                        .ok()
                        .filter(|n| (1..=1_000_000).contains(n))
                        .ok_or_else(|| {
                        bad(
                            value,
                            "batch_rows must be a number of rows from 1 to 1000000",
                        )
                    })?;
                }
                "batch_interval" => options.batch_interval = duration("batch_interval")?,
                "timeout" => options.timeout = duration("timeout")?,
                "exit_wait" => options.exit_wait = duration("exit_wait")?,
                "spool_limit" => {
                    options.spool_limit =
                        parse_size(&val).map_err(|e| bad(value, format!("spool_limit: {e}")))?;
                }
                "secure" => {
                    secure = match val.as_str() {
                        "1" | "true" => true,
                        "0" | "false" => false,
                        _ => return Err(bad(value, "secure must be 1 or 0")),
                    }
                }
                "user" => user = Some(val),
                "password" => password = Some(val),
                "database" => {
                    return Err(bad(
                        value,
                        "name the database in the path (/database.table), not as ?database=",
                    ));
                }
                _ if identifier(&name) => settings.push((name, val)),
                _ => {
                    return Err(bad(
                        value,
                        format!(
                            "unknown option `{}` ({OPTIONS_HELP})",
                            crate::text::sanitize::one_line(&name, 60)
                        ),
                    ));
                }
            }
        }
        let path = url.path().trim_matches('/');
        let path = percent_decode(path).ok_or_else(|| bad(value, "the table name is not UTF-8"))?;
        let (database, table) = match path.split_once('.') {
            Some((db, table)) => (db.to_string(), table.to_string()),
            None => (DEFAULT_DATABASE.to_string(), path.clone()),
        };
        if path.is_empty() {
            return Err(bad(value, "no table: add /database.table to the URL"));
        }
        for (what, name) in [("database", &database), ("table", &table)] {
            if !identifier(name) {
                return Err(bad(
                    value,
                    format!(
                        "`{}` is not a {what} name we write to (letters, digits and _)",
                        crate::text::sanitize::one_line(name, 60)
                    ),
                ));
            }
        }
        if scheme == "clickhouse" && port_explicit.is_none() {
            port_explicit = Some(if secure {
                DEFAULT_TLS_PORT
            } else {
                DEFAULT_PORT
            });
        }
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host
        };
        let base = match port_explicit {
            Some(port) => format!("{}://{host}:{port}", if secure { "https" } else { "http" }),
            None => format!("{}://{host}", if secure { "https" } else { "http" }),
        };
        let password = password
            .or_else(|| env(PASSWORD_VAR).filter(|p| !p.is_empty()))
            .map(Password);
        let user = user
            .or_else(|| env(USER_VAR).filter(|u| !u.is_empty()))
            .unwrap_or_else(|| "default".to_string());
        Ok(Target {
            base,
            database,
            table,
            user,
            password,
            options,
            settings,
        })
    }

    /// `` `database`.`table` `` for SQL.
    pub fn table_sql(&self) -> String {
        format!("`{}`.`{}`", self.database, self.table)
    }

    /// The table's name as people write it: `database.table`.
    pub fn table_name(&self) -> String {
        format!("{}.{}", self.database, self.table)
    }

    /// What is shown of the target: `clickhouse://user@host:port/database.table` (with
    /// `?secure=1` over TLS), never the password; it parses back to the same table.
    pub fn display(&self) -> String {
        let (scheme, rest) = self.base.split_once("://").unwrap_or(("http", &self.base));
        let secure = if scheme == "https" { "?secure=1" } else { "" };
        format!(
            "clickhouse://{}@{rest}/{}{secure}",
            self.user,
            self.table_name()
        )
    }

    /// What identifies the table for the spool: the server, the table and the user, never
    /// the password nor the batching options (changing those keeps the spool).
    pub fn identity(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.base, self.database, self.table, self.user
        )
    }

    /// True when the server is this machine (no proxy from the environment applies).
    pub fn is_loopback(&self) -> bool {
        let host = self
            .base
            .split_once("://")
            .map_or("", |(_, rest)| rest)
            .rsplit_once(':')
            .map_or("", |(host, _)| host);
        matches!(host, "localhost" | "[::1]") || host.starts_with("127.")
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests;
