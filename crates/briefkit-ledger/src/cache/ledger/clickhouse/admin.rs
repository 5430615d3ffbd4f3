//! The operations behind `brief ledger`, one each, returning typed reports: the schema
//! script, creating the table ([`init`]), backfilling it from a ledger file ([`push_file`])
//! and sending what the spool holds ([`flush_spool`]). The CLI parses arguments and renders
//! these; so could any other front end.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::http::Client;
use super::push::{self, Progress};
use super::schema::{self, TableOptions};
use super::target::Target;
use crate::cache::ledger::Warning;
use crate::error::{Error, Result};
use crate::numbers::thousands;

/// `DATABASE.TABLE` (or `TABLE`, in `default`) split, when both are plain names (letters,
/// digits and `_`, not starting with a digit).
pub fn table_name(text: &str) -> Option<(&str, &str)> {
    let (database, table) = text.split_once('.').unwrap_or(("default", text));
    let named = |n: &str| {
        n.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (named(database) && named(table)).then_some((database, table))
}

/// The CREATE TABLE script for `table` (`DATABASE.TABLE`), led by comments on how to read
/// it; `None` when `table` is not a plain name ([`table_name`]).
pub fn schema_script(table: &str, ttl_days: Option<u32>) -> Option<String> {
    let (database, table) = table_name(table)?;
    let sql = schema::create_table(
        &format!("`{database}`.`{table}`"),
        TableOptions {
            ttl_days,
            dedup_window: false,
        },
    );
    let mut text = String::from(
        "-- The ledger of a fleet (brief ledger schema --clickhouse). Read it with FINAL: a row\n\
         -- sent twice is one row after a merge, and FINAL counts it once before.\n",
    );
    if ttl_days.is_some() {
        text.push_str(
            "-- TTL needs ClickHouse 19.6 or later; on older servers leave --ttl-days out and drop\n\
             -- old months with ALTER TABLE … DROP PARTITION 202611.\n",
        );
    }
    text.push_str(&sql);
    text.push_str(";\n");
    Some(text)
}

/// What [`init`] did.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    pub target: String,
    pub table: String,
    pub created: bool,
    pub server_version: String,
    pub ttl_days: Option<u32>,
    /// Columns of the schema the existing table lacks, as `name type`.
    pub missing_columns: Vec<String>,
    /// The server's address (no user, no password).
    #[serde(skip)]
    pub base: String,
    /// The table as SQL names it (quoted).
    #[serde(skip)]
    pub table_sql: String,
}

impl InitReport {
    /// `warning` when the table lacks columns.
    pub fn status(&self) -> &'static str {
        if self.missing_columns.is_empty() {
            "ok"
        } else {
            "warning"
        }
    }

    pub fn summary(&self) -> String {
        if !self.created {
            return format!(
                "{} already exists on ClickHouse {} at {}; nothing changed",
                self.table, self.server_version, self.base
            );
        }
        format!(
            "created {} on ClickHouse {} at {} (ReplacingMergeTree ordered by time{})",
            self.table,
            self.server_version,
            self.base,
            self.ttl_days
                .map(|d| format!(", rows kept {d} days"))
                .unwrap_or_default()
        )
    }

    /// What to run to add each missing column.
    pub fn column_advice(&self) -> Vec<String> {
        self.missing_columns
            .iter()
            .map(|column| {
                format!(
                    "{} has no column `{column}`: add it with ALTER TABLE {} ADD COLUMN {column}",
                    self.table, self.table_sql
                )
            })
            .collect()
    }
}

/// Creates the table `target` names (and its database) unless it exists; then names the
/// schema's columns it lacks. A TTL on a server without table TTLs is refused (input)
/// before anything is created.
pub fn init(target: &Target, ttl_days: Option<u32>) -> Result<InitReport> {
    let client = Client::new(target).map_err(|f| f.into_error())?;
    let info = client.server_info().map_err(|f| f.into_error())?;
    if ttl_days.is_some() && !info.supports_ttl() {
        return Err(Error::input(format!(
            "ClickHouse {} at {} has no table TTL (19.6 and later do); nothing was created",
            info.version, target.base
        ))
        .with_hint(format!(
            "create the table without a TTL and drop old months with `ALTER TABLE {} DROP PARTITION 202611` (partitions are months)",
            target.table_name()
        )));
    }
    let run = |sql: String| client.execute(&sql).map_err(|f| f.into_error());
    let quote = super::usage::escape;
    let existed = run(format!(
        "SELECT count() FROM system.tables WHERE database = '{}' AND name = '{}' FORMAT TabSeparated",
        quote(&target.database),
        quote(&target.table)
    ))?
    .trim()
    .parse::<u64>()
    .unwrap_or(0)
        > 0;
    if !existed {
        run(format!(
            "CREATE DATABASE IF NOT EXISTS `{}`",
            target.database
        ))?;
        run(schema::create_table(
            &target.table_sql(),
            TableOptions {
                ttl_days,
                dedup_window: info.dedup_window,
            },
        ))?;
    }
    let columns = run(format!(
        "SELECT name FROM system.columns WHERE database = '{}' AND table = '{}' FORMAT TabSeparated",
        quote(&target.database),
        quote(&target.table)
    ))?;
    let have: Vec<&str> = columns.lines().map(str::trim).collect();
    Ok(InitReport {
        target: target.display(),
        table: target.table_name(),
        created: !existed,
        server_version: info.version.clone(),
        ttl_days: ttl_days.filter(|_| !existed),
        missing_columns: schema::COLUMNS
            .iter()
            .filter(|(name, _)| !have.contains(name))
            .map(|(name, kind)| format!("{name} {kind}"))
            .collect(),
        base: target.base.clone(),
        table_sql: target.table_sql(),
    })
}

