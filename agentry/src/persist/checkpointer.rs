//! The [`Checkpointer`] trait: where checkpoints are saved and loaded.

use std::time::{Duration, SystemTime};

use futures::FutureExt;
use futures::future::BoxFuture;

use super::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Lease, PersistError, ThreadInfo,
};

/// Saves and loads the checkpoints of threads. Object-safe: share one as
/// `Arc<dyn Checkpointer>`.
///
/// Every backend passes the same conformance suite (`agentry/tests/persist/`, run against SQLite, Postgres and memory).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a checkpointer",
    note = "use `InMemoryCheckpointer`, `SqliteCheckpointer` or `PostgresCheckpointer` from `agentry::persist`, or implement `Checkpointer`"
)]
pub trait Checkpointer: Send + Sync + 'static {
    /// Saves one step atomically: the new messages, the checkpoint and the thread's position,
    /// all or nothing. Refused with [`PersistError::Conflict`] when the thread is not at
    /// `write.after`, and [`PersistError::LeaseLost`] when `write.lease` was taken over (a
    /// fenced worker learns that first, whatever step the thread is at). A write without a
    /// lease is refused with [`PersistError::Leased`] while another worker holds an unexpired
    /// lease on the thread.
    fn put<'a>(
        &'a self,
        write: CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>>;

    /// The thread's newest checkpoint, with its messages; `None` for an unknown thread.
    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>>;

    /// Checkpoint `step` of the thread, with the messages it covers.
    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>>;

    /// The thread's checkpoints, newest first, at most `limit`.
    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<CheckpointMeta>, PersistError>>;

    /// Threads, most recently updated first, at most `limit`.
    fn threads<'a>(&'a self, limit: usize) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>>;

    /// Deletes a thread with its messages, checkpoints and lease; returns whether it existed.
    fn delete_thread<'a>(&'a self, thread_id: &'a str)
    -> BoxFuture<'a, Result<bool, PersistError>>;

    /// Time travel: starts the new thread `new_thread_id` from checkpoint `from`. Its first
    /// checkpoint (step 1) holds `from`'s messages, state, usage, counters and pause, with
    /// `from` as parent; the source thread is unchanged. Refused with
    /// [`PersistError::Conflict`] when `new_thread_id` exists and [`PersistError::NotFound`]
    /// when `from` does not.
    fn fork<'a>(
        &'a self,
        from: &'a CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>>;

    /// Gives the thread to `worker` for `ttl` when no other worker holds an unexpired lease on
    /// it (the same worker may re-acquire); `None` when another worker holds it.
    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<Lease>, PersistError>>;

    /// Extends a lease to `ttl` from now. [`PersistError::LeaseLost`] when another worker took
    /// the thread over or the lease was released.
    fn renew_lease<'a>(
        &'a self,
        lease: &'a Lease,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, PersistError>>;

    /// Gives the thread up, so another worker may take it at once. Releasing a lease that was
    /// already taken over does nothing.
    fn release_lease<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), PersistError>>;

    /// The thread's newest checkpoint holding only the messages after the first
    /// `known.message_count`: for a caller that keeps the thread's messages up to its checkpoint
    /// `known` and loads only what is newer (an agent's thread cache does). `Ok(None)` when
    /// `known` is no longer a checkpoint of the thread (same step, message count and time
    /// written) — the thread was deleted, or replaced by another of the same id — or the
    /// thread is unknown: load it whole with [`latest`](Self::latest) then.
    ///
    /// The SQL backends answer in one query; this default loads the whole checkpoint and
    /// checks `known` in the thread's history.
    fn latest_since<'a>(
        &'a self,
        known: &'a CheckpointMeta,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        async move {
            let Some(mut latest) = self.latest(&known.thread_id).await? else {
                return Ok(None);
            };
            let (Some(back), Ok(held)) = (
                latest.step.checked_sub(known.step),
                usize::try_from(known.message_count),
            ) else {
                return Ok(None);
            };
            let back = usize::try_from(back)
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let same = self
                .history(&known.thread_id, back)
                .await?
                .iter()
                .any(|m| m == known);
            if !same || latest.messages.len() < held {
                return Ok(None);
            }
            latest.messages.drain(..held);
            Ok(Some(latest))
        }
        .boxed()
    }

    /// Threads a dead worker may have left in the middle of a run: their newest checkpoint,
    /// written at or before `before`, says a run is going on (an agent's `"status":"running"`
    /// in its counters). Oldest first, at most `limit`. Candidates only: the SQL backends
    /// match the status in the stored text and leave out threads a worker holds an unexpired
    /// lease on; the caller takes each thread's lease and reads its status before touching
    /// it (as [`Agent::recover_orphans`](crate::agent::Agent::recover_orphans) does).
    fn orphans<'a>(
        &'a self,
        before: SystemTime,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        async move {
            let mut stale: Vec<ThreadInfo> = self
                .threads(usize::MAX)
                .await?
                .into_iter()
                .filter(|t| t.updated_at <= before)
                .collect();
            stale.sort_by(|a, b| (a.updated_at, &a.thread_id).cmp(&(b.updated_at, &b.thread_id)));
            let mut out = Vec::new();
            for thread in stale {
                if out.len() >= limit {
                    break;
                }
                let running = self.latest(&thread.thread_id).await?.is_some_and(|c| {
                    c.counters.get("status").and_then(|s| s.as_str()) == Some("running")
                });
                if running {
                    out.push(thread);
                }
            }
            Ok(out)
        }
        .boxed()
    }
}
