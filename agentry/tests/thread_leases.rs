//! Runs under a lease: the heartbeat keeps the thread through a run longer than the lease's
//! TTL, a run whose lease is taken over (or runs out while renewals fail) stops before
//! writing, and `recover_orphans` resumes a thread a dead worker left running, under a fresh
//! lease.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;

use agentry::agent::{Outcome, RunErrorKind, ThreadError, ThreadStatus};
use agentry::persist::{Checkpointer, InMemoryCheckpointer, PersistError, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

const TTL: Duration = Duration::from_millis(150);

#[derive(Default)]
struct Work {
    /// How long each `work` call takes.
    takes_ms: u64,
    /// How many `work` calls completed.
    done: AtomicUsize,
}

/// Do some work.
///
/// # Arguments
/// * `n` - Which piece.
#[tool]
async fn work(n: u32, ctx: Context<Work>) -> String {
    tokio::time::sleep(Duration::from_millis(ctx.takes_ms)).await;
    ctx.done.fetch_add(1, Ordering::SeqCst);
    format!("done {n}")
}

/// You work.
#[agent(tools(work), context = Work)]
struct Worker;

fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call("work", serde_json::json!({"n": 1})),
        Turn::tool_call("work", serde_json::json!({"n": 2})),
        Turn::text("all done"),
    ])
}

#[tokio::test]
async fn a_run_longer_than_its_lease_ttl_keeps_the_thread() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent = Worker::builder(script())
        .shared_checkpointer(cp.clone())
        .build();
    let lease = cp
        .acquire_lease("long", "worker-a", TTL)
        .await
        .unwrap()
        .unwrap();
    let work = Arc::new(Work {
        takes_ms: 4 * TTL.as_millis() as u64,
        ..Work::default()
    });
    let thread = agent.thread("long").with_lease(lease.clone());
    let run = thread.run("go", Arc::clone(&work));
    let thief = async {
        // All through the run (two calls of 4 TTLs each), another worker never gets the thread.
        let mut tries = 0;
        loop {
            tokio::time::sleep(TTL / 2).await;
            if work.done.load(Ordering::SeqCst) == 2 {
                break;
            }
            tries += 1;
            let taken = cp.acquire_lease("long", "worker-b", TTL).await.unwrap();
            assert!(taken.is_none(), "worker-b took the thread mid-run");
        }
        assert!(tries >= 8, "the run ended early");
    };
    let (result, ()) = tokio::join!(run, thief);
    let result = result.unwrap();
    assert_eq!(result.output, "all done");
    assert_eq!(work.done.load(Ordering::SeqCst), 2);
    cp.release_lease(&lease).await.unwrap();
}

#[tokio::test]
async fn a_run_whose_lease_is_taken_over_stops_before_writing() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent = Worker::builder(script())
        .shared_checkpointer(cp.clone())
        .build();
    let lease = cp
        .acquire_lease("lost", "worker-a", TTL)
        .await
        .unwrap()
        .unwrap();
    let work = Arc::new(Work {
        takes_ms: 4 * TTL.as_millis() as u64,
        ..Work::default()
    });
    let thread = agent.thread("lost").with_lease(lease.clone());
    let run = thread.run("go", Arc::clone(&work));
    let takeover = async {
        // While the first call runs, the lease is released and worker-b takes the thread.
        tokio::time::sleep(TTL / 2).await;
        cp.release_lease(&lease).await.unwrap();
        cp.acquire_lease("lost", "worker-b", Duration::from_secs(60))
            .await
            .unwrap()
            .expect("the released thread is free");
    };
    let (result, ()) = tokio::join!(run, takeover);
    let err = result.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Persist(PersistError::LeaseLost { .. }))
        ),
        "{err:?}"
    );
    // The run stopped mid-call: nothing completed, and the thread holds the answer whose call
    // was in flight (for worker-b to recover), not its result.
    assert_eq!(work.done.load(Ordering::SeqCst), 0);
    let latest = cp.latest("lost").await.unwrap().unwrap();
    assert!(
        matches!(latest.messages.last(), Some(Message::Assistant(a)) if !a.tool_calls.is_empty()),
        "{:?}",
        latest.messages
    );
}

