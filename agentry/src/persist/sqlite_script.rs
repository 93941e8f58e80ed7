//! The SQLite checkpointer's write script: one round trip per checkpoint.

use sqlx::Sqlite;
use sqlx::pool::PoolConnection;

/// The lease condition: none given and no other worker holds an unexpired lease, or the given
/// one is still the thread's (expired but not taken over is still the thread's).
macro_rules! lease_ok {
    () => {
        "(($6 IS NULL AND NOT EXISTS (SELECT 1 FROM agent_leases WHERE thread_id = $1
           AND expires_at_ms > $4))
          OR EXISTS (SELECT 1 FROM agent_leases WHERE thread_id = $1
           AND token = $6 AND worker = $7 AND expires_at_ms > 0))"
    };
}

/// After the thread row moved: the new messages (numbered after the previous count) and the
/// checkpoint. `$1` thread, `$2` step, `$3` number of new messages, `$4` now, `$5` previous
/// step, `$6`/`$7` lease token and worker, `$8` the new messages as a JSON array, `$9` format
/// version, `$10` body.
macro_rules! put_rest {
    () => {
        "INSERT OR ROLLBACK INTO agent_messages (thread_id, seq, body)
           SELECT $1, t.message_count - $3 + j.key, j.value
           FROM agent_threads t, json_each($8) j WHERE t.thread_id = $1;
         INSERT OR ROLLBACK INTO agent_checkpoints (thread_id, step, parent_thread, parent_step,
             format_version, message_count, body, created_at_ms)
           SELECT $1, $2, CASE WHEN $5 IS NULL THEN NULL ELSE $1 END, $5, $9, t.message_count, $10, $4
           FROM agent_threads t WHERE t.thread_id = $1;
         COMMIT;"
    };
}

pub(super) const PUT_FIRST: &str = concat!(
    "BEGIN IMMEDIATE;
     INSERT INTO agent_threads (thread_id, latest_step, message_count, created_at_ms, updated_at_ms)
       SELECT $1, 1, $3, $4, $4 WHERE ",
    lease_ok!(),
    " ON CONFLICT DO NOTHING RETURNING message_count;",
    "INSERT OR ROLLBACK INTO agent_leases (thread_id, worker, token, expires_at_ms)
     SELECT NULL, NULL, NULL, NULL WHERE changes() = 0;",
    put_rest!()
);

pub(super) const PUT_NEXT: &str = concat!(
    "BEGIN IMMEDIATE;
     UPDATE agent_threads
       SET latest_step = $2, message_count = message_count + $3, updated_at_ms = $4
       WHERE thread_id = $1 AND latest_step = $5 AND ",
    lease_ok!(),
    " RETURNING message_count;",
    "INSERT OR ROLLBACK INTO agent_leases (thread_id, worker, token, expires_at_ms)
     SELECT NULL, NULL, NULL, NULL WHERE changes() = 0;",
    put_rest!()
);

/// A connection running a multi-statement script: if the future is dropped before the script
/// is known to be finished (committed or rolled back), the connection is closed instead of
/// going back to the pool with a transaction open.
pub(super) struct CloseUnlessDone(pub(super) Option<PoolConnection<Sqlite>>);

impl CloseUnlessDone {
    pub(super) fn done(&mut self) {
        self.0.take();
    }
}

impl Drop for CloseUnlessDone {
    fn drop(&mut self) {
        if let Some(conn) = self.0.as_mut() {
            conn.close_on_drop();
        }
    }
}
