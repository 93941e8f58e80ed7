//! Keeping a run's lease: while a run under a lease goes on, a heartbeat renews the lease every
//! third of its TTL, so a run longer than the TTL keeps its thread. A worker that cannot renew
//! stops: at once when the lease was taken over or has run out, and in any case before its
//! next write (the journal asks [`Keeper::check`] first).

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::persist::{Checkpointer, Lease, PersistError};

/// The lease of a run, as renewed so far.
#[derive(Debug)]
pub(crate) struct Keeper {
    ttl: Duration,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    lease: Lease,
    /// Set once the lease was taken over or released.
    lost: bool,
    /// Why the last renewal failed, when it did.
    failure: Option<String>,
}

impl Keeper {
    pub(crate) fn new(lease: Lease, ttl: Duration) -> Self {
        Keeper {
            ttl,
            state: Mutex::new(State {
                lease,
                lost: false,
                failure: None,
            }),
        }
    }

    /// The TTL of a lease given without one: the time it had left, at least 100 ms.
    pub(crate) fn ttl_left(lease: &Lease) -> Duration {
        let left = lease
            .expires_at
            .duration_since(SystemTime::now())
            .unwrap_or_default();
        left.max(Duration::from_millis(100))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the run may still write: not when its lease was taken over, nor when the
    /// lease's time ran out while renewals failed. (A lease that ran out before its first
    /// renewal is still its holder's until another worker takes it: the write's fencing
    /// token decides.)
    pub(crate) fn check(&self) -> Result<(), PersistError> {
        let state = self.lock();
        let thread_id = state.lease.thread_id.clone();
        if state.lost {
            return Err(PersistError::LeaseLost { thread_id });
        }
        if let Some(reason) = &state.failure
            && state.lease.is_expired()
        {
            return Err(PersistError::LeaseExpired {
                thread_id,
                reason: reason.clone(),
            });
        }
        Ok(())
    }

    /// Renews the lease every third of its TTL until the run can no longer hold it; returns
    /// why then (the run stops). A renewal that fails for another reason (the database did
    /// not answer) is tried again at the next beat, until the lease runs out.
    pub(crate) async fn beat(&self, checkpointer: &dyn Checkpointer) -> PersistError {
        let every = (self.ttl / 3).max(Duration::from_millis(1));
        loop {
            tokio::time::sleep(every).await;
            let lease = self.lock().lease.clone();
            let renewed =
                tokio::time::timeout(every, checkpointer.renew_lease(&lease, self.ttl)).await;
            let mut state = self.lock();
            match renewed {
                Ok(Ok(lease)) => {
                    state.lease = lease;
                    state.failure = None;
                }
                Ok(Err(PersistError::LeaseLost { .. })) => state.lost = true,
                Ok(Err(e)) => state.failure = Some(e.to_string()),
                Err(_) => state.failure = Some(format!("no answer within {every:?}")),
            }
            tracing::trace!(thread = %state.lease.thread_id, lost = state.lost, failure = ?state.failure, "lease heartbeat");
            drop(state);
            if let Err(e) = self.check() {
                tracing::warn!(error = %e, "the run's lease could not be kept: the run stops");
                return e;
            }
        }
    }
}

/// Runs `run`, raced by `keeper`'s heartbeat when there is one: the run's output, or why the
/// lease could not be kept (the run is dropped where it was).
pub(crate) async fn kept<T>(
    keeper: Option<&Keeper>,
    checkpointer: &dyn Checkpointer,
    run: impl std::future::Future<Output = T>,
) -> Result<T, PersistError> {
    let Some(keeper) = keeper else {
        return Ok(run.await);
    };
    let beat = std::pin::pin!(keeper.beat(checkpointer));
    match futures::future::select(std::pin::pin!(run), beat).await {
        futures::future::Either::Left((output, _)) => Ok(output),
        futures::future::Either::Right((lost, _)) => Err(lost),
    }
}
