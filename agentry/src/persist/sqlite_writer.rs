//! The SQLite checkpointer's write of a step: statements prepared once and cached, one
//! `BEGIN IMMEDIATE` transaction, on the checkpointer's own connection
//! ([`Conn`](super::sqlite_conn::Conn)).
//!
//! Why not sqlx for this path: sqlx's SQLite driver runs each connection on a worker thread
//! and hands every statement and every row across a channel, which cost a step more than
//! SQLite's own work (see `agentry/benches/checkpoint_cpu.rs`, where the same rows written by
//! hand with rusqlite are the baseline). Leases, forks, listings and the store stay on the
//! sqlx pool: they share the file, its WAL and its locks with this connection as two
//! processes would.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

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

/// A step after `?5`: the thread's row moves, when it is still at `?5`. Without `RETURNING`,
/// which SQLite runs as a trigger, so the statement would need a statement journal (a copy of
/// every page it changes); [`COUNT`] reads the count after it.
const NEXT: &str = concat!(
    "UPDATE agent_threads
     SET latest_step = ?2, message_count = message_count + ?3, updated_at_ms = ?4
     WHERE thread_id = ?1 AND latest_step = ?5 AND ",
    lease_ok!()
);

/// The thread's message count, after [`NEXT`] moved it.
const COUNT: &str = "SELECT message_count FROM agent_threads WHERE thread_id = ?1";

/// One new message, numbered `?2`: a row per statement, so no statement journal either.
const MESSAGE: &str = "INSERT INTO agent_messages (thread_id, seq, body) VALUES (?1, ?2, ?3)";

/// The checkpoint row.
const CHECKPOINT: &str = "INSERT INTO agent_checkpoints (thread_id, step, parent_thread,
         parent_step, format_version, message_count, body, created_at_ms)
     VALUES (?1, ?2, CASE WHEN ?3 IS NULL THEN NULL ELSE ?1 END, ?3, ?4, ?5, ?6, ?7)";

/// One step to write, owned (it may cross to the blocking pool).
pub(super) struct Put {
    pub(super) thread_id: String,
    pub(super) step: i64,
    pub(super) after: Option<i64>,
    pub(super) added: i64,
    pub(super) now: i64,
    pub(super) token: Option<i64>,
    pub(super) worker: Option<String>,
    /// The new messages, each as JSON.
    pub(super) messages: Vec<String>,
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

/// The transaction; any error rolls it back (the `Transaction`'s drop). A file another
/// writer holds fails at its `BEGIN`, before anything is written.
pub(super) fn write(conn: &mut Connection, put: &Put) -> Result<Written, rusqlite::Error> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let moved = match put.after {
        None => tx
            .prepare_cached(FIRST)?
            .query_row(head_params(put), |row| row.get::<_, i64>(0))
            .optional()?,
        Some(_) => match tx.prepare_cached(NEXT)?.execute(head_params(put))? {
            0 => None,
            _ => Some(
                tx.prepare_cached(COUNT)?
                    .query_row([&put.thread_id], |row| row.get::<_, i64>(0))?,
            ),
        },
    };
    let Some(count) = moved else {
        tx.rollback()?;
        return Ok(Written::Refused);
    };
    let mut insert = tx.prepare_cached(MESSAGE)?;
    for (seq, body) in (count - put.added..).zip(&put.messages) {
        insert.execute(params![put.thread_id, seq, body])?;
    }
    drop(insert);
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

/// [`FIRST`]'s and [`NEXT`]'s parameters.
fn head_params(put: &Put) -> [&dyn rusqlite::ToSql; 7] {
    [
        &put.thread_id,
        &put.step,
        &put.added,
        &put.now,
        &put.after,
        &put.token,
        &put.worker,
    ]
}
