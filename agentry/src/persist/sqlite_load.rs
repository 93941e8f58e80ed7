//! Loading a checkpoint from SQLite in one query: the checkpoint's columns, its messages from a
//! known count on as one JSON array (decoded in one pass), and whether a caller's checkpoint is
//! still the thread's. Run on the checkpointer's own connection
//! ([`Conn`](super::sqlite_conn::Conn)), or through the pool when it has none.

use rusqlite::{Connection, OptionalExtension, params};

use super::CheckpointMeta;
use super::lease::{from_ms, to_ms};
use super::sql::{to_i64, to_u64};

/// `?1` thread, `?2` step (`NULL`: the newest), `?3` the count of messages the caller holds,
/// `?4`/`?5` the step and time of the caller's checkpoint. Columns 0–7 are the checkpoint
/// (`format_version` in 4, as `meta_from_row` reads it), 8 the count of stored messages from
/// `?3` on, 9 those messages, 10 whether the caller's checkpoint matched.
pub(super) const LOAD: &str = "SELECT c.thread_id, c.step, c.parent_thread, c.parent_step, c.format_version,
        c.message_count, c.created_at_ms, c.body,
        (SELECT count(*) FROM agent_messages m
           WHERE m.thread_id = c.thread_id AND m.seq >= ?3 AND m.seq < c.message_count),
        (SELECT '[' || coalesce(group_concat(m.body, ',' ORDER BY m.seq), '') || ']' FROM agent_messages m
           WHERE m.thread_id = c.thread_id AND m.seq >= ?3 AND m.seq < c.message_count),
        (SELECT count(*) FROM agent_checkpoints b
           WHERE b.thread_id = c.thread_id AND b.step = ?4 AND b.message_count = ?3
             AND b.created_at_ms = ?5)
     FROM agent_checkpoints c
     WHERE c.thread_id = ?1 AND (?2 IS NULL OR c.step = ?2)
     ORDER BY c.step DESC LIMIT 1";

/// What [`LOAD`] is asked, owned (it may cross to the blocking pool).
pub(super) struct Load {
    pub(super) thread_id: String,
    pub(super) step: Option<i64>,
    pub(super) from: i64,
    pub(super) known_step: Option<i64>,
    pub(super) known_at: Option<i64>,
}

impl Load {
    pub(super) fn new(thread_id: &str, step: Option<u64>, known: Option<&CheckpointMeta>) -> Self {
        Load {
            thread_id: thread_id.to_string(),
            step: step.map(to_i64),
            from: to_i64(known.map_or(0, |k| k.message_count)),
            known_step: known.map(|k| to_i64(k.step)),
            known_at: known.map(|k| to_ms(k.created_at)),
        }
    }
}

/// [`LOAD`]'s row, read into owned columns; decoded on the caller's side.
pub(super) struct Loaded {
    pub(super) meta: CheckpointMeta,
    pub(super) body: String,
    pub(super) stored: i64,
    pub(super) messages: String,
    pub(super) known_matches: bool,
}

/// Runs [`LOAD`] on `conn` (its statement prepared once and cached).
pub(super) fn load(conn: &mut Connection, load: &Load) -> rusqlite::Result<Option<Loaded>> {
    let mut statement = conn.prepare_cached(LOAD)?;
    statement
        .query_row(
            params![
                load.thread_id,
                load.step,
                load.from,
                load.known_step,
                load.known_at
            ],
            |row| {
                let parent_thread: Option<String> = row.get(2)?;
                let parent_step: Option<i64> = row.get(3)?;
                Ok(Loaded {
                    meta: CheckpointMeta {
                        thread_id: row.get(0)?,
                        step: to_u64(row.get(1)?),
                        parent: parent_thread
                            .zip(parent_step)
                            .map(|(t, s)| super::CheckpointRef::new(t, to_u64(s))),
                        format_version: row.get::<_, i64>(4)? as u32,
                        message_count: to_u64(row.get(5)?),
                        created_at: from_ms(row.get(6)?),
                    },
                    body: row.get(7)?,
                    stored: row.get(8)?,
                    messages: row.get(9)?,
                    known_matches: row.get::<_, i64>(10)? == 1,
                })
            },
        )
        .optional()
}
