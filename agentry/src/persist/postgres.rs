//! The Postgres checkpointer: for many worker processes.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use sqlx::postgres::PgRow;
use sqlx::{PgPool, Row};

use super::checkpoint::validate_thread_id;
use super::format::{FORMAT_VERSION, encode_body, encode_message};
use super::lease::{from_ms, now_ms, to_ms, ttl_ms};
use super::refusal::{LeaseRow, Seen, refusal};
use super::sql::{connect_postgres, to_i64, to_u64};
use super::sql_shared::shared_sql_checkpointer;
use super::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Checkpointer, Lease, PersistError,
    ThreadInfo,
};

/// Checkpoints in a Postgres database, for many worker processes: a step is saved by one
/// statement (atomic), leases use the server's clock and a fencing token, and a write that
/// carries a lease locks the lease row so a takeover waits for it.
///
/// ```no_run
/// # async fn demo() -> Result<(), agentry::persist::PersistError> {
/// use std::time::Duration;
/// use agentry::persist::{Checkpointer, PostgresCheckpointer};
///
/// let checkpointer = PostgresCheckpointer::connect("postgres://agent@db/agents").await?;
/// if let Some(lease) = checkpointer.acquire_lease("thread-7", "worker-a", Duration::from_secs(30)).await? {
///     // advance the thread, passing `&lease` with each write...
///     checkpointer.release_lease(&lease).await?;
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct PostgresCheckpointer {
    pool: PgPool,
}

impl PostgresCheckpointer {
    /// Connects to the database at `url` and brings its schema up to date (our versions are
    /// kept in our own table, `agentry_schema_versions`, see [`migrate`](super::migrate)). A
    /// table of ours that exists with other columns (in the connection's current schema) is
    /// [`PersistError::SchemaMismatch`].
    pub async fn connect(url: &str) -> Result<Self, PersistError> {
        let pool = connect_postgres(url).await?;
        Ok(PostgresCheckpointer { pool })
    }

    /// A checkpointer over an existing pool whose schema is up to date: run
    /// [`migrate`](super::migrate) on the pool first (see [`connect`](Self::connect)).
    pub fn from_pool(pool: PgPool) -> Self {
        PostgresCheckpointer { pool }
    }

