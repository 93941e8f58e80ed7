//! The SQLite checkpointer's own connections (`rusqlite`) and where their statements run.
//!
//! A step's write and a thread's load are one short transaction each (≈ 50 µs of SQLite's own
//! work, no `fsync`: in WAL mode with `synchronous = NORMAL` a commit only appends to the
//! WAL). Handing each to another thread cost more than the work: a wake-up there and one back
//! per statement, which was most of what a thread run over HTTP spent in the checkpointer. So
//! a statement runs on the caller's thread when it cannot wait: the connection is free, the
//! file is in WAL mode, and the connection's busy timeout is zero there, so a file another
//! writer holds answers `SQLITE_BUSY` at once instead of blocking the executor. Then, or when
//! another task holds the connection, the statement runs on tokio's blocking pool, where it
//! waits up to [`BUSY_TIMEOUT`] as before. A rollback-journal file (`synchronous = FULL`:
//! every commit syncs) always goes to the blocking pool.
//!
//! There are two connections. Writes go through the first. A read goes through it too when it
//! is free (its page cache holds what the last steps wrote), else through the second, so a
//! load never waits behind a write that waits for another writer's lock.
//!
//! What can still take long is the WAL checkpoint, which syncs the database file. The
//! connections do not checkpoint on their own commits (`wal_autocheckpoint = 0`); every
//! [`CHECKPOINT_EVERY`] commits a `PASSIVE` checkpoint starts on the blocking pool.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::PersistError;
use super::sqlite_busy::{BUSY_TIMEOUT, open_retries};

/// How many commits of this connection between two WAL checkpoints: a step writes 4–6 pages,
/// so about SQLite's own default of 1,000 pages.
const CHECKPOINT_EVERY: u32 = 200;

/// The checkpointer's connections (see the module's documentation). Clones share them.
#[derive(Clone)]
pub(super) struct Conn {
    shared: Arc<Shared>,
}

struct Shared {
    writer: Mutex<Connection>,
    reader: Mutex<Connection>,
    /// Whether the file is in WAL mode, where a statement may run on the caller's thread.
    wal: bool,
    commits: AtomicU32,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("wal", &self.shared.wal)
            .finish_non_exhaustive()
    }
}

impl Conn {
    /// Opens two connections to the existing database file at `path`. In WAL mode (what
    /// [`open`](super::SqliteCheckpointer::open) sets) a commit is `synchronous = NORMAL`, the
    /// pool's setting; in a rollback journal SQLite's default (`FULL`) is kept.
    ///
    /// Another process may be switching the same new file to WAL or recovering its WAL: a
    /// busy open is tried again (see `sqlite_busy`).
    pub(super) fn open(path: &Path) -> Result<Self, PersistError> {
        let (writer, wal) = open_retrying(path)?;
        let (reader, _) = open_retrying(path)?;
        Ok(Conn {
            shared: Arc::new(Shared {
                writer: Mutex::new(writer),
                reader: Mutex::new(reader),
                wal,
                commits: AtomicU32::new(0),
            }),
        })
    }

    /// Runs a read (`what` names it in errors). `f` is one statement or transaction that,
    /// when it answers busy, did nothing: it may run a second time.
    pub(super) async fn read<T, F>(&self, what: &'static str, f: F) -> Result<T, PersistError>
    where
        F: Fn(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let f = match self.inline(&self.shared.writer, f) {
            Ok(done) => return done.map_err(|e| PersistError::backend(what, e)),
            Err(f) => f,
        };
        self.run(what, Side::Reader, f).await
    }

    /// Runs a transaction that may commit (as [`read`](Self::read)); every
    /// [`CHECKPOINT_EVERY`] of them, starts a WAL checkpoint on the blocking pool. Dropping
    /// the future does not stop a transaction that started: it commits or rolls back as a
    /// whole.
    pub(super) async fn write<T, F>(&self, what: &'static str, f: F) -> Result<T, PersistError>
    where
        F: Fn(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let result = self.run(what, Side::Writer, f).await;
        let commits = self.shared.commits.fetch_add(1, Ordering::Relaxed);
        if self.shared.wal && commits % CHECKPOINT_EVERY == CHECKPOINT_EVERY - 1 {
            self.checkpoint();
        }
        result
    }

    /// On the caller's thread when that cannot wait, else on the blocking pool.
    async fn run<T, F>(&self, what: &'static str, side: Side, f: F) -> Result<T, PersistError>
    where
        F: Fn(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
        T: Send + 'static,
    {
        let f = match self.inline(self.shared.side(side), f) {
            Ok(done) => return done.map_err(|e| PersistError::backend(what, e)),
            Err(f) => f,
        };
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || waiting(shared.side(side), f))
            .await
            .map_err(|e| PersistError::backend(what, e))?
            .map_err(|e| PersistError::backend(what, e))
    }

    /// Runs `f` on `conn` on the caller's thread when the file is in WAL mode and `conn` is
    /// free; gives `f` back when it did not run, or answered busy (it did nothing then).
    fn inline<T, F>(&self, conn: &Mutex<Connection>, f: F) -> Result<rusqlite::Result<T>, F>
    where
        F: Fn(&mut Connection) -> rusqlite::Result<T>,
    {
        if !self.shared.wal {
            return Err(f);
        }
        let result = match conn.try_lock() {
            Ok(mut conn) => f(&mut conn),
            Err(TryLockError::Poisoned(e)) => f(&mut e.into_inner()),
            Err(TryLockError::WouldBlock) => return Err(f),
        };
        match result {
            Err(e) if is_busy(&e) => Err(f),
            done => Ok(done),
        }
    }

    /// A `PASSIVE` WAL checkpoint on the blocking pool, not awaited. One that cannot finish
    /// (readers in the WAL) leaves the rest to the next.
    fn checkpoint(&self) {
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || {
            let done = waiting(&shared.writer, |conn| {
                conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            });
            if let Err(e) = done {
                tracing::debug!(error = %e, "the SQLite checkpointer's WAL checkpoint failed");
            }
        });
    }
}

/// Which of the two connections.
#[derive(Clone, Copy)]
enum Side {
    Writer,
    Reader,
}

impl Shared {
    fn side(&self, side: Side) -> &Mutex<Connection> {
        match side {
            Side::Writer => &self.writer,
            Side::Reader => &self.reader,
        }
    }
}

/// Runs `f` holding `conn`, waiting for a busy file up to [`BUSY_TIMEOUT`].
fn waiting<T>(
    conn: &Mutex<Connection>,
    f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let result = f(&mut conn);
    conn.busy_timeout(Duration::ZERO)?;
    result
}

/// Opens one connection, trying a busy open again (see `sqlite_busy`).
fn open_retrying(path: &Path) -> Result<(Connection, bool), PersistError> {
    let mut retries = open_retries();
    loop {
        match open_once(path) {
            Err(e) if is_busy(&e) => match retries.next() {
                Some(pause) => std::thread::sleep(pause),
                None => return Err(PersistError::backend("open", e)),
            },
            result => return result.map_err(|e| PersistError::backend("open", e)),
        }
    }
}

/// One attempt at opening the connection; whether the file is in WAL mode.
fn open_once(path: &Path) -> Result<(Connection, bool), rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    let wal = mode.eq_ignore_ascii_case("wal");
    if wal {
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    }
    conn.busy_timeout(Duration::ZERO)?;
    Ok((conn, wal))
}

/// Whether SQLite answered "busy" or "locked".
pub(super) fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}
