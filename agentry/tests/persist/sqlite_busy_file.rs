//! A SQLite file another writer holds: a step waits for it (on the blocking pool, not on the
//! caller's executor) and is written once the other writer is done; loads do not wait at all.

use std::time::Duration;

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, SqliteCheckpointer};
use serde_json::json;
use sqlx::Connection;

#[tokio::test(flavor = "current_thread")]
async fn a_step_waits_for_another_writer_without_blocking_the_executor() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let cp = SqliteCheckpointer::open(&path).await.unwrap();
    let state = json!({});
    let first = [Message::user("start")];
    cp.put(CheckpointWrite::first("t", &first, &state))
        .await
        .unwrap();

    // Another writer (as another process would) takes the file's write lock and keeps it.
    let url = format!("sqlite://{}", path.display());
    let mut other = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();

    let next = [Message::assistant("next")];
    let put = cp.put(CheckpointWrite::next("t", 1, &next, &state));
    tokio::pin!(put);
    // The executor's one thread keeps running other tasks while the step waits: the
    // timer fires, and a load answers at once (a WAL reader does not wait for a writer).
    let waited = tokio::select! {
        done = &mut put => panic!("the step did not wait for the other writer: {done:?}"),
        () = tokio::time::sleep(Duration::from_millis(300)) => true,
    };
    assert!(waited);
    let seen = tokio::time::timeout(Duration::from_secs(2), cp.latest("t"))
        .await
        .expect("a load waited for the writer")
        .unwrap()
        .unwrap();
    assert_eq!(seen.step, 1, "the waiting step is not written yet");

    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    let meta = tokio::time::timeout(Duration::from_secs(5), &mut put)
        .await
        .expect("the step did not go on once the file was free")
        .unwrap();
    assert_eq!((meta.step, meta.message_count), (2, 2));
    let latest = cp.latest("t").await.unwrap().unwrap();
    assert_eq!(latest.step, 2);
    assert_eq!(latest.messages.len(), 2);
}

/// Many steps in a row: the connection starts WAL checkpoints of its own (it does not
/// checkpoint on commit), so the WAL does not grow without bound, and every step reads back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_is_checkpointed_as_steps_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let cp = SqliteCheckpointer::open(&path).await.unwrap();
    let state = json!({ "n": 0 });
    let body = "x".repeat(2000);
    let message = [Message::assistant(body.as_str())];
    let mut step = cp
        .put(CheckpointWrite::first("t", &message, &state))
        .await
        .unwrap()
        .step;
    let wal = path.with_extension("db-wal");
    let mut largest = 0;
    for _ in 0..2_000 {
        step = cp
            .put(CheckpointWrite::next("t", step, &message, &state))
            .await
            .unwrap()
            .step;
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    // 2,000 steps of ≈ 5 pages would be ≈ 40 MB of WAL without checkpoints; SQLite reuses the
    // WAL from its start once a checkpoint has copied it all.
    assert!(largest < 12 << 20, "the WAL grew to {largest} bytes");
    let latest = cp.latest("t").await.unwrap().unwrap();
    assert_eq!(latest.step, 2_001);
    assert_eq!(latest.messages.len(), 2_001);
}
