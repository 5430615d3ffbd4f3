//! `brief ledger push FILE URL`: a ledger file's rows into a ClickHouse table, once.
//!
//! Each row's `event_id` is made of its line number and its content, so the same file
//! pushed again — or pushed again after more lines were appended to it — names the same
//! rows the same way. Before a batch goes in, the rows of it the table already holds are
//! looked up (by the batch's id, else by the rows' ids within the batch's time span, a
//! range of the table's order) and left out: pushing twice adds nothing, even to a reader
//! that does not say `FINAL`.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::http::Client;
use super::schema;
use super::usage::escape;
use crate::cache::ledger::{self, Entry, Warning};
use crate::error::Result;

/// Event ids looked up per query (a query's text is limited to 256 KiB by default).
const IDS_PER_QUERY: usize = 2_000;

/// Where a push stands, for a progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    pub bytes_read: u64,
    pub bytes_total: u64,
    pub rows_read: u64,
    pub rows_sent: u64,
}

/// What a push did.
#[derive(Debug, Clone, Default)]
pub struct Pushed {
    pub rows_read: u64,
    pub rows_sent: u64,
    /// Rows the table already held (an earlier push, or the live writer).
    pub rows_already_there: u64,
    pub batches: u64,
    /// Lines of the file that were not rows (torn, corrupt, implausible): not sent.
    pub warnings: Vec<Warning>,
}

/// Pushes every row of the ledger file at `path` through `client`, `batch_rows` per insert.
pub fn push(
    path: &Path,
    client: &Client,
    batch_rows: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Pushed> {
    let bytes_total = std::fs::metadata(path).map_or(0, |m| m.len());
    let dedup_token = client
        .server_info()
        .map_err(|f| f.into_error())?
        .dedup_token;
    let mut pushed = Pushed::default();
    let mut batch: Vec<(String, Entry)> = Vec::with_capacity(batch_rows);
    let mut failure = None;
    let bytes_read = std::cell::Cell::new(0u64);
    let mut state = Progress {
        bytes_total,
        ..Progress::default()
    };
    let warnings = ledger::read_numbered(
        path,
        |line, entry| {
            if failure.is_some() {
                return;
            }
            pushed.rows_read += 1;
            batch.push((schema::file_event_id(&entry, line), entry));
            if batch.len() >= batch_rows {
                if let Err(err) = send(client, &mut batch, dedup_token, &mut pushed) {
                    failure = Some(err);
                }
                state.rows_read = pushed.rows_read;
                state.rows_sent = pushed.rows_sent;
                state.bytes_read = bytes_read.get();
                progress(state);
            }
        },
        |read| bytes_read.set(read),
    )?;
    if let Some(err) = failure {
        return Err(err);
    }
    send(client, &mut batch, dedup_token, &mut pushed)?;
    state.rows_read = pushed.rows_read;
    state.rows_sent = pushed.rows_sent;
    state.bytes_read = bytes_total;
    progress(state);
    pushed.warnings = warnings;
    Ok(pushed)
}

/// The id of a batch of rows of a ledger file, made of their event ids: the same rows are
/// the same batch in every push.
pub fn batch_id<'a>(event_ids: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for id in event_ids {
        hasher.update(id.as_bytes());
    }
    let digest = hasher.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("push:{hex}")
}

fn send(
    client: &Client,
    batch: &mut Vec<(String, Entry)>,
    dedup_token: bool,
    pushed: &mut Pushed,
) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let batch_id = batch_id(batch.iter().map(|(id, _)| id.as_str()));
    let times = batch.iter().filter_map(|(_, e)| e.time_ms());
    let (low, high) = times.fold((i64::MAX, i64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let (low, high) = ((low.max(0) / 1000), (high.max(0) / 1000));
    let table = client.target().table_sql();
    let span = format!("time >= toDateTime({low}) AND time <= toDateTime({high})");
    let run = |sql: String| client.select(&sql).map_err(|f| f.into_error());
    let count = |text: String| text.trim().parse::<u64>().unwrap_or(0);

    // An earlier push of these rows whose answer never came may still be inserting them:
    // looking now would miss them and send them twice.
    if client
        .still_running(&batch_id)
        .map_err(|f| f.into_error())?
    {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::Provider,
            format!(
                "ClickHouse is still running an earlier push of these rows (batch {batch_id}); nothing was sent"
            ),
        )
        .with_hint("push again once it has ended: rows already there are not sent twice"));
    }
    let whole = count(run(format!(
        "SELECT count() FROM {table} WHERE {span} AND batch_id = '{}' FORMAT TabSeparated",
        escape(&batch_id)
    ))?);
    let mut present = std::collections::HashSet::new();
    if whole > 0 {
        present.extend(batch.iter().map(|(id, _)| id.clone()));
    } else if count(run(format!(
        "SELECT count() FROM {table} WHERE {span} FORMAT TabSeparated"
    ))?) > 0
    {
        for chunk in batch.chunks(IDS_PER_QUERY) {
            let ids: Vec<String> = chunk
                .iter()
                .map(|(id, _)| format!("'{}'", escape(id)))
                .collect();
            let found = run(format!(
                "SELECT DISTINCT event_id FROM {table} WHERE {span} AND event_id IN ({}) FORMAT TabSeparated",
                ids.join(",")
            ))?;
            present.extend(found.lines().map(str::to_string));
        }
    }
    let mut body = Vec::with_capacity(batch.len() * 600);
    let mut sent = 0u64;
    for (id, entry) in batch.iter() {
        if !present.contains(id) {
            schema::encode(entry, id, &batch_id, &mut body);
            sent += 1;
        }
    }
    if sent > 0 {
        client
            .insert(body, &batch_id, dedup_token)
            .map_err(|f| f.into_error())?;
        pushed.batches += 1;
    }
    pushed.rows_sent += sent;
    pushed.rows_already_there += batch.len() as u64 - sent;
    batch.clear();
    Ok(())
}