    /// The connection pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn put_inner(&self, write: CheckpointWrite<'_>) -> Result<CheckpointMeta, PersistError> {
        write.validate()?;
        let err = |e| PersistError::backend("put", e);
        let step = to_i64(write.step());
        let now = now_ms();
        let added = write.new_messages.len() as i64;
        let body = encode_body(write.state, write.usage, write.counters, write.pending);
        let (token, worker) = write
            .lease
            .map(|l| (Some(to_i64(l.token)), Some(l.worker.as_str())))
            .unwrap_or((None, None));
        let messages: Vec<String> = write.new_messages.iter().map(encode_message).collect();
        // One statement: atomic without a transaction, one round trip. A write that carries a
        // lease locks the lease row, so a takeover waits until this write is done.
        // Without a lease, no other worker may hold an unexpired one.
        const LEASE_OK: &str = "(($5::bigint IS NULL AND NOT EXISTS (SELECT 1 FROM agent_leases
               WHERE thread_id = $1
                 AND expires_at_ms > (extract(epoch FROM clock_timestamp()) * 1000)::bigint))
             OR EXISTS (SELECT 1 FROM agent_leases
               WHERE thread_id = $1 AND token = $5 AND worker = $6 AND expires_at_ms > 0 FOR SHARE))";
        const REST: &str = "m AS (INSERT INTO agent_messages (thread_id, seq, body)
               SELECT $1, t.base + u.o - 1, u.b FROM t, unnest($2::text[]) WITH ORDINALITY AS u(b, o)),
             c AS (INSERT INTO agent_checkpoints (thread_id, step, parent_thread, parent_step,
                   format_version, message_count, body, created_at_ms)
               SELECT $1, $7, CASE WHEN $8::bigint IS NULL THEN NULL ELSE $1 END, $8, $9,
                      t.base + cardinality($2::text[]), $3, $4 FROM t)
             SELECT base FROM t";
        let sql = match write.after {
            None => format!(
                "WITH t AS (INSERT INTO agent_threads
                   (thread_id, latest_step, message_count, created_at_ms, updated_at_ms)
                   SELECT $1, 1, cardinality($2::text[]), $4, $4 WHERE {LEASE_OK}
                   ON CONFLICT DO NOTHING RETURNING 0::bigint AS base), {REST}"
            ),
            Some(_) => format!(
                "WITH t AS (UPDATE agent_threads
                   SET latest_step = $7, message_count = message_count + cardinality($2::text[]),
                       updated_at_ms = $4
                   WHERE thread_id = $1 AND latest_step = $8 AND {LEASE_OK}
                   RETURNING message_count - cardinality($2::text[]) AS base), {REST}"
            ),
        };
        let base: Option<i64> = sqlx::query_scalar(&sql)
            .bind(write.thread_id)
            .bind(&messages)
            .bind(&body)
            .bind(now)
            .bind(token)
            .bind(worker)
            .bind(step)
            .bind(write.after.map(to_i64))
            .bind(FORMAT_VERSION as i32)
            .fetch_optional(&self.pool)
            .await
            .map_err(err)?;
        let Some(base) = base else {
            // The guard stopped the write (no row): name why, in the order both backends use.
            let row = sqlx::query(
                "SELECT t.latest_step, l.worker, l.token, l.expires_at_ms,
                        (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                 FROM (SELECT $1::text AS id) k
                 LEFT JOIN agent_threads t ON t.thread_id = k.id
                 LEFT JOIN agent_leases l ON l.thread_id = k.id",
            )
            .bind(write.thread_id)
            .fetch_one(&self.pool)
            .await
            .map_err(err)?;
            return Err(refusal(&write, seen_from_row(&row)?));
        };
        Ok(CheckpointMeta {
            thread_id: write.thread_id.to_string(),
            step: write.step(),
            parent: write.after.map(|s| CheckpointRef::new(write.thread_id, s)),
            format_version: FORMAT_VERSION,
            message_count: to_u64(base + added),
            created_at: from_ms(now),
        })
    }

    /// The checkpoint `step` (`None`: the newest) with its messages; with `known`, only the
    /// messages after `known`'s, and `None` unless checkpoint `known` is still the thread's.
    async fn load(
        &self,
        thread_id: &str,
        step: Option<u64>,
        known: Option<&CheckpointMeta>,
    ) -> Result<Option<Checkpoint>, PersistError> {
        let err = |e| PersistError::backend("get", e);
        let from = known.map_or(0, |k| k.message_count);
        // One query: the checkpoint, its messages from `from` on as one JSON array (decoded in
        // one pass), and whether the caller's checkpoint `known` is unchanged.
        let row = sqlx::query(
            "SELECT c.thread_id, c.step, c.parent_thread, c.parent_step, c.format_version::bigint, c.message_count,
                    c.created_at_ms, c.body,
                    (SELECT count(*) FROM agent_messages m
                       WHERE m.thread_id = c.thread_id AND m.seq >= $3 AND m.seq < c.message_count),
                    (SELECT '[' || coalesce(string_agg(m.body, ',' ORDER BY m.seq), '') || ']' FROM agent_messages m
                       WHERE m.thread_id = c.thread_id AND m.seq >= $3 AND m.seq < c.message_count),
                    (SELECT count(*) FROM agent_checkpoints b
                       WHERE b.thread_id = c.thread_id AND b.step = $4 AND b.message_count = $3
                         AND b.created_at_ms = $5)
             FROM agent_checkpoints c
             WHERE c.thread_id = $1 AND ($2::bigint IS NULL OR c.step = $2)
             ORDER BY c.step DESC LIMIT 1",
        )
        .bind(thread_id)
        .bind(step.map(to_i64))
        .bind(to_i64(from))
        .bind(known.map(|k| to_i64(k.step)))
        .bind(known.map(|k| to_ms(k.created_at)))
        .fetch_optional(&self.pool)
        .await
        .map_err(err)?;
        let Some(row) = row else { return Ok(None) };
        if known.is_some() && !base_matches(&row)? {
            return Ok(None);
        }
        checkpoint_from_row(&row, thread_id, from).map(Some)
    }
}

shared_sql_checkpointer!(PostgresCheckpointer, PgRow, i32);

impl Checkpointer for PostgresCheckpointer {
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
            let row = sqlx::query(
                "WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
                 INSERT INTO agent_leases (thread_id, worker, token, expires_at_ms)
                 SELECT $1, $2, 1, now.ms + $3 FROM now
                 ON CONFLICT (thread_id) DO UPDATE
                 SET worker = excluded.worker, token = agent_leases.token + 1,
                     expires_at_ms = excluded.expires_at_ms
                 WHERE agent_leases.expires_at_ms <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                    OR agent_leases.worker = excluded.worker
                 RETURNING token, expires_at_ms",
            )
            .bind(thread_id)
            .bind(worker)
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
                "UPDATE agent_leases
                 SET expires_at_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $4
                 WHERE thread_id = $1 AND token = $2 AND worker = $3 AND expires_at_ms > 0
                 RETURNING token, expires_at_ms",
            )
            .bind(&lease.thread_id)
            .bind(to_i64(lease.token))
            .bind(&lease.worker)
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
