//! What the SQLite and Postgres checkpointers share to the letter: forking and deleting a
//! thread, listing threads, checkpoints and orphans (the same SQL on both databases) and
//! reading rows into the crate's types. A macro rather than a generic over `sqlx::Database`:
//! the two differ only in their row type and the integer width of `format_version`, which a
//! macro names in two tokens where sqlx's generic bounds would need a dozen.

/// Expands, inside a backend's module, to `fork_inner`, `delete_inner`, `history_inner`,
/// `threads_inner` and `orphans_inner` on `$backend` and the free functions `meta_from_row`,
/// `thread_from_row`, `lease_from_row`, `seen_from_row` and `limit` over `$row`. Every
/// `SELECT` the backend reads with `meta_from_row` puts `format_version` (as a 64-bit integer)
/// in column 4.
macro_rules! shared_sql_checkpointer {
    ($backend:ty, $row:ty, $version:ty) => {
        impl $backend {
            async fn fork_inner(
                &self,
                from: &CheckpointRef,
                new_thread_id: &str,
            ) -> Result<CheckpointMeta, PersistError> {
                validate_thread_id(new_thread_id)?;
                let err = |e| PersistError::backend("fork", e);
                let now = now_ms();
                let mut tx = self.pool.begin().await.map_err(err)?;
                let count: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO agent_threads (thread_id, latest_step, message_count, parent_thread,
                         parent_step, created_at_ms, updated_at_ms)
                     SELECT $1, 1, message_count, thread_id, step, $4, $4
                     FROM agent_checkpoints WHERE thread_id = $2 AND step = $3
                     ON CONFLICT DO NOTHING
                     RETURNING message_count",
                )
                .bind(new_thread_id)
                .bind(&from.thread_id)
                .bind(to_i64(from.step))
                .bind(now)
                .fetch_optional(&mut *tx)
                .await
                .map_err(err)?;
                let Some(count) = count else {
                    let existing: Option<i64> =
                        sqlx::query_scalar("SELECT latest_step FROM agent_threads WHERE thread_id = $1")
                            .bind(new_thread_id)
                            .fetch_optional(&mut *tx)
                            .await
                            .map_err(err)?;
                    return Err(match existing {
                        Some(step) => PersistError::Conflict {
                            thread_id: new_thread_id.to_string(),
                            expected: None,
                            found: Some(to_u64(step)),
                        },
                        None => PersistError::NotFound {
                            thread_id: from.thread_id.clone(),
                            step: from.step,
                        },
                    });
                };
                sqlx::query(
                    "INSERT INTO agent_messages (thread_id, seq, body)
                     SELECT $1, seq, body FROM agent_messages WHERE thread_id = $2 AND seq < $3",
                )
                .bind(new_thread_id)
                .bind(&from.thread_id)
                .bind(count)
                .execute(&mut *tx)
                .await
                .map_err(err)?;
                let version: $version = sqlx::query_scalar(
                    "INSERT INTO agent_checkpoints (thread_id, step, parent_thread, parent_step,
                         format_version, message_count, body, created_at_ms)
                     SELECT $1, 1, thread_id, step, format_version, message_count, body, $4
                     FROM agent_checkpoints WHERE thread_id = $2 AND step = $3
                     RETURNING format_version",
                )
                .bind(new_thread_id)
                .bind(&from.thread_id)
                .bind(to_i64(from.step))
                .bind(now)
                .fetch_one(&mut *tx)
                .await
                .map_err(err)?;
                tx.commit().await.map_err(err)?;
                Ok(CheckpointMeta {
                    thread_id: new_thread_id.to_string(),
                    step: 1,
                    parent: Some(from.clone()),
                    format_version: version as u32,
                    message_count: to_u64(count),
                    created_at: from_ms(now),
                })
            }

            async fn delete_inner(&self, thread_id: &str) -> Result<bool, PersistError> {
                let err = |e| PersistError::backend("delete_thread", e);
                let mut tx = self.pool.begin().await.map_err(err)?;
                let deleted = sqlx::query("DELETE FROM agent_threads WHERE thread_id = $1")
                    .bind(thread_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(err)?
                    .rows_affected();
                for table in ["agent_messages", "agent_checkpoints", "agent_leases"] {
                    sqlx::query(&format!("DELETE FROM {table} WHERE thread_id = $1"))
                        .bind(thread_id)
                        .execute(&mut *tx)
                        .await
                        .map_err(err)?;
                }
                tx.commit().await.map_err(err)?;
                Ok(deleted > 0)
            }
        }

        pub(super) fn meta_from_row(row: &$row) -> Result<CheckpointMeta, PersistError> {
            let err = |e| PersistError::backend("get", e);
            let parent_thread: Option<String> = row.try_get("parent_thread").map_err(err)?;
            let parent_step: Option<i64> = row.try_get("parent_step").map_err(err)?;
            Ok(CheckpointMeta {
                thread_id: row.try_get("thread_id").map_err(err)?,
                step: to_u64(row.try_get("step").map_err(err)?),
                parent: parent_thread
                    .zip(parent_step)
                    .map(|(t, s)| CheckpointRef::new(t, to_u64(s))),
                format_version: row.try_get::<i64, _>(4).map_err(err)? as u32,
                message_count: to_u64(row.try_get("message_count").map_err(err)?),
                created_at: from_ms(row.try_get("created_at_ms").map_err(err)?),
            })
        }

        /// The checkpoint of `load`'s one query: its columns, its body (column 7), the count of
        /// stored messages from `from` on (8) and those messages as one JSON array (9).
        fn checkpoint_from_row(
            row: &$row,
            thread_id: &str,
            from: u64,
        ) -> Result<Checkpoint, PersistError> {
            let err = |e| PersistError::backend("get", e);
            let meta = meta_from_row(row)?;
            let body: &str = row.try_get(7).map_err(err)?;
            let stored: i64 = row.try_get(8).map_err(err)?;
            let messages: &str = row.try_get(9).map_err(err)?;
            super::sql_shared::checkpoint_from_columns(meta, body, stored, messages, thread_id, from)
        }

        fn thread_from_row(row: &$row) -> Result<ThreadInfo, PersistError> {
            let err = |e| PersistError::backend("threads", e);
            let parent_thread: Option<String> = row.try_get("parent_thread").map_err(err)?;
            let parent_step: Option<i64> = row.try_get("parent_step").map_err(err)?;
            Ok(ThreadInfo {
                thread_id: row.try_get("thread_id").map_err(err)?,
                latest_step: to_u64(row.try_get("latest_step").map_err(err)?),
                message_count: to_u64(row.try_get("message_count").map_err(err)?),
                forked_from: parent_thread
                    .zip(parent_step)
                    .map(|(t, s)| CheckpointRef::new(t, to_u64(s))),
                created_at: from_ms(row.try_get("created_at_ms").map_err(err)?),
                updated_at: from_ms(row.try_get("updated_at_ms").map_err(err)?),
            })
        }

        fn lease_from_row(thread_id: &str, worker: &str, row: &$row) -> Lease {
            Lease {
                thread_id: thread_id.to_string(),
                worker: worker.to_string(),
                token: to_u64(row.get(0)),
                expires_at: from_ms(row.get(1)),
            }
        }

        /// What a refused writer finds: the row of a `SEEN` query (the thread's step, its
        /// lease's worker, token and expiry, each NULL when absent, and the database's clock).
        fn seen_from_row(row: &$row) -> Result<Seen, PersistError> {
            let err = |e| PersistError::backend("put", e);
            let found: Option<i64> = row.try_get(0).map_err(err)?;
            let worker: Option<String> = row.try_get(1).map_err(err)?;
            let token: Option<i64> = row.try_get(2).map_err(err)?;
            let expires: Option<i64> = row.try_get(3).map_err(err)?;
            Ok(Seen {
                found: found.map(to_u64),
                lease: worker.zip(token).zip(expires).map(|((worker, token), expires_at_ms)| {
                    LeaseRow {
                        worker,
                        token: to_u64(token),
                        expires_at_ms,
                    }
                }),
                now_ms: row.try_get(4).map_err(err)?,
            })
        }

        /// Whether `load`'s row (column 10) found the caller's checkpoint `known` unchanged.
        fn base_matches(row: &$row) -> Result<bool, PersistError> {
            let found: i64 = row
                .try_get(10)
                .map_err(|e| PersistError::backend("get", e))?;
            Ok(found == 1)
        }

        impl $backend {
            async fn history_inner(
                &self,
                thread_id: &str,
                n: usize,
            ) -> Result<Vec<CheckpointMeta>, PersistError> {
                sqlx::query(
                    "SELECT thread_id, step, parent_thread, parent_step,
                            CAST(format_version AS BIGINT), message_count, created_at_ms
                     FROM agent_checkpoints WHERE thread_id = $1 ORDER BY step DESC LIMIT $2",
                )
                .bind(thread_id)
                .bind(limit(n))
                .fetch_all(&self.pool)
                .await
                .map_err(|e| PersistError::backend("history", e))?
                .iter()
                .map(meta_from_row)
                .collect()
            }

            async fn threads_inner(&self, n: usize) -> Result<Vec<ThreadInfo>, PersistError> {
                sqlx::query(
                    "SELECT thread_id, latest_step, message_count, parent_thread, parent_step,
                            created_at_ms, updated_at_ms
                     FROM agent_threads ORDER BY updated_at_ms DESC, thread_id LIMIT $1",
                )
                .bind(limit(n))
                .fetch_all(&self.pool)
                .await
                .map_err(|e| PersistError::backend("threads", e))?
                .iter()
                .map(thread_from_row)
                .collect()
            }

            async fn orphans_inner(
                &self,
                before: std::time::SystemTime,
                n: usize,
            ) -> Result<Vec<ThreadInfo>, PersistError> {
                // A superset of the running threads (the pattern may match inside a state):
                // the caller reads each candidate's status under a lease.
                sqlx::query(
                    "SELECT t.thread_id, t.latest_step, t.message_count, t.parent_thread,
                            t.parent_step, t.created_at_ms, t.updated_at_ms
                     FROM agent_threads t
                     JOIN agent_checkpoints c
                       ON c.thread_id = t.thread_id AND c.step = t.latest_step
                     WHERE t.updated_at_ms <= $1
                       AND c.body LIKE '%\"status\":\"running\"%'
                       AND NOT EXISTS (SELECT 1 FROM agent_leases l
                         WHERE l.thread_id = t.thread_id AND l.expires_at_ms > $2)
                     ORDER BY t.updated_at_ms, t.thread_id LIMIT $3",
                )
                .bind(to_ms(before))
                .bind(now_ms())
                .bind(limit(n))
                .fetch_all(&self.pool)
                .await
                .map_err(|e| PersistError::backend("orphans", e))?
                .iter()
                .map(thread_from_row)
                .collect()
            }
        }

        fn limit(n: usize) -> i64 {
            i64::try_from(n).unwrap_or(i64::MAX)
        }
    };
}

pub(super) use shared_sql_checkpointer;

/// A loaded checkpoint from its columns: its metadata, its body, the count of stored messages
/// from `from` on and those messages as one JSON array; corrupt when fewer or more messages are
/// stored than the checkpoint covers.
pub(super) fn checkpoint_from_columns(
    meta: super::CheckpointMeta,
    body: &str,
    stored: i64,
    messages: &str,
    thread_id: &str,
    from: u64,
) -> Result<super::Checkpoint, super::PersistError> {
    use super::format::{checkpoint_from_body, decode_body_str, decode_messages};
    let body = decode_body_str(meta.format_version, body)?;
    let messages = decode_messages(messages)?;
    let expected = meta.message_count.saturating_sub(from);
    if stored as u64 != expected || messages.len() as u64 != expected {
        return Err(super::PersistError::corrupt(
            "messages",
            format!(
                "checkpoint {} of `{thread_id}` covers {} messages, {} are stored",
                meta.step,
                meta.message_count,
                from + stored as u64
            ),
        ));
    }
    Ok(checkpoint_from_body(
        meta.thread_id,
        meta.step,
        meta.parent,
        meta.format_version,
        messages,
        body,
        meta.created_at,
    ))
}
