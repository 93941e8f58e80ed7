//! The [`Checkpointer`] trait: where checkpoints are saved and loaded.

use std::time::Duration;

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
}
