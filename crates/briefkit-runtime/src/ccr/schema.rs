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

use crate::error::{Error, ErrorKind, Result, Setting, Topic};

/// The schema version in `PRAGMA user_version`.
pub const VERSION: i64 = 2;

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

/// Version 2: every strategy an original was stored under keeps a record of its own (the
/// entry keeps the latest put's strategy, compressed text and source, as before).
const CREATE_RECORDS: &str = "
CREATE TABLE IF NOT EXISTS ccr_records (
    hash              TEXT NOT NULL,
    strategy          TEXT NOT NULL,
    source            TEXT NOT NULL,
    created_ms        INTEGER NOT NULL,
    updated_ms        INTEGER NOT NULL,
    compressed_bytes  INTEGER NOT NULL,
    compressed_tokens INTEGER NOT NULL,
    PRIMARY KEY (hash, strategy)
);
INSERT OR IGNORE INTO ccr_records
    SELECT hash, strategy, source, created_ms, created_ms, compressed_bytes, compressed_tokens
    FROM ccr_entries;
";

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Opens (creating when missing) the store at `path` and brings its schema up. A file that
/// is not a CCR store is refused before anything is written to it.
pub fn open(path: &Path) -> Result<Connection> {
    match identify(path)? {
        Found::Missing => create_private(path)?,
        Found::Empty | Found::Sqlite => {}
    }
    let conn = connect(path, true)?;
    // A store, or a new file this opener makes one; anything else is refused here.
    is_store(&conn, path)?;
    init(conn, path)
}

/// Opens the store at `path` only when it is one: a missing or empty file (0 bytes, or an
/// SQLite file with no tables yet) is `None` and stays exactly as it is, so look-ups and
/// reports never create a store; a file that is not a store is refused, unchanged.
pub fn open_existing(path: &Path) -> Result<Option<Connection>> {
    match identify(path)? {
        Found::Missing | Found::Empty => return Ok(None),
        Found::Sqlite => {}
    }
    let conn = connect(path, false)?;
    if !is_store(&conn, path)? {
        return Ok(None);
    }
    init(conn, path).map(Some)
}

/// What is at the store's path, judged without writing anything.
enum Found {
    Missing,
    /// A file of 0 bytes: a store whose first opener was stopped before creating it.
    Empty,
    /// A file that starts like an SQLite database.
    Sqlite,
}

fn identify(path: &Path) -> Result<Found> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(e) => {
            return Err(Error::io(path, &e)
                .with_hint(HINT_PATH)
                .with_topic(Topic::Setting(Setting::CcrStore)));
        }
    };
    if meta.is_dir() {
        return Err(Error::input(format!(
            "CCR store {}: a directory, not a file",
            path.display()
        ))
        .with_hint("name the store file itself, e.g. ./ccr.sqlite")
        .with_topic(Topic::Setting(Setting::CcrStore)));
    }
    if !meta.is_file() {
        return Err(Error::input(format!(
            "CCR store {}: {}, not a regular file; refused without opening it",
            path.display(),
            crate::files::policy::kind_of(meta.file_type())
        ))
        .with_hint(HINT_PATH)
        .with_topic(Topic::Setting(Setting::CcrStore)));
    }
    if meta.len() == 0 {
        return Ok(Found::Empty);
    }
    let mut header = [0u8; 16];
    let read = fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut header))
        .map(|()| &header == SQLITE_HEADER);
    match read {
        Ok(true) => Ok(Found::Sqlite),
        Ok(false) => Err(not_sqlite(path)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(not_sqlite(path)),
        Err(e) => Err(Error::io(path, &e)
            .with_hint(HINT_PATH)
            .with_topic(Topic::Setting(Setting::CcrStore))),
    }
}

const HINT_PATH: &str = "use a new file or an existing store";

/// A file that does not start as an SQLite database: a store overwritten by accident, or
/// a file that never was one. Either way it is left as it is.
fn not_sqlite(path: &Path) -> Error {
    let shown = path.display();
    Error::input(format!(
        "CCR store {shown} is damaged or not a CCR store (not an SQLite database); it was left unchanged"
    ))
    .with_hint(format!(
        "if it was a store, its originals cannot be read; move it aside (e.g. mv {shown} {shown}.damaged) and a new store is created on the next put; else use another path"
    ))
    .with_topic(Topic::Setting(Setting::CcrStore))
}

fn not_a_store(path: &Path, why: &str) -> Error {
    Error::input(format!(
        "{} is not a briefkit CCR store ({why}); it was left unchanged",
        path.display()
    ))
    .with_hint(HINT_PATH)
    .with_topic(Topic::Setting(Setting::CcrStore))
}

fn connect(path: &Path, create: bool) -> Result<Connection> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags).map_err(|e| sql(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| sql(path, e))?;
    conn.set_prepared_statement_cache_capacity(16);
    Ok(conn)
}

/// Refuses a store a newer briefkit wrote (its schema `version` above ours).
fn refuse_newer(path: &Path, version: i64) -> Result<()> {
    if version <= VERSION {
        return Ok(());
    }
    Err(Error::input(format!(
        "CCR store {} has schema version {version}; this briefkit reads version {VERSION}",
        path.display()
    ))
    .with_hint("use the newer briefkit that wrote it, or another store")
    .with_topic(Topic::Setting(Setting::CcrStore)))
}

