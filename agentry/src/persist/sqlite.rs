//! The SQLite checkpointer: the embedded default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqlitePool};

use super::checkpoint::validate_thread_id;
use super::format::{FORMAT_VERSION, encode_body};
use super::lease::{from_ms, now_ms, to_ms, ttl_ms};
use super::refusal::{LeaseRow, Seen, refusal};
use super::sql::{open_sqlite, to_i64, to_u64};
use super::sql_shared::checkpoint_from_columns;
use super::sql_shared::shared_sql_checkpointer;
use super::sqlite_conn::Conn;
use super::sqlite_load::{LOAD, Load};
use super::sqlite_script::{CloseUnlessDone, PUT_FIRST, PUT_NEXT};
use super::sqlite_writer::{Put, Written};
use super::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Checkpointer, Lease, PersistError,
    ThreadInfo,
};

/// Checkpoints in a SQLite database file, in WAL mode with `synchronous = NORMAL`: a step is
/// saved with one transaction and survives a crash of the process (a power loss may lose the
/// last steps, never corrupt the file). Several processes may share the file; leases work
/// across them.
///
/// Steps are written and checkpoints loaded through a connection of the checkpointer's own
/// (with `rusqlite`, its statements prepared once), on the caller's thread when the file is
/// not locked by another writer (≈ 50 µs, no `fsync`: the WAL is synced by checkpoints, which
/// run on tokio's blocking pool), else on the blocking pool, waiting up to 10 s for the
/// file. Everything else goes through the sqlx [`pool`](Self::pool).
///
/// ```no_run
/// # async fn demo() -> Result<(), agentry::persist::PersistError> {
/// use agentry::persist::{Checkpointer, SqliteCheckpointer};
///
/// let checkpointer = SqliteCheckpointer::open("threads.db").await?;
/// for thread in checkpointer.threads(20).await? {
///     println!("{} at step {}", thread.thread_id, thread.latest_step);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct SqliteCheckpointer {
    pool: SqlitePool,
    /// The connection that writes steps and loads checkpoints; `None` when the pool's
    /// database is not a file this process can open again (an in-memory pool given to
    /// `from_pool`): then they go through the pool.
    conn: Option<Conn>,
}