#[tokio::test]
async fn recover_orphans_resumes_a_thread_a_dead_worker_left_running() {
    let dir = tempfile::tempdir().unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    // The "dead" worker: its run is dropped while its first call runs (as a killed process
    // would leave it), its lease left to expire.
    let dead = Worker::builder(script())
        .shared_checkpointer(Arc::clone(&cp))
        .build();
    let lease = cp
        .acquire_lease("orphan", "worker-dead", TTL)
        .await
        .unwrap()
        .unwrap();
    let slow = Arc::new(Work {
        takes_ms: 60_000,
        ..Work::default()
    });
    let dropped = tokio::time::timeout(
        TTL / 2,
        dead.thread("orphan").with_lease(lease).run("go", slow),
    )
    .await;
    assert!(dropped.is_err(), "the run was to be cut short");
    assert_eq!(
        dead.thread("orphan").status().await.unwrap(),
        ThreadStatus::Running
    );

    let model = ScriptedModel::new([
        Turn::tool_call("work", serde_json::json!({"n": 2})),
        Turn::text("all done"),
    ]);
    let rescuer = Worker::builder(model)
        .shared_checkpointer(Arc::clone(&cp))
        .build();
    let work = Arc::new(Work::default());
    // The dead worker's lease has not run out yet: the thread is not an orphan.
    let early = rescuer
        .recover_orphans(Duration::ZERO, "worker-r", TTL, Arc::clone(&work))
        .await
        .unwrap();
    assert!(early.is_empty(), "{early:?}");
    // Nor is a thread written to more recently than `older_than`.
    tokio::time::sleep(TTL * 2).await;
    let young = rescuer
        .recover_orphans(
            Duration::from_secs(3600),
            "worker-r",
            TTL,
            Arc::clone(&work),
        )
        .await
        .unwrap();
    assert!(young.is_empty(), "{young:?}");

    let recovered = rescuer
        .recover_orphans(Duration::ZERO, "worker-r", TTL, Arc::clone(&work))
        .await
        .unwrap();
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0].thread_id, "orphan");
    let Ok(Outcome::Finished(result)) = &recovered[0].outcome else {
        panic!("{:?}", recovered[0].outcome);
    };
    assert_eq!(result.output, "all done");
    // The call in flight at the "crash" was not run again (`work` is not idempotent).
    assert_eq!(work.done.load(Ordering::SeqCst), 1);
    assert!(
        result
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool(t) if t.is_error)),
        "the lost call is reported"
    );
    assert_eq!(
        rescuer.thread("orphan").status().await.unwrap(),
        ThreadStatus::Idle
    );
    // The rescuer's lease was released: another worker takes the thread at once.
    assert!(
        cp.acquire_lease("orphan", "worker-c", TTL)
            .await
            .unwrap()
            .is_some()
    );
    // Nothing is left to recover.
    let again = rescuer
        .recover_orphans(Duration::ZERO, "worker-r", TTL, work)
        .await
        .unwrap();
    assert!(again.is_empty());
}

/// A checkpointer whose lease renewals fail (a database that stopped answering them).
struct NoRenewals(InMemoryCheckpointer);

impl Checkpointer for NoRenewals {
    fn put<'a>(
        &'a self,
        write: agentry::persist::CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<agentry::persist::CheckpointMeta, PersistError>> {
        self.0.put(write)
    }
    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<agentry::persist::Checkpoint>, PersistError>> {
        self.0.latest(thread_id)
    }
    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<agentry::persist::Checkpoint>, PersistError>> {
        self.0.get(thread_id, step)
    }
    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<agentry::persist::CheckpointMeta>, PersistError>> {
        self.0.history(thread_id, limit)
    }
    fn threads<'a>(
        &'a self,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<agentry::persist::ThreadInfo>, PersistError>> {
        self.0.threads(limit)
    }
    fn delete_thread<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PersistError>> {
        self.0.delete_thread(thread_id)
    }
    fn fork<'a>(
        &'a self,
        from: &'a agentry::persist::CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<agentry::persist::CheckpointMeta, PersistError>> {
        self.0.fork(from, new_thread_id)
    }
    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<agentry::persist::Lease>, PersistError>> {
        self.0.acquire_lease(thread_id, worker, ttl)
    }
    fn renew_lease<'a>(
        &'a self,
        _lease: &'a agentry::persist::Lease,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<agentry::persist::Lease, PersistError>> {
        Box::pin(async {
            Err(PersistError::Invalid {
                what: "connection",
                reason: "the database does not answer".into(),
            })
        })
    }
    fn release_lease<'a>(
        &'a self,
        lease: &'a agentry::persist::Lease,
    ) -> BoxFuture<'a, Result<(), PersistError>> {
        self.0.release_lease(lease)
    }
}

#[tokio::test]
async fn a_run_that_cannot_renew_its_lease_stops_once_it_runs_out() {
    let cp = Arc::new(NoRenewals(InMemoryCheckpointer::default()));
    let agent = Worker::builder(script())
        .shared_checkpointer(cp.clone())
        .build();
    let lease = cp
        .acquire_lease("cut", "worker-a", TTL)
        .await
        .unwrap()
        .unwrap();
    let work = Arc::new(Work {
        takes_ms: 10 * TTL.as_millis() as u64,
        ..Work::default()
    });
    let started = std::time::Instant::now();
    let err = agent
        .thread("cut")
        .with_lease(lease)
        .lease_ttl(TTL)
        .run("go", Arc::clone(&work))
        .await
        .unwrap_err();
    let PersistError::LeaseExpired { reason, .. } = (match err.kind() {
        RunErrorKind::Thread(ThreadError::Persist(e)) => e,
        other => panic!("{other:?}"),
    }) else {
        panic!("{err:?}");
    };
    assert!(reason.contains("does not answer"), "{reason}");
    // Stopped soon after the lease ran out, mid-call, without its result.
    assert!(started.elapsed() < 5 * TTL, "{:?}", started.elapsed());
    assert_eq!(work.done.load(Ordering::SeqCst), 0);
    let latest = cp.latest("cut").await.unwrap().unwrap();
    assert!(
        matches!(latest.messages.last(), Some(Message::Assistant(a)) if !a.tool_calls.is_empty())
    );
}
