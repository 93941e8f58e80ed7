//! The lease cases every checkpointer must pass: who may write a leased thread, and what a
//! worker whose lease was taken over is told.

use std::time::Duration;

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PersistError};
use serde_json::json;

const LONG: Duration = Duration::from_secs(60);

async fn texts(cp: &dyn Checkpointer, thread: &str) -> Vec<String> {
    let latest = cp.latest(thread).await.unwrap().unwrap();
    latest.messages.iter().map(Message::text).collect()
}

pub async fn a_write_without_the_lease_on_a_leased_thread_is_refused(cp: &dyn Checkpointer) {
    let state = json!({});
    let start = [Message::user("start")];
    cp.put(CheckpointWrite::first("held", &start, &state))
        .await
        .unwrap();
    let lease = cp
        .acquire_lease("held", "worker-a", LONG)
        .await
        .unwrap()
        .expect("free");

    let intruder = [Message::assistant("intruder")];
    let err = cp
        .put(CheckpointWrite::next("held", 1, &intruder, &state))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PersistError::Leased { thread_id, worker }
            if thread_id == "held" && worker == "worker-a"),
        "{err:?}"
    );
    assert!(err.to_string().contains("worker-a"), "{err}");
    // A new thread cannot be started under another worker's lease either.
    let other = cp.acquire_lease("fresh", "worker-a", LONG).await.unwrap();
    assert!(other.is_some());
    let err = cp
        .put(CheckpointWrite::first("fresh", &intruder, &state))
        .await
        .unwrap_err();
    assert!(matches!(err, PersistError::Leased { .. }), "{err:?}");
    assert!(cp.latest("fresh").await.unwrap().is_none());

    // The holder writes; the refused write left nothing behind.
    let mine = [Message::assistant("mine")];
    cp.put(CheckpointWrite::next("held", 1, &mine, &state).lease(&lease))
        .await
        .unwrap();
    assert_eq!(texts(cp, "held").await, ["start", "mine"]);

    // Released, the thread takes writes without a lease again.
    cp.release_lease(&lease).await.unwrap();
    let after = [Message::assistant("after release")];
    cp.put(CheckpointWrite::next("held", 2, &after, &state))
        .await
        .unwrap();
    assert_eq!(texts(cp, "held").await, ["start", "mine", "after release"]);
}

pub async fn an_expired_lease_no_longer_refuses_writes_without_one(cp: &dyn Checkpointer) {
    let state = json!({});
    let start = [Message::user("start")];
    cp.put(CheckpointWrite::first("lapsed", &start, &state))
        .await
        .unwrap();
    let lease = cp
        .acquire_lease("lapsed", "worker-a", Duration::from_millis(50))
        .await
        .unwrap()
        .expect("free");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(lease.is_expired());
    let next = [Message::assistant("next")];
    cp.put(CheckpointWrite::next("lapsed", 1, &next, &state))
        .await
        .unwrap();
}

pub async fn a_fenced_write_after_the_thread_moved_on_is_a_lost_lease(cp: &dyn Checkpointer) {
    let state = json!({});
    let start = [Message::user("start")];
    cp.put(CheckpointWrite::first("fenced", &start, &state))
        .await
        .unwrap();
    let old = cp
        .acquire_lease("fenced", "worker-a", Duration::from_millis(50))
        .await
        .unwrap()
        .expect("free");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let new = cp
        .acquire_lease("fenced", "worker-b", LONG)
        .await
        .unwrap()
        .expect("expired, so taken over");
    // The new holder advances the thread past the step the old one read.
    let moved = [Message::assistant("moved on")];
    cp.put(CheckpointWrite::next("fenced", 1, &moved, &state).lease(&new))
        .await
        .unwrap();

    // The old holder's late write, from step 1: its lease is gone, and that is what it hears
    // (not a conflict, which would invite it to reload and try again).
    let late = [Message::assistant("late")];
    let err = cp
        .put(CheckpointWrite::next("fenced", 1, &late, &state).lease(&old))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PersistError::LeaseLost { thread_id } if thread_id == "fenced"),
        "{err:?}"
    );
    // And from the step it would find after reloading: still the lost lease.
    let err = cp
        .put(CheckpointWrite::next("fenced", 2, &late, &state).lease(&old))
        .await
        .unwrap_err();
    assert!(matches!(err, PersistError::LeaseLost { .. }), "{err:?}");
    assert_eq!(texts(cp, "fenced").await, ["start", "moved on"]);

    // A stale step under a lease that is still held is a conflict.
    let stale = [Message::assistant("stale")];
    let err = cp
        .put(CheckpointWrite::next("fenced", 1, &stale, &state).lease(&new))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            PersistError::Conflict {
                expected: Some(1),
                found: Some(2),
                ..
            }
        ),
        "{err:?}"
    );
}