/// What [`push_file`] did.
#[derive(Debug, Clone, Serialize)]
pub struct PushReport {
    pub file: String,
    pub target: String,
    pub rows_read: u64,
    pub rows_sent: u64,
    pub rows_already_there: u64,
    pub batches: u64,
    /// Lines of the file that were not rows (torn, corrupt, implausible): not sent.
    pub warnings: Vec<Warning>,
}

impl PushReport {
    /// `warning` when lines were skipped.
    pub fn status(&self) -> &'static str {
        Warning::status_of(&self.warnings)
    }

    pub fn summary(&self) -> String {
        format!(
            "pushed {} to {}: {} {} read, {} sent, {} already there",
            self.file,
            self.target,
            thousands(self.rows_read),
            crate::numbers::noun(self.rows_read, "row", "rows"),
            thousands(self.rows_sent),
            thousands(self.rows_already_there)
        )
    }
}

/// Sends the rows of the ledger file at `file` that the table lacks, `batch_rows` per
/// insert; `progress` is told as the file is read.
pub fn push_file(
    file: &Path,
    target: &Target,
    batch_rows: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<PushReport> {
    if !file.exists() {
        return Err(Error::io(
            file,
            &std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    crate::cache::ledger::check_path(file)?;
    let client = Client::new(target).map_err(|f| f.into_error())?;
    let pushed = push::push(file, &client, batch_rows, progress)?;
    Ok(PushReport {
        file: file.display().to_string(),
        target: target.display(),
        rows_read: pushed.rows_read,
        rows_sent: pushed.rows_sent,
        rows_already_there: pushed.rows_already_there,
        batches: pushed.batches,
        warnings: pushed.warnings,
    })
}

/// What [`flush_spool`] left.
#[derive(Debug, Clone, Serialize)]
pub struct FlushReport {
    pub target: String,
    pub rows_sent: u64,
    pub rows_left: u64,
    pub spool_dir: Option<String>,
    pub last_error: Option<String>,
}

impl FlushReport {
    /// `error` when rows are left in the spool.
    pub fn status(&self) -> &'static str {
        if self.rows_left > 0 { "error" } else { "ok" }
    }

    pub fn summary(&self) -> String {
        format!(
            "{} {} sent to {}, {} left in the spool",
            thousands(self.rows_sent),
            crate::numbers::noun(self.rows_sent, "row", "rows"),
            self.target,
            thousands(self.rows_left)
        )
    }

    /// The error (provider: exit 3) when rows are left, with ClickHouse's last answer.
    pub fn left_error(&self) -> Option<Error> {
        (self.rows_left > 0).then(|| {
            Error::provider(format!(
                "{}{}",
                self.summary(),
                self.last_error
                    .as_ref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ))
            .with_hint("the rows stay in the spool; send them again once ClickHouse takes rows")
        })
    }
}

/// Sends what this machine's spool holds for `target`, waiting up to `wait`, through the
/// table's sink in `sinks` (the one a command's own rows would go through).
pub fn flush_spool(
    sinks: &crate::cache::ledger::Sinks,
    target: &Target,
    wait: Duration,
) -> Result<FlushReport> {
    let state = sinks.clickhouse(target)?.drain(wait);
    Ok(FlushReport {
        target: state.target,
        rows_sent: state.rows_stored,
        rows_left: state.rows_pending,
        spool_dir: state.spool_dir,
        last_error: state.last_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_name_is_plain_names_only() {
        assert_eq!(table_name("fleet.usage"), Some(("fleet", "usage")));
        assert_eq!(table_name("usage"), Some(("default", "usage")));
        assert_eq!(table_name("_a1._b2"), Some(("_a1", "_b2")));
        for bad in [
            "1db.t",
            "db.t`; DROP TABLE x",
            "db.",
            ".t",
            "db.t.u",
            "db-x.t",
            "",
        ] {
            assert_eq!(table_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_schema_script_names_the_table_quoted_and_warns_of_ttl_only_when_asked() {
        let plain = schema_script("fleet.usage", None).unwrap();
        assert!(plain.contains("CREATE TABLE IF NOT EXISTS `fleet`.`usage`"));
        assert!(!plain.contains("TTL needs"));
        assert!(plain.ends_with(";\n"));
        let kept = schema_script("fleet.usage", Some(90)).unwrap();
        assert!(kept.contains("TTL needs ClickHouse 19.6"));
        assert_eq!(schema_script("a b.c", None), None);
    }
}
