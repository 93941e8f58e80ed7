//! The SQLite write script's guard is told from other failures by SQLite's error kind, not by
//! the text of the message.

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PersistError, SqliteCheckpointer};
use serde_json::json;

/// A failure inside the write whose message happens to say "NOT NULL" is the database's
/// failure, not a lost lease (the guard's own error is `SQLITE_CONSTRAINT_NOTNULL`; this one is
/// a trigger's `SQLITE_CONSTRAINT_TRIGGER`).
#[tokio::test]
async fn a_database_error_that_mentions_not_null_is_not_a_lost_lease() {
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    let state = json!({});
    let start = [Message::user("start")];
    cp.put(CheckpointWrite::first("t", &start, &state))
        .await
        .unwrap();
    let lease = cp
        .acquire_lease("t", "worker-a", std::time::Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    sqlx::query(
        "CREATE TRIGGER refuse BEFORE INSERT ON agent_checkpoints
         BEGIN SELECT RAISE(ABORT, 'NOT NULL: the audit column is missing'); END",
    )
    .execute(cp.pool())
    .await
    .unwrap();

    let next = [Message::assistant("next")];
    let err = cp
        .put(CheckpointWrite::next("t", 1, &next, &state).lease(&lease))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            PersistError::Backend {
                operation: "put",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("audit column"), "{err}");
    // Nothing of the write stayed, and the lease still works once the trigger is gone.
    assert_eq!(cp.latest("t").await.unwrap().unwrap().step, 1);
    sqlx::query("DROP TRIGGER refuse")
        .execute(cp.pool())
        .await
        .unwrap();
    cp.put(CheckpointWrite::next("t", 1, &next, &state).lease(&lease))
        .await
        .unwrap();
}
