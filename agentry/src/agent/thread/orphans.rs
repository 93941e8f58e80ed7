//! Orphan recovery: threads left running by workers that died, found and resumed under a
//! fresh lease by [`Agent::recover_orphans`].

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::{ThreadError, ThreadState, ThreadStatus};
use crate::agent::IntoContext;
use crate::agent::builder::Agent;
use crate::agent::toolset::Toolset;
use crate::output::OutputSpec;
use crate::run::{Outcome, RunError, RunErrorKind};

/// How many orphans one call of [`Agent::recover_orphans`] looks at, at most.
const PER_CALL: usize = 64;

/// A thread [`Agent::recover_orphans`] recovered, and how its run ended.
#[derive(Debug)]
#[non_exhaustive]
pub struct Orphan<T, S> {
    /// The thread.
    pub thread_id: String,
    /// The recovered run's outcome (see [`Thread::recover`](super::Thread::recover)).
    pub outcome: Result<Outcome<T, S>, RunError>,
}

/// What [`Agent::recover_orphans`] returns.
type Recovered<T, S> = Result<Vec<Orphan<T, S>>, ThreadError>;

impl<T, O, C, S> Agent<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: ThreadState,
{
    /// Finds threads that workers left in the middle of a run — the thread says a run is
    /// going on, nothing was written to it for `older_than`, and no worker holds an
    /// unexpired lease on it (a live worker's heartbeat keeps its lease) — and recovers each
    /// ([`Thread::recover`](super::Thread::recover)) as `worker`, under a fresh lease of
    /// `ttl` that a heartbeat renews, released when the run ends. Several workers may call it
    /// at once: each thread is recovered by the one that takes its lease, the others pass it
    /// by.
    ///
    /// Looks at up to 64 threads, oldest first, one after the other; call it again (on a
    /// timer, say) for more. Returns the threads it recovered, each with its run's outcome;
    /// fails only when the checkpointer cannot list or lease threads.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::time::Duration;
    /// use agentry::agent::{AgentBuilder, NoTools};
    /// use agentry::persist::InMemoryCheckpointer;
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hi.")]), NoTools)
    ///     .checkpointer(InMemoryCheckpointer::default())
    ///     .build();
    /// let recovered = agent
    ///     .recover_orphans(Duration::from_secs(60), "worker-a", Duration::from_secs(30), ())
    ///     .await
    ///     .unwrap();
    /// assert!(recovered.is_empty()); // no thread was left running
    /// # });
    /// ```
    pub fn recover_orphans<'a>(
        &'a self,
        older_than: Duration,
        worker: &'a str,
        ttl: Duration,
        context: impl IntoContext<C>,
    ) -> futures::future::BoxFuture<'a, Recovered<O::Output, S>> {
        // Not an `async fn`: the returned future's type does not name `context`, so a context
        // of the wrong type is one error at the call, not one more at each `.await`.
        Box::pin(self.recover_orphans_with(older_than, worker, ttl, context.into_context()))
    }

    async fn recover_orphans_with(
        &self,
        older_than: Duration,
        worker: &str,
        ttl: Duration,
        context: Arc<C>,
    ) -> Recovered<O::Output, S> {
        let checkpointer = self
            .parts
            .checkpointer
            .as_ref()
            .ok_or(ThreadError::NoCheckpointer)?;
        let before = SystemTime::now()
            .checked_sub(older_than)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let candidates = checkpointer.orphans(before, PER_CALL).await?;
        let mut recovered = Vec::new();
        for candidate in candidates {
            let id = candidate.thread_id;
            let Some(lease) = checkpointer.acquire_lease(&id, worker, ttl).await? else {
                continue; // a live worker holds it, or another recoverer took it first
            };
            let thread = self
                .thread(id.clone())
                .with_lease(lease.clone())
                .lease_ttl(ttl);
            // Its status is read under the lease: another recoverer may have finished it
            // meanwhile, and then it is passed by.
            let outcome = thread.recover(Arc::clone(&context)).await;
            let passed = matches!(
                &outcome,
                Err(e) if matches!(e.kind(), RunErrorKind::Thread(ThreadError::Status { found, .. }) if *found != ThreadStatus::Running)
            );
            let outcome = (!passed).then_some(outcome);
            if let Err(e) = checkpointer.release_lease(&lease).await {
                tracing::warn!(thread = %id, error = %e, "a recovered thread's lease could not be released; it expires");
            }
            if let Some(outcome) = outcome {
                recovered.push(Orphan {
                    thread_id: id,
                    outcome,
                });
            }
        }
        Ok(recovered)
    }
}