/// Whether the open database is a CCR store (`true`) or new, with no tables (`false`),
/// read without writing; anything else (another program's tables, a newer schema) is
/// refused before the file is touched.
fn is_store(conn: &Connection, path: &Path) -> Result<bool> {
    // Both reads in one read transaction: another process creating the store commits its
    // tables and its version together, and reading them apart saw tables without a version
    // ("another program's database") while eight writers raced to create the store.
    let snapshot = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Deferred)
        .map_err(|e| sql(path, e))?;
    let version: i64 = snapshot
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| sql(path, e))?;
    refuse_newer(path, version)?;
    let (tables, ours): (i64, i64) = snapshot
        .query_row(
            "SELECT count(*), sum(name = 'ccr_entries') FROM sqlite_schema WHERE type = 'table'",
            [],
            |row| Ok((row.get(0)?, row.get::<_, Option<i64>>(1)?.unwrap_or(0))),
        )
        .map_err(|e| sql(path, e))?;
    snapshot.finish().map_err(|e| sql(path, e))?;
    match (version, tables) {
        (0, 0) => Ok(false),
        (1 | VERSION, _) if ours == 1 => Ok(true),
        _ => Err(not_a_store(path, "an SQLite database of another program")),
    }
}

/// WAL mode, durable writes and the schema, on a file known to be a store or new.
fn init(conn: Connection, path: &Path) -> Result<Connection> {
    wal(&conn, path)?;
    // FULL: a put that returned has its original on disk even after a power cut, so a
    // marker already handed to a model never points at nothing.
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(|e| sql(path, e))?;
    migrate(&conn, path)?;
    Ok(conn)
}

/// Creates the directory (owner only) and an empty file (owner read/write only) before
/// SQLite does: originals can hold anything a tool printed. SQLite gives its `-wal` and
/// `-shm` files the main file's permissions.
fn create_private(path: &Path) -> Result<()> {
    let io = |e: std::io::Error| {
        Error::io(path, &e)
            .with_hint("use a writable path")
            .with_topic(Topic::Setting(Setting::CcrStore))
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
            Err(e) => return Err(sql(path, e)),
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
        .map_err(|e| sql(path, e))?;
    if version == VERSION {
        return Ok(());
    }
    if version == 1 {
        let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
            .map_err(|e| sql(path, e))?;
        let now: i64 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| sql(path, e))?;
        if now == 1 {
            tx.execute_batch(CREATE_RECORDS).map_err(|e| sql(path, e))?;
            tx.pragma_update(None, "user_version", VERSION)
                .map_err(|e| sql(path, e))?;
        }
        return tx.commit().map_err(|e| sql(path, e));
    }
    refuse_newer(path, version)?;
    // Version 0: new, or not ours. Decide under the write lock so two first openers do not
    // both create.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .map_err(|e| sql(path, e))?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| sql(path, e))?;
    if version == 0 {
        let tables: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
                [],
                |row| row.get(0),
            )
            .map_err(|e| sql(path, e))?;
        if tables > 0 {
            return Err(not_a_store(path, "an SQLite database of another program"));
        }
        tx.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
            .map_err(|e| sql(path, e))?;
        tx.execute_batch(CREATE).map_err(|e| sql(path, e))?;
        tx.execute_batch(CREATE_RECORDS).map_err(|e| sql(path, e))?;
        tx.pragma_update(None, "user_version", VERSION)
            .map_err(|e| sql(path, e))?;
    }
    tx.commit().map_err(|e| sql(path, e))
}

/// An SQLite error in the user's terms: a damaged file says so and what to do, a store
/// held too long by another process is a conflict (exit 4), anything else names the path.
pub fn sql(path: &Path, err: rusqlite::Error) -> Error {
    let shown = path.display();
    let error = match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            Error::input(format!("CCR store {shown} is damaged: {}", detail(&err))).with_hint(
                format!(
                    "its originals cannot be read; move it aside (e.g. mv {shown} \
                     {shown}.damaged) and a new store is created on the next put"
                ),
            )
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Error::new(
            ErrorKind::Conflict,
            format!(
                "CCR store {shown} stayed locked by another process for {} s",
                BUSY_TIMEOUT.as_secs()
            ),
        )
        .with_hint("retry; if it persists, look for a process holding the store open"),
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            Error::input(format!("CCR store {shown}: {}", detail(&err)))
                .with_hint("use a writable path")
                .with_topic(Topic::Setting(Setting::CcrStore))
        }
        Some(ErrorCode::DiskFull) => Error::input(format!("CCR store {shown}: the disk is full"))
            .with_hint("free space, or collect expired originals")
            .with_topic(Topic::StoreFull),
        _ => Error::input(format!("CCR store {shown}: {}", detail(&err))),
    };
    error.with_source(err)
}

fn detail(err: &rusqlite::Error) -> String {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        other => other.to_string(),
    }
}
