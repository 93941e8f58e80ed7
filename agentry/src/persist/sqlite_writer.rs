//! The SQLite checkpointer's write path: one `rusqlite` connection of its own, statements
//! prepared once and cached, one `BEGIN IMMEDIATE` transaction per step, run on tokio's
//! blocking pool.
//!
//! Why not sqlx for this one path: sqlx's SQLite driver runs each connection on a worker
//! thread and hands every statement and every row across a channel, which cost a step more
//! than SQLite's own work (see `agentry/benches/checkpoint.rs`, where the same rows written
//! by hand with rusqlite are the baseline). The reads, leases, forks and the store stay on
//! the sqlx pool: they share the file, its WAL and its locks with this connection as two
//! processes would.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};

use super::PersistError;
use super::sqlite_busy::{BUSY_TIMEOUT, open_retries};

/// The thread's row moves first (so the transaction holds the write lock from its start),
/// when the lease allows: none given and no other worker holds an unexpired lease, or the
/// given one is still the thread's (expired but not taken over is still the thread's).
/// `?1` thread, `?2` step, `?3` number of new messages, `?4` now, `?5` previous step,
/// `?6`/`?7` lease token and worker.
macro_rules! lease_ok {
    () => {
        "((?6 IS NULL AND NOT EXISTS (SELECT 1 FROM agent_leases WHERE thread_id = ?1
           AND expires_at_ms > ?4))
          OR EXISTS (SELECT 1 FROM agent_leases WHERE thread_id = ?1
           AND token = ?6 AND worker = ?7 AND expires_at_ms > 0))"
    };
}

/// A new thread: its row, unless it exists. Returns its message count.
const FIRST: &str = concat!(
    "INSERT INTO agent_threads (thread_id, latest_step, message_count, created_at_ms, updated_at_ms)
     SELECT ?1, ?2, ?3, ?4, ?4 WHERE ",
    lease_ok!(),
    " ON CONFLICT DO NOTHING RETURNING message_count"
);

/// A step after `?5`: the thread's row moves, when it is still at `?5`. Returns its new
/// message count.
const NEXT: &str = concat!(
    "UPDATE agent_threads
     SET latest_step = ?2, message_count = message_count + ?3, updated_at_ms = ?4
     WHERE thread_id = ?1 AND latest_step = ?5 AND ",
    lease_ok!(),
    " RETURNING message_count"
);

/// The new messages, numbered from `?2`, out of one JSON array `?3`.
const MESSAGES: &str = "INSERT INTO agent_messages (thread_id, seq, body)
     SELECT ?1, ?2 + j.key, j.value FROM json_each(?3) j";

/// The checkpoint row.
const CHECKPOINT: &str = "INSERT INTO agent_checkpoints (thread_id, step, parent_thread,
         parent_step, format_version, message_count, body, created_at_ms)
     VALUES (?1, ?2, CASE WHEN ?3 IS NULL THEN NULL ELSE ?1 END, ?3, ?4, ?5, ?6, ?7)";

/// One step to write, owned (it crosses to the blocking pool).
pub(super) struct Put {
    pub(super) thread_id: String,
    pub(super) step: i64,
    pub(super) after: Option<i64>,
    pub(super) added: i64,
    pub(super) now: i64,
    pub(super) token: Option<i64>,
    pub(super) worker: Option<String>,
    /// The new messages as one JSON array.
    pub(super) messages: String,
    pub(super) format_version: i64,
    pub(super) body: String,
}

/// What a write did.
pub(super) enum Written {
    /// Committed; the thread now has this many messages.
    Committed { message_count: i64 },
    /// Refused and rolled back: the thread was not at `after`, or the lease did not allow it.
    Refused,
}

/// The checkpointer's writing connection.
#[derive(Clone)]
pub(super) struct Writer {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer {
    /// Opens the existing database file at `path` for writing. In WAL mode (what
    /// [`open`](super::SqliteCheckpointer::open) sets) a commit is `synchronous = NORMAL`, the
    /// pool's setting; in a rollback journal SQLite's default (`FULL`) is kept.
    ///
    /// Another process may be switching the same new file to WAL or recovering its WAL: a
    /// busy open is tried again (see `sqlite_busy`).
    pub(super) fn open(path: &Path) -> Result<Self, PersistError> {
        let mut retries = open_retries();
        let conn = loop {
            match open_once(path) {
                Err(e) if is_busy(&e) => match retries.next() {
                    Some(pause) => std::thread::sleep(pause),
                    None => return Err(PersistError::backend("open", e)),
                },
                result => break result.map_err(|e| PersistError::backend("open", e))?,
            }
        };
        Ok(Writer {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// Writes one step in one transaction, on the blocking pool (a busy file waits there, up
    /// to the busy timeout, not on the caller's executor). Dropping the future does not stop a
    /// write that started: it commits or rolls back as a whole.
    pub(super) async fn put(&self, put: Put) -> Result<Written, PersistError> {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            write(&mut conn, &put).map_err(|e| PersistError::backend("put", e))
        })
        .await
        .map_err(|e| PersistError::backend("put", e))?
    }
}

/// One attempt at opening the writing connection.
fn open_once(path: &Path) -> Result<Connection, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if mode.eq_ignore_ascii_case("wal") {
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    Ok(conn)
}

/// Whether SQLite answered "busy" or "locked".
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The transaction; any error rolls it back (the `Transaction`'s drop).
fn write(conn: &mut Connection, put: &Put) -> Result<Written, rusqlite::Error> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let moved = {
        let mut head = tx.prepare_cached(if put.after.is_none() { FIRST } else { NEXT })?;
        let mut rows = head.query(params![
            put.thread_id,
            put.step,
            put.added,
            put.now,
            put.after,
            put.token,
            put.worker,
        ])?;
        match rows.next()? {
            Some(row) => Some(row.get::<_, i64>(0)?),
            None => None,
        }
    };
    let Some(count) = moved else {
        tx.rollback()?;
        return Ok(Written::Refused);
    };
    if put.added > 0 {
        tx.prepare_cached(MESSAGES)?.execute(params![
            put.thread_id,
            count - put.added,
            put.messages
        ])?;
    }
    tx.prepare_cached(CHECKPOINT)?.execute(params![
        put.thread_id,
        put.step,
        put.after,
        put.format_version,
        count,
        put.body,
        put.now,
    ])?;
    tx.commit()?;
    Ok(Written::Committed {
        message_count: count,
    })
}