impl SqliteCheckpointer {
    /// Opens the database at `path` (created when missing) and brings its schema up to date
    /// (our versions are kept in our own table, `agentry_schema_versions`, see
    /// [`migrate`](super::migrate)). A file that is not a SQLite database is
    /// [`PersistError::NotADatabase`]; a table of ours that exists with other columns is
    /// [`PersistError::SchemaMismatch`]; a file that holds another program's tables and none
    /// of ours is [`PersistError::ForeignTables`] (use [`open_shared`](Self::open_shared) to
    /// add ours to it).
    pub fn open(path: impl AsRef<Path>) -> BoxFuture<'static, Result<Self, PersistError>> {
        // Not an `async fn`: the returned future's type does not name `path`, so a path of
        // the wrong type is one error at the call, not one more at each `.await`.
        Self::open_path(path.as_ref().to_owned(), false).boxed()
    }

    /// [`open`](Self::open) a database that other programs use too (an application's own
    /// database): our tables are added beside theirs even when none of ours is there yet.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use agentry::persist::SqliteCheckpointer;
    /// use sqlx::Connection;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("app.db");
    /// let url = format!("sqlite://{}?mode=rwc", path.display());
    /// let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    /// sqlx::query("CREATE TABLE invoices (id INTEGER PRIMARY KEY)").execute(&mut conn).await.unwrap();
    ///
    /// let checkpointer = SqliteCheckpointer::open_shared(&path).await.unwrap();
    /// // Once our tables are there, a plain `open` opens the file too.
    /// SqliteCheckpointer::open(&path).await.unwrap();
    /// # drop((conn, checkpointer));
    /// # }
    /// ```
    pub fn open_shared(path: impl AsRef<Path>) -> BoxFuture<'static, Result<Self, PersistError>> {
        Self::open_path(path.as_ref().to_owned(), true).boxed()
    }

    async fn open_path(path: PathBuf, shared: bool) -> Result<Self, PersistError> {
        let pool = open_sqlite(&path, shared).await?;
        let conn = Some(Conn::open(&path)?);
        Ok(SqliteCheckpointer { pool, conn })
    }

    /// A checkpointer over an existing pool whose schema is up to date: run
    /// [`migrate`](super::migrate) on the pool first (see [`open`](Self::open)). When the
    /// pool's database is a file, steps are written and checkpoints loaded through a
    /// connection of the checkpointer's own to that file (opened here); otherwise through the
    /// pool.
    pub fn from_pool(pool: SqlitePool) -> Self {
        let path = pool.connect_options().get_filename().to_path_buf();
        let conn = path.is_file().then(|| Conn::open(&path).ok()).flatten();
        SqliteCheckpointer { pool, conn }
    }

    /// The connection pool.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    async fn put_inner(&self, write: CheckpointWrite<'_>) -> Result<CheckpointMeta, PersistError> {
        write.validate()?;
        let step = to_i64(write.step());
        let now = now_ms();
        let added = write.new_messages.len() as i64;
        let messages = write
            .new_messages
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PersistError::corrupt_by("message", e))?;
        let body = encode_body(write.state, write.usage, write.counters, write.pending);
        let (token, worker) = write
            .lease
            .map(|l| (Some(to_i64(l.token)), Some(l.worker.as_str())))
            .unwrap_or((None, None));
        let put = Put {
            thread_id: write.thread_id.to_string(),
            step,
            after: write.after.map(to_i64),
            added,
            now,
            token,
            worker: worker.map(str::to_string),
            messages,
            format_version: FORMAT_VERSION as i64,
            body,
        };
        let written = match &self.conn {
            Some(conn) => {
                conn.write("put", move |c| super::sqlite_writer::write(c, &put))
                    .await?
            }
            None => self.put_script(put).await?,
        };
        let count = match written {
            Written::Committed { message_count } => message_count,
            Written::Refused => return Err(refusal(&write, self.seen(write.thread_id).await?)),
        };
        Ok(CheckpointMeta {
            thread_id: write.thread_id.to_string(),
            step: write.step(),
            parent: write.after.map(|s| CheckpointRef::new(write.thread_id, s)),
            format_version: FORMAT_VERSION,
            message_count: to_u64(count),
            created_at: from_ms(now),
        })
    }

    /// A step written through the pool, as one script (one round trip to the connection's
    /// thread); returns the thread's new message count.
    async fn put_script(&self, put: Put) -> Result<Written, PersistError> {
        // One script, one round trip to the connection's thread: the thread's position moves
        // first (so the transaction holds the write lock from its start); when it did not
        // move (a stale writer, a lost lease, a thread leased to another) the guard violates
        // a NOT NULL constraint with OR ROLLBACK, which rolls the whole transaction back.
        let script = match put.after {
            None => PUT_FIRST,
            Some(_) => PUT_NEXT,
        };
        let err = |e| PersistError::backend("put", e);
        let mut guard = CloseUnlessDone(Some(self.pool.acquire().await.map_err(err)?));
        let conn = guard.0.as_mut().expect("just acquired");
        let outcome = sqlx::query(script)
            .bind(&put.thread_id)
            .bind(put.step)
            .bind(put.added)
            .bind(put.now)
            .bind(put.after)
            .bind(put.token)
            .bind(&put.worker)
            .bind(format!("[{}]", put.messages.join(",")))
            .bind(put.format_version)
            .bind(&put.body)
            .fetch_all(&mut **conn)
            .await;
        match outcome {
            Ok(rows) if rows.len() == 1 => {
                guard.done();
                Ok(Written::Committed {
                    message_count: rows[0].get(0),
                })
            }
            failed => {
                // Whatever stopped the script, leave no transaction open on the connection.
                let _ = sqlx::query("ROLLBACK").execute(&mut **conn).await;
                guard.done();
                match failed {
                    Err(e) if is_guard(&e) => Ok(Written::Refused),
                    Err(e) => Err(PersistError::backend("put", e)),
                    Ok(rows) => Err(PersistError::corrupt(
                        "put",
                        format!("the write script returned {} rows, not 1", rows.len()),
                    )),
                }
            }
        }
    }

    /// The thread's step and lease, after a refused write.
    async fn seen(&self, thread_id: &str) -> Result<Seen, PersistError> {
        let row = sqlx::query(
            "SELECT t.latest_step, l.worker, l.token, l.expires_at_ms, $2
             FROM (SELECT $1 AS id) k
             LEFT JOIN agent_threads t ON t.thread_id = k.id
             LEFT JOIN agent_leases l ON l.thread_id = k.id",
        )
        .bind(thread_id)
        .bind(now_ms())
        .fetch_one(&self.pool)
        .await
        .map_err(|e| PersistError::backend("put", e))?;
        seen_from_row(&row)
    }

    /// The checkpoint `step` (`None`: the newest) with its messages; with `known`, only the
    /// messages after `known`'s, and `None` unless checkpoint `known` is still the thread's.
    async fn load(
        &self,
        thread_id: &str,
        step: Option<u64>,
        known: Option<&CheckpointMeta>,
    ) -> Result<Option<Checkpoint>, PersistError> {
        let ask = Load::new(thread_id, step, known);
        let from = to_u64(ask.from);
        let Some(conn) = &self.conn else {
            return self.load_pooled(ask, known.is_some()).await;
        };
        let Some(row) = conn
            .read("get", move |c| super::sqlite_load::load(c, &ask))
            .await?
        else {
            return Ok(None);
        };
        if known.is_some() && !row.known_matches {
            return Ok(None);
        }
        checkpoint_from_columns(
            row.meta,
            &row.body,
            row.stored,
            &row.messages,
            thread_id,
            from,
        )
        .map(Some)
    }

    /// [`load`](Self::load) through the pool.
    async fn load_pooled(
        &self,
        ask: Load,
        known: bool,
    ) -> Result<Option<Checkpoint>, PersistError> {
        let row = sqlx::query(LOAD)
            .bind(&ask.thread_id)
            .bind(ask.step)
            .bind(ask.from)
            .bind(ask.known_step)
            .bind(ask.known_at)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| PersistError::backend("get", e))?;
        let Some(row) = row else { return Ok(None) };
        if known && !base_matches(&row)? {
            return Ok(None);
        }
        checkpoint_from_row(&row, &ask.thread_id, to_u64(ask.from)).map(Some)
    }
}

