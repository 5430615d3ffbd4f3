//! Opening the store's SQLite file: permissions, pragmas, the schema, and SQLite errors in
//! the user's terms.
//!
//! Many processes (agents, the proxy, the MCP server, a user at a shell) write to one store
//! at once, so the file is in WAL mode (readers never block the writer) with a busy timeout
//! (writers queue instead of failing), and every write transaction starts `IMMEDIATE` so a
//! reader never has to upgrade to a writer mid-transaction (which SQLite cannot wait for).

use std::fs::{self, OpenOptions};
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use crate::error::{Error, ErrorKind, Result};

/// The schema version in `PRAGMA user_version`.
pub const VERSION: i64 = 1;

/// How long a writer waits for another process's write to finish before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// Metadata columns come first and the large ones last: SQLite reads a row's columns in
/// order, so `stats` and `gc` never walk the overflow pages of a big original.
/// A tombstone is a row whose `original` and `compressed` are NULL.
const CREATE: &str = "
CREATE TABLE IF NOT EXISTS ccr_entries (
    hash              TEXT PRIMARY KEY NOT NULL,
    sha256            TEXT NOT NULL,
    strategy          TEXT NOT NULL,
    source            TEXT NOT NULL,
    created_ms        INTEGER NOT NULL,
    expires_ms        INTEGER NOT NULL,
    collected_ms      INTEGER,
    original_bytes    INTEGER NOT NULL,
    original_tokens   INTEGER NOT NULL,
    compressed_bytes  INTEGER NOT NULL,
    compressed_tokens INTEGER NOT NULL,
    original          BLOB,
    compressed        TEXT
);
CREATE INDEX IF NOT EXISTS ccr_live_by_expiry ON ccr_entries(expires_ms)
    WHERE original IS NOT NULL;
";

/// Opens (creating when missing) the store at `path` and brings its schema up.
pub fn open(path: &Path) -> Result<Connection> {
    if path.is_dir() {
        return Err(Error::input(format!(
            "CCR store {}: a directory, not a file",
            path.display()
        ))
        .with_hint("pass the path of the store file, e.g. --store ./ccr.sqlite"));
    }
    create_private(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| sql(path, &e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| sql(path, &e))?;
    conn.set_prepared_statement_cache_capacity(16);
    wal(&conn, path)?;
    // FULL: a put that returned has its original on disk even after a power cut, so a
    // marker already handed to a model never points at nothing.
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(|e| sql(path, &e))?;
    migrate(&conn, path)?;
    Ok(conn)
}

/// Creates the directory (owner only) and an empty file (owner read/write only) before
/// SQLite does: originals can hold anything a tool printed. SQLite gives its `-wal` and
/// `-shm` files the main file's permissions.
fn create_private(path: &Path) -> Result<()> {
    let io = |e: std::io::Error| {
        Error::io(path, &e).with_hint("pass a writable path with --store or BRIEF_CCR_PATH")
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.exists()
    {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(io)?;
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io(e)),
    }
}

/// Switches to WAL. Only the first opener of a new file changes the mode, and that change
/// needs a moment with no other connection: when several processes create the store at
/// once, the losers see BUSY (which the busy handler does not cover here) and retry.
fn wal(conn: &Connection, path: &Path) -> Result<()> {
    let mut attempt = 0;
    loop {
        let result: rusqlite::Result<String> =
            conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0));
        match result {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(Error::input(format!(
                    "CCR store {}: SQLite refused WAL mode (journal mode `{mode}`)",
                    path.display()
                ))
                .with_hint("keep the store on a local file system"));
            }
            Err(e) if is_busy(&e) && attempt < 200 => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(5 + attempt % 20));
            }
            Err(e) => return Err(sql(path, &e)),
        }
    }
}

fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Creates the schema in a new file; refuses a file that belongs to something else or to a
/// newer briefkit.
fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| sql(path, &e))?;
    if version == VERSION {
        return Ok(());
    }
    if version > VERSION {
        return Err(Error::input(format!(
            "CCR store {} has schema version {version}; this briefkit reads version {VERSION}",
            path.display()
        ))
        .with_hint("use the newer briefkit that wrote it, or another --store"));
    }
    // Version 0: new, or not ours. Decide under the write lock so two first openers do not
    // both create.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .map_err(|e| sql(path, &e))?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| sql(path, &e))?;
    if version == 0 {
        let tables: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
                [],
                |row| row.get(0),
            )
            .map_err(|e| sql(path, &e))?;
        if tables > 0 {
            return Err(Error::input(format!(
                "{} is an SQLite database but not a briefkit CCR store",
                path.display()
            ))
            .with_hint("point --store or BRIEF_CCR_PATH at a new file"));
        }
        tx.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
            .map_err(|e| sql(path, &e))?;
        tx.execute_batch(CREATE).map_err(|e| sql(path, &e))?;
        tx.pragma_update(None, "user_version", VERSION)
            .map_err(|e| sql(path, &e))?;
    }
    tx.commit().map_err(|e| sql(path, &e))
}

/// An SQLite error in the user's terms: a damaged file says so and what to do, a store
/// held too long by another process is a conflict (exit 4), anything else names the path.
pub fn sql(path: &Path, err: &rusqlite::Error) -> Error {
    let shown = path.display();
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Error::input(format!(
            "CCR store {shown} is damaged: {}",
            detail(err)
        ))
        .with_hint(format!(
            "its originals cannot be read; move it aside (e.g. mv {shown} {shown}.damaged) and a new store is created on the next put"
        )),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::new(
            ErrorKind::Conflict,
            format!(
                "CCR store {shown} stayed locked by another process for {} s",
                BUSY_TIMEOUT.as_secs()
            ),
        )
        .with_hint("retry; if it persists, look for a process holding the store open"),
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            Error::input(format!("CCR store {shown}: {}", detail(err)))
                .with_hint("pass a writable path with --store or BRIEF_CCR_PATH")
        }
        Some(ErrorCode::DiskFull) => Error::input(format!("CCR store {shown}: the disk is full"))
            .with_hint("free space, or run `brief ccr gc` to drop expired originals"),
        _ => Error::input(format!("CCR store {shown}: {}", detail(err))),
    }
}

fn detail(err: &rusqlite::Error) -> String {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        other => other.to_string(),
    }
}