shared_sql_checkpointer!(SqliteCheckpointer, SqliteRow, i64);

/// The one error that says the write script's guard stopped it: the guard's insert of NULLs
/// into `agent_leases` (SQLite's `SQLITE_CONSTRAINT_NOTNULL`), told by its kind, not its text.
fn is_guard(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::NotNullViolation)
}

impl Checkpointer for SqliteCheckpointer {
    fn put<'a>(
        &'a self,
        write: CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        self.put_inner(write).boxed()
    }

    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        self.load(thread_id, None, None).boxed()
    }

    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        self.load(thread_id, Some(step), None).boxed()
    }

    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        n: usize,
    ) -> BoxFuture<'a, Result<Vec<CheckpointMeta>, PersistError>> {
        self.history_inner(thread_id, n).boxed()
    }

    fn threads<'a>(&'a self, n: usize) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        self.threads_inner(n).boxed()
    }

    fn delete_thread<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PersistError>> {
        self.delete_inner(thread_id).boxed()
    }

    fn fork<'a>(
        &'a self,
        from: &'a CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        self.fork_inner(from, new_thread_id).boxed()
    }

    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<Lease>, PersistError>> {
        async move {
            validate_thread_id(thread_id)?;
            let ttl = ttl_ms(ttl)?;
            let now = now_ms();
            let row = sqlx::query(
                "INSERT INTO agent_leases (thread_id, worker, token, expires_at_ms)
                 VALUES ($1, $2, 1, $3 + $4)
                 ON CONFLICT (thread_id) DO UPDATE
                 SET worker = excluded.worker, token = agent_leases.token + 1,
                     expires_at_ms = excluded.expires_at_ms
                 WHERE agent_leases.expires_at_ms <= $3 OR agent_leases.worker = excluded.worker
                 RETURNING token, expires_at_ms",
            )
            .bind(thread_id)
            .bind(worker)
            .bind(now)
            .bind(ttl)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| PersistError::backend("acquire_lease", e))?;
            Ok(row.map(|r| lease_from_row(thread_id, worker, &r)))
        }
        .boxed()
    }

    fn renew_lease<'a>(
        &'a self,
        lease: &'a Lease,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, PersistError>> {
        async move {
            let ttl = ttl_ms(ttl)?;
            let row = sqlx::query(
                "UPDATE agent_leases SET expires_at_ms = $4 + $5
                 WHERE thread_id = $1 AND token = $2 AND worker = $3 AND expires_at_ms > 0
                 RETURNING token, expires_at_ms",
            )
            .bind(&lease.thread_id)
            .bind(to_i64(lease.token))
            .bind(&lease.worker)
            .bind(now_ms())
            .bind(ttl)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| PersistError::backend("renew_lease", e))?;
            row.map(|r| lease_from_row(&lease.thread_id, &lease.worker, &r))
                .ok_or_else(|| PersistError::LeaseLost {
                    thread_id: lease.thread_id.clone(),
                })
        }
        .boxed()
    }

    fn latest_since<'a>(
        &'a self,
        known: &'a CheckpointMeta,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        self.load(&known.thread_id, None, Some(known)).boxed()
    }

    fn orphans<'a>(
        &'a self,
        before: std::time::SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        self.orphans_inner(before, limit).boxed()
    }

    fn release_lease<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), PersistError>> {
        async move {
            sqlx::query(
                "UPDATE agent_leases SET expires_at_ms = 0
                 WHERE thread_id = $1 AND token = $2 AND worker = $3",
            )
            .bind(&lease.thread_id)
            .bind(to_i64(lease.token))
            .bind(&lease.worker)
            .execute(&self.pool)
            .await
            .map_err(|e| PersistError::backend("release_lease", e))?;
            Ok(())
        }
        .boxed()
    }
}
